//! Test doubles for provider tests: an in-process `HttpClient` that serves scripted responses
//! (including bodies that break mid-way or never end), and a clock whose sleep never ends.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use async_trait::async_trait;
use futures::StreamExt;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{cancellable, ByteStream, Clock, HttpClient, HttpRequest, HttpResponse, ManualClock};
use vault_agent::protocol::StreamEvent;
use vault_agent::provider::{build, ModelProvider, ProviderConfig, RetryPolicy};
use vault_agent::Error;

/// One scripted answer.
pub enum Reply {
    /// A status, headers and a whole body.
    Status { status: u16, headers: Vec<(String, String)>, body: String },
    /// 200 `text/event-stream`, `body` cut into chunks of `chunk` bytes (or at `cuts`).
    Sse { body: String, cuts: Vec<usize> },
    /// 200 `text/event-stream` whose connection drops after `body`.
    SseThenDrop { body: String },
    /// 200 `text/event-stream` that sends `body` and then stays open until cancelled.
    SseThenHang { body: String },
    /// The connection could not be made.
    Unreachable,
}

impl Reply {
    pub fn sse(body: &str) -> Reply {
        Reply::Sse { body: body.to_string(), cuts: Vec::new() }
    }

    pub fn sse_chunked(body: &str, size: usize) -> Reply {
        let cuts = (size..body.len()).step_by(size).collect();
        Reply::Sse { body: body.to_string(), cuts }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status { status, headers: Vec::new(), body: body.to_string() }
    }

    pub fn status_with(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        let headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Reply::Status { status, headers, body: body.to_string() }
    }
}

/// An `HttpClient` that answers each request with the next scripted reply and records the
/// requests. It honours cancellation like the real clients: the body ends with `Cancelled`.
#[derive(Default)]
pub struct FakeHttp {
    replies: RefCell<VecDeque<Reply>>,
    requests: RefCell<Vec<HttpRequest>>,
}

impl FakeHttp {
    pub fn new(replies: Vec<Reply>) -> Rc<Self> {
        Rc::new(FakeHttp { replies: RefCell::new(replies.into()), requests: RefCell::default() })
    }

    pub fn requests(&self) -> Vec<HttpRequest> {
        self.requests.borrow().clone()
    }

    pub fn body_json(request: &HttpRequest) -> serde_json::Value {
        serde_json::from_slice(request.body.as_deref().unwrap()).unwrap()
    }
}

fn sse_headers() -> Vec<(String, String)> {
    vec![("content-type".into(), "text/event-stream; charset=utf-8".into())]
}

fn cut(body: &str, cuts: &[usize]) -> Vec<Vec<u8>> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    for &at in cuts.iter().chain(std::iter::once(&bytes.len())) {
        if at > from {
            out.push(bytes[from..at].to_vec());
            from = at;
        }
    }
    out
}

#[async_trait(?Send)]
impl HttpClient for FakeHttp {
    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> vault_agent::Result<HttpResponse> {
        cancel.check()?;
        self.requests.borrow_mut().push(request);
        let reply = self.replies.borrow_mut().pop_front().expect("the test scripted fewer replies than requests");
        let (status, headers, body): (u16, _, ByteStream) = match reply {
            // A refused connection is not retried (`ErrorKind::Unreachable`); a dropped one is.
            Reply::Unreachable => return Err(Error::Network("connection reset by peer".into())),
            Reply::Status { status, headers, body } => {
                (status, headers, futures::stream::iter([Ok(body.into_bytes())]).boxed_local())
            }
            Reply::Sse { body, cuts } => {
                let chunks = cut(&body, &cuts).into_iter().map(Ok);
                (200, sse_headers(), futures::stream::iter(chunks).boxed_local())
            }
            Reply::SseThenDrop { body } => {
                let items = vec![Ok(body.into_bytes()), Err(Error::Network("connection reset by peer".into()))];
                (200, sse_headers(), futures::stream::iter(items).boxed_local())
            }
            Reply::SseThenHang { body } => {
                let first = futures::stream::iter([Ok(body.into_bytes())]);
                (200, sse_headers(), first.chain(futures::stream::pending()).boxed_local())
            }
        };
        Ok(HttpResponse { status, headers, body: cancellable(body, cancel) })
    }
}

/// A clock whose `sleep` never returns (so a test can cancel during a backoff wait).
pub struct StuckClock;

#[async_trait(?Send)]
impl Clock for StuckClock {
    fn now_ms(&self) -> u64 {
        1_000
    }
    async fn sleep(&self, _ms: u64) {
        futures::future::pending::<()>().await
    }
}

/// A policy without jitter, so waits are exact.
pub fn exact_retries() -> RetryPolicy {
    RetryPolicy { jitter: 0.0, ..RetryPolicy::default() }
}

/// `config` built over `http` and a fresh `ManualClock`.
pub fn make(config: ProviderConfig, http: &Rc<FakeHttp>) -> (Box<dyn ModelProvider>, Rc<ManualClock>) {
    let clock = Rc::new(ManualClock::new(1_700_000_000_000));
    let provider = build(&config, http.clone(), clock.clone()).unwrap();
    (provider, clock)
}

pub fn anthropic() -> ProviderConfig {
    let mut config = ProviderConfig::anthropic("claude-test", "sk-ant-test").with_base_url("http://mock.test");
    config.retry = exact_retries();
    config
}

pub fn openai() -> ProviderConfig {
    let mut config = ProviderConfig::compatible("http://mock.test/v1", "gpt-test").with_api_key("sk-test");
    config.retry = exact_retries();
    config
}

/// OpenAI's Responses API at a test address, as [`openai`] is its Chat Completions.
pub fn responses() -> ProviderConfig {
    ProviderConfig { api: Some(vault_agent::provider::OpenAiApi::Responses), ..openai() }
}

/// Every event of one call.
pub fn collect(provider: &dyn ModelProvider, request: &vault_agent::protocol::ModelRequest) -> Vec<StreamEvent> {
    futures::executor::block_on(async { provider.stream(request, &CancelToken::new()).await.collect::<Vec<_>>().await })
}

pub fn fixture(path: &str) -> String {
    let full = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}
