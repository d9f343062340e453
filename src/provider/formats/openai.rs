//! OpenAI Chat Completions on the wire, as OpenAI and the compatible servers (OpenRouter,
//! Ollama, LM Studio, vLLM, llama.cpp) speak it.
//!
//! Request: the system parts joined into one `system` message; tool results as `tool`
//! messages; tools as `function`s; `stream_options.include_usage` so the last chunk carries
//! usage. Reasoning from an earlier turn is echoed as `reasoning_content` when
//! [`OpenAiOptions::echo_reasoning`] is set (DeepSeek and Kimi need it with tool calls; other
//! servers reject unknown fields); for Mistral ([`OpenAiOptions::mistral`]) no
//! `stream_options`, tool call ids of nine letters and digits, and an assistant message between
//! tool results and a user message; for Gemini ([`OpenAiOptions::gemini`]) a tool call's thought
//! signature goes back as `extra_content` and tool schemas keep to what Gemini reads; OpenRouter's
//! `reasoning_details` go back as they came when [`OpenAiOptions::reasoning_details`] is.
//!
//! Stream: `data:` chunks whose `choices[0].delta` holds `content`, `reasoning_content` (or
//! OpenRouter's `reasoning`) and `tool_calls` pieces keyed by `index`; a chunk with
//! `finish_reason`; a usage chunk with empty `choices`; then `data: [DONE]`. Gemini leaves out
//! `index` (each call has its own id), ends tool calls with `finish_reason: "stop"`, and puts
//! a call's thought signature in `extra_content.google.thought_signature`. OpenRouter streams
//! `reasoning_details` entries in pieces (joined by `index`). Mistral's reasoning models stream
//! `content` as a list of `thinking` and `text` chunks. An `error` member
//! in a chunk (OpenRouter reports upstream 429s this way, inside a 200) becomes an error.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::gemini_schema::gemini_schema;
use super::responses::{is_reasoning_model, REASONING_ROOM};
use super::think_tags::ThinkTags;
use super::StreamDecoder;
use crate::protocol::{
    ContentBlock, ErrorKind, ModelRequest, ProviderError, Role, StopReason, StreamEvent, ToolChoice, Usage,
};
use crate::provider::classify::classify_error_object;

/// What differs between OpenAI itself and the servers that copy its API.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenAiOptions {
    /// Send the output limit as `max_completion_tokens` (OpenAI; required by its reasoning
    /// models) instead of `max_tokens` (what compatible servers understand).
    pub max_completion_tokens: bool,
    /// Send the reasoning of earlier assistant turns back as `reasoning_content`.
    pub echo_reasoning: bool,
    /// The server is Google's Gemini API: each tool call's signature goes back as
    /// `extra_content.google.thought_signature` (Gemini 3 refuses a turn's calls without
    /// theirs), and tool schemas keep to the keywords Gemini's function declarations read.
    pub gemini: bool,
    /// The server is OpenRouter: its `reasoning_details` go back with their message (Gemini's
    /// calls are refused without the signatures in them), and a thinking budget is asked for
    /// as its `reasoning.max_tokens` (OpenAI's API and Gemini's get it as `reasoning_effort`).
    pub reasoning_details: bool,
    /// The server is Mistral's API, which answers HTTP 422 to a field it does not know
    /// (`stream_options`: it reports usage unasked). Mistral's models — here, and wherever a
    /// model's name says it is one of them — also refuse a tool call id that is not nine
    /// letters and digits ("Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of
    /// 9": every other id in the history is sent as one made from it) and a user message right
    /// after a tool result.
    pub mistral: bool,
}

/// What Google's documentation says to send as the signature of a call its model did not make
/// (one the agent planned itself, or another provider's): the call is then not checked.
pub const UNSIGNED_CALL: &str = "skip_thought_signature_validator";

fn google_signature(signature: &str) -> Value {
    json!({"google": {"thought_signature": signature}})
}

