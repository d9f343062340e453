//! One model call over HTTP: send, check the status, decode the event stream, and retry what
//! failed before the first token.
//!
//! Events of an attempt are held back until its first output event (text, thinking or a tool
//! call). If the attempt fails before that — an error status, a dropped connection, an error
//! event or a JSON error body inside a 200 — and the error is retryable, the held events are
//! dropped, a [`StreamEvent::Retry`] goes out, and the call is sent again after the policy's
//! wait. Once output was delivered, a failure ends the stream with `Error`: the caller already
//! showed part of an answer, and only it can decide what to do with it.

use std::rc::Rc;

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::future::FutureExt;
use futures::stream::StreamExt;

use super::address::is_loopback;
use super::formats::StreamDecoder;
use super::retry::{JitterSource, RetryPolicy};
use super::sse::sse_events;
use super::EventStream;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{Clock, HttpClient, HttpRequest, HttpResponse};
use crate::protocol::{ErrorKind, ProviderError, StreamEvent};
use crate::Error;

/// What a provider needs to make calls: the host's HTTP and clock, and the retry policy.
#[derive(Clone)]
pub(crate) struct Transport {
    pub http: Rc<dyn HttpClient>,
    pub clock: Rc<dyn Clock>,
    pub policy: RetryPolicy,
    pub jitter: Rc<JitterSource>,
}

impl Transport {
    pub fn new(http: Rc<dyn HttpClient>, clock: Rc<dyn Clock>, policy: RetryPolicy) -> Self {
        let jitter = Rc::new(JitterSource::new(clock.now_ms()));
        Transport { http, clock, policy, jitter }
    }

    /// This transport for a request answered whole ([`RetryPolicy::unhurried`]).
    pub fn unhurried(&self) -> Self {
        Transport { policy: self.policy.clone().unhurried(), ..self.clone() }
    }

    /// Streams the response to `request`, decoded by a fresh decoder from `decoder` for each
    /// attempt.
    pub fn stream<D, F>(&self, request: HttpRequest, decoder: F, cancel: &CancelToken) -> EventStream
    where
        D: StreamDecoder + 'static,
        F: Fn() -> D + 'static,
    {
        let (tx, rx) = unbounded();
        let call = Call { transport: self.clone(), request, cancel: cancel.clone(), tx };
        let driver = async move { call.run(decoder).await }.into_stream().filter_map(|()| async { None });
        // The receiver ends when the driver drops the sender; polling both drives the driver.
        // Dropping the returned stream drops the driver, and with it the HTTP response, which
        // aborts the request.
        futures::stream::select(rx, driver).boxed_local()
    }
}

struct Call {
    transport: Transport,
    request: HttpRequest,
    cancel: CancelToken,
    tx: UnboundedSender<StreamEvent>,
}

impl Call {
    fn emit(&self, event: StreamEvent) {
        // A closed receiver means nobody listens any more; the driver is about to be dropped.
        let _ = self.tx.unbounded_send(event);
    }

    async fn run<D: StreamDecoder, F: Fn() -> D>(self, decoder: F) {
        let policy = &self.transport.policy;
        let mut attempt = 1;
        loop {
            let mut delivered = false;
            let error = match self.attempt(decoder(), &mut delivered).await {
                Ok(()) => return,
                Err(error) => error,
            };
            let unit = self.transport.jitter.next_unit();
            let delay = if delivered { None } else { policy.delay_after(attempt, &error, unit) };
            let Some(delay_ms) = delay else {
                self.emit(StreamEvent::Error { error });
                return;
            };
            self.emit(StreamEvent::Retry { attempt, max_attempts: policy.max_attempts, delay_ms, error });
            if with_cancel(&self.cancel, self.transport.clock.sleep(delay_ms)).await.is_err() {
                self.emit(StreamEvent::Error { error: cancelled() });
                return;
            }
            attempt += 1;
        }
    }

    /// One attempt. `Ok` once `Done` went out; `Err` with the error otherwise (not yet sent).
    async fn attempt(&self, mut decoder: impl StreamDecoder, delivered: &mut bool) -> Result<(), ProviderError> {
        let response = match self.idle(self.transport.http.send(self.request.clone(), &self.cancel)).await? {
            Ok(response) => response,
            Err(error) => return Err(unreachable_or(transport_error(error), &self.request.url)),
        };
        if !response.is_success() {
            return Err(self.error_response(response).await);
        }
        let is_json = response.header("content-type").is_some_and(|t| t.contains("json"));
        let mut held = Vec::new();
        if is_json {
            // A 200 with a JSON body instead of an event stream: the whole response to a
            // request sent without streaming, or an error in disguise (OpenRouter reports
            // upstream rate limits this way).
            let body = response.text().await.map_err(transport_error)?;
            let value: Option<serde_json::Value> = serde_json::from_str(&body).ok();
            if let Some(events) = value.as_ref().and_then(|value| decoder.decode_whole(value)) {
                if let Some(end) = self.deliver(events, &mut held, delivered) {
                    return end;
                }
                return Err(ProviderError::new(ErrorKind::Protocol, "the response ended without a result"));
            }
            let error = value.map(|value| super::classify::classify_error_object(&value));
            return Err(error.unwrap_or_else(|| {
                ProviderError::new(ErrorKind::Protocol, "expected an event stream, got a JSON body")
            }));
        }

        let mut events = sse_events(response.body);
        loop {
            let decoded = match self.idle(events.next()).await? {
                Some(Ok(event)) => decoder.decode(&event.event, &event.data),
                Some(Err(error)) => return Err(transport_error(error)),
                None => decoder.finish(),
            };
            if let Some(end) = self.deliver(decoded, &mut held, delivered) {
                return end;
            }
            if decoder.is_finished() {
                // Finished without Done or Error cannot happen with our decoders; end anyway.
                return Err(ProviderError::new(ErrorKind::Protocol, "the response ended without a result"));
            }
        }
    }

