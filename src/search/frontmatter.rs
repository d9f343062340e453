//! YAML frontmatter: finding the block at the top of a note and reading it with a real YAML
//! parser.
//!
//! A note whose frontmatter does not parse is still a note: [`Frontmatter::parse`] never fails,
//! it records a warning and returns empty properties, so the note is indexed by its body.

use serde_json::{Map, Value};

/// The frontmatter block of a note, split off and parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frontmatter {
    /// Every property, YAML values as JSON (keys stringified, YAML tags dropped).
    pub properties: Map<String, Value>,
    /// Where the note's body starts in the source text (0 when there is no frontmatter).
    pub body_start: usize,
    /// Why the block could not be read, if it could not.
    pub warning: Option<String>,
}

impl Frontmatter {
    /// Splits and parses the frontmatter of `text`: a first line `---`, then YAML, then a line
    /// `---` (or `...`). Without a closing line there is no frontmatter (Obsidian agrees).
    pub fn parse(text: &str) -> Frontmatter {
        // A byte order mark (some Windows editors write one) is not part of the note: the
        // frontmatter, or else the body, starts after it.
        let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let mut fm = Frontmatter::parse_unmarked(&text[bom..]);
        fm.body_start += bom;
        fm
    }

    fn parse_unmarked(text: &str) -> Frontmatter {
        let Some((yaml, body_start)) = split(text) else {
            return Frontmatter::default();
        };
        match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(yaml) {
            Ok(serde_yaml_ng::Value::Mapping(map)) => {
                Frontmatter { properties: object(map), body_start, warning: None }
            }
            // `---\n---` and a block of comments are empty frontmatter, not an error.
            Ok(serde_yaml_ng::Value::Null) => Frontmatter { properties: Map::new(), body_start, warning: None },
            Ok(other) => Frontmatter {
                properties: Map::new(),
                body_start,
                warning: Some(format!("frontmatter is not a set of properties (found {})", kind(&other))),
            },
            Err(e) => Frontmatter {
                properties: Map::new(),
                body_start,
                warning: Some(format!("frontmatter is not valid YAML: {e}")),
            },
        }
    }

    /// A property as a list of strings: a YAML list, or one string split at commas (Obsidian
    /// accepts `tags: a, b` and `aliases: x`). Empty entries are dropped.
    pub fn string_list(&self, key: &str) -> Vec<String> {
        match self.properties.get(key) {
            Some(Value::Array(items)) => items.iter().filter_map(scalar_string).filter(|s| !s.is_empty()).collect(),
            Some(value) => scalar_string(value)
                .map(|s| s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect())
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// A property as one non-empty string, if it is a scalar.
    pub fn string(&self, key: &str) -> Option<String> {
        self.properties.get(key).and_then(scalar_string).filter(|s| !s.is_empty())
    }
}

/// `(yaml, body_start)` when `text` opens with a closed frontmatter block.
fn split(text: &str) -> Option<(&str, usize)> {
    let rest = text.strip_prefix("---")?;
    let first_end = rest.find('\n')?;
    if !rest[..first_end].trim_end_matches('\r').trim_end().is_empty() {
        return None;
    }
    let yaml_start = 3 + first_end + 1;
    let mut line_start = yaml_start;
    while line_start <= text.len() {
        let line_end = text[line_start..].find('\n').map(|i| line_start + i).unwrap_or(text.len());
        let line = text[line_start..line_end].trim_end_matches('\r').trim_end();
        if line == "---" || line == "..." {
            let body_start = (line_end + 1).min(text.len());
            return Some((&text[yaml_start..line_start], body_start));
        }
        if line_end == text.len() {
            break;
        }
        line_start = line_end + 1;
    }
    None
}

fn kind(value: &serde_yaml_ng::Value) -> &'static str {
    match value {
        serde_yaml_ng::Value::Sequence(_) => "a list",
        serde_yaml_ng::Value::String(_) => "a string",
        serde_yaml_ng::Value::Number(_) => "a number",
        serde_yaml_ng::Value::Bool(_) => "a boolean",
        _ => "another value",
    }
}

fn key_string(key: &serde_yaml_ng::Value) -> String {
    match key {
        serde_yaml_ng::Value::String(s) => s.clone(),
        other => scalar_string(&to_json(other.clone())).unwrap_or_default(),
    }
}

fn to_json(value: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64().and_then(serde_json::Number::from_f64).map(Value::Number).unwrap_or(Value::Null)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Y::Mapping(map) => Value::Object(object(map)),
        Y::Tagged(tagged) => to_json(tagged.value),
    }
}

fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A YAML mapping as a JSON object, its keys as strings (a repeated key keeps its last value).
fn object(map: serde_yaml_ng::Mapping) -> Map<String, Value> {
    crate::sort::by_insertion(map.into_iter().map(|(k, v)| (key_string(&k), to_json(v))))
}
