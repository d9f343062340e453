//! What crosses the boundary between the loop, the model providers and the host: messages,
//! tool specs, usage, stop reasons and stream events.
//!
//! This module depends on nothing else in the crate, so every layer can name these types.

mod approval;
mod assemble;
mod embed_worker;
mod event;
mod form;
mod index_worker;
mod label;
mod report;
mod subtask;
mod worker;

pub use approval::{
    ApprovalCategory, ApprovalDecision, ApprovalRequest, ChangePreview, DiffPart, DiffRow, DiffRowKind, Question,
};
pub use assemble::MessageAssembler;
pub use embed_worker::{EmbedWorkersRequest, FromEmbedWorker, ToEmbedWorker};
pub use event::{AgentEvent, ProviderProblem};
pub use form::{FieldInput, FormAction, FormAnswer, FormField, FormOption, FormPage, FormRequest, TextFormat};
pub use index_worker::{FromIndexWorker, ToIndexWorker};
pub use label::{CallLabel, LabelPart, ToolOutcome};
pub use report::{ContextUse, EndReason, RecipeUse, RunReport, StepReport, ToolCallReport};
pub use subtask::SubtaskInfo;
pub use worker::{BatchRead, CallbackArg, FromCore, HostCall, HttpAnswer, HttpRequest, Reply, ToCore};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Who wrote a message. Tool results travel in `User` messages, as both APIs expect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// A base64-encoded image.
    Image {
        #[serde(alias = "media_type")]
        media_type: String,
        data: String,
    },
    /// A base64-encoded document (a PDF), for providers that read documents themselves;
    /// `name` is the file's name, which the model sees as its title.
    Document {
        #[serde(alias = "media_type")]
        media_type: String,
        data: String,
        name: String,
    },
    /// The model asks for a tool call. `signature` is an opaque token the provider attached to
    /// the call (Gemini's thought signature), which must go back with it unchanged.
    ToolUse {
        id: String,
        name: String,
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// The answer to a `ToolUse` with the same id.
    ToolResult {
        #[serde(alias = "tool_use_id")]
        tool_use_id: String,
        content: String,
        #[serde(default)]
        #[serde(alias = "is_error")]
        is_error: bool,
    },
    /// The model's reasoning. Anthropic needs the `signature` echoed back unchanged; OpenAI-
    /// compatible reasoning models need the text echoed as `reasoning_content`.
    Thinking {
        thinking: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// Reasoning the provider encrypted (Anthropic `redacted_thinking`). It is opaque, and must
    /// be sent back unchanged with the rest of the assistant message.
    RedactedThinking {
        data: String,
    },
    /// OpenRouter's record of the model's reasoning in this turn (its `reasoning_details`, the
    /// pieces of one entry joined), sent back unchanged with the message: Gemini's thought
    /// signatures travel in it. Other providers leave it out.
    ReasoningDetails {
        details: Value,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// A tool call without a provider's signature.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        ContentBlock::ToolUse { id: id.into(), name: name.into(), input, signature: None }
    }
}

/// A message in the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Message { role: Role::User, content: vec![ContentBlock::text(text)] }
    }

    /// An assistant message with one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: vec![ContentBlock::text(text)] }
    }

    /// The concatenated text blocks.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }

    /// The tool calls in this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input, .. } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments object.
    pub input_schema: Value,
}

/// Token counts for one model call (or a sum of them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(alias = "input_tokens")]
    pub input_tokens: u64,
    #[serde(alias = "output_tokens")]
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    #[serde(alias = "cache_read_tokens")]
    pub cache_read_tokens: u64,
    /// Input tokens written to the provider's prompt cache.
    #[serde(alias = "cache_write_tokens")]
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Every input token, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(mut self, other: Usage) -> Usage {
        self += other;
        self
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    StopSequence,
    Refusal,
    Other(String),
}

/// A part of the system prompt. `cache_breakpoint` marks the end of a stable prefix that a
/// provider with prompt caching may cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemPart {
    pub text: String,
    #[serde(default)]
    pub cache_breakpoint: bool,
}

