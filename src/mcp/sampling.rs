//! `sampling/createMessage`: a server asks the client's model for a reply while its tool runs
//! (a summary, a classification), so that it needs no model of its own. The request is read
//! here into the core's messages; the reply goes back in the protocol's shape. Who answers —
//! the user first, then the model — is the task's ([`super::ClientFeatures::sample`]).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::{json, Value};

use crate::cancel::CancelToken;
use crate::protocol::{ContentBlock, Message, ModelRequest, Role, StopReason, SystemPart, ToolChoice, Usage};
use crate::provider::{complete, ModelProvider};

/// The method by which a server asks for a reply.
pub(crate) const METHOD: &str = "sampling/createMessage";

/// The protocol's code for a request the user turned down.
pub(crate) const USER_DECLINED: i64 = -1;

/// What a server asks the model: its messages (text and images), its system prompt, how long
/// the reply may be. The server's context preference (`includeContext`) is not honoured: the
/// model gets the server's messages and nothing of the task, the vault or other servers.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    pub system: Option<String>,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
}

/// The model's reply.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingReply {
    pub text: String,
    /// The model that wrote it.
    pub model: String,
    pub stop_reason: StopReason,
}

/// How a sampling request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingOutcome {
    Reply(SamplingReply),
    /// The user turned it down.
    Declined,
    /// It could not be answered, and why (for the server).
    Failed(String),
}

/// The request in `params`; the error says what this client cannot take (audio, tools, no
/// messages).
pub fn read_request(params: &Value) -> Result<SamplingRequest, String> {
    if params.get("tools").and_then(Value::as_array).is_some_and(|tools| !tools.is_empty()) {
        return Err("tools in a sampling request are not supported by this client".into());
    }
    let mut messages = Vec::new();
    for message in params.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = match message.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            other => return Err(format!("a message's role {other:?} is not user or assistant")),
        };
        // One content object (2025-06-18), or a list of them (later versions).
        let content = match message.get("content") {
            Some(Value::Array(parts)) => parts.iter().map(content_block).collect::<Result<Vec<_>, _>>()?,
            Some(part) => vec![content_block(part)?],
            None => return Err("a message has no content".into()),
        };
        messages.push(Message { role, content });
    }
    if messages.is_empty() {
        return Err("the request has no messages".into());
    }
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .filter(|n| *n > 0)
        .ok_or("maxTokens must be a positive number")?;
    let text = |key: &str| params.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    Ok(SamplingRequest {
        system: text("systemPrompt").map(str::to_string),
        messages,
        max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
        temperature: params.get("temperature").and_then(Value::as_f64).map(|t| t as f32),
    })
}

fn content_block(part: &Value) -> Result<ContentBlock, String> {
    let field = |key: &str| part.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    match part.get("type").and_then(Value::as_str).unwrap_or_default() {
        "text" => Ok(ContentBlock::text(field("text"))),
        "image" => Ok(ContentBlock::Image { media_type: field("mimeType"), data: field("data") }),
        other => Err(format!("{other:?} content in a sampling request is not supported by this client")),
    }
}

/// The `sampling/createMessage` result for `reply`.
pub fn reply(reply: &SamplingReply) -> Value {
    let stop = match &reply.stop_reason {
        StopReason::MaxTokens => "maxTokens".to_string(),
        StopReason::StopSequence => "stopSequence".to_string(),
        StopReason::EndTurn | StopReason::ToolUse => "endTurn".to_string(),
        StopReason::Refusal => "refusal".to_string(),
        StopReason::Other(other) => other.clone(),
    };
    json!({
        "role": "assistant",
        "content": { "type": "text", "text": reply.text },
        "model": reply.model,
        "stopReason": stop,
    })
}

impl SamplingRequest {
    /// What the user is shown before agreeing: the system prompt, each message's text (an
    /// image by its type and size), the longest reply.
    pub fn shown(&self) -> Value {
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|m| {
                let role = if m.role == Role::User { "user" } else { "assistant" };
                let parts: Vec<String> = m
                    .content
                    .iter()
                    .map(|block| match block {
                        ContentBlock::Text { text } => text.clone(),
                        ContentBlock::Image { media_type, data } => {
                            format!("[image, {media_type}, {} kB]", data.len() * 3 / 4 / 1000)
                        }
                        _ => String::new(),
                    })
                    .collect();
                json!({ "role": role, "text": parts.join("\n") })
            })
            .collect();
        let mut shown = json!({ "messages": messages, "maxTokens": self.max_tokens });
        if let Some(system) = &self.system {
            shown["systemPrompt"] = json!(system);
        }
        shown
    }
}

/// The task's model answering servers' sampling requests. What it uses is kept apart, for the
/// task's meter to count.
pub struct ModelSampler {
    provider: Rc<dyn ModelProvider>,
    /// The mode's model, when it has one of its own.
    model: RefCell<Option<String>>,
    /// The longest reply: the task's own output limit.
    max_tokens: u32,
    used: Cell<Usage>,
}

