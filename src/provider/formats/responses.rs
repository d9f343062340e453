//! OpenAI's Responses API on the wire (`POST {base}/responses`), as OpenAI's own API speaks it:
//! what its reasoning models (GPT-5, o3, o4-mini) are best served through in a loop of tool
//! calls, since their reasoning goes back with the next request and the summaries of it stream.
//!
//! Request: the system parts as `instructions`; the history as `input` items — user messages
//! (`input_text`, `input_image`, `input_file`), assistant text, `function_call`s and their
//! `function_call_output`s, and the model's earlier `reasoning` items, encrypted, as they came
//! (nothing is stored on the server: `store: false`, so no item goes back by its id); tools as
//! `function`s, not strict; the output limit as `max_output_tokens`. A model whose name says it reasons is
//! asked for summaries of its reasoning and for the encrypted reasoning itself.
//!
//! Stream: typed events (`data:` objects with a `type`): `response.output_text.delta`,
//! `response.reasoning_summary_text.delta` (and `response.reasoning_text.delta`, where a server
//! streams the reasoning itself), `response.output_item.added` / `.done` for a function call
//! and its `response.function_call_arguments.delta`s, then `response.completed` (with usage),
//! `response.incomplete` (the output limit or a content filter) or `response.failed`; an
//! `error` event is an error.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::StreamDecoder;
use crate::protocol::{
    ContentBlock, ErrorKind, ModelRequest, ProviderError, Role, StopReason, StreamEvent, ToolChoice, Usage,
};
use crate::provider::classify::classify_error_object;

/// Whether `model` names one of OpenAI's reasoning models, which take `reasoning` (and give
/// summaries of it); others refuse the field.
pub fn is_reasoning_model(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    let name = model.rsplit('/').next().unwrap_or(&model);
    let reasons = ["o1", "o3", "o4", "gpt-5", "gpt-oss"].iter().any(|p| name.starts_with(p)) || name.contains("codex");
    // `gpt-5-chat-latest` is the non-reasoning model behind ChatGPT.
    reasons && !name.starts_with("gpt-5-chat")
}

/// The output a reasoning model may spend on reasoning when no thinking budget is set, on top of
/// the answer's limit (OpenAI's reasoning guide: keep about 25,000 tokens for reasoning and
/// answer together; a turn that runs out mid-call loses the call).
pub(crate) const REASONING_ROOM: u32 = 16_384;

/// The JSON body of a streamed `POST {base}/responses` for `model`.
pub fn request_body(model: &str, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let system: Vec<&str> = request.system.iter().map(|p| p.text.as_str()).filter(|t| !t.is_empty()).collect();
    if !system.is_empty() {
        body.insert("instructions".into(), json!(system.join("\n\n")));
    }
    let mut input = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::User => user_items(&message.content, &mut input),
            Role::Assistant => assistant_items(&message.content, model, &mut input),
        }
    }
    body.insert("input".into(), Value::Array(input));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            // `strict: false` said: the Responses API makes a schema it can strict when the field
            // is left out, every optional property then required (filled with empty values).
            .map(|t| {
                json!({"type": "function", "name": t.name, "description": t.description,
                    "parameters": t.input_schema, "strict": false})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if request.tool_choice == ToolChoice::None {
            body.insert("tool_choice".into(), json!("none"));
        }
    }
    let mut limit = request.max_tokens;
    if is_reasoning_model(model) {
        let mut reasoning = json!({"summary": "auto"});
        // The limit counts the reasoning too: room for it on top of the answer, the budget's or,
        // at the model's own effort, what OpenAI's guide asks to keep free for it at least.
        match request.thinking_budget {
            Some(budget) => {
                reasoning["effort"] = json!(super::openai::reasoning_effort(budget));
                limit = limit.saturating_add(budget);
            }
            None => limit = limit.saturating_add(REASONING_ROOM),
        }
        body.insert("reasoning".into(), reasoning);
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    } else if let Some(t) = request.temperature {
        body.insert("temperature".into(), super::temperature(t));
    }
    body.insert("max_output_tokens".into(), json!(limit));
    body.insert("store".into(), json!(false));
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// A user message's items: its tool results first (they answer the previous turn's calls), then
/// the rest as one `user` message.
fn user_items(content: &[ContentBlock], out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for block in content {
        match block {
            ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                let output = if *is_error { format!("Error: {content}") } else { content.clone() };
                out.push(json!({"type": "function_call_output", "call_id": tool_use_id, "output": output}));
            }
            ContentBlock::Text { text } if !text.is_empty() => parts.push(json!({"type": "input_text", "text": text})),
            ContentBlock::Image { media_type, data } => {
                parts.push(json!({"type": "input_image", "image_url": format!("data:{media_type};base64,{data}")}))
            }
            ContentBlock::Document { media_type, data, name } => parts.push(json!({
                "type": "input_file", "filename": name, "file_data": format!("data:{media_type};base64,{data}")})),
            _ => {}
        }
    }
    if !parts.is_empty() {
        out.push(json!({"role": "user", "content": parts}));
    }
}

