//! OpenAI's APIs over HTTP: Chat Completions, for OpenAI and every compatible server
//! (OpenRouter, Ollama, LM Studio, custom), and the Responses API, OpenAI's own for its
//! reasoning models ([`OpenAiApi`]): endpoint and headers. The wire formats live in
//! [`super::formats::openai`] and [`super::formats::responses`].

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;

use super::address::is_loopback;
use super::config::OpenAiApi;
use super::formats::openai::{request_body, OpenAiDecoder, OpenAiOptions};
use super::formats::responses::{self, ResponsesDecoder};
use super::pricing::{list_price, ModelPrice};
use super::refusals::{send, Learned, Post};
use super::served_window::served_window;
use super::transport::Transport;
use super::{EventStream, ModelProvider};
use crate::cancel::CancelToken;
use crate::media::MediaSupport;
use crate::protocol::{ModelRequest, StreamEvent};

/// A chat model through `POST {base_url}/chat/completions`, or `POST {base_url}/responses`.
///
/// Headers are kept to the minimum (content type, accept, and `authorization` when there is a
/// key), plus those the configuration adds: some compatible servers reject SDK-specific
/// headers, and a browser turns every extra header into a CORS preflight item.
pub struct OpenAiProvider {
    transport: Transport,
    name: &'static str,
    base_url: String,
    api_key: Option<String>,
    model: String,
    options: OpenAiOptions,
    /// The API spoken; Chat Completions turns into the Responses API for good when the server
    /// says the model answers only there, unless the settings chose it.
    api: Cell<OpenAiApi>,
    api_chosen: bool,
    extra_headers: Vec<(String, String)>,
    media: MediaSupport,
    /// What the server refused by name so far, left out of (or renamed in) later requests.
    learned: Rc<Learned>,
}

impl OpenAiProvider {
    pub(crate) fn new(
        transport: Transport,
        name: &'static str,
        base_url: &str,
        api_key: Option<String>,
        model: String,
        options: OpenAiOptions,
        extra_headers: Vec<(String, String)>,
    ) -> Self {
        let base_url = base_url.trim_end_matches('/').to_string();
        OpenAiProvider {
            transport,
            name,
            base_url,
            api_key,
            model,
            options,
            api: Cell::new(OpenAiApi::ChatCompletions),
            api_chosen: false,
            extra_headers,
            media: MediaSupport::ALL,
            learned: Rc::default(),
        }
    }

    /// Sets what the model takes besides text.
    pub(crate) fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// Speaks `api` to the server: as the settings `chosen` it, or as the server's address
    /// suggests (then the Responses API when the server says a model answers only there).
    pub(crate) fn with_api(mut self, api: OpenAiApi, chosen: bool) -> Self {
        self.api = Cell::new(api);
        self.api_chosen = chosen;
        self
    }

    /// The body for `request`, as sent (as the server takes it, by what it refused before).
    fn body(&self, api: OpenAiApi, request: &ModelRequest) -> Value {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let mut body = match api {
            OpenAiApi::ChatCompletions => request_body(model, request, &self.options),
            OpenAiApi::Responses => responses::request_body(model, request),
        };
        self.learned.adjust(&mut body);
        body
    }
}

#[async_trait(?Send)]
impl ModelProvider for OpenAiProvider {
    fn name(&self) -> &str {
        self.name
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn media(&self) -> MediaSupport {
        self.media
    }

    fn price(&self, id: &str) -> Option<ModelPrice> {
        if is_loopback(&self.base_url) {
            Some(ModelPrice::FREE)
        } else {
            list_price(id)
        }
    }

    async fn served_window(&self, id: &str, cancel: &CancelToken) -> Option<crate::provider::ServedWindow> {
        served_window(&*self.transport.http, &*self.transport.clock, &self.base_url, id, cancel).await
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        let api = self.api.get();
        let mut stream = self.stream_with(api, request, cancel);
        if api == OpenAiApi::Responses || self.api_chosen {
            return stream;
        }
        // The first event says whether the server refused the model here (before any output).
        match stream.next().await {
            Some(StreamEvent::Error { error }) if answers_only_through_responses(&error.message) => {
                self.api.set(OpenAiApi::Responses);
                let notice = StreamEvent::Notice {
                    message: format!(
                        "{} answers only through OpenAI's Responses API: it is asked there from now on (\u{201c}{}\u{201d}).",
                        request.model.as_deref().unwrap_or(&self.model),
                        error.message.trim()
                    ),
                };
                futures::stream::iter([notice])
                    .chain(self.stream_with(OpenAiApi::Responses, request, cancel))
                    .boxed_local()
            }
            Some(first) => futures::stream::iter([first]).chain(stream).boxed_local(),
            None => stream,
        }
    }
}

impl OpenAiProvider {
    /// `request` through `api`.
    fn stream_with(&self, api: OpenAiApi, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        let mut headers = vec![("accept".to_string(), "text/event-stream".to_string())];
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
            headers.push(super::address::key_header(&self.base_url, key));
        }
        headers.extend(self.extra_headers.iter().cloned());
        let body = self.body(api, request);
        match api {
            OpenAiApi::ChatCompletions => {
                let post = Post { url: format!("{}/chat/completions", self.base_url), headers };
                send(&self.transport, post, &self.learned, &body, cancel, OpenAiDecoder::new)
            }
            OpenAiApi::Responses => {
                let post = Post { url: format!("{}/responses", self.base_url), headers };
                let model = request.model.clone().unwrap_or_else(|| self.model.clone());
                send(&self.transport, post, &self.learned, &body, cancel, move || ResponsesDecoder::for_model(&model))
            }
        }
    }
}

/// Whether a refusal says the model answers only through the Responses API: OpenAI's "This
/// model is only supported in v1/responses and not in v1/chat/completions" (o3-pro, the Codex
/// models), Azure's "The chatCompletion operation does not work with the specified model".
fn answers_only_through_responses(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    message.contains("only supported in v1/responses") || message.contains("chatcompletion operation does not work")
}
