//! Builds the assistant message from a stream of events.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{ContentBlock, Message, ProviderError, Role, StopReason, StreamEvent, Usage};

/// Folds [`StreamEvent`]s into the assistant [`Message`] they describe, keeping blocks in the
/// order the model produced them. Text and thinking deltas join the block they continue;
/// tool-call argument deltas are joined per call index and parsed when the message is
/// finished. Arguments that are not valid JSON are kept as a JSON string, so the pipeline can
/// tell the model its call was malformed instead of failing the task.
#[derive(Debug, Default)]
pub struct MessageAssembler {
    blocks: Vec<Partial>,
    tool_slots: BTreeMap<usize, usize>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    error: Option<ProviderError>,
}

#[derive(Debug)]
enum Partial {
    Text(String),
    Thinking { text: String, signature: Option<String> },
    Redacted(String),
    Details(Value),
    Tool { id: String, name: String, json: String, signature: Option<String> },
}

impl MessageAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event into account.
    pub fn push(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => match self.blocks.last_mut() {
                Some(Partial::Text(existing)) => existing.push_str(text),
                _ => self.blocks.push(Partial::Text(text.clone())),
            },
            StreamEvent::ThinkingDelta { text } => match self.blocks.last_mut() {
                Some(Partial::Thinking { text: existing, signature: None }) => existing.push_str(text),
                _ => self.blocks.push(Partial::Thinking { text: text.clone(), signature: None }),
            },
            StreamEvent::ThinkingSignature { signature } => match self.blocks.last_mut() {
                Some(Partial::Thinking { signature: slot, .. }) => *slot = Some(signature.clone()),
                _ => self.blocks.push(Partial::Thinking { text: String::new(), signature: Some(signature.clone()) }),
            },
            StreamEvent::ToolCallStart { index, id, name } => {
                self.tool_slots.insert(*index, self.blocks.len());
                self.blocks.push(Partial::Tool {
                    id: id.clone(),
                    name: name.clone(),
                    json: String::new(),
                    signature: None,
                });
            }
            StreamEvent::ToolCallSignature { index, signature } => {
                if let Some(Partial::Tool { signature: slot, .. }) =
                    self.tool_slots.get(index).and_then(|&slot| self.blocks.get_mut(slot))
                {
                    *slot = Some(signature.clone());
                }
            }
            StreamEvent::ToolCallDelta { index, json } => {
                if let Some(Partial::Tool { json: existing, .. }) =
                    self.tool_slots.get(index).and_then(|&slot| self.blocks.get_mut(slot))
                {
                    existing.push_str(json);
                }
            }
            StreamEvent::RedactedThinking { data } => self.blocks.push(Partial::Redacted(data.clone())),
            StreamEvent::ReasoningDetails { details } => self.blocks.push(Partial::Details(details.clone())),
            StreamEvent::ToolCallEnd { .. } | StreamEvent::Retry { .. } | StreamEvent::Notice { .. } => {}
            StreamEvent::Usage { usage } => self.usage = merge_usage(self.usage, *usage),
            StreamEvent::Done { stop_reason } => self.stop_reason = Some(stop_reason.clone()),
            StreamEvent::Error { error } => self.error = Some(error.clone()),
        }
    }

    /// The error event, if the stream reported one.
    pub fn error(&self) -> Option<&ProviderError> {
        self.error.as_ref()
    }

    /// Usage reported so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The stop reason, once `Done` arrived.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.stop_reason.as_ref()
    }

    /// The assistant message. Empty text blocks are dropped.
    pub fn finish(self) -> Message {
        let content = self
            .blocks
            .into_iter()
            .filter_map(|block| match block {
                Partial::Text(text) if text.is_empty() => None,
                Partial::Text(text) => Some(ContentBlock::Text { text }),
                Partial::Thinking { text, signature } => Some(ContentBlock::Thinking { thinking: text, signature }),
                Partial::Redacted(data) => Some(ContentBlock::RedactedThinking { data }),
                Partial::Details(details) => Some(ContentBlock::ReasoningDetails { details }),
                Partial::Tool { id, name, json, signature } => {
                    Some(ContentBlock::ToolUse { id, name, input: parse_arguments(&json), signature })
                }
            })
            .collect();
        Message { role: Role::Assistant, content }
    }
}

/// Providers report usage in pieces (input at the start, output at the end); a later
/// non-zero count replaces an earlier one.
fn merge_usage(old: Usage, new: Usage) -> Usage {
    let pick = |a: u64, b: u64| if b != 0 { b } else { a };
    Usage {
        input_tokens: pick(old.input_tokens, new.input_tokens),
        output_tokens: pick(old.output_tokens, new.output_tokens),
        cache_read_tokens: pick(old.cache_read_tokens, new.cache_read_tokens),
        cache_write_tokens: pick(old.cache_write_tokens, new.cache_write_tokens),
    }
}

fn parse_arguments(json: &str) -> Value {
    if json.trim().is_empty() {
        return Value::Object(Default::default());
    }
    serde_json::from_str(json).unwrap_or_else(|_| Value::String(json.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_text_thinking_and_parallel_tool_calls() {
        let mut a = MessageAssembler::new();
        let events = [
            StreamEvent::ThinkingDelta { text: "let me ".into() },
            StreamEvent::ThinkingDelta { text: "look".into() },
            StreamEvent::ThinkingSignature { signature: "sig".into() },
            StreamEvent::TextDelta { text: "Searching".into() },
            StreamEvent::TextDelta { text: "…".into() },
            StreamEvent::ToolCallStart { index: 0, id: "a".into(), name: "read_file".into() },
            StreamEvent::ToolCallStart { index: 1, id: "b".into(), name: "search_files".into() },
            StreamEvent::ToolCallDelta { index: 1, json: "{\"query\":".into() },
            StreamEvent::ToolCallDelta { index: 0, json: "{\"path\":\"x.md\"}".into() },
            StreamEvent::ToolCallDelta { index: 1, json: "\"cats\"}".into() },
            StreamEvent::Usage { usage: Usage { input_tokens: 10, ..Default::default() } },
            StreamEvent::Usage { usage: Usage { output_tokens: 5, ..Default::default() } },
            StreamEvent::Done { stop_reason: StopReason::ToolUse },
        ];
        for e in &events {
            a.push(e);
        }
        assert_eq!(a.usage(), Usage { input_tokens: 10, output_tokens: 5, ..Default::default() });
        assert_eq!(a.stop_reason(), Some(&StopReason::ToolUse));
        let m = a.finish();
        assert_eq!(m.content.len(), 4);
        assert_eq!(
            m.content[0],
            ContentBlock::Thinking { thinking: "let me look".into(), signature: Some("sig".into()) }
        );
        assert_eq!(m.text(), "Searching…");
        let calls: Vec<_> =
            m.tool_uses().map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone())).collect();
        assert_eq!(calls[0], ("a".into(), "read_file".into(), serde_json::json!({"path": "x.md"})));
        assert_eq!(calls[1], ("b".into(), "search_files".into(), serde_json::json!({"query": "cats"})));
    }

    #[test]
    fn malformed_arguments_are_kept_as_a_string() {
        let mut a = MessageAssembler::new();
        a.push(&StreamEvent::ToolCallStart { index: 0, id: "a".into(), name: "t".into() });
        a.push(&StreamEvent::ToolCallDelta { index: 0, json: "{\"path\": ".into() });
        let m = a.finish();
        assert_eq!(m.tool_uses().next().unwrap().2, &Value::String("{\"path\": ".into()));
    }
}