/// An assistant message's items: its reasoning (the encrypted items this API gave `model`, kept
/// in a [`ContentBlock::ReasoningDetails`]; another model's reasoning, or another provider's
/// thinking, cannot go back), its text, then its calls; nothing for a message with neither text
/// nor calls.
fn assistant_items(content: &[ContentBlock], model: &str, out: &mut Vec<Value>) {
    let mut reasoning = Vec::new();
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            ContentBlock::ReasoningDetails { details } => {
                let items = details.as_array().map(Vec::as_slice).unwrap_or(std::slice::from_ref(details));
                let ours = |item: &&Value| item.get("model").and_then(Value::as_str).is_none_or(|m| m == model);
                reasoning.extend(items.iter().filter(ours).filter_map(|item| kept_reasoning(item, None)));
            }
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::ToolUse { id, name, input, .. } => {
                let arguments = match input {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                calls.push(json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments}));
            }
            _ => {}
        }
    }
    // The API refuses a reasoning item that nothing follows (a turn cut off while it reasoned).
    if text.is_empty() && calls.is_empty() {
        return;
    }
    out.extend(reasoning);
    if !text.is_empty() {
        out.push(json!({"role": "assistant", "content": text}));
    }
    out.extend(calls);
}

/// Whether `item` is a reasoning item this API can take back without the server having kept
/// it: its encrypted content is there.
fn is_reasoning_item(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("reasoning")
        && item.get("encrypted_content").is_some_and(Value::is_string)
}

/// A reasoning item as it goes back in a later request: its id left out (with `store: false`
/// the server knows no item by its id); kept with the `model` that wrote it, which is ours to
/// read and not sent.
fn kept_reasoning(item: &Value, model: Option<&str>) -> Option<Value> {
    is_reasoning_item(item).then(|| {
        let mut kept = json!({"type": "reasoning",
            "summary": item.get("summary").cloned().unwrap_or_else(|| json!([])),
            "encrypted_content": item["encrypted_content"]});
        if let Some(model) = model {
            kept["model"] = json!(model);
        }
        kept
    })
}

/// Decodes a Responses API stream.
#[derive(Debug, Default)]
pub struct ResponsesDecoder {
    /// Function calls by their item's id (or output index): our number for each, whether its
    /// arguments streamed, whether it ended.
    calls: BTreeMap<String, Call>,
    /// The reasoning items to send back, complete.
    reasoning: Vec<Value>,
    /// The model asked, whose reasoning items these are.
    model: Option<String>,
    /// The reasoning summary part the last thinking came from, to put a blank line between parts.
    summary_at: Option<(String, u64)>,
    saw_event: bool,
    refused: bool,
    finished: bool,
}

#[derive(Debug)]
struct Call {
    ours: usize,
    streamed: bool,
    ended: bool,
}

impl ResponsesDecoder {
    /// A decoder for one response.
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder for one response of `model`: its reasoning items are kept as that model's,
    /// sent back to it alone.
    pub fn for_model(model: &str) -> Self {
        ResponsesDecoder { model: Some(model.to_string()), ..Self::default() }
    }

