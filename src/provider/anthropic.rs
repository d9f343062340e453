//! The Anthropic Messages API over HTTP: endpoint and headers. The wire format lives in
//! [`super::formats::anthropic`].

use async_trait::async_trait;

use super::formats::anthropic::{request_body, AnthropicDecoder, API_VERSION};
use super::transport::Transport;
use super::{EventStream, ModelProvider};
use crate::cancel::CancelToken;
use crate::host::HttpRequest;
use crate::media::MediaSupport;
use crate::protocol::ModelRequest;

/// Claude through `POST {base_url}/v1/messages`.
pub struct AnthropicProvider {
    transport: Transport,
    base_url: String,
    api_key: String,
    model: String,
    extra_headers: Vec<(String, String)>,
    media: MediaSupport,
}

impl AnthropicProvider {
    pub(crate) fn new(
        transport: Transport,
        base_url: &str,
        api_key: String,
        model: String,
        extra_headers: Vec<(String, String)>,
    ) -> Self {
        AnthropicProvider {
            transport,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            model,
            extra_headers,
            media: MediaSupport::ALL,
        }
    }

    /// Sets what the model takes besides text.
    pub(crate) fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// The HTTP request for `request`, as sent.
    pub fn http_request(&self, request: &ModelRequest) -> HttpRequest {
        let mut http = HttpRequest::post_json(
            format!("{}/v1/messages", self.base_url),
            &request_body(request.model.as_deref().unwrap_or(&self.model), request),
        )
        .header("accept", "text/event-stream")
        .header("x-api-key", &self.api_key)
        .header("anthropic-version", API_VERSION)
        // Anthropic refuses requests from a browser origin without this opt-in; the plugin
        // runs in Obsidian's renderer, which is one.
        .header("anthropic-dangerous-direct-browser-access", "true");
        for (name, value) in &self.extra_headers {
            http = http.header(name, value);
        }
        http
    }
}

#[async_trait(?Send)]
impl ModelProvider for AnthropicProvider {
    fn name(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn media(&self) -> MediaSupport {
        self.media
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancelToken) -> EventStream {
        self.transport.stream(self.http_request(request), AnthropicDecoder::new, cancel)
    }
}
