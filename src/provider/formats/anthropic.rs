//! The Anthropic Messages API on the wire: the request body, and the streamed events.
//!
//! Request: `system` is sent as text blocks, with a `cache_control` breakpoint on every
//! [`SystemPart`] that ends a stable prefix and on the last block of the last message, so the
//! whole conversation so far is cached for the next turn. Anthropic allows four breakpoints;
//! if the system prompt marks more than three, only its last three are kept.
//!
//! Stream: `message_start` (input usage) → per content block `content_block_start`,
//! `content_block_delta`s (`text_delta`, `input_json_delta`, `thinking_delta`,
//! `signature_delta`), `content_block_stop` → `message_delta` (stop reason, output usage) →
//! `message_stop`. `ping` is ignored; `error` ends the stream with a categorised error.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::StreamDecoder;
use crate::protocol::{
    ContentBlock, ErrorKind, Message, ModelRequest, ProviderError, Role, StopReason, StreamEvent, SystemPart,
    ToolChoice, Usage,
};
use crate::provider::classify::classify_error_object;

/// The `anthropic-version` header this code speaks.
pub const API_VERSION: &str = "2023-06-01";

/// Breakpoints Anthropic accepts in one request.
const MAX_CACHE_BREAKPOINTS: usize = 4;

/// The JSON body of a streamed `POST /v1/messages` for `model`.
pub fn request_body(model: &str, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    body.insert("stream".into(), json!(true));
    if !request.system.is_empty() {
        body.insert("system".into(), system_blocks(&request.system));
    }
    body.insert("messages".into(), Value::Array(messages(&request.messages)));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if request.tool_choice == ToolChoice::None {
            body.insert("tool_choice".into(), json!({"type": "none"}));
        }
    }
    match request.thinking_budget {
        // Extended thinking needs the default temperature, a budget of at least 1,024 tokens,
        // and `max_tokens` above the budget: the answer keeps its own length on top of the
        // thinking, so a budget never starves (or invalidates) the answer.
        Some(budget) => {
            let budget = budget.max(MIN_THINKING_BUDGET);
            body.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": budget}));
            body.insert("max_tokens".into(), json!(request.max_tokens.saturating_add(budget)));
        }
        None => {
            if let Some(t) = request.temperature {
                body.insert("temperature".into(), super::temperature(t));
            }
        }
    }
    Value::Object(body)
}

/// The smallest thinking budget Anthropic accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

fn cache_control() -> Value {
    json!({"type": "ephemeral"})
}

fn system_blocks(parts: &[SystemPart]) -> Value {
    let marked: Vec<usize> = parts.iter().enumerate().filter(|(_, p)| p.cache_breakpoint).map(|(i, _)| i).collect();
    let keep = &marked[marked.len().saturating_sub(MAX_CACHE_BREAKPOINTS - 1)..];
    let blocks = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let mut block = json!({"type": "text", "text": part.text});
            if keep.contains(&i) {
                block["cache_control"] = cache_control();
            }
            block
        })
        .collect();
    Value::Array(blocks)
}

