//! Finding tool calls in streamed text, and reading them.

use serde_json::{Map, Value};

use super::repair::parse_lenient;
use super::TextToolDialect;
use crate::protocol::ToolSpec;

/// Opening and closing markers of a call block, for every dialect: a model asked for one
/// dialect sometimes answers in another, and reading all of them costs nothing.
const MARKERS: &[(TextToolDialect, &str, &str)] = &[
    (TextToolDialect::FencedJson, "```tool_call", "```"),
    (TextToolDialect::BracketTag, "[TOOL_CALL]", "[/TOOL_CALL]"),
    (TextToolDialect::XmlInvoke, "<tool_call>", "</tool_call>"),
    (TextToolDialect::XmlInvoke, "<function_calls>", "</function_calls>"),
];

/// A piece of the model's text: prose to show, or the inside of a call block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Call { dialect: TextToolDialect, body: String },
}

/// Splits streamed text into prose and call blocks. Prose goes out as soon as it cannot be the
/// start of a marker; a call block goes out once its closing marker arrived (or the stream
/// ended, for a call cut off by the output limit).
#[derive(Debug, Default)]
pub(crate) struct CallSplitter {
    buffer: String,
    inside: Option<usize>,
}

impl CallSplitter {
    pub fn push(&mut self, text: &str) -> Vec<Piece> {
        self.buffer.push_str(text);
        let mut out = Vec::new();
        loop {
            match self.inside {
                Some(m) => {
                    let (dialect, _, close) = MARKERS[m];
                    let Some(at) = self.buffer.find(close) else { break };
                    let body = self.buffer[..at].to_string();
                    self.buffer.drain(..at + close.len());
                    self.inside = None;
                    out.push(Piece::Call { dialect, body });
                }
                None => {
                    let first = MARKERS
                        .iter()
                        .enumerate()
                        .filter_map(|(m, (_, open, _))| self.buffer.find(open).map(|at| (at, m)))
                        .min();
                    match first {
                        Some((at, m)) => {
                            if at > 0 {
                                out.push(Piece::Text(self.buffer[..at].to_string()));
                            }
                            self.buffer.drain(..at + MARKERS[m].1.len());
                            self.inside = Some(m);
                        }
                        None => {
                            let keep = held_back(&self.buffer);
                            let cut = self.buffer.len() - keep;
                            if cut > 0 {
                                out.push(Piece::Text(self.buffer[..cut].to_string()));
                                self.buffer.drain(..cut);
                            }
                            break;
                        }
                    }
                }
            }
        }
        out
    }

    /// The rest, at the end of the stream.
    pub fn finish(&mut self) -> Vec<Piece> {
        let rest = std::mem::take(&mut self.buffer);
        match self.inside.take() {
            Some(m) => vec![Piece::Call { dialect: MARKERS[m].0, body: rest }],
            None if rest.is_empty() => Vec::new(),
            None => vec![Piece::Text(rest)],
        }
    }
}

/// The length of the longest end of `text` that could begin a marker. Markers are ASCII, so
/// the cut lands on a character boundary.
fn held_back(text: &str) -> usize {
    MARKERS
        .iter()
        .flat_map(|(_, open, _)| (1..open.len()).rev().find(|&k| text.ends_with(&open[..k])))
        .max()
        .unwrap_or(0)
}

/// A call read from a block: the tool's name (empty if the block named none) and its arguments,
/// or why they could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParsedCall {
    pub name: String,
    pub arguments: Result<Value, String>,
}

/// The calls in one block.
pub(crate) fn parse_block(dialect: TextToolDialect, body: &str, tools: &[ToolSpec]) -> Vec<ParsedCall> {
    match dialect {
        TextToolDialect::XmlInvoke if body.contains("<invoke") => parse_invokes(body, tools),
        TextToolDialect::FencedJson => {
            // The rest of the opening fence line (```tool_call\n, ```tool_calls\n) is not JSON.
            let body = match body.find('\n') {
                Some(nl) if !body[..nl].contains(['{', '[']) => &body[nl + 1..],
                _ => body,
            };
            parse_json_calls(body)
        }
        _ => parse_json_calls(body),
    }
}

fn parse_json_calls(body: &str) -> Vec<ParsedCall> {
    let body = body.trim();
    match parse_lenient(body) {
        Some(Value::Array(items)) if !items.is_empty() => items.iter().map(|item| json_call(item, body)).collect(),
        Some(value @ Value::Object(_)) => vec![json_call(&value, body)],
        _ => vec![ParsedCall {
            name: name_in_text(body).unwrap_or_default(),
            arguments: Err(format!("the tool call is not valid JSON: {body}")),
        }],
    }
}

