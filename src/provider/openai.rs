//! OpenAI Chat Completions over HTTP, for OpenAI and every compatible server (OpenRouter,
//! Ollama, LM Studio, custom): endpoint and headers. The wire format lives in
//! [`super::formats::openai`].

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::stream::StreamExt;
use serde_json::Value;

use super::address::is_loopback;
use super::formats::openai::{request_body, OpenAiDecoder, OpenAiOptions};
use super::pricing::{list_price, ModelPrice};
use super::served_window::served_window;
use super::transport::Transport;
use super::{EventStream, ModelProvider};
use crate::cancel::CancelToken;
use crate::host::HttpRequest;
use crate::media::MediaSupport;
use crate::protocol::{ErrorKind, ModelRequest, ProviderError, StreamEvent};

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
    /// Set once the server refused `stream_options`: later requests go without it.
    no_stream_options: Rc<Cell<bool>>,
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
            extra_headers,
            media: MediaSupport::ALL,
            no_stream_options: Rc::default(),
        }
    }

    /// Sets what the model takes besides text.
    pub(crate) fn with_media(mut self, media: MediaSupport) -> Self {
        self.media = media;
        self
    }

    /// The body for `request`, as sent (without `stream_options` once the server refused it).
    fn body(&self, request: &ModelRequest) -> Value {
        let mut body = request_body(request.model.as_deref().unwrap_or(&self.model), request, &self.options);
        if self.no_stream_options.get() {
            if let Some(fields) = body.as_object_mut() {
                fields.remove("stream_options");
            }
        }
        body
    }
}

/// Where and how a body is posted: the URL, the key and the configured headers.
#[derive(Clone)]
struct Post {
    url: String,
    api_key: Option<String>,
    headers: Vec<(String, String)>,
}

impl Post {
    fn request(&self, body: &Value) -> HttpRequest {
        let mut http = HttpRequest::post_json(&self.url, body).header("accept", "text/event-stream");
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty()) {
            http = http.header("authorization", format!("Bearer {key}"));
        }
        for (name, value) in &self.headers {
            http = http.header(name, value);
        }
        http
    }
}

/// Whether `error` is a server refusing the `stream_options` field ("property 'stream_options'
/// is unsupported", "Unrecognized request argument supplied: stream_options", "Extra inputs
/// are not permitted"), which some compatible servers do: usage is only a nicety.
fn refuses_stream_options(error: &ProviderError) -> bool {
    error.kind == ErrorKind::BadRequest && error.message.to_ascii_lowercase().contains("stream_options")
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
        let post = Post {
            url: format!("{}/chat/completions", self.base_url),
            api_key: self.api_key.clone(),
            headers: self.extra_headers.clone(),
        };
        let mut body = self.body(request);
        let first = self.transport.stream(post.request(&body), OpenAiDecoder::new, cancel);
        if body.get("stream_options").is_none() {
            return first;
        }
        // A server that refuses the field gets the same request again without it, and this
        // provider never sends it there again. The refusal comes before any output (a 4xx is
        // not retried), so nothing of the first attempt reached the caller.
        let (transport, cancel, refused) = (self.transport.clone(), cancel.clone(), self.no_stream_options.clone());
        first
            .flat_map(move |event| match event {
                StreamEvent::Error { error } if refuses_stream_options(&error) && !refused.get() => {
                    refused.set(true);
                    if let Some(fields) = body.as_object_mut() {
                        fields.remove("stream_options");
                    }
                    transport.stream(post.request(&body), OpenAiDecoder::new, &cancel)
                }
                event => futures::stream::iter([event]).boxed_local(),
            })
            .boxed_local()
    }
}
