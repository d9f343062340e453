//! Model providers: one streaming method per provider; everything else derives from it.
//!
//! - [`ProviderConfig`] + [`build`]: the one way to get a provider (Anthropic, OpenAI, any
//!   OpenAI-compatible server by base URL, optionally with [text tool calls](dialect)).
//! - [`formats`]: the pure wire converters (request JSON, SSE event → [`StreamEvent`]).
//! - [`sse`]: server-sent events over the host's byte stream.
//! - [`retry`]: backoff policy; [`classify`]: status and error bodies → [`ErrorKind`];
//!   `refusals`: a field a compatible server refuses by name, left out of the request sent again.
//! - [`dialect`]: tool calls written as text, for models without native tool calling.
//! - [`ProviderPreset`]: the providers a user picks by name (the settings' list).
//! - [`price_for`]: list prices for the cost meter; [`known_context_window`]: how much a known
//!   model reads, for condensing; [`check_connection`]: one tiny request
//!   for the settings' "test connection"; [`list_models`]: the server's models, for the picker.
//!
//! Retries of failures before the first token happen inside `stream` (announced with
//! [`StreamEvent::Retry`]); the loop sees a categorised [`ProviderError`] when they are used up.

pub(crate) mod address;
mod anthropic;
pub mod classify;
mod config;
mod context_window;
pub mod dialect;
pub mod formats;
mod metered;
mod models;
mod openai;
mod preset;
mod pricing;
mod probe;
mod refusals;
pub mod retry;
mod served_window;
pub mod sse;
mod tool_capability;
mod transport;

pub use anthropic::AnthropicProvider;
pub use config::{
    build, OpenAiApi, ProviderConfig, ProviderKind, ANTHROPIC_BASE_URL, DEEPSEEK_BASE_URL, DEFAULT_MAX_TOKENS,
    GEMINI_BASE_URL, GROQ_BASE_URL, LM_STUDIO_BASE_URL, MISTRAL_BASE_URL, OLLAMA_BASE_URL, OPENAI_BASE_URL,
    OPENROUTER_BASE_URL, XAI_BASE_URL,
};
pub use context_window::{known_context_window, FALLBACK_CONTEXT_WINDOW};
pub use dialect::{TextToolDialect, TextToolProvider};
pub use metered::{CallPurpose, MeteredProvider, Spend, SpendMeter};
pub use models::{list_models, models_request, parse_models, ModelInfo, ModelList};
pub use openai::OpenAiProvider;
pub use preset::{presets_ts, PresetInfo, ProviderPreset};
pub use pricing::{list_price, price_for, ModelPrice};
pub use probe::{check_connection, ConnectionCheck};
pub use retry::RetryPolicy;
pub use served_window::{LocalServer, ServedWindow, AGENT_MIN_WINDOW};

mod scripted;

pub use scripted::{ScriptedCall, ScriptedProvider, Turn};

use async_trait::async_trait;
use futures::stream::{LocalBoxStream, StreamExt};

use crate::cancel::CancelToken;
pub use crate::media::MediaSupport;
use crate::protocol::{
    ErrorKind, Message, MessageAssembler, ModelRequest, ProviderError, StopReason, StreamEvent, Usage,
};

/// A stream of events for one model call. It ends after `Done` or `Error`.
pub type EventStream = LocalBoxStream<'static, StreamEvent>;

/// A model behind some API. Implementations stream; retries of failures before the first
/// token happen inside `stream`. Cancelling `cancel` aborts the HTTP request and ends the
/// stream with an `Error` of kind [`ErrorKind::Cancelled`].
#[async_trait(?Send)]
pub trait ModelProvider {
    /// A short name for logs and reports ("anthropic", "openai", "scripted").
    fn name(&self) -> &str;
    /// The model id sent to the API.
    fn model(&self) -> &str;
    /// Starts one model call.
    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream;
    /// Whether the model sees images and reads PDFs itself (by default it does both).
    fn media(&self) -> MediaSupport {
        MediaSupport::ALL
    }
    /// What a call to the model `id` through this provider costs, for the meter: by default
    /// its list price ([`list_price`]); a server on the user's machine is free.
    fn price(&self, id: &str) -> Option<ModelPrice> {
        list_price(id)
    }
    /// The context window the server gives the model `id` now, where it says (Ollama and LM
    /// Studio, for a loaded model; by default nobody does). A model's own window may be larger: a server
    /// short of memory serves less.
    async fn served_window(&self, _id: &str, _cancel: &CancelToken) -> Option<ServedWindow> {
        None
    }
}

/// A finished, non-streamed model response.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub message: Message,
    pub usage: Usage,
    pub stop_reason: StopReason,
}

/// Runs `request` and collects the whole response: the non-streaming call, derived from
/// [`ModelProvider::stream`].
pub async fn complete(
    provider: &dyn ModelProvider,
    request: &ModelRequest,
    cancel: &CancelToken,
) -> Result<Completion, ProviderError> {
    let mut stream = provider.stream(request, cancel).await;
    let mut assembler = MessageAssembler::new();
    while let Some(event) = stream.next().await {
        assembler.push(&event);
        if let StreamEvent::Error { error } = event {
            return Err(error);
        }
    }
    let usage = assembler.usage();
    let stop_reason = assembler
        .stop_reason()
        .cloned()
        .ok_or_else(|| ProviderError::new(ErrorKind::Protocol, "the stream ended without a stop reason"))?;
    Ok(Completion { message: assembler.finish(), usage, stop_reason })
}
