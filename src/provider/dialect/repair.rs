//! Tolerant reading of the JSON that models write by hand: cut off at the output limit,
//! single-quoted, with trailing commas, Python literals or bare keys.

use serde_json::Value;

/// Parses `text` as JSON, repairing it first if it does not parse as it is. `None` when even
/// the repaired text is not JSON.
pub fn parse_lenient(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    serde_json::from_str(text).ok().or_else(|| serde_json::from_str(&repair(text)).ok())
}

/// Rewrites almost-JSON into JSON: single-quoted strings become double-quoted, raw newlines
/// and tabs inside strings are escaped, `True`/`False`/`None` become `true`/`false`/`null`,
/// bare keys and words are quoted, trailing commas go, and whatever a truncation left open (a
/// string, an escape, a key without value, objects and arrays) is closed.
pub fn repair(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut closers: Vec<char> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                i = string(&chars, i, &mut out);
                continue;
            }
            '{' => closers.push('}'),
            '[' => closers.push(']'),
            '}' | ']' => {
                drop_trailing_comma(&mut out);
                if closers.last() == Some(&c) {
                    closers.pop();
                } else if closers.contains(&c) {
                    // Close what was left open inside, then this one.
                    while let Some(open) = closers.pop() {
                        if open == c {
                            break;
                        }
                        out.push(open);
                    }
                } else {
                    // A closer with nothing to close: drop it.
                    i += 1;
                    continue;
                }
            }
            c if c.is_ascii_digit() || c == '-' || c == '+' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '.' | '-' | '+')) {
                    i += 1;
                }
                let number: String = chars[start..i].iter().collect();
                let number = number.trim_start_matches('+');
                if serde_json::from_str::<serde_json::Number>(number).is_ok() {
                    out.push_str(number);
                } else {
                    out.push_str(&serde_json::to_string(number).unwrap_or_default());
                }
                continue;
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '$' | '-' | '.')) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let literal = match word.as_str() {
                    "true" | "True" => Some("true"),
                    "false" | "False" => Some("false"),
                    "null" | "None" | "undefined" => Some("null"),
                    _ => None,
                };
                match literal {
                    // A literal used as a key is still a key.
                    Some(lit) if !followed_by_colon(&chars, i) => out.push_str(lit),
                    _ => out.push_str(&serde_json::to_string(&word).unwrap_or_default()),
                }
                continue;
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    // Close what a truncation left open.
    let trimmed_len = out.trim_end().len();
    out.truncate(trimmed_len);
    if out.ends_with(':') {
        out.push_str("null");
    }
    drop_trailing_comma(&mut out);
    while let Some(closer) = closers.pop() {
        if closer == '}' && dangling_key(&out) {
            out.push_str(":null");
        }
        out.push(closer);
        drop_trailing_comma_before_last(&mut out);
    }
    out
}

/// Copies the string starting at `chars[start]` (its opening quote) to `out` as a JSON string,
/// and returns the index after its closing quote (or the end, for an unterminated string).
fn string(chars: &[char], start: usize, out: &mut String) -> usize {
    let quote = chars[start];
    let mut value = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            match chars.get(i + 1) {
                Some('\'') => value.push('\''),
                Some('u') if chars.len() >= i + 6 => {
                    let hex: String = chars[i + 2..i + 6].iter().collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) => {
                            value.push(ch);
                            i += 6;
                            continue;
                        }
                        None => value.push('u'),
                    }
                }
                Some('n') => value.push('\n'),
                Some('t') => value.push('\t'),
                Some('r') => value.push('\r'),
                Some('b') => value.push('\u{8}'),
                Some('f') => value.push('\u{c}'),
                Some(other) => value.push(*other),
                // A truncation right after a backslash: drop it.
                None => {}
            }
            i += 2;
            continue;
        }
        if c == quote {
            i += 1;
            break;
        }
        value.push(c);
        i += 1;
    }
    out.push_str(&serde_json::to_string(&value).unwrap_or_default());
    i
}

fn followed_by_colon(chars: &[char], from: usize) -> bool {
    chars[from..].iter().find(|c| !c.is_whitespace()) == Some(&':')
}

fn drop_trailing_comma(out: &mut String) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
    }
}

fn drop_trailing_comma_before_last(out: &mut String) {
    if let Some(closer) = out.pop() {
        drop_trailing_comma(out);
        out.push(closer);
    }
}

/// Whether `out` ends inside an object with a key that has no value yet (`{"a": 1, "b"`).
fn dangling_key(out: &str) -> bool {
    let trimmed = out.trim_end();
    if !trimmed.ends_with('"') {
        return false;
    }
    // Walk back over the string to what precedes it.
    let bytes = trimmed.as_bytes();
    let mut i = bytes.len() - 1;
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' && (i == 0 || bytes[i - 1] != b'\\') {
            break;
        }
    }
    matches!(trimmed[..i].trim_end().chars().last(), Some('{') | Some(','))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fix(text: &str) -> Value {
        parse_lenient(text).unwrap_or_else(|| panic!("not repaired: {text:?} → {:?}", repair(text)))
    }

    #[test]
    fn valid_json_is_untouched() {
        assert_eq!(
            fix(r#"{"a": [1, 2.5, -3e2], "b": "x\"y", "c": null}"#),
            json!({"a": [1, 2.5, -300.0], "b": "x\"y", "c": null})
        );
    }

    #[test]
    fn single_quotes_python_literals_and_bare_keys() {
        assert_eq!(
            fix("{'path': 'notes/it\\'s.md', 'recursive': True, 'limit': None, note: \"say \\\"hi\\\"\"}"),
            json!({"path": "notes/it's.md", "recursive": true, "limit": null, "note": "say \"hi\""})
        );
        assert_eq!(fix("{'quote': 'a \"b\" c'}"), json!({"quote": "a \"b\" c"}));
    }

    #[test]
    fn trailing_commas_and_raw_newlines() {
        assert_eq!(
            fix("{\"a\": [1, 2,], \"b\": \"line one\nline two\",}"),
            json!({"a": [1, 2], "b": "line one\nline two"})
        );
    }

    #[test]
    fn truncated_arguments_are_closed() {
        assert_eq!(
            fix(r##"{"path": "notes/a.md", "content": "# Title\n\nSome te"##),
            json!({"path": "notes/a.md", "content": "# Title\n\nSome te"})
        );
        assert_eq!(fix(r#"{"paths": ["a.md", "b.md""#), json!({"paths": ["a.md", "b.md"]}));
        assert_eq!(fix(r#"{"a": {"b": 1, "c": "#), json!({"a": {"b": 1, "c": null}}));
        assert_eq!(fix(r#"{"a": 1, "b""#), json!({"a": 1, "b": null}));
        assert_eq!(fix(r#"{"a": "x\"#), json!({"a": "x"}));
        assert_eq!(fix(r#"{"a": [1, {"b": 2"#), json!({"a": [1, {"b": 2}]}));
        assert_eq!(fix("{\"a\": 1,"), json!({"a": 1}));
    }

    #[test]
    fn unicode_survives() {
        assert_eq!(fix("{'title': '日本語 ✓ \\u00e9'}"), json!({"title": "日本語 ✓ é"}));
    }

    #[test]
    fn prose_is_not_json() {
        assert_eq!(parse_lenient(""), None);
        // Words become strings, so prose "parses" only as a lone string, never as an object.
        assert!(!parse_lenient("I will now read the file").is_some_and(|v| v.is_object()));
    }
}
