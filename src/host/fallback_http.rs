//! An [`HttpClient`] that switches to a second client when the first cannot reach the server.

use std::cell::Cell;
use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{HttpClient, HttpRequest, HttpResponse};
use crate::cancel::CancelToken;
use crate::{Error, Result};

/// Sends through `primary` (in the plugin: streaming `fetch`) until it fails with a transport
/// error before any response — what a browser reports for a request refused by CORS — and from
/// then on through `fallback` (in the plugin: Obsidian's `requestUrl`, which is not bound by
/// CORS but delivers the body in one piece). The failed request is sent again through
/// `fallback` at once, so the caller sees one answer either way.
///
/// HTTP error statuses are answers, not transport failures: they never cause the switch.
pub struct FallbackClient {
    primary: Rc<dyn HttpClient>,
    fallback: Rc<dyn HttpClient>,
    switched: Cell<bool>,
}

impl FallbackClient {
    /// A client that tries `primary` first.
    pub fn new(primary: Rc<dyn HttpClient>, fallback: Rc<dyn HttpClient>) -> Self {
        FallbackClient { primary, fallback, switched: Cell::new(false) }
    }

    /// Whether requests now go through the fallback.
    pub fn switched(&self) -> bool {
        self.switched.get()
    }
}

#[async_trait(?Send)]
impl HttpClient for FallbackClient {
    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> Result<HttpResponse> {
        if self.switched.get() {
            return self.fallback.send(request, cancel).await;
        }
        match self.primary.send(request.clone(), cancel).await {
            Err(Error::Network(_)) if !cancel.is_cancelled() => {
                self.switched.set(true);
                self.fallback.send(request, cancel).await
            }
            other => other,
        }
    }

    fn streams(&self) -> bool {
        if self.switched.get() {
            self.fallback.streams()
        } else {
            self.primary.streams()
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use futures::executor::block_on;
    use futures::StreamExt;

    use super::*;

    /// Answers every request with `status`, or fails with a network error; records the URLs.
    struct Fixed {
        status: Option<u16>,
        seen: RefCell<Vec<String>>,
    }

    impl Fixed {
        fn new(status: Option<u16>) -> Rc<Self> {
            Rc::new(Fixed { status, seen: RefCell::default() })
        }
    }

    #[async_trait(?Send)]
    impl HttpClient for Fixed {
        async fn send(&self, request: HttpRequest, _cancel: &CancelToken) -> Result<HttpResponse> {
            self.seen.borrow_mut().push(request.url);
            match self.status {
                Some(status) => Ok(HttpResponse {
                    status,
                    headers: vec![],
                    body: futures::stream::iter([Ok(b"body".to_vec())]).boxed_local(),
                }),
                None => Err(Error::Network("Failed to fetch".into())),
            }
        }
    }

    #[test]
    fn a_transport_failure_switches_to_the_fallback_for_good() {
        let (primary, fallback) = (Fixed::new(None), Fixed::new(Some(200)));
        let client = FallbackClient::new(primary.clone(), fallback.clone());
        let cancel = CancelToken::new();
        let first = block_on(client.send(HttpRequest::get("http://a/1"), &cancel)).unwrap();
        assert_eq!(first.status, 200);
        assert!(client.switched());
        block_on(client.send(HttpRequest::get("http://a/2"), &cancel)).unwrap();
        assert_eq!(*primary.seen.borrow(), ["http://a/1"]);
        assert_eq!(*fallback.seen.borrow(), ["http://a/1", "http://a/2"]);
    }

    #[test]
    fn an_error_status_is_an_answer_and_keeps_the_primary() {
        let (primary, fallback) = (Fixed::new(Some(401)), Fixed::new(Some(200)));
        let client = FallbackClient::new(primary.clone(), fallback.clone());
        let response = block_on(client.send(HttpRequest::get("http://a/1"), &CancelToken::new())).unwrap();
        assert_eq!(response.status, 401);
        assert!(!client.switched());
        assert!(fallback.seen.borrow().is_empty());
    }

    #[test]
    fn a_cancelled_request_does_not_switch() {
        let (primary, fallback) = (Fixed::new(None), Fixed::new(Some(200)));
        let client = FallbackClient::new(primary, fallback.clone());
        let cancel = CancelToken::new();
        cancel.cancel();
        assert!(matches!(block_on(client.send(HttpRequest::get("http://a/1"), &cancel)), Err(Error::Network(_))));
        assert!(!client.switched());
        assert!(fallback.seen.borrow().is_empty());
    }
}

/// How model requests travel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum Transport {
    /// Streaming `fetch`, switching to the request function for good when `fetch` cannot reach
    /// the server (CORS) — or the request function alone when `fetch` is not wanted.
    #[default]
    Auto,
    /// Streaming `fetch` only.
    Fetch,
    /// The request function only (no streaming: the answer appears when it is complete).
    Request,
}
