//! OpenAI's APIs over HTTP: Chat Completions, for OpenAI and every compatible server
//! (OpenRouter, Ollama, LM Studio, custom), and the Responses API, OpenAI's own for its
//! reasoning models ([`OpenAiApi`]): endpoint and headers. The wire formats live in
//! [`super::formats::openai`] and [`super::formats::responses`].

use std::rc::Rc;

use async_trait::async_trait;
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
use crate::protocol::ModelRequest;

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
    api: OpenAiApi,
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
            api: OpenAiApi::ChatCompletions,
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

    /// Speaks `api` to the server.
    pub(crate) fn with_api(mut self, api: OpenAiApi) -> Self {
        self.api = api;
        self
    }

    /// The body for `request`, as sent (as the server takes it, by what it refused before).
    fn body(&self, request: &ModelRequest) -> Value {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let mut body = match self.api {
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
        let mut headers = vec![("accept".to_string(), "text/event-stream".to_string())];
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
            headers.push(super::address::key_header(&self.base_url, key));
        }
        headers.extend(self.extra_headers.iter().cloned());
        let body = self.body(request);
        match self.api {
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