/// The JSON body of a streamed `POST {base}/chat/completions` for `model`.
pub fn request_body(model: &str, request: &ModelRequest, options: &OpenAiOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let mut messages = Vec::new();
    let system: Vec<&str> = request.system.iter().map(|p| p.text.as_str()).filter(|t| !t.is_empty()).collect();
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    // Mistral's models, wherever they are served (vLLM or NVIDIA NIM with Mistral's tokenizer,
    // OpenRouter passing Mistral's own answer on), hold tool call ids and the order of roles
    // to Mistral's rules.
    let mistral_rules = options.mistral || is_mistral_model(model);
    // Gemini wants each tool result to name its tool ("function_response.name: Name cannot be
    // empty"), and Mistral's documentation names it too; the name is its call's.
    let mut calls = Calls::default();
    if options.gemini || mistral_rules {
        for message in &request.messages {
            calls.names.extend(message.tool_uses().map(|(id, name, _)| (id, name)));
        }
    }
    if mistral_rules {
        calls.ids = mistral_ids(request);
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(&message.content, &calls, &mut messages),
            Role::Assistant => messages.extend(assistant_message(&message.content, &calls, options)),
        }
    }
    if mistral_rules {
        bridge_tool_results(&mut messages);
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| {
                let parameters = if options.gemini { gemini_schema(&t.input_schema) } else { t.input_schema.clone() };
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": parameters}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if request.tool_choice == ToolChoice::None {
            body.insert("tool_choice".into(), json!("none"));
        }
    }
    let limit = if options.max_completion_tokens { "max_completion_tokens" } else { "max_tokens" };
    // OpenRouter, OpenAI and Gemini ask a model that thinks to think within a budget, on top of
    // the answer's own length, as Anthropic's own API is asked.
    let thinks = options.reasoning_details || options.max_completion_tokens || options.gemini;
    match request.thinking_budget.filter(|_| thinks) {
        Some(budget) => {
            if options.reasoning_details {
                // OpenRouter passes a token budget on (Anthropic's and Gemini's as such,
                // OpenAI's as an effort); models that do not think ignore it.
                body.insert("reasoning".into(), json!({"max_tokens": budget}));
            } else {
                // OpenAI's reasoning models and Gemini take an effort (a model that does not
                // think refuses the field, and `refusals` leaves it out from then on).
                body.insert("reasoning_effort".into(), json!(reasoning_effort(budget)));
            }
            body.insert(limit.into(), json!(request.max_tokens.saturating_add(budget)));
        }
        // OpenAI's reasoning models at their own effort: the limit counts their reasoning too,
        // and they take no temperature but their default.
        None if options.max_completion_tokens && is_reasoning_model(model) => {
            body.insert(limit.into(), json!(request.max_tokens.saturating_add(REASONING_ROOM)));
        }
        None => {
            body.insert(limit.into(), json!(request.max_tokens));
            if let Some(t) = request.temperature {
                body.insert("temperature".into(), super::temperature(t));
            }
        }
    }
    body.insert("stream".into(), json!(true));
    if !options.mistral {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// The effort a thinking budget of `budget` tokens comes nearest: Google's documentation gives
/// low, medium and high as budgets of 1,024, 8,192 and 24,576 tokens.
pub(crate) fn reasoning_effort(budget: u32) -> &'static str {
    match budget {
        0..4096 => "low",
        4096..16384 => "medium",
        _ => "high",
    }
}

/// What the assistant says, on Mistral's wire, between tool results and a user message.
pub const MISTRAL_BRIDGE: &str = "(I have the tools' results.)";

/// Mistral refuses a `user` message right after a `tool` one ("Unexpected role 'user' after
/// role 'tool'", HTTP 400): the agent's reminders follow a step's results that way, and so
/// does the next request after a task stopped between a tool's result and the model's answer.
/// An assistant message stands between them.
fn bridge_tool_results(messages: &mut Vec<Value>) {
    let mut at = 1;
    while at < messages.len() {
        if messages[at]["role"] == "user" && messages[at - 1]["role"] == "tool" {
            messages.insert(at, json!({"role": "assistant", "content": MISTRAL_BRIDGE}));
            at += 1;
        }
        at += 1;
    }
}

