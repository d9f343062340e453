//! MCP's Streamable HTTP transport over the host's [`HttpClient`], so it works wherever the
//! core does (desktop, mobile, the CLI).
//!
//! Every message is a `POST` to the server's one endpoint. The answer is either JSON or an
//! event stream that carries the response, possibly after notifications and requests of the
//! server's own. The session id the server assigns at `initialize` (`Mcp-Session-Id`) goes
//! on every later request, and `DELETE` ends the session. A stream that breaks before the
//! response is resumed with a `GET` that names the last event seen (`Last-Event-ID`), after
//! the server's `retry:` delay.
//!
//! While a tool call runs, the session's own stream (a `GET` without `Last-Event-ID`, opened at
//! the first call and kept) is read too: a server sends there what belongs to no request of
//! ours, such as a form of its own to fill in. A server that offers none answers 405, and a
//! client that cannot stream (Obsidian's `requestUrl`) never asks for it.
//!
//! A server the user signed in to gets their access token, renewed with the refresh token a
//! minute before it ends or when the server refuses it (once a request).

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::future::{select, Either};
use futures::stream::LocalBoxStream;
use futures::StreamExt;
use serde_json::Value;

use super::message::{clip, Incoming, RpcError};
use super::oauth::union_of_scopes;
use super::oauth::{CredentialsSink, McpCredentials};
use super::oauth_discovery::bearer_challenge;
use super::transport::{response_to, Inbox, McpTransport};
use crate::cancel::CancelToken;
use crate::host::{Clock, HttpClient, HttpRequest, HttpResponse};
use crate::provider::sse::{sse_events, SseEvent};
use crate::{Error, Result};

/// How often a broken stream is resumed before the request fails.
const MAX_RESUMES: usize = 3;
/// The wait before resuming when the server set no `retry:`.
const DEFAULT_RETRY_MS: u64 = 1_000;

type Events = LocalBoxStream<'static, Result<SseEvent>>;
type Outcome = std::result::Result<Value, RpcError>;

/// The session's own event stream (`GET`).
enum Listener {
    /// Not opened yet, or it ended: opened at the next call.
    Closed,
    Open(Events),
    /// A call is reading it.
    InUse,
    /// The server offers none, or the session ended.
    Refused,
}

/// A Streamable HTTP connection to the endpoint `url`.
pub struct StreamableHttp {
    http: Rc<dyn HttpClient>,
    clock: Rc<dyn Clock>,
    url: String,
    /// Sent on every request: authorization and whatever else the user configured.
    headers: Vec<(String, String)>,
    session: RefCell<Option<String>>,
    protocol_version: RefCell<Option<String>>,
    /// The user's sign-in, when they signed in (OAuth).
    credentials: RefCell<Option<McpCredentials>>,
    /// Where renewed credentials go, with the server's name.
    sink: Option<(String, CredentialsSink)>,
    listener: RefCell<Listener>,
    /// Ends the session's own stream when the session ends (it outlives any one call).
    listening: CancelToken,
}

impl StreamableHttp {
    pub fn new(
        http: Rc<dyn HttpClient>,
        clock: Rc<dyn Clock>,
        url: impl Into<String>,
        headers: Vec<(String, String)>,
    ) -> Self {
        StreamableHttp {
            http,
            clock,
            url: url.into(),
            headers,
            session: RefCell::new(None),
            protocol_version: RefCell::new(None),
            credentials: RefCell::new(None),
            sink: None,
            listener: RefCell::new(Listener::Closed),
            listening: CancelToken::new(),
        }
    }

    /// Sends the access token of `credentials` (in place of any `Authorization` header), and
    /// hands renewed credentials to `sink` with `server`'s name.
    pub fn signed_in(mut self, credentials: McpCredentials, server: &str, sink: Option<CredentialsSink>) -> Self {
        *self.credentials.borrow_mut() = Some(credentials);
        self.sink = sink.map(|sink| (server.to_string(), sink));
        self
    }

    /// The session id the server assigned, once it did.
    pub fn session_id(&self) -> Option<String> {
        self.session.borrow().clone()
    }