    fn key(event: &Value) -> String {
        match event.get("item_id").and_then(Value::as_str) {
            Some(id) => id.to_string(),
            None => format!("#{}", event.get("output_index").and_then(Value::as_u64).unwrap_or(0)),
        }
    }

    fn item_key(item: &Value, event: &Value) -> String {
        match item.get("id").and_then(Value::as_str) {
            Some(id) => id.to_string(),
            None => Self::key(event),
        }
    }

    /// A function call's item arrived (`added`, or only `done` from a terse server).
    fn start_call(&mut self, key: String, item: &Value, out: &mut Vec<StreamEvent>) {
        if self.calls.contains_key(&key) {
            return;
        }
        let ours = self.calls.len();
        let id = item.get("call_id").and_then(Value::as_str).filter(|s| !s.is_empty());
        let id = id.map(str::to_string).unwrap_or_else(|| format!("call_{ours}"));
        let name = item.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        out.push(StreamEvent::ToolCallStart { index: ours, id, name });
        self.calls.insert(key, Call { ours, streamed: false, ended: false });
    }

    fn thinking(&mut self, event: &Value, out: &mut Vec<StreamEvent>) {
        let Some(text) = event.get("delta").and_then(Value::as_str).filter(|t| !t.is_empty()) else { return };
        let part = (Self::key(event), event.get("summary_index").and_then(Value::as_u64).unwrap_or(0));
        if self.summary_at.as_ref().is_some_and(|at| *at != part) {
            out.push(StreamEvent::ThinkingDelta { text: "\n\n".into() });
        }
        self.summary_at = Some(part);
        out.push(StreamEvent::ThinkingDelta { text: text.to_string() });
    }

    fn item_done(&mut self, event: &Value, out: &mut Vec<StreamEvent>) {
        let item = &event["item"];
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let key = Self::item_key(item, event);
                self.start_call(key.clone(), item, out);
                let Some(call) = self.calls.get_mut(&key) else { return };
                if call.ended {
                    return;
                }
                // A server that sends the arguments only with the finished item.
                let arguments = item.get("arguments").and_then(Value::as_str).unwrap_or_default();
                if !call.streamed && !arguments.is_empty() {
                    out.push(StreamEvent::ToolCallDelta { index: call.ours, json: arguments.to_string() });
                }
                call.ended = true;
                out.push(StreamEvent::ToolCallEnd { index: call.ours });
            }
            Some("reasoning") => self.reasoning.extend(kept_reasoning(item, self.model.as_deref())),
            _ => {}
        }
    }

    /// The response ended (`completed` or `incomplete`): what is still open, the reasoning to
    /// send back, the usage and the reason it stopped.
    fn done(&mut self, response: &Value, incomplete: bool) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        let mut open: Vec<&mut Call> = self.calls.values_mut().filter(|c| !c.ended).collect();
        crate::sort::sort_by_key(&mut open, |c| c.ours);
        for call in open {
            call.ended = true;
            out.push(StreamEvent::ToolCallEnd { index: call.ours });
        }
        if !self.reasoning.is_empty() {
            out.push(StreamEvent::ReasoningDetails { details: Value::Array(std::mem::take(&mut self.reasoning)) });
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let field = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            let cached = field("/input_tokens_details/cached_tokens");
            out.push(StreamEvent::Usage {
                usage: Usage {
                    // Cached tokens are counted inside input_tokens.
                    input_tokens: field("/input_tokens").saturating_sub(cached),
                    output_tokens: field("/output_tokens"),
                    cache_read_tokens: cached,
                    cache_write_tokens: 0,
                },
            });
        }
        let reason = response.pointer("/incomplete_details/reason").and_then(Value::as_str);
        let stop_reason = match reason.filter(|_| incomplete) {
            Some("max_output_tokens") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_string()),
            None if self.refused => StopReason::Refusal,
            None if !self.calls.is_empty() => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        self.finished = true;
        out.push(StreamEvent::Done { stop_reason });
        out
    }

    fn fail(&mut self, error: ProviderError) -> Vec<StreamEvent> {
        self.finished = true;
        vec![StreamEvent::Error { error }]
    }
}