/// What the messages of one request say about its tool calls.
#[derive(Default)]
struct Calls<'a> {
    /// Each call's tool, by the call's id, where the server wants results named.
    names: BTreeMap<&'a str, &'a str>,
    /// The id each call goes by on the wire, where it is not its own.
    ids: BTreeMap<&'a str, String>,
}

impl Calls<'_> {
    fn id<'s>(&'s self, id: &'s str) -> &'s str {
        self.ids.get(id).map_or(id, String::as_str)
    }
}

/// Whether `model` names one of Mistral's models (`mistral-medium-latest`,
/// `mistralai/Devstral-Small-2-24B`, `magistral-small`…).
fn is_mistral_model(model: &str) -> bool {
    let model = model.to_ascii_lowercase();
    ["mistral", "magistral", "devstral", "ministral", "codestral", "pixtral", "mixtral"]
        .iter()
        .any(|f| model.contains(f))
}

/// Whether Mistral takes `id` as a tool call id: nine ASCII letters and digits.
fn is_mistral_id(id: &str) -> bool {
    id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A Mistral id for each call of `request` whose id is not one (the fast path's planned
/// calls, the text dialect's, another provider's): nine letters and digits from a hash of the
/// id, the same in the call and in its result, and distinct within the request.
fn mistral_ids(request: &ModelRequest) -> BTreeMap<&str, String> {
    const DIGITS: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut taken: std::collections::BTreeSet<String> = request
        .messages
        .iter()
        .flat_map(|m| m.tool_uses().map(|(id, _, _)| id))
        .filter(|id| is_mistral_id(id))
        .map(str::to_string)
        .collect();
    let mut ids = BTreeMap::new();
    for (id, _, _) in request.messages.iter().flat_map(|m| m.tool_uses()) {
        if is_mistral_id(id) || ids.contains_key(id) {
            continue;
        }
        // FNV-1a, then salted again in the unlikely case two ids meet.
        let mut hash =
            id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let made = loop {
            let mut rest = hash;
            let made: String = (0..9)
                .map(|_| {
                    let digit = DIGITS[(rest % 62) as usize] as char;
                    rest /= 62;
                    digit
                })
                .collect();
            if taken.insert(made.clone()) {
                break made;
            }
            hash = (hash ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0x100_0000_01b3);
        };
        ids.insert(id, made);
    }
    ids
}

/// A user message becomes its tool results (one `tool` message each, first, since they
/// answer the previous assistant turn; with its tool's name where `calls` has it) and then the
/// rest as one `user` message.
fn user_messages(content: &[ContentBlock], calls: &Calls, out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for block in content {
        match block {
            ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                let content = if *is_error { format!("Error: {content}") } else { content.clone() };
                let mut message = json!({"role": "tool", "tool_call_id": calls.id(tool_use_id), "content": content});
                if let Some(name) = calls.names.get(tool_use_id.as_str()) {
                    message["name"] = json!(name);
                }
                out.push(message);
            }
            ContentBlock::Text { text } if !text.is_empty() => parts.push(json!({"type": "text", "text": text})),
            ContentBlock::Image { media_type, data } => parts.push(json!({
                "type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}})),
            ContentBlock::Document { media_type, data, name } => parts.push(json!({
                "type": "file", "file": {"filename": name, "file_data": format!("data:{media_type};base64,{data}")}})),
            _ => {}
        }
    }
    match parts.as_slice() {
        [] => {}
        // Plain text as a string: some compatible servers accept nothing else.
        [single] if single["type"] == "text" => out.push(json!({"role": "user", "content": single["text"]})),
        _ => out.push(json!({"role": "user", "content": parts})),
    }
}

fn assistant_message(content: &[ContentBlock], history: &Calls, options: &OpenAiOptions) -> Option<Value> {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    let mut signed = false;
    let mut details = Vec::new();
    for block in content {
        match block {
            ContentBlock::Text { text: t } => text.push_str(t),
            ContentBlock::Thinking { thinking, .. } => reasoning.push_str(thinking),
            ContentBlock::ToolUse { id, name, input, signature } => {
                // Arguments the assembler kept as a string (they were not JSON) go back as
                // they came.
                let arguments = match input {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                let mut call = json!({"id": history.id(id), "type": "function",
                    "function": {"name": name, "arguments": arguments}});
                if let Some(signature) = signature.as_deref().filter(|_| options.gemini) {
                    call["extra_content"] = google_signature(signature);
                    signed = true;
                }
                calls.push(call);
            }
            // OpenRouter's own entries; the Responses API's `reasoning` items (a chat that moved
            // from OpenAI's API) are not OpenRouter's to read.
            ContentBlock::ReasoningDetails { details: d } if options.reasoning_details => {
                let entries = d.as_array().map(Vec::as_slice).unwrap_or(std::slice::from_ref(d));
                details.extend(
                    entries.iter().filter(|e| e.get("type").and_then(Value::as_str) != Some("reasoning")).cloned(),
                );
            }
            _ => {}
        }
    }
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    // Gemini signs only the first of parallel calls; a turn with none signed gets the
    // placeholder there.
    if options.gemini && !signed {
        if let Some(first) = calls.first_mut() {
            first["extra_content"] = google_signature(UNSIGNED_CALL);
        }
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    if options.echo_reasoning && !reasoning.is_empty() {
        message["reasoning_content"] = json!(reasoning);
    }
    if !details.is_empty() {
        message["reasoning_details"] = Value::Array(details);
    }
    Some(message)
}

/// Decodes a Chat Completions stream (choice 0).
#[derive(Debug, Default)]
pub struct OpenAiDecoder {
    /// Per `tool_calls[].index`: the call's number among ours and its id; several servers
    /// (older Ollama) reuse index 0 for every call, so a new id at a known index starts a new
    /// call.
    calls: BTreeMap<u64, OpenCall>,
    next_call: usize,
    finish_reason: Option<StopReason>,
    /// OpenRouter's `reasoning_details` so far, each entry's pieces joined.
    details: Vec<Value>,
    saw_tool_call: bool,
    saw_chunk: bool,
    finished: bool,
    /// Reasoning written into the content between `<think>` tags, read as thinking.
    think: ThinkTags,
}

#[derive(Debug)]
struct OpenCall {
    ours: usize,
    id: String,
    /// Set once `ToolCallStart` went out; until a name arrives, arguments wait here.
    started: bool,
    pending: String,
    name: String,
    /// Gemini's thought signature, sent once the call has started.
    signature: Option<String>,
    ended: bool,
}

impl OpenAiDecoder {
    /// A decoder for one response.
    pub fn new() -> Self {
        Self::default()
    }

    fn tool_call_piece(&mut self, piece: &Value, out: &mut Vec<StreamEvent>) {
        let index = piece.get("index").and_then(Value::as_u64).unwrap_or(0);
        let id = piece.get("id").and_then(Value::as_str).filter(|s| !s.is_empty());
        let name = piece.pointer("/function/name").and_then(Value::as_str).filter(|s| !s.is_empty());
        let arguments = piece.pointer("/function/arguments").and_then(Value::as_str).unwrap_or_default();
        let reused = matches!((self.calls.get(&index), id), (Some(call), Some(id)) if call.id != id);
        if reused {
            if let Some(call) = self.calls.get_mut(&index) {
                end_call(call, out);
            }
        }
        if reused || !self.calls.contains_key(&index) {
            let ours = self.next_call;
            self.next_call += 1;
            let id = id.map(str::to_string).unwrap_or_else(|| format!("call_{ours}"));
            self.calls.insert(
                index,
                OpenCall {
                    ours,
                    id,
                    started: false,
                    pending: String::new(),
                    name: String::new(),
                    signature: None,
                    ended: false,
                },
            );
        }
        let Some(call) = self.calls.get_mut(&index) else { return };
        self.saw_tool_call = true;
        if let Some(name) = name {
            call.name.push_str(name);
        }
        if let Some(signature) = piece.pointer("/extra_content/google/thought_signature").and_then(Value::as_str) {
            call.signature = Some(signature.to_string());
        }
        call.pending.push_str(arguments);
        if !call.started && !call.name.is_empty() {
            call.started = true;
            out.push(StreamEvent::ToolCallStart { index: call.ours, id: call.id.clone(), name: call.name.clone() });
        }
        if call.started && !call.pending.is_empty() {
            out.push(StreamEvent::ToolCallDelta { index: call.ours, json: std::mem::take(&mut call.pending) });
        }
    }

    /// Joins a piece of a `reasoning_details` entry to the entry of the same `index` and type
    /// (its text, summary or data continued; other fields as the latest piece has them), or
    /// starts a new entry.
    fn reasoning_detail(&mut self, piece: &Value) {
        let Some(fields) = piece.as_object() else { return };
        let same = |entry: &&mut Value| {
            fields.contains_key("index")
                && entry.get("index") == piece.get("index")
                && entry.get("type") == piece.get("type")
        };
        let Some(entry) = self.details.iter_mut().find(same).and_then(Value::as_object_mut) else {
            self.details.push(piece.clone());
            return;
        };
        for (key, value) in fields {
            match (key.as_str(), value, entry.get_mut(key)) {
                ("text" | "summary" | "data", Value::String(more), Some(Value::String(sofar))) => sofar.push_str(more),
                (_, Value::Null, _) => {}
                _ => {
                    entry.insert(key.clone(), value.clone());
                }
            }
        }
    }

    fn end_calls(&mut self, out: &mut Vec<StreamEvent>) {
        let mut calls: Vec<&mut OpenCall> = self.calls.values_mut().collect();
        crate::sort::sort_by_key(&mut calls, |c| c.ours);
        for call in calls {
            end_call(call, out);
        }
    }

    fn done(&mut self) -> Vec<StreamEvent> {
        let mut out = Vec::new();
        self.think.finish(&mut out);
        if !self.details.is_empty() {
            out.push(StreamEvent::ReasoningDetails { details: Value::Array(std::mem::take(&mut self.details)) });
        }
        self.end_calls(&mut out);
        self.finished = true;
        let reason = match self.finish_reason.clone() {
            // Some servers say "stop" after tool calls.
            Some(StopReason::EndTurn) | None if self.saw_tool_call => StopReason::ToolUse,
            Some(reason) => reason,
            None => StopReason::EndTurn,
        };
        out.push(StreamEvent::Done { stop_reason: reason });
        out
    }
}

/// Content streamed as a list of chunks, as Mistral's reasoning models (Magistral) stream it:
/// `{"type": "thinking", "thinking": [{"type": "text", "text": …}]}` is thinking, `{"type":
/// "text", "text": …}` the answer; other chunks (references) carry no text to show.
fn content_chunks(chunks: &[Value], out: &mut Vec<StreamEvent>) {
    for chunk in chunks {
        match chunk.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = chunk.get("text").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::TextDelta { text: text.to_string() });
                }
            }
            Some("thinking") => {
                let parts = chunk.get("thinking").and_then(Value::as_array).into_iter().flatten();
                for text in parts.filter_map(|p| p.get("text").and_then(Value::as_str)).filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::ThinkingDelta { text: text.to_string() });
                }
            }
            _ => {}
        }
    }
}