impl ModelSampler {
    /// Answers with `model` (`None`: the provider's), replies `max_tokens` long at most.
    pub fn new(provider: Rc<dyn ModelProvider>, model: Option<String>, max_tokens: u32) -> ModelSampler {
        ModelSampler { provider, model: RefCell::new(model), max_tokens, used: Cell::default() }
    }

    /// How long a reply a server asking for `asked` tokens gets: no longer than the task's own.
    pub fn limit(&self, asked: u32) -> u32 {
        asked.min(self.max_tokens)
    }

    /// Answers with `model` (a new mode's own) from now on; `None`: the provider's.
    pub fn set_model(&self, model: Option<String>) {
        *self.model.borrow_mut() = model;
    }

    /// The model that answers.
    pub fn model(&self) -> String {
        self.model.borrow().clone().unwrap_or_else(|| self.provider.model().to_string())
    }

    /// What the answers used since the last call.
    pub fn take_used(&self) -> Usage {
        self.used.take()
    }

    /// The model's reply to `request`: its messages and system prompt alone, no tools. An
    /// image goes as its type to a model that sees none.
    pub async fn answer(&self, request: SamplingRequest, cancel: &CancelToken) -> SamplingOutcome {
        let sees_images = self.provider.media().images;
        let messages = request
            .messages
            .into_iter()
            .map(|mut message| {
                for block in &mut message.content {
                    if let (ContentBlock::Image { media_type, .. }, false) = (&*block, sees_images) {
                        *block = ContentBlock::text(format!("[an image ({media_type}) this model cannot see]"));
                    }
                }
                message
            })
            .collect();
        let model_request = ModelRequest {
            system: request.system.map(|text| vec![SystemPart { text, cache_breakpoint: false }]).unwrap_or_default(),
            messages,
            tools: Vec::new(),
            max_tokens: self.limit(request.max_tokens),
            thinking_budget: None,
            temperature: request.temperature,
            tool_choice: ToolChoice::None,
            model: self.model.borrow().clone(),
        };
        match complete(&*self.provider, &model_request, cancel).await {
            Ok(completion) => {
                self.used.set(self.used.get() + completion.usage);
                SamplingOutcome::Reply(SamplingReply {
                    text: completion.message.text(),
                    model: self.model(),
                    stop_reason: completion.stop_reason,
                })
            }
            Err(e) => SamplingOutcome::Failed(format!("the model did not answer: {}", e.message)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_reference_servers_request() {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Resource context: hello"}}],
            "systemPrompt": "You are a helpful test server.", "maxTokens": 100, "temperature": 0.7,
            "includeContext": "thisServer", "modelPreferences": {"hints": [{"name": "claude"}]}
        });
        let request = read_request(&params).unwrap();
        assert_eq!(request.system.as_deref(), Some("You are a helpful test server."));
        assert_eq!(request.messages, vec![Message::user("Resource context: hello")]);
        assert_eq!((request.max_tokens, request.temperature), (100, Some(0.7)));
        assert_eq!(
            request.shown(),
            json!({"systemPrompt": "You are a helpful test server.", "maxTokens": 100,
                   "messages": [{"role": "user", "text": "Resource context: hello"}]})
        );
    }

    #[test]
    fn reads_content_lists_and_images_and_refuses_what_it_cannot_send() {
        let params = json!({"maxTokens": 5, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What is this?"},
                                         {"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
            {"role": "assistant", "content": {"type": "text", "text": "A dot."}}]});
        let request = read_request(&params).unwrap();
        assert_eq!(
            request.messages[0].content[1],
            ContentBlock::Image { media_type: "image/png".into(), data: "AAAA".into() }
        );
        assert_eq!(request.messages[1], Message::assistant("A dot."));
        assert_eq!(request.system, None);

        let audio = json!({"maxTokens": 5, "messages": [{"role": "user", "content": {"type": "audio", "data": "x"}}]});
        assert!(read_request(&audio).unwrap_err().contains("\"audio\" content"));
        let tools = json!({"maxTokens": 5, "tools": [{"name": "t"}], "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
        assert!(read_request(&tools).unwrap_err().contains("tools"));
        assert!(read_request(&json!({"maxTokens": 5, "messages": []})).is_err());
        let no_limit = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]});
        assert_eq!(read_request(&no_limit).unwrap_err(), "maxTokens must be a positive number");
    }

    #[test]
    fn replies_in_the_protocols_shape() {
        let done = SamplingReply { text: "Hi".into(), model: "m".into(), stop_reason: StopReason::EndTurn };
        assert_eq!(
            reply(&done),
            json!({"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m", "stopReason": "endTurn"})
        );
        let cut = SamplingReply { stop_reason: StopReason::MaxTokens, ..done };
        assert_eq!(reply(&cut)["stopReason"], "maxTokens");
    }
}
