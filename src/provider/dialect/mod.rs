//! Tool calls written as text, for models without native tool calling (a setting, or taken up
//! when a compatible server refuses a model's tools: [`TextToolProvider::fallback`]).
//!
//! [`TextToolProvider`] wraps any provider: it describes the tools in the system prompt in the
//! configured dialect, sends no native tools, rewrites earlier calls and results in the history
//! as text, and reads the model's answer for call blocks, which it turns into the same
//! `ToolCallStart` / `ToolCallDelta` / `ToolCallEnd` events a native provider emits. The text
//! around the blocks streams through as usual.
//!
//! The dialects:
//! - [`TextToolDialect::FencedJson`]: a fenced block tagged `tool_call` holding
//!   `{"name": …, "arguments": {…}}`;
//! - [`TextToolDialect::BracketTag`]: `[TOOL_CALL]{"name": …, "arguments": {…}}[/TOOL_CALL]`;
//! - [`TextToolDialect::XmlInvoke`]: `<tool_call><invoke name="…"><parameter name="…">…</parameter></invoke></tool_call>`.
//!
//! Blocks in any of them are read, whichever was asked for. JSON is read leniently (truncated,
//! single-quoted, trailing commas: see [`repair`]).
//!
//! Mistakes become errors the model sees, never a failed task: a call naming an unknown tool is
//! passed on under that name, and the pipeline answers it with "unknown tool"; a block that names
//! no tool is passed on with an empty name; arguments that cannot be read are passed on as text
//! saying so (`the tool call is not valid JSON: …`), which the assembler keeps as a JSON string
//! and the pipeline's argument validation reports back to the model.

mod parse;
mod provider;
pub mod repair;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

pub use provider::TextToolProvider;

use crate::protocol::ToolSpec;

/// How tool calls are written in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum TextToolDialect {
    /// A fenced code block tagged `tool_call`, holding JSON.
    FencedJson,
    /// `[TOOL_CALL]{…}[/TOOL_CALL]`.
    BracketTag,
    /// `<tool_call><invoke name=…><parameter name=…>…</parameter></invoke></tool_call>`.
    XmlInvoke,
}

impl TextToolDialect {
    /// A call of `name` with `arguments`, written in this dialect.
    pub fn render_call(self, name: &str, arguments: &Value) -> String {
        match self {
            TextToolDialect::FencedJson => {
                format!("```tool_call\n{}\n```", serde_json::json!({"name": name, "arguments": arguments}))
            }
            TextToolDialect::BracketTag => {
                format!("[TOOL_CALL]{}[/TOOL_CALL]", serde_json::json!({"name": name, "arguments": arguments}))
            }
            TextToolDialect::XmlInvoke => {
                let mut out = format!("<tool_call>\n<invoke name=\"{name}\">\n");
                if let Value::Object(map) = arguments {
                    for (key, value) in map {
                        let text = match value {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        out.push_str(&format!("<parameter name=\"{key}\">{text}</parameter>\n"));
                    }
                }
                out.push_str("</invoke>\n</tool_call>");
                out
            }
        }
    }

    /// The system-prompt section that teaches the model this dialect and lists `tools`.
    pub fn render_tools(self, tools: &[ToolSpec]) -> String {
        let example = self.render_call("tool_name", &serde_json::json!({"parameter": "value"}));
        let mut out = format!(
            "# Tools\n\nYou can call the tools listed below. To call one, write a block exactly like this:\n\n\
             {example}\n\n\
             Write one block per call (several blocks for several calls), with arguments that match the \
             tool's JSON Schema, then stop: the results come back in the next message, inside \
             <tool_result> tags. Never write a <tool_result> yourself. If you need no tool, just answer.\n\n\
             ## Available tools\n"
        );
        for tool in tools {
            out.push_str(&format!(
                "\n### {}\n{}\nParameters (JSON Schema): {}\n",
                tool.name, tool.description, tool.input_schema
            ));
        }
        out
    }
}

/// A tool result as the model reads it in the text dialects.
pub fn render_result(name: &str, id: &str, content: &str, is_error: bool) -> String {
    let status = if is_error { " status=\"error\"" } else { "" };
    format!("<tool_result name=\"{name}\" id=\"{id}\"{status}>\n{content}\n</tool_result>")
}