/// Everything one model call needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub system: Vec<SystemPart>,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: u32,
    /// Extended-thinking budget in tokens, where the model supports it.
    #[serde(default)]
    pub thinking_budget: Option<u32>,
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Whether the model may call tools on this request.
    #[serde(default)]
    pub tool_choice: ToolChoice,
    /// A model to use instead of the provider's own (a mode with a model of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl ModelRequest {
    /// A request for one answer in text: `system`, one user message, no tools, the provider's
    /// model at its default temperature. Callers change what differs with struct update syntax.
    pub fn one_shot(system: &str, user: String, max_tokens: u32) -> Self {
        ModelRequest {
            system: vec![SystemPart { text: system.into(), cache_breakpoint: false }],
            messages: vec![Message::user(user)],
            tools: Vec::new(),
            max_tokens,
            thinking_budget: None,
            temperature: None,
            tool_choice: ToolChoice::None,
            model: None,
        }
    }

    /// This request turned into one answer in text about `history`, with `ask` added to its
    /// last user message (or as one): the model, limits and tools stay (both APIs refuse a
    /// history with tool calls when no tools are defined), but the tools may not be called, and
    /// `system` replaces the system prompt.
    pub fn answer_about(&self, system: &str, mut history: Vec<Message>, ask: String) -> Self {
        let ask = ContentBlock::text(ask);
        match history.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(ask),
            _ => history.push(Message { role: Role::User, content: vec![ask] }),
        }
        ModelRequest {
            system: vec![SystemPart { text: system.into(), cache_breakpoint: false }],
            messages: history,
            tool_choice: ToolChoice::None,
            thinking_budget: None,
            ..self.clone()
        }
    }
}

/// Whether the model may call tools. The tools stay in the request either way: both APIs
/// refuse a history with tool calls when no tools are defined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The model must answer in text (the loop-breaker's force-answer round).
    None,
}

/// What went wrong with a model call, sorted so the loop can decide: back off, condense or
/// stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 429: too many requests or tokens; retry later.
    RateLimited,
    /// The account's quota is used up — a free tier's requests for the day, or the credit it
    /// paid for — so retrying within the task will not help.
    QuotaExhausted,
    /// The prompt does not fit the model's window; condense and retry.
    ContextOverflow,
    /// Missing or wrong API key, or no permission.
    Auth,
    /// The request is malformed or refused; retrying will not help.
    BadRequest,
    /// No response, or the connection dropped.
    Network,
    /// 5xx or 529: the provider is overloaded; retry later.
    Overloaded,
    /// The task was cancelled.
    Cancelled,
    /// The response could not be understood.
    Protocol,
    /// Nothing answers at the address: the connection was refused, or a server on this machine
    /// could not be reached at all. Waiting will not start it, so it is not retried.
    Unreachable,
}

impl ErrorKind {
    /// Whether a retry with backoff may succeed.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::RateLimited | ErrorKind::Network | ErrorKind::Overloaded)
    }

    /// The kind in plain words, for a person.
    pub fn words(self) -> &'static str {
        match self {
            ErrorKind::RateLimited => "too many requests",
            ErrorKind::QuotaExhausted => "quota used up",
            ErrorKind::ContextOverflow => "too long for the model",
            ErrorKind::Auth => "not authorised",
            ErrorKind::BadRequest => "request refused",
            ErrorKind::Network => "network error",
            ErrorKind::Overloaded => "provider overloaded",
            ErrorKind::Cancelled => "stopped",
            ErrorKind::Protocol => "unreadable answer",
            ErrorKind::Unreachable => "server unreachable",
        }
    }
}

/// The provider setting that an error says is wrong: the chat offers to open it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ProviderSetting {
    ApiKey,
    BaseUrl,
    Model,
}

/// A categorised model-call error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderError {
    pub kind: ErrorKind,
    pub message: String,
    /// The HTTP status, if one was received.
    #[serde(default)]
    pub status: Option<u16>,
    /// How long the provider asked us to wait (Retry-After), in milliseconds.
    #[serde(default)]
    #[serde(alias = "retry_after_ms")]
    pub retry_after_ms: Option<u64>,
}

impl ProviderError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ProviderError { kind, message: message.into(), status: None, retry_after_ms: None }
    }

    /// Whether the server refused a tool call the model wrote badly: Groq checks each call
    /// against the tool's schema and answers "Failed to call a function. Please adjust your
    /// prompt." (`tool_use_failed`) instead of it. Sampling again, the model told why, usually
    /// succeeds.
    pub fn refused_tool_call(&self) -> bool {
        self.kind == ErrorKind::BadRequest && self.message.to_ascii_lowercase().contains("failed to call a function")
    }
}