impl StreamDecoder for ResponsesDecoder {
    fn decode(&mut self, _event: &str, data: &str) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        let Ok(event) = serde_json::from_str::<Value>(data) else { return Vec::new() };
        self.saw_event = true;
        let mut out = Vec::new();
        match event.get("type").and_then(Value::as_str).unwrap_or_default() {
            "response.output_text.delta" | "response.refusal.delta" => {
                if event["type"] == "response.refusal.delta" {
                    self.refused = true;
                }
                if let Some(text) = event.get("delta").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::TextDelta { text: text.to_string() });
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.thinking(&event, &mut out)
            }
            "response.output_item.added" => {
                let item = &event["item"];
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    self.start_call(Self::item_key(item, &event), item, &mut out);
                }
            }
            "response.function_call_arguments.delta" => {
                let delta = event.get("delta").and_then(Value::as_str).unwrap_or_default();
                if let Some(call) = self.calls.get_mut(&Self::key(&event)).filter(|_| !delta.is_empty()) {
                    call.streamed = true;
                    out.push(StreamEvent::ToolCallDelta { index: call.ours, json: delta.to_string() });
                }
            }
            "response.output_item.done" => self.item_done(&event, &mut out),
            "response.completed" => return self.done(&event["response"], false),
            "response.incomplete" => return self.done(&event["response"], true),
            "response.failed" => {
                let error = event.pointer("/response/error").filter(|e| e.is_object());
                let error = error.map(classify_error_object).unwrap_or_else(|| {
                    ProviderError::new(ErrorKind::Overloaded, "the provider ended the response with an error")
                });
                return self.fail(error);
            }
            "error" => return self.fail(classify_error_object(&event)),
            _ => {}
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        let message = if self.saw_event {
            "the response stream ended before response.completed"
        } else {
            "the response stream ended without any event"
        };
        self.fail(ProviderError::new(ErrorKind::Network, message))
    }

    fn is_finished(&self) -> bool {
        self.finished
    }

    /// A whole `response` object (a request sent with `stream: false`), read as the events its
    /// output items would have streamed.
    fn decode_whole(&mut self, body: &Value) -> Option<Vec<StreamEvent>> {
        let output = body.get("output")?.as_array()?;
        let mut out = Vec::new();
        for (index, item) in output.iter().enumerate() {
            let event = json!({"output_index": index, "item": item});
            match item.get("type").and_then(Value::as_str) {
                Some("message") => {
                    for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                        let (kind, field) = match part.get("type").and_then(Value::as_str) {
                            Some("refusal") => ("response.refusal.delta", "refusal"),
                            _ => ("response.output_text.delta", "text"),
                        };
                        let delta = json!({"type": kind, "delta": part.get(field)});
                        out.extend(self.decode("", &delta.to_string()));
                    }
                }
                Some("reasoning") => {
                    for (n, summary) in item.get("summary").and_then(Value::as_array).into_iter().flatten().enumerate()
                    {
                        let delta = json!({"type": "response.reasoning_summary_text.delta",
                            "item_id": item.get("id"), "output_index": index, "summary_index": n,
                            "delta": summary.get("text")});
                        out.extend(self.decode("", &delta.to_string()));
                    }
                    self.item_done(&event, &mut out);
                }
                _ => self.item_done(&event, &mut out),
            }
        }
        let status = body.get("status").and_then(Value::as_str);
        let end = match status {
            Some("failed") => json!({"type": "response.failed", "response": body}),
            Some("incomplete") => json!({"type": "response.incomplete", "response": body}),
            _ => json!({"type": "response.completed", "response": body}),
        };
        out.extend(self.decode("", &end.to_string()));
        Some(out)
    }
}

#[cfg(test)]
#[path = "responses_tests.rs"]
mod tests;