    fn with_headers(&self, mut request: HttpRequest) -> HttpRequest {
        let token = self.credentials.borrow().as_ref().map(|c| format!("Bearer {}", c.access_token));
        for (name, value) in &self.headers {
            if token.is_none() || !name.eq_ignore_ascii_case("authorization") {
                request = request.header(name.clone(), value.clone());
            }
        }
        if let Some(token) = token {
            request = request.header("authorization", token);
        }
        if let Some(session) = self.session.borrow().as_ref() {
            request = request.header("mcp-session-id", session.clone());
        }
        if let Some(version) = self.protocol_version.borrow().as_ref() {
            request = request.header("mcp-protocol-version", version.clone());
        }
        request
    }

    async fn post(&self, message: &Value, cancel: &CancelToken) -> Result<HttpResponse> {
        let expiring =
            self.credentials.borrow().as_ref().is_some_and(|c| c.can_renew() && c.is_expiring(self.clock.now_ms()));
        if expiring {
            self.renew(cancel).await?;
        }
        let mut response = self.send_post(message, cancel).await?;
        let renewable = self.credentials.borrow().as_ref().is_some_and(McpCredentials::can_renew);
        if response.status == 401 && renewable && !expiring {
            let _ = response.bytes().await;
            self.renew(cancel).await?;
            response = self.send_post(message, cancel).await?;
        }
        self.check(response).await
    }

    async fn send_post(&self, message: &Value, cancel: &CancelToken) -> Result<HttpResponse> {
        let request = self
            .with_headers(HttpRequest::post_json(&self.url, message))
            .header("accept", "application/json, text/event-stream");
        let response = self.http.send(request, cancel).await?;
        if let Some(session) = response.header("mcp-session-id") {
            *self.session.borrow_mut() = Some(session.to_string());
        }
        Ok(response)
    }

    /// Renews the sign-in's tokens and hands them to the host.
    async fn renew(&self, cancel: &CancelToken) -> Result<()> {
        let Some(current) = self.credentials.borrow().clone() else { return Ok(()) };
        match current.renewed(&*self.http, self.clock.now_ms(), cancel).await {
            Ok(fresh) => {
                if let Some((server, sink)) = &self.sink {
                    sink(server, &fresh);
                }
                *self.credentials.borrow_mut() = Some(fresh);
                Ok(())
            }
            // The network failing is not the sign-in ending: the next request tries again.
            Err(e @ (Error::Cancelled | Error::Network(_))) => Err(e),
            Err(e) => {
                Err(Error::McpSignIn(format!("the sign-in has ended and could not be renewed ({e}): sign in again")))
            }
        }
    }

    /// Passes a 2xx response through; turns anything else into an error that says what the
    /// server answered.
    async fn check(&self, response: HttpResponse) -> Result<HttpResponse> {
        if response.is_success() {
            return Ok(response);
        }
        let status = response.status;
        let challenge = response.header("www-authenticate").and_then(bearer_challenge);
        let asks_sign_in = challenge.is_some();
        let body = response.text().await.unwrap_or_default();
        let signed_in = self.credentials.borrow().is_some();
        // A step-up: the sign-in is good, but this request needs more scope than it gave. The
        // host keeps what to ask for, and the next sign-in asks for it.
        let more = challenge.filter(|c| c.error.as_deref() == Some("insufficient_scope")).and_then(|c| c.scope);
        if let (403, Some(more), true) = (status, more, signed_in) {
            let stepped = self.credentials.borrow().clone().map(|mut credentials| {
                let kept = credentials.step_up_scope.take().or(credentials.scope.clone()).unwrap_or_default();
                credentials.step_up_scope = Some(union_of_scopes(&kept, &more));
                credentials
            });
            if let (Some(stepped), Some((server, sink))) = (stepped, &self.sink) {
                sink(server, &stepped);
                *self.credentials.borrow_mut() = Some(stepped);
            }
            return Err(Error::McpSignIn(format!(
                "the server asks for more access ({more}) than the sign-in gave: sign in again"
            )));
        }
        let sign_in = match status {
            401 if signed_in => Some("the server refused the sign-in: sign in again"),
            401 if asks_sign_in => Some("the server asks you to sign in"),
            _ => None,
        };
        // What a 401's body says adds nothing the user can act on.
        if let Some(what) = sign_in {
            return Err(Error::McpSignIn(what.to_string()));
        }
        let what = match status {
            401 | 403 => "the server refused the credentials".to_string(),
            404 if self.session.borrow().is_some() => "the server ended the session".to_string(),
            404 => format!("there is no MCP endpoint at {}", self.url),
            _ => "the server refused the request".to_string(),
        };
        Err(Error::Mcp(format!("{what} (HTTP {status}): {}", clip(body.trim()))))
    }