impl ProviderError {
    /// What went wrong, in a sentence for a person (the provider's own words are in
    /// [`ProviderError::detail`]).
    pub fn explain(&self) -> String {
        let names_model = self.message.to_ascii_lowercase().contains("model");
        match self.kind {
            ErrorKind::RateLimited => "The provider says there are too many requests right now.".into(),
            ErrorKind::QuotaExhausted => {
                "The account's quota is used up: a free tier's requests for today, or its credit. It works again once the quota resets or credit is added.".into()
            }
            ErrorKind::ContextOverflow => {
                "The conversation is too long for the model. Start a new chat, or attach less.".into()
            }
            ErrorKind::Auth => "The provider did not accept the API key.".into(),
            ErrorKind::BadRequest if self.no_deployment() => {
                "Azure has no deployment by the model's name: on Azure, the model is the name you gave a deployment."
                    .into()
            }
            ErrorKind::BadRequest if self.status == Some(404) => {
                "The provider has nothing at this address, or no such model.".into()
            }
            ErrorKind::BadRequest if names_model => "The provider refused the request; check the model name.".into(),
            ErrorKind::BadRequest => "The provider refused the request.".into(),
            ErrorKind::Network => "The provider could not be reached; check your connection.".into(),
            ErrorKind::Overloaded => "The provider is overloaded right now.".into(),
            ErrorKind::Cancelled => "Stopped.".into(),
            ErrorKind::Protocol => "The provider's answer could not be read.".into(),
            ErrorKind::Unreachable => {
                "Nothing answers at the provider's address. Is the server running, and is the URL right?".into()
            }
        }
    }

    /// Azure's 404 for a model that names no deployment of the resource (`DeploymentNotFound`:
    /// "The API deployment for this resource does not exist").
    fn no_deployment(&self) -> bool {
        self.status == Some(404) && self.message.to_ascii_lowercase().contains("deployment")
    }

    /// The provider's own words and the HTTP status, for the curious.
    pub fn detail(&self) -> String {
        match self.status {
            Some(status) => format!("{} (HTTP {status})", self.message),
            None => self.message.clone(),
        }
    }

    /// The setting to look at, when the error says which.
    pub fn setting(&self) -> Option<ProviderSetting> {
        match self.kind {
            ErrorKind::Auth => Some(ProviderSetting::ApiKey),
            ErrorKind::Unreachable => Some(ProviderSetting::BaseUrl),
            ErrorKind::BadRequest if self.no_deployment() => Some(ProviderSetting::Model),
            ErrorKind::BadRequest if self.status == Some(404) => Some(ProviderSetting::BaseUrl),
            // A quota counted per model (Gemini's free tier names the model whose day is used
            // up): another model has its own.
            ErrorKind::BadRequest | ErrorKind::QuotaExhausted
                if self.message.to_ascii_lowercase().contains("model") =>
            {
                Some(ProviderSetting::Model)
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Some(status) => write!(f, "{} (HTTP {status}): {}", self.kind.words(), self.message),
            None => write!(f, "{}: {}", self.kind.words(), self.message),
        }
    }
}

impl std::error::Error for ProviderError {}

/// One event of a streamed model response, in the order the model produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    /// The opaque signature that closes a thinking block (Anthropic).
    ThinkingSignature {
        signature: String,
    },
    /// A tool call begins. `index` identifies it among this response's tool calls.
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// The opaque signature the provider attached to a started tool call (Gemini's thought
    /// signature), to be sent back with the call.
    ToolCallSignature {
        index: usize,
        signature: String,
    },
    /// A piece of the tool call's JSON arguments.
    ToolCallDelta {
        index: usize,
        json: String,
    },
    ToolCallEnd {
        index: usize,
    },
    Usage {
        usage: Usage,
    },
    /// The response is complete.
    Done {
        stop_reason: StopReason,
    },
    /// An opaque, encrypted thinking block (Anthropic `redacted_thinking`), complete.
    RedactedThinking {
        data: String,
    },
    /// OpenRouter's `reasoning_details` of the whole response, complete.
    ReasoningDetails {
        details: Value,
    },
    /// The call failed before its first token and will be tried again after `delay_ms`; the
    /// events of the failed attempt were not delivered. Shown by the UI ("retrying in 2 s"),
    /// ignored by [`MessageAssembler`].
    Retry {
        /// The attempt that failed, from 1.
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error: ProviderError,
    },
    /// The response failed; no event follows.
    Error {
        error: ProviderError,
    },
    /// How the call is made changed in a way the user should know of (the model's tools now go
    /// as text: [`crate::provider::TextToolProvider::fallback`]). Shown once in the chat,
    /// ignored by [`MessageAssembler`].
    Notice {
        message: String,
    },
}

impl StreamEvent {
    /// Whether the event carries model output (text, thinking or a tool call), as opposed to
    /// metadata. Retries stop once such an event was delivered.
    pub fn is_output(&self) -> bool {
        matches!(
            self,
            StreamEvent::TextDelta { .. }
                | StreamEvent::ThinkingDelta { .. }
                | StreamEvent::ThinkingSignature { .. }
                | StreamEvent::RedactedThinking { .. }
                | StreamEvent::ReasoningDetails { .. }
                | StreamEvent::ToolCallStart { .. }
                | StreamEvent::ToolCallSignature { .. }
                | StreamEvent::ToolCallDelta { .. }
                | StreamEvent::ToolCallEnd { .. }
        )
    }
}
