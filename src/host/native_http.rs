//! HTTP for the native CLI, over reqwest (rustls; no system OpenSSL needed).

use async_trait::async_trait;
use futures::StreamExt;

use super::cancellable;
use super::{HttpClient, HttpRequest, HttpResponse};
use crate::cancel::{with_cancel, CancelToken};
use crate::{Error, Result};

/// A reqwest client. Dropping the response (or cancelling) closes the connection.
#[derive(Debug, Clone, Default)]
pub struct ReqwestClient {
    client: reqwest::Client,
}

impl ReqwestClient {
    /// A client with reqwest's defaults and no global timeout (streams may run long).
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait(?Send)]
impl HttpClient for ReqwestClient {
    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> Result<HttpResponse> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| Error::Invalid(format!("bad HTTP method {:?}", request.method)))?;
        let mut builder = self.client.request(method, &request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let response = with_cancel(cancel, builder.send()).await?.map_err(|e| Error::Network(with_causes(&e)))?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_ascii_lowercase(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let body = response
            .bytes_stream()
            .map(|chunk| chunk.map(|b| b.to_vec()).map_err(|e| Error::Network(e.to_string())))
            .boxed_local();
        Ok(HttpResponse { status, headers, body: cancellable(body, cancel) })
    }
}

/// An error's message with its causes ("error sending request…: tcp connect error: Connection
/// refused"): reqwest's own message leaves out why, which decides whether a retry can help.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
