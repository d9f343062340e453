//! [`Glob`]: a path pattern as the ignore and protect lists and `list_files` write it — `*` and
//! `?` within a name, `**` across folders, `[abc]` / `[!abc]` classes, `{a,b}` alternatives, `\`
//! before a character taken as it is — matched against a whole vault path.
//!
//! Each glob becomes a `regex-lite` expression (the small regex engine, without Unicode tables
//! or literal-search accelerators): globset, with the full `regex` engine it builds on, weighed
//! 0.3 MB of the wasm for patterns of a few characters (BENCHMARKS.md, "Size of the plugin").

use regex_lite::Regex;

/// A compiled glob. See the module docs.
#[derive(Debug, Clone)]
pub struct Glob {
    regex: Regex,
}

impl Glob {
    /// Compiles `pattern`, or says what is wrong with it (an unclosed `[` or `{`, a `{` inside
    /// another, a trailing `\`).
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let mut regex = String::from("^");
        translate(pattern, &mut regex, false)?;
        regex.push('$');
        Regex::new(&regex).map(|regex| Glob { regex }).map_err(|e| e.to_string())
    }

    /// Whether the whole of `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        self.regex.is_match(path)
    }
}

/// Appends the regex of `glob` to `out`. `in_braces`: inside `{…}`, where `,` separates
/// alternatives.
fn translate(glob: &str, out: &mut String, in_braces: bool) -> Result<(), String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                let at_start = i == 0 || chars[i - 1] == '/';
                let rest = &chars[i + 2..];
                if at_start && rest.first() == Some(&'/') {
                    // `**/`: any number of folders, none included.
                    out.push_str("(?:.*/)?");
                    i += 3;
                    continue;
                }
                if at_start && rest.is_empty() {
                    // A trailing `**`: everything below.
                    out.push_str(".*");
                } else {
                    // `**` inside a name is a `*`.
                    out.push_str("[^/]*");
                }
                i += 2;
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                let close = chars[i + 1..]
                    .iter()
                    .enumerate()
                    .skip(1)
                    .find(|(_, &c)| c == ']')
                    .map(|(j, _)| i + 1 + j)
                    .ok_or_else(|| format!("unclosed [ in {glob:?}"))?;
                let mut class = &chars[i + 1..close];
                out.push('[');
                if let Some(('!' | '^', rest)) = class.split_first() {
                    out.push('^');
                    class = rest;
                }
                for &m in class {
                    if matches!(m, '\\' | '[' | ']' | '^' | '&' | '~') {
                        out.push('\\');
                    }
                    out.push(m);
                }
                out.push(']');
                i = close + 1;
                continue;
            }
            '{' if in_braces => return Err(format!("a {{ inside another in {glob:?}")),
            '{' => {
                let close = chars[i..].iter().position(|&c| c == '}').map(|j| i + j);
                let close = close.ok_or_else(|| format!("unclosed {{ in {glob:?}"))?;
                let inner: String = chars[i + 1..close].iter().collect();
                out.push_str("(?:");
                for (n, alternative) in inner.split(',').enumerate() {
                    if n > 0 {
                        out.push('|');
                    }
                    translate(alternative, out, true)?;
                }
                out.push(')');
                i = close + 1;
                continue;
            }
            '\\' => {
                let next = chars.get(i + 1).ok_or_else(|| format!("a trailing \\ in {glob:?}"))?;
                push_literal(*next, out);
                i += 2;
                continue;
            }
            c => push_literal(c, out),
        }
        i += 1;
    }
    Ok(())
}

fn push_literal(c: char, out: &mut String) {
    if c.is_ascii_punctuation() {
        out.push('\\');
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(glob: &str, path: &str) -> bool {
        Glob::new(glob).unwrap().is_match(path)
    }

    #[test]
    fn stars_stay_within_a_name_and_double_stars_cross_folders() {
        assert!(matches("*.md", "a.md"));
        assert!(!matches("*.md", "f/a.md"));
        assert!(matches("**/*.md", "a.md"));
        assert!(matches("**/*.md", "f/g/a.md"));
        assert!(!matches("**/*.md", "f/a.mdx"));
        assert!(matches("Journal/**/draft-*.md", "Journal/draft-1.md"));
        assert!(matches("Journal/**/draft-*.md", "Journal/2024/01/draft-1.md"));
        assert!(!matches("Journal/**/draft-*.md", "Journal/2024/final.md"));
        assert!(matches("Archive/**", "Archive/2020/old.md"));
        assert!(!matches("Archive/**", "Archived.md"));
        assert!(matches("a**b", "axxb"));
        assert!(!matches("a**b", "a/b"));
        assert!(matches("?.md", "a.md"));
        assert!(!matches("?.md", "ab.md"));
    }

    #[test]
    fn classes_alternatives_and_escapes() {
        assert!(matches("[abc].md", "b.md"));
        assert!(!matches("[!abc].md", "b.md"));
        assert!(matches("[!abc].md", "d.md"));
        assert!(matches("[]].md", "].md"));
        assert!(matches("*.{md,canvas}", "x.canvas"));
        assert!(!matches("*.{md,canvas}", "x.pdf"));
        assert!(matches("{Daily,Weekly}/*.md", "Weekly/w1.md"));
        assert!(matches("\\*.md", "*.md"));
        assert!(!matches("\\*.md", "a.md"));
        // Regex syntax in a name is taken as it is.
        assert!(matches("notes (1).md", "notes (1).md"));
        assert!(matches("a+b$.md", "a+b$.md"));
        assert!(!matches("a.md", "abmd"));
        assert!(matches("日記/*.md", "日記/今日.md"));
    }

    #[test]
    fn bad_patterns_say_what_is_wrong() {
        assert!(Glob::new("[abc").unwrap_err().contains("unclosed ["));
        assert!(Glob::new("{a,b").unwrap_err().contains("unclosed {"));
        assert!(Glob::new("{a,{b}}").unwrap_err().contains("inside another"));
        assert!(Glob::new("a\\").unwrap_err().contains("trailing"));
    }
}