/// Ends a call; a call whose name never came is still announced, with an empty name, so its
/// arguments reach the pipeline, which reports the unknown tool to the model.
fn end_call(call: &mut OpenCall, out: &mut Vec<StreamEvent>) {
    if call.ended {
        return;
    }
    if !call.started {
        call.started = true;
        out.push(StreamEvent::ToolCallStart { index: call.ours, id: call.id.clone(), name: call.name.clone() });
        if !call.pending.is_empty() {
            out.push(StreamEvent::ToolCallDelta { index: call.ours, json: std::mem::take(&mut call.pending) });
        }
    }
    if let Some(signature) = call.signature.take() {
        out.push(StreamEvent::ToolCallSignature { index: call.ours, signature });
    }
    call.ended = true;
    out.push(StreamEvent::ToolCallEnd { index: call.ours });
}

impl StreamDecoder for OpenAiDecoder {
    fn decode(&mut self, _event: &str, data: &str) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        if data.trim() == "[DONE]" {
            return self.done();
        }
        let Ok(chunk) = serde_json::from_str::<Value>(data) else {
            return Vec::new();
        };
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            self.finished = true;
            return vec![StreamEvent::Error { error: classify_error_object(&chunk) }];
        }
        self.saw_chunk = true;
        let mut out = Vec::new();
        if let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) {
            let delta = &choice["delta"];
            for field in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(field).and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::ThinkingDelta { text: text.to_string() });
                    break;
                }
            }
            match delta.get("content") {
                Some(Value::String(text)) if !text.is_empty() => self.think.push(text, &mut out),
                Some(Value::Array(chunks)) => content_chunks(chunks, &mut out),
                _ => {}
            }
            for piece in delta.get("reasoning_details").and_then(Value::as_array).into_iter().flatten() {
                self.reasoning_detail(piece);
            }
            let calls = delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
            for (n, piece) in calls.enumerate() {
                if n == 0 {
                    // The text before a call is complete: what was held back goes first.
                    self.think.finish(&mut out);
                }
                self.tool_call_piece(piece, &mut out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                if reason == "error" {
                    self.finished = true;
                    let error =
                        ProviderError::new(ErrorKind::Overloaded, "the provider ended the response with an error");
                    out.push(StreamEvent::Error { error });
                    return out;
                }
                self.finish_reason = Some(finish_reason(reason));
                self.end_calls(&mut out);
            }
        }
        // Groq reports usage in `x_groq` (also where `stream_options` was refused); a usage
        // event replaces an earlier one, so reading both never counts twice.
        let usage = chunk.get("usage").filter(|u| u.is_object()).or_else(|| chunk.pointer("/x_groq/usage"));
        if let Some(usage) = usage.filter(|u| u.is_object()) {
            let field = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            // DeepSeek counts the cached part as `prompt_cache_hit_tokens`.
            let cached = field("/prompt_tokens_details/cached_tokens").max(field("/prompt_cache_hit_tokens"));
            out.push(StreamEvent::Usage {
                usage: Usage {
                    // OpenAI counts cached tokens inside prompt_tokens.
                    input_tokens: field("/prompt_tokens").saturating_sub(cached),
                    output_tokens: field("/completion_tokens"),
                    cache_read_tokens: cached,
                    cache_write_tokens: 0,
                },
            });
        }
        out
    }

    fn finish(&mut self) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        // A finish_reason is as good as [DONE]: some compatible servers close without it.
        if self.finish_reason.is_some() {
            return self.done();
        }
        self.finished = true;
        let message = if self.saw_chunk {
            "the response stream ended before a finish_reason or [DONE]"
        } else {
            "the response stream ended without any chunk"
        };
        vec![StreamEvent::Error { error: ProviderError::new(ErrorKind::Network, message) }]
    }

    fn is_finished(&self) -> bool {
        self.finished
    }

    /// A `chat.completion` body read as one chunk whose delta is the whole message (its calls
    /// carry no `index`; each has its own id, which starts a call of its own), then `[DONE]`.
    fn decode_whole(&mut self, body: &Value) -> Option<Vec<StreamEvent>> {
        let choice = body.get("choices")?.as_array()?.first()?;
        let message = choice.get("message")?;
        let chunk = json!({
            "choices": [{"index": 0, "delta": message, "finish_reason": choice.get("finish_reason")}],
            "usage": body.get("usage"),
        });
        let mut out = self.decode("", &chunk.to_string());
        out.extend(self.decode("", "[DONE]"));
        Some(out)
    }
}

fn finish_reason(reason: &str) -> StopReason {
    match reason {
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::Refusal,
        other => StopReason::Other(other.to_string()),
    }
}

#[cfg(test)]
#[path = "openai_tests.rs"]
mod tests;
