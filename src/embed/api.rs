//! [`ApiEmbedder`]: an OpenAI-compatible `POST {base}/embeddings` (OpenAI, Ollama, LM Studio,
//! any compatible server), 16 texts per request, retried with the providers' backoff
//! ([`RetryPolicy`], `Retry-After` honoured) on 429 and 5xx — including a rate limit reported
//! inside a 200 body, as some proxies do. Resuming is the embedding job's part: it saves what
//! is done, and a new run embeds only what is missing.

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use ts_rs::TS;

use super::kernels::normalize;
use super::Embedder;
use crate::cancel::CancelToken;
use crate::host::{Clock, HttpClient, HttpRequest};
use crate::protocol::{ErrorKind, ProviderError};
use crate::provider::classify::{classify_error_object, classify_response};
use crate::provider::retry::{JitterSource, RetryPolicy};
use crate::{Error, Result};

/// Texts per request.
pub const API_BATCH: usize = 16;

/// Where and what to ask (camelCase in the plugin's settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApiEmbedderConfig {
    /// The URL before `/embeddings`, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`.
    pub base_url: String,
    pub model: String,
    #[serde(default)]
    #[ts(optional)]
    pub api_key: Option<String>,
    /// The vectors' width, if known; otherwise learnt from the first answer.
    #[serde(default)]
    #[ts(optional)]
    pub dimensions: Option<usize>,
    #[serde(default)]
    #[ts(as = "Option<RetryPolicy>", optional)]
    pub retry: RetryPolicy,
}

/// An embedder behind an HTTP API.
pub struct ApiEmbedder {
    config: ApiEmbedderConfig,
    http: Rc<dyn HttpClient>,
    clock: Rc<dyn Clock>,
    jitter: JitterSource,
    dims: Cell<usize>,
    id: String,
    requests: Cell<u64>,
}

impl ApiEmbedder {
    /// An embedder for `config`. Refuses a base URL that is not http(s) and an empty model.
    pub fn new(config: ApiEmbedderConfig, http: Rc<dyn HttpClient>, clock: Rc<dyn Clock>) -> Result<ApiEmbedder> {
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            return Err(Error::Invalid(format!("the embeddings base URL must be http(s): {:?}", config.base_url)));
        }
        if config.model.trim().is_empty() {
            return Err(Error::Invalid("the embeddings model is empty".into()));
        }
        let id = format!("api:{}:{}", config.base_url.trim_end_matches('/'), config.model);
        let jitter = JitterSource::new(clock.now_ms());
        Ok(ApiEmbedder {
            dims: Cell::new(config.dimensions.unwrap_or(0)),
            config,
            http,
            clock,
            jitter,
            id,
            requests: Cell::new(0),
        })
    }

    /// HTTP requests sent so far (retries included).
    pub fn requests_sent(&self) -> u64 {
        self.requests.get()
    }

    /// One request for at most [`API_BATCH`] texts, retried as the policy allows.
    async fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let url = format!("{}/embeddings", self.config.base_url.trim_end_matches('/'));
        let mut body = json!({"model": self.config.model, "input": texts});
        if let Some(d) = self.config.dimensions {
            body["dimensions"] = json!(d);
        }
        let mut request = HttpRequest::post_json(url, &body);
        if let Some(key) = self.config.api_key.as_deref().filter(|k| !k.is_empty()) {
            request = request.header("authorization", format!("Bearer {key}"));
        }
        let mut attempt = 1;
        loop {
            let error = match self.attempt(request.clone(), texts.len()).await {
                Ok(vectors) => return Ok(vectors),
                Err(AttemptError::Fatal(e)) => return Err(e),
                Err(AttemptError::Provider(e)) => e,
            };
            match self.config.retry.delay_after(attempt, &error, self.jitter.next_unit()) {
                Some(ms) => self.clock.sleep(ms).await,
                None => return Err(Error::Provider(error)),
            }
            attempt += 1;
        }
    }

    async fn attempt(&self, request: HttpRequest, expected: usize) -> Result<Vec<Vec<f32>>, AttemptError> {
        self.requests.set(self.requests.get() + 1);
        // Cancelling is done by dropping this future (the embedding job races it with its token),
        // which drops the response and so aborts the request.
        let response = match self.http.send(request, &CancelToken::new()).await {
            Ok(r) => r,
            Err(Error::Invalid(m)) => return Err(AttemptError::Fatal(Error::Invalid(m))),
            Err(e) => return Err(AttemptError::Provider(ProviderError::new(ErrorKind::Network, e.to_string()))),
        };
        let status = response.status;
        let headers = response.headers.clone();
        let body = response
            .text()
            .await
            .map_err(|e| AttemptError::Provider(ProviderError::new(ErrorKind::Network, e.to_string())))?;
        if !(200..300).contains(&status) {
            return Err(AttemptError::Provider(classify_response(status, &headers, &body, self.clock.now_ms())));
        }
        let value: Value = serde_json::from_str(&body).map_err(|e| {
            AttemptError::Provider(ProviderError::new(
                ErrorKind::Protocol,
                format!("the embeddings answer is not JSON: {e}"),
            ))
        })?;
        if value.get("error").is_some_and(|e| !e.is_null()) {
            // An error inside a 200 (a proxy's rate limit, an upstream failure).
            return Err(AttemptError::Provider(classify_error_object(&value)));
        }
        self.vectors(&value, expected).map_err(AttemptError::Fatal)
    }

    fn vectors(&self, value: &Value, expected: usize) -> Result<Vec<Vec<f32>>> {
        #[derive(Deserialize)]
        struct Item {
            #[serde(default)]
            index: Option<usize>,
            embedding: Vec<f32>,
        }
        #[derive(Deserialize)]
        struct Answer {
            data: Vec<Item>,
        }
        let answer: Answer = serde_json::from_value(value.clone())
            .map_err(|e| Error::Invalid(format!("unexpected embeddings answer: {e}")))?;
        if answer.data.len() != expected {
            return Err(Error::Invalid(format!("asked for {expected} embeddings, got {}", answer.data.len())));
        }
        let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
        for (i, item) in answer.data.into_iter().enumerate() {
            let at = item.index.unwrap_or(i);
            let slot = out.get_mut(at).ok_or_else(|| Error::Invalid(format!("embedding index {at} out of range")))?;
            let mut v = item.embedding;
            if self.dims.get() == 0 {
                self.dims.set(v.len());
            }
            if v.len() != self.dims.get() {
                return Err(Error::Invalid(format!(
                    "an embedding of {} dimensions, expected {}",
                    v.len(),
                    self.dims.get()
                )));
            }
            normalize(&mut v);
            *slot = Some(v);
        }
        out.into_iter()
            .map(|v| v.ok_or_else(|| Error::Invalid("an embedding is missing from the answer".into())))
            .collect()
    }
}

enum AttemptError {
    /// Worth retrying if the policy says so.
    Provider(ProviderError),
    /// Retrying cannot help.
    Fatal(Error),
}

#[async_trait(?Send)]
impl Embedder for ApiEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    /// 0 until known (from the configuration or the first answer).
    fn dimensions(&self) -> usize {
        self.dims.get()
    }

    fn batch_size(&self) -> usize {
        API_BATCH
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(API_BATCH) {
            out.extend(self.request(batch).await?);
        }
        Ok(out)
    }
}
