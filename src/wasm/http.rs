//! [`HttpClient`] over `fetch`, through gloo-net, with the body read chunk by chunk.

use async_trait::async_trait;
use futures::stream::StreamExt;
use gloo_net::http::{Method, RequestBuilder};
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader};

use super::vault::js_message;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{ByteStream, HttpClient, HttpRequest, HttpResponse};
use crate::{Error, Result};

/// `fetch`, as the browser (or Obsidian's Electron renderer) provides it. Cancelling the token,
/// or dropping the response, aborts the request through an `AbortController`.
#[derive(Debug, Default, Clone, Copy)]
pub struct FetchClient;

/// Aborts the fetch when dropped, so a reader that stops early closes the connection.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[async_trait(?Send)]
impl HttpClient for FetchClient {
    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> Result<HttpResponse> {
        let controller = AbortController::new().map_err(|e| Error::Network(js_message(&e)))?;
        let signal = controller.signal();
        let guard = AbortOnDrop(controller);
        let method = match request.method.to_ascii_uppercase().as_str() {
            "GET" => Method::GET,
            "POST" => Method::POST,
            "PUT" => Method::PUT,
            "DELETE" => Method::DELETE,
            "PATCH" => Method::PATCH,
            "HEAD" => Method::HEAD,
            other => return Err(Error::Invalid(format!("unsupported HTTP method {other:?}"))),
        };
        let mut builder = RequestBuilder::new(&request.url).method(method).abort_signal(Some(&signal));
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let prepared = match request.body {
            Some(body) => builder.body(Uint8Array::from(body.as_slice())),
            None => builder.build(),
        }
        .map_err(|e| Error::Invalid(e.to_string()))?;
        let response = with_cancel(cancel, prepared.send()).await?.map_err(|e| Error::Network(e.to_string()))?;

        let status = response.status();
        let headers = response.headers().entries().map(|(k, v)| (k.to_ascii_lowercase(), v)).collect();
        let body: ByteStream = match response.body() {
            Some(stream) => {
                let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
                chunks(reader, guard)
            }
            None => futures::stream::empty().boxed_local(),
        };
        Ok(HttpResponse { status, headers, body: crate::host::cancellable(body, cancel) })
    }
}

/// The body as a stream of chunks, each delivered as soon as `fetch` has it.
fn chunks(reader: ReadableStreamDefaultReader, guard: AbortOnDrop) -> ByteStream {
    futures::stream::unfold(Some((reader, guard)), |state| async move {
        let (reader, guard) = state?;
        let result = match JsFuture::from(reader.read()).await {
            Err(e) => Err(Error::Network(js_message(&e))),
            Ok(step) => {
                let done =
                    Reflect::get(&step, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()).unwrap_or(true);
                if done {
                    return None;
                }
                let value = Reflect::get(&step, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
                Ok(Uint8Array::new(&value).to_vec())
            }
        };
        let next = if result.is_ok() { Some((reader, guard)) } else { None };
        Some((result, next))
    })
    .boxed_local()
}
