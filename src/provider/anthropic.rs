//! The Anthropic Messages API over HTTP: endpoint and headers. The wire format lives in
//! [`super::formats::anthropic`].

use std::rc::Rc;

use async_trait::async_trait;
use serde_json::Value;

use super::formats::anthropic::{request_body, AnthropicDecoder, API_VERSION};
use super::refusals::{send, Learned, Post};
use super::transport::Transport;
use super::{EventStream, ModelProvider};
use crate::cancel::CancelToken;
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
    /// What the API refused so far (an output limit above the model's), adjusted in later
    /// requests.
    learned: Rc<Learned>,
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
            learned: Rc::default(),
        }
    }

    /// Sets what the model takes besides text.
    pub(crate) fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// The body for `request`, as sent (as the API takes it, by what it refused before).
    fn body(&self, request: &ModelRequest) -> Value {
        let mut body = request_body(request.model.as_deref().unwrap_or(&self.model), request);
        self.learned.adjust(&mut body);
        body
    }

    /// Where and how bodies are posted.
    fn post(&self) -> Post {
        let mut headers: Vec<(String, String)> = [
            ("accept", "text/event-stream"),
            ("x-api-key", self.api_key.as_str()),
            ("anthropic-version", API_VERSION),
            // Anthropic refuses requests from a browser origin without this opt-in; the plugin
            // runs in Obsidian's renderer, which is one.
            ("anthropic-dangerous-direct-browser-access", "true"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
        headers.extend(self.extra_headers.iter().cloned());
        Post { url: format!("{}/v1/messages", self.base_url), headers }
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
        send(&self.transport, self.post(), &self.learned, &self.body(request), cancel, AnthropicDecoder::new)
    }
}