fn messages(history: &[Message]) -> Vec<Value> {
    let mut out: Vec<Value> = history
        .iter()
        .filter_map(|message| {
            let content: Vec<Value> = message.content.iter().filter_map(block).collect();
            if content.is_empty() {
                return None;
            }
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            Some(json!({"role": role, "content": content}))
        })
        .collect();
    // The breakpoint on the last message caches the conversation up to here for the next call.
    // Thinking blocks cannot carry one, so it goes on the last block that can.
    if let Some(last) = out.last_mut().and_then(|m| m.get_mut("content")).and_then(Value::as_array_mut) {
        if let Some(block) =
            last.iter_mut().rev().find(|b| !matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking")))
        {
            block["cache_control"] = cache_control();
        }
    }
    out
}

fn block(block: &ContentBlock) -> Option<Value> {
    Some(match block {
        ContentBlock::Text { text } if text.is_empty() => return None,
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        ContentBlock::Image { media_type, data } => {
            json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
        }
        ContentBlock::Document { media_type, data, name } => json!({
            "type": "document", "title": name,
            "source": {"type": "base64", "media_type": media_type, "data": data}}),
        ContentBlock::ToolUse { id, name, input, .. } => {
            // Arguments that were not a JSON object (kept as a string by the assembler) cannot
            // be sent as `input`; the tool result already told the model what was wrong.
            let input = if input.is_object() { input.clone() } else { json!({}) };
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        ContentBlock::ToolResult { tool_use_id, content, is_error } => {
            let mut result = json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": content});
            if *is_error {
                result["is_error"] = json!(true);
            }
            result
        }
        // Anthropic checks the signature; thinking without one (from another provider) is
        // refused, so it is left out.
        ContentBlock::Thinking { thinking, signature: Some(signature) } => {
            json!({"type": "thinking", "thinking": thinking, "signature": signature})
        }
        ContentBlock::Thinking { signature: None, .. } => return None,
        ContentBlock::RedactedThinking { data } => json!({"type": "redacted_thinking", "data": data}),
        // OpenRouter's own.
        ContentBlock::ReasoningDetails { .. } => return None,
    })
}

/// Decodes an Anthropic event stream. Content blocks are numbered by Anthropic across all
/// kinds; tool calls are renumbered from 0 in the order they start.
#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    /// Content-block index → tool-call index, for blocks that are tool calls.
    tools: HashMap<u64, usize>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    started: bool,
    finished: bool,
}

impl AnthropicDecoder {
    /// A decoder for one response.
    pub fn new() -> Self {
        Self::default()
    }

    fn usage_from(&mut self, usage: &Value) -> Option<StreamEvent> {
        let field = |name: &str| usage.get(name).and_then(Value::as_u64);
        let mut any = false;
        for (name, slot) in [
            ("input_tokens", &mut self.usage.input_tokens),
            ("output_tokens", &mut self.usage.output_tokens),
            ("cache_read_input_tokens", &mut self.usage.cache_read_tokens),
            ("cache_creation_input_tokens", &mut self.usage.cache_write_tokens),
        ] {
            if let Some(n) = field(name) {
                *slot = n;
                any = true;
            }
        }
        any.then_some(StreamEvent::Usage { usage: self.usage })
    }

    fn fail(&mut self, error: ProviderError) -> Vec<StreamEvent> {
        self.finished = true;
        vec![StreamEvent::Error { error }]
    }
}

impl StreamDecoder for AnthropicDecoder {
    fn decode(&mut self, event: &str, data: &str) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        let Ok(value) = serde_json::from_str::<Value>(data) else {
            return Vec::new();
        };
        // The `type` in the data is authoritative; the SSE event name repeats it.
        let kind = value.get("type").and_then(Value::as_str).unwrap_or(event);
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                self.started = true;
                if let Some(e) = value.pointer("/message/usage").and_then(|u| self.usage_from(u)) {
                    out.push(e);
                }
            }
            "content_block_start" => {
                let block = &value["content_block"];
                let text = |field: &str| block.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
                match block.get("type").and_then(Value::as_str) {
                    Some("text") if !text("text").is_empty() => out.push(StreamEvent::TextDelta { text: text("text") }),
                    Some("thinking") if !text("thinking").is_empty() => {
                        out.push(StreamEvent::ThinkingDelta { text: text("thinking") })
                    }
                    Some("redacted_thinking") => out.push(StreamEvent::RedactedThinking { data: text("data") }),
                    Some("tool_use") => {
                        let tool_index = self.tools.len();
                        self.tools.insert(index, tool_index);
                        out.push(StreamEvent::ToolCallStart { index: tool_index, id: text("id"), name: text("name") });
                        // Input normally streams as deltas from `{}`; a start that already
                        // carries the arguments is passed on as one delta.
                        if let Some(input) = block.get("input").filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                        {
                            out.push(StreamEvent::ToolCallDelta { index: tool_index, json: input.to_string() });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = &value["delta"];
                let text = |field: &str| delta.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => out.push(StreamEvent::TextDelta { text: text("text") }),
                    Some("thinking_delta") => out.push(StreamEvent::ThinkingDelta { text: text("thinking") }),
                    Some("signature_delta") => {
                        out.push(StreamEvent::ThinkingSignature { signature: text("signature") })
                    }
                    Some("input_json_delta") => {
                        let json = text("partial_json");
                        if let (Some(&tool_index), false) = (self.tools.get(&index), json.is_empty()) {
                            out.push(StreamEvent::ToolCallDelta { index: tool_index, json });
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(&tool_index) = self.tools.get(&index) {
                    out.push(StreamEvent::ToolCallEnd { index: tool_index });
                }
            }
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(stop_reason(reason));
                }
                if let Some(e) = value.get("usage").and_then(|u| self.usage_from(u)) {
                    out.push(e);
                }
            }
            "message_stop" => {
                self.finished = true;
                out.push(StreamEvent::Done { stop_reason: self.stop_reason.clone().unwrap_or(StopReason::EndTurn) });
            }
            "error" => return self.fail(classify_error_object(&value)),
            // `ping`, and event types added after this was written.
            _ => {}
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        let message = if self.started {
            "the response stream ended before message_stop"
        } else {
            "the response stream ended before message_start"
        };
        self.fail(ProviderError::new(ErrorKind::Network, message))
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::Refusal,
        other => StopReason::Other(other.to_string()),
    }
}

#[cfg(test)]
#[path = "anthropic_tests.rs"]
mod tests;