    /// Passes on `decoded`: held back until the attempt's first output, then as they come.
    /// `Some` once the response ended: `Ok` after `Done` went out, or its error (not sent).
    fn deliver(
        &self,
        decoded: Vec<StreamEvent>,
        held: &mut Vec<StreamEvent>,
        delivered: &mut bool,
    ) -> Option<Result<(), ProviderError>> {
        for event in decoded {
            match event {
                StreamEvent::Error { error } => return Some(Err(error)),
                StreamEvent::Done { .. } => {
                    std::mem::take(held).into_iter().for_each(|e| self.emit(e));
                    self.emit(event);
                    return Some(Ok(()));
                }
                event if *delivered => self.emit(event),
                event if event.is_output() => {
                    *delivered = true;
                    std::mem::take(held).into_iter().for_each(|e| self.emit(e));
                    self.emit(event);
                }
                event => held.push(event),
            }
        }
        None
    }

    /// `fut`'s value, or a `Network` error when the policy's idle timeout passes first (no
    /// byte for that long: a stalled server, or a connection that died without closing).
    async fn idle<T>(&self, fut: impl std::future::Future<Output = T>) -> Result<T, ProviderError> {
        let ms = self.transport.policy.idle_timeout_ms;
        if ms == 0 {
            return Ok(fut.await);
        }
        let sleep = self.transport.clock.sleep(ms);
        futures::pin_mut!(fut);
        match futures::future::select(fut, sleep).await {
            futures::future::Either::Left((value, _)) => Ok(value),
            futures::future::Either::Right(_) => Err(ProviderError::new(
                ErrorKind::Network,
                format!("the model's server sent nothing for {} s", ms / 1000),
            )),
        }
    }

    async fn error_response(&self, response: HttpResponse) -> ProviderError {
        let status = response.status;
        let headers = response.headers.clone();
        // A body cut short still has a status worth reporting.
        let body = response.text().await.unwrap_or_default();
        super::classify::classify_response(status, &headers, &body, self.transport.clock.now_ms())
    }
}

fn cancelled() -> ProviderError {
    ProviderError::new(ErrorKind::Cancelled, "the model call was cancelled")
}

/// A request that got no response at all is `Unreachable` (not retried) when the connection was
/// refused, or when the server is on this machine: a local server that is not listening (or
/// that a browser refuses for CORS) does not start to answer within the seconds a retry waits.
/// Elsewhere it stays a `Network` error, which a flaky connection may get over.
pub(super) fn unreachable_or(error: ProviderError, url: &str) -> ProviderError {
    if error.kind != ErrorKind::Network {
        return error;
    }
    let message = error.message.to_ascii_lowercase();
    let refused = ["connection refused", "econnrefused", "err_connection_refused", "actively refused"]
        .iter()
        .any(|m| message.contains(m));
    if refused || is_loopback(url) {
        ProviderError { kind: ErrorKind::Unreachable, ..error }
    } else {
        error
    }
}

pub(super) fn transport_error(error: Error) -> ProviderError {
    match error {
        Error::Cancelled => cancelled(),
        Error::Network(message) => ProviderError::new(ErrorKind::Network, message),
        // The request could not be made at all (a bad URL or header): sending it again won't help.
        Error::Invalid(message) => ProviderError::new(ErrorKind::BadRequest, message),
        other => ProviderError::new(ErrorKind::Network, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_or_a_silent_local_server_is_unreachable() {
        let network = |m: &str| ProviderError::new(ErrorKind::Network, m);
        let remote = "https://api.openai.com/v1";
        assert_eq!(
            unreachable_or(network("tcp connect error: Connection refused"), remote).kind,
            ErrorKind::Unreachable
        );
        assert_eq!(unreachable_or(network("net::ERR_CONNECTION_REFUSED"), remote).kind, ErrorKind::Unreachable);
        assert_eq!(unreachable_or(network("Failed to fetch"), "http://localhost:11434").kind, ErrorKind::Unreachable);
        assert_eq!(unreachable_or(network("Failed to fetch"), remote).kind, ErrorKind::Network);
        let auth = ProviderError::new(ErrorKind::Auth, "no");
        assert_eq!(unreachable_or(auth, "http://localhost").kind, ErrorKind::Auth);
    }
}