    /// Takes the session's own stream for a call, opening it first if it is not open; `None`
    /// where there is none.
    async fn take_listener(&self, cancel: &CancelToken) -> Option<Events> {
        let state = std::mem::replace(&mut *self.listener.borrow_mut(), Listener::InUse);
        match state {
            Listener::Open(events) => return Some(events),
            Listener::Closed if self.session.borrow().is_some() && self.http.streams() => {}
            other => {
                *self.listener.borrow_mut() = other;
                return None;
            }
        }
        let request = self.with_headers(HttpRequest::get(&self.url)).header("accept", "text/event-stream");
        // The stream is the session's, so it ends with the session, not with this call.
        match crate::cancel::with_cancel(cancel, self.http.send(request, &self.listening)).await {
            Ok(Ok(response)) if response.is_success() && is_event_stream(&response) => Some(sse_events(response.body)),
            Err(_) => {
                *self.listener.borrow_mut() = Listener::Closed;
                None
            }
            // 405: the server offers none. Another refusal is not asked again either.
            Ok(_) => {
                *self.listener.borrow_mut() = Listener::Refused;
                None
            }
        }
    }

    /// Gives the session's stream back after a call (`None`: it ended, and is opened again at
    /// the next call).
    fn return_listener(&self, events: Option<Events>) {
        let mut listener = self.listener.borrow_mut();
        if matches!(*listener, Listener::InUse) {
            *listener = events.map_or(Listener::Closed, Listener::Open);
        }
    }

    /// Posts `message` and reads until the response to `id`, hearing the session's stream
    /// `heard` meanwhile — before the answer begins too, since a server may hold it back
    /// until the user has answered what it asked there.
    async fn exchange(
        &self,
        id: u64,
        message: &Value,
        heard: &mut Option<Events>,
        inbox: Inbox<'_>,
        cancel: &CancelToken,
    ) -> Result<Outcome> {
        let mut post = std::pin::pin!(self.post(message, cancel));
        let response = loop {
            let Some(events) = heard.as_mut() else { break post.await? };
            let next = match select(post.as_mut(), events.next()).await {
                Either::Left((response, _)) => Ok(response),
                Either::Right((event, _)) => Err(event),
            };
            match next {
                Ok(response) => break response?,
                Err(event) => {
                    if let Some(outcome) = self.hear(id, event, heard, inbox).await? {
                        return Ok(outcome);
                    }
                }
            }
        };
        self.read_until(id, response, heard, inbox, cancel).await
    }

    /// What came on the session's stream goes to the inbox (a response to `id`, which a server
    /// may send there too, is the outcome); a stream that ended or broke is let go.
    async fn hear(
        &self,
        id: u64,
        event: Option<Result<SseEvent>>,
        heard: &mut Option<Events>,
        inbox: Inbox<'_>,
    ) -> Result<Option<Outcome>> {
        match event {
            Some(Ok(event)) if !event.data.trim().is_empty() => {
                for incoming in Incoming::parse_all(&event.data)? {
                    if let Some(outcome) = self.take(id, incoming, inbox).await? {
                        return Ok(Some(outcome));
                    }
                }
            }
            // An event with no data primes the stream.
            Some(Ok(_)) => {}
            Some(Err(_)) | None => *heard = None,
        }
        Ok(None)
    }