/// `{"name": …, "arguments": {…}}`, with the spellings models use for either half.
fn json_call(value: &Value, raw: &str) -> ParsedCall {
    let function = value.get("function").filter(|f| f.is_object()).unwrap_or(value);
    let name = ["name", "tool", "tool_name"]
        .iter()
        .find_map(|k| function.get(*k).or_else(|| value.get(*k)).and_then(Value::as_str))
        .unwrap_or_default()
        .to_string();
    let arguments =
        ["arguments", "parameters", "input", "args"].iter().find_map(|k| function.get(*k).or_else(|| value.get(*k)));
    let arguments = match arguments {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(Value::String(text)) => match parse_lenient(text) {
            Some(parsed @ Value::Object(_)) => Ok(parsed),
            _ => Err(format!("the arguments are not a JSON object: {text}")),
        },
        Some(object @ Value::Object(_)) => Ok(object.clone()),
        Some(other) => Err(format!("the arguments are not a JSON object: {other}")),
    };
    if name.is_empty() {
        return ParsedCall { name, arguments: Err(format!("the tool call names no tool: {raw}")) };
    }
    ParsedCall { name, arguments }
}

/// A `"name": "…"` in text too broken to parse, so the error names the tool.
fn name_in_text(text: &str) -> Option<String> {
    let at = text.find("\"name\"")?;
    let rest = text[at + 6..].trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// `<invoke name="tool"><parameter name="p">value</parameter>…</invoke>`, possibly several.
/// A parameter whose schema type is `string` keeps its text; any other is read as JSON when
/// it parses, else kept as text, for the pipeline's validation to judge.
fn parse_invokes(body: &str, tools: &[ToolSpec]) -> Vec<ParsedCall> {
    let mut calls = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("<invoke") {
        rest = &rest[at + "<invoke".len()..];
        let Some(tag_end) = rest.find('>') else {
            calls.push(ParsedCall {
                name: attribute(rest, "name").unwrap_or_default(),
                arguments: Err(format!("the tool call was cut off: <invoke{rest}")),
            });
            break;
        };
        let name = attribute(&rest[..tag_end], "name").unwrap_or_default();
        rest = &rest[tag_end + 1..];
        let end = rest.find("</invoke>").unwrap_or(rest.len());
        let inner = &rest[..end];
        rest = &rest[(end + "</invoke>".len()).min(rest.len())..];
        let schema = tools.iter().find(|t| t.name == name).map(|t| &t.input_schema);
        let mut arguments = Map::new();
        let mut params = inner;
        while let Some(p) = params.find("<parameter") {
            params = &params[p + "<parameter".len()..];
            let Some(tag_end) = params.find('>') else { break };
            let Some(param) = attribute(&params[..tag_end], "name") else { break };
            params = &params[tag_end + 1..];
            let close = params.find("</parameter>").unwrap_or(params.len());
            let raw = params[..close].strip_prefix('\n').unwrap_or(&params[..close]);
            let raw = raw.strip_suffix('\n').unwrap_or(raw);
            params = &params[(close + "</parameter>".len()).min(params.len())..];
            let declared = schema.and_then(|s| s.pointer(&format!("/properties/{param}/type"))).and_then(Value::as_str);
            let value = match declared {
                Some("string") => Value::String(raw.into()),
                // Numbers, booleans, arrays and objects; text that only "parses" as a string
                // stays the text it was.
                _ => match parse_lenient(raw) {
                    Some(v) if !v.is_string() => v,
                    _ => Value::String(raw.into()),
                },
            };
            arguments.insert(param, value);
        }
        if name.is_empty() {
            calls.push(ParsedCall { name, arguments: Err(format!("the tool call names no tool: <invoke{inner}")) });
        } else {
            calls.push(ParsedCall { name, arguments: Ok(Value::Object(arguments)) });
        }
    }
    calls
}

/// The value of `name="…"` (or `'…'`, or unquoted) in a tag's attribute text.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!("{name}="))?;
    let value = &tag[at + name.len() + 1..];
    let (quote, value) = match value.chars().next()? {
        q @ ('"' | '\'') => (Some(q), &value[1..]),
        _ => (None, value),
    };
    let end = match quote {
        Some(q) => value.find(q).unwrap_or(value.len()),
        None => value.find(|c: char| c.is_whitespace() || c == '/' || c == '>').unwrap_or(value.len()),
    };
    Some(value[..end].to_string())
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
