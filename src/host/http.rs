//! HTTP, as the host provides it: a request in, a status, headers and a byte stream out.

use async_trait::async_trait;
use futures::stream::{LocalBoxStream, StreamExt};

use crate::cancel::CancelToken;
use crate::Result;

/// A response body, read incrementally: each item is one chunk as the network delivered it.
pub type ByteStream = LocalBoxStream<'static, Result<Vec<u8>>>;

/// An HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl HttpRequest {
    /// A GET request to `url`.
    pub fn get(url: impl Into<String>) -> Self {
        HttpRequest { method: "GET".into(), url: url.into(), headers: Vec::new(), body: None }
    }

    /// A POST request to `url` with a JSON body.
    pub fn post_json(url: impl Into<String>, body: &serde_json::Value) -> Self {
        HttpRequest {
            method: "POST".into(),
            url: url.into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: Some(body.to_string().into_bytes()),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// `text` as a URL query (or form) value: every byte but the unreserved ones percent-encoded.
pub fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The parameters of a query string or form body (`a=1&b=x%20y`), decoded (`+` is a space);
/// a name given twice keeps its first value.
pub fn query_params(query: &str) -> std::collections::BTreeMap<String, String> {
    let decode = |part: &str| {
        let bytes = part.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = (bytes[i] == b'%')
                .then(|| bytes.get(i + 1..i + 3))
                .flatten()
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match (bytes[i], hex) {
                (_, Some(b)) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                (b'+', _) => out.push(b' '),
                (b, _) => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    let mut params = std::collections::BTreeMap::new();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        params.entry(decode(name)).or_insert_with(|| decode(value));
    }
    params
}

/// A response whose body has not been read yet.
pub struct HttpResponse {
    pub status: u16,
    /// Header names are lower-case.
    pub headers: Vec<(String, String)>,
    pub body: ByteStream,
}

impl HttpResponse {
    /// The first value of the header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Reads the whole body.
    pub async fn bytes(mut self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(chunk) = self.body.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out)
    }

    /// Reads the whole body as (lossy) UTF-8 text.
    pub async fn text(self) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.bytes().await?).into_owned())
    }
}

impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse").field("status", &self.status).field("headers", &self.headers).finish()
    }
}

/// Sends HTTP requests. An implementation resolves as soon as the status and headers arrive;
/// the body is read through [`HttpResponse::body`]. When `cancel` fires, the request is
/// aborted on the wire and the call (or the body stream) ends with [`crate::Error::Cancelled`].
#[async_trait(?Send)]
pub trait HttpClient {
    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> Result<HttpResponse>;

    /// Whether a response's body arrives as the server sends it. A client that hands the body
    /// over only once it has ended (Obsidian's `requestUrl`) says false: a stream that never
    /// ends must not be asked of it.
    fn streams(&self) -> bool {
        true
    }
}

/// Ends `body` with `Err(Error::Cancelled)` once `cancel` fires. Implementations wrap their
/// stream in this so that a reader blocked on the network wakes up on cancel.
pub fn cancellable(body: ByteStream, cancel: &CancelToken) -> ByteStream {
    let cancel = cancel.clone();
    futures::stream::unfold((body, cancel, false), |(mut body, cancel, done)| async move {
        if done {
            return None;
        }
        match crate::cancel::with_cancel(&cancel, body.next()).await {
            Ok(Some(item)) => Some((item, (body, cancel, false))),
            Ok(None) => None,
            Err(e) => Some((Err(e), (body, cancel, true))),
        }
    })
    .boxed_local()
}
