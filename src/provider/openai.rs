//! OpenAI Chat Completions over HTTP, for OpenAI and every compatible server (OpenRouter,
//! Ollama, LM Studio, custom): endpoint and headers. The wire format lives in
//! [`super::formats::openai`].

use async_trait::async_trait;

use super::address::is_loopback;
use super::formats::openai::{request_body, OpenAiDecoder, OpenAiOptions};
use super::pricing::{list_price, ModelPrice};
use super::served_window::served_window;
use super::transport::Transport;
use super::{EventStream, ModelProvider};
use crate::cancel::CancelToken;
use crate::host::HttpRequest;
use crate::media::MediaSupport;
use crate::protocol::ModelRequest;

/// A chat model through `POST {base_url}/chat/completions`.
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
    extra_headers: Vec<(String, String)>,
    media: MediaSupport,
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
        OpenAiProvider { transport, name, base_url, api_key, model, options, extra_headers, media: MediaSupport::ALL }
    }

    /// Sets what the model takes besides text.
    pub(crate) fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// The HTTP request for `request`, as sent.
    pub fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let body = request_body(request.model.as_deref().unwrap_or(&self.model), request, &self.options);
        let mut http = HttpRequest::post_json(format!("{}/chat/completions", self.base_url), &body)
            .header("accept", "text/event-stream");
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
            http = http.header("authorization", format!("Bearer {key}"));
        }
        for (name, value) in &self.extra_headers {
            http = http.header(name, value);
        }
        http
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
        self.transport.stream(self.http_request(request), OpenAiDecoder::new, cancel)
    }
}