    /// Reads messages from `response` until the one answering `id`, resuming a broken
    /// event stream with `GET` and `Last-Event-ID`; the session's stream `heard` is heard too.
    async fn read_until(
        &self,
        id: u64,
        response: HttpResponse,
        heard: &mut Option<Events>,
        inbox: Inbox<'_>,
        cancel: &CancelToken,
    ) -> Result<Outcome> {
        if !is_event_stream(&response) {
            let text = response.text().await?;
            for incoming in Incoming::parse_all(&text)? {
                if let Some(outcome) = self.take(id, incoming, inbox).await? {
                    return Ok(outcome);
                }
            }
            return Err(Error::Mcp(format!("the server's JSON answer held no response to request {id}")));
        }
        let mut response = response;
        let mut last_event_id = String::new();
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut resumes = 0;
        loop {
            let mut events = sse_events(response.body);
            let broke = loop {
                let item = match heard.as_mut() {
                    None => events.next().await,
                    Some(own) => match select(events.next(), own.next()).await {
                        Either::Left((item, _)) => item,
                        Either::Right((event, _)) => {
                            if let Some(outcome) = self.hear(id, event, heard, inbox).await? {
                                return Ok(outcome);
                            }
                            continue;
                        }
                    },
                };
                match item {
                    None => break "the server closed the event stream before answering".to_string(),
                    Some(Err(Error::Cancelled)) => return Err(Error::Cancelled),
                    Some(Err(e)) => break e.to_string(),
                    Some(Ok(event)) => {
                        if !event.id.is_empty() {
                            last_event_id = event.id.clone();
                        }
                        if let Some(ms) = event.retry_ms {
                            retry_ms = ms;
                        }
                        // An event with no data primes the stream (an id and a retry only).
                        if event.data.trim().is_empty() {
                            continue;
                        }
                        for incoming in Incoming::parse_all(&event.data)? {
                            if let Some(outcome) = self.take(id, incoming, inbox).await? {
                                return Ok(outcome);
                            }
                        }
                    }
                }
            };
            if last_event_id.is_empty() || resumes == MAX_RESUMES {
                return Err(Error::Mcp(format!("{broke} (request {id})")));
            }
            resumes += 1;
            crate::cancel::with_cancel(cancel, self.clock.sleep(retry_ms)).await?;
            let request = self
                .with_headers(HttpRequest::get(&self.url))
                .header("accept", "text/event-stream")
                .header("last-event-id", last_event_id.clone());
            response = self.check(self.http.send(request, cancel).await?).await?;
        }
    }

    /// The outcome if `incoming` answers `id`; otherwise hands it to `inbox` and sends back
    /// the reply it makes.
    async fn take(
        &self,
        id: u64,
        incoming: Incoming,
        inbox: Inbox<'_>,
    ) -> Result<Option<std::result::Result<Value, RpcError>>> {
        if response_to(id, &incoming) {
            let Incoming::Response { outcome, .. } = incoming else { unreachable!() };
            return Ok(Some(outcome));
        }
        if let Some(reply) = inbox(incoming).await {
            self.send(reply).await?;
        }
        Ok(None)
    }
}

/// Whether `response` is an event stream.
fn is_event_stream(response: &HttpResponse) -> bool {
    response.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"))
}

#[async_trait(?Send)]
impl McpTransport for StreamableHttp {
    async fn request(&self, id: u64, message: Value, inbox: Inbox<'_>, cancel: &CancelToken) -> Result<Outcome> {
        // A call may run long, and ask the user something meanwhile on the session's stream.
        let listen = message.get("method").and_then(Value::as_str) == Some("tools/call");
        let mut heard = if listen { self.take_listener(cancel).await } else { None };
        let outcome = self.exchange(id, &message, &mut heard, inbox, cancel).await;
        if listen {
            self.return_listener(heard);
        }
        outcome
    }

    async fn send(&self, message: Value) -> Result<()> {
        // A notification is answered by 202 and no body; read whatever came so the
        // connection is released.
        let response = self.post(&message, &CancelToken::new()).await?;
        response.bytes().await.map(|_| ())
    }

    fn set_protocol_version(&self, version: &str) {
        *self.protocol_version.borrow_mut() = Some(version.to_string());
    }

    async fn close(&self) {
        self.listening.cancel();
        *self.listener.borrow_mut() = Listener::Refused;
        if self.session.borrow().is_none() {
            return;
        }
        let request = self.with_headers(HttpRequest {
            method: "DELETE".into(),
            url: self.url.clone(),
            headers: Vec::new(),
            body: None,
        });
        // 405 means the server does not let clients end sessions; nothing more to do.
        if let Ok(response) = self.http.send(request, &CancelToken::new()).await {
            let _ = response.bytes().await;
        }
        *self.session.borrow_mut() = None;
    }
}
