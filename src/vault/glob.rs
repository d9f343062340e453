//! [`Glob`]: a path pattern as the ignore and protect lists and `list_files` write it — `*` and
//! `?` within a name, `**` across folders, `[abc]` / `[!abc]` classes, `{a,b}` alternatives, `\`
//! before a character taken as it is — matched against a whole vault path.
//!
//! A glob is matched a segment at a time: `**` spans any number of segments, a plain name is
//! compared, a name with only `*` and `?` is scanned by hand, and only a name with classes,
//! alternatives or escapes becomes a `regex-lite` expression (the small regex engine, without
//! Unicode tables or literal-search accelerators, and slow: matched against whole paths it took
//! ~12 µs a path). globset, with the full `regex` engine it builds on, weighed 0.3 MB of the wasm
//! for patterns of a few characters (BENCHMARKS.md, "Size of the plugin").

use regex_lite::Regex;

/// A compiled glob. See the module docs.
#[derive(Debug, Clone)]
pub struct Glob {
    parts: Parts,
}

#[derive(Debug, Clone)]
enum Parts {
    /// One entry per `/`-separated segment of the pattern, matched against the path's segments.
    Segments(Vec<Segment>),
    /// A pattern whose `{…}` holds a `/`: the whole path against one expression.
    Whole(Regex),
}

#[derive(Debug, Clone)]
enum Segment {
    /// `**`: any number of segments, none included.
    AnyDepth,
    /// A name without wildcards, compared as it is (most list entries are names).
    Literal(String),
    /// A name with only `*` and `?` (`*.pdf`, `draft-*`): matched by hand, in one pass.
    Wildcard(String),
    /// A name with classes, alternatives or escapes: an anchored expression over one segment.
    /// (regex-lite took ~12 µs to match `^(?:.*/)?name$` against a whole path, and still ~2 µs
    /// for `*.pdf` against one name: too slow for a filter over every note of a vault.)
    Pattern(Regex),
}

impl Glob {
    /// Compiles `pattern`, or says what is wrong with it (an unclosed `[` or `{`, a `{` inside
    /// another, a trailing `\`).
    pub fn new(pattern: &str) -> Result<Glob, String> {
        let compile = |glob: &str| -> Result<Regex, String> {
            let mut regex = String::from("^");
            translate(glob, &mut regex, false)?;
            regex.push('$');
            Regex::new(&regex).map_err(|e| e.to_string())
        };
        if braces_hold_a_slash(pattern) {
            return compile(pattern).map(|regex| Glob { parts: Parts::Whole(regex) });
        }
        let mut segments = Vec::new();
        for part in split_segments(pattern) {
            segments.push(if part == "**" {
                Segment::AnyDepth
            } else if !part.contains(['*', '?', '[', '{', '\\']) {
                Segment::Literal(part.to_string())
            } else if !part.contains(['[', '{', '\\']) {
                // `**` inside a name is a `*`.
                Segment::Wildcard(part.replace("**", "*"))
            } else {
                Segment::Pattern(compile(part)?)
            });
        }
        Ok(Glob { parts: Parts::Segments(segments) })
    }

    /// Whether the whole of `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        Self::any_match(std::slice::from_ref(self), path)
    }

    /// Whether one of `globs` matches the whole of `path` (the path split once for them all).
    pub fn any_match(globs: &[Glob], path: &str) -> bool {
        let names: Vec<&str> = path.split('/').collect();
        globs.iter().any(|glob| match &glob.parts {
            Parts::Whole(regex) => regex.is_match(path),
            Parts::Segments(segments) => matches_from(segments, &names),
        })
    }
}

fn matches_from(segments: &[Segment], names: &[&str]) -> bool {
    match segments.split_first() {
        None => names.is_empty(),
        // With no other `**` after it, the rest can only match the last names: one try, not one
        // per depth (`**/*.pdf` looks at a path's last name only).
        Some((Segment::AnyDepth, rest)) if !rest.iter().any(|s| matches!(s, Segment::AnyDepth)) => {
            names.len() >= rest.len() && matches_from(rest, &names[names.len() - rest.len()..])
        }
        Some((Segment::AnyDepth, rest)) => (0..=names.len()).any(|skip| matches_from(rest, &names[skip..])),
        Some((segment, rest)) => {
            let Some((name, names)) = names.split_first() else { return false };
            let here = match segment {
                Segment::Literal(literal) => literal == name,
                Segment::Wildcard(pattern) => wildcard(pattern, name),
                Segment::Pattern(regex) => regex.is_match(name),
                Segment::AnyDepth => unreachable!("matched above"),
            };
            here && matches_from(rest, names)
        }
    }
}

/// Whether `name` matches `pattern` of literal characters, `*` (any run) and `?` (any one):
/// the usual greedy scan that backs up to the last `*` on a mismatch.
fn wildcard(pattern: &str, name: &str) -> bool {
    // Without `?`, bytes compare as well as characters do (a literal's UTF-8 starts at a
    // character), and neither side is copied.
    if !pattern.contains('?') {
        return scan(pattern.as_bytes(), name.as_bytes(), b'*', None);
    }
    let (pattern, name): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    scan(&pattern, &name, '*', Some('?'))
}

/// The greedy scan of [`wildcard`] over any kind of unit.
fn scan<T: PartialEq + Copy>(pattern: &[T], name: &[T], star_unit: T, any_unit: Option<T>) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(&c) if c == star_unit => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if Some(c) == any_unit || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == star_unit)
}

/// The pattern's segments: split at each `/` outside `[…]` and not escaped.
fn split_segments(pattern: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut in_class, mut escaped) = (0, false, false);
    for (i, c) in pattern.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => {
                out.push(&pattern[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&pattern[start..]);
    out
}

/// Whether a `{…}` of the pattern holds a `/` (`{Daily,Notes/Old}/*.md`).
fn braces_hold_a_slash(pattern: &str) -> bool {
    let mut depth = 0;
    for c in pattern.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '/' if depth > 0 => return true,
            _ => {}
        }
    }
    false
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
        assert!(matches("{Daily,Notes/Old}/*.md", "Notes/Old/a.md"));
        assert!(!matches("{Daily,Notes/Old}/*.md", "Notes/a.md"));
    }

    #[test]
    fn literal_names_and_double_stars_match_at_every_depth() {
        assert!(matches("**/.obsidian", ".obsidian"));
        assert!(matches("**/.obsidian", "a/b/.obsidian"));
        assert!(!matches("**/.obsidian", "a/.obsidian-like"));
        assert!(matches("a/**/b/**/c", "a/b/c"));
        assert!(matches("a/**/b/**/c", "a/x/b/y/z/c"));
        assert!(!matches("a/**/b/**/c", "a/x/c"));
        assert!(matches("**", "any/thing"));
        assert!(matches("draft-*-v?.md", "draft-a-b-v2.md"));
        assert!(!matches("draft-*-v?.md", "draft-a-b-v22.md"));
        assert!(matches("*a*a*", "banana"));
        assert!(!matches("*a*a*a*a", "banana"));
        assert!(matches("**/*", "x"));
    }

    #[test]
    fn bad_patterns_say_what_is_wrong() {
        assert!(Glob::new("[abc").unwrap_err().contains("unclosed ["));
        assert!(Glob::new("{a,b").unwrap_err().contains("unclosed {"));
        assert!(Glob::new("{a,{b}}").unwrap_err().contains("inside another"));
        assert!(Glob::new("a\\").unwrap_err().contains("trailing"));
    }
}
