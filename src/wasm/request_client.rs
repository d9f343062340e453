//! [`HttpClient`] over a JS function that answers with the whole response at once — in the
//! plugin, Obsidian's `requestUrl`, which is not bound by CORS and works on mobile, but does not
//! stream. The body arrives as one chunk; SSE parsing does not care.

use async_trait::async_trait;
use futures::StreamExt;
use js_sys::{ArrayBuffer, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::vault::js_message;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{ByteStream, HttpClient, HttpRequest, HttpResponse};
use crate::{Error, Result};

/// Calls `request` with an [`HttpRequest`](crate::protocol::HttpRequest) (`headers` an object,
/// `body` a `Uint8Array` or absent) and expects a promise of an
/// [`HttpAnswer`](crate::protocol::HttpAnswer) (`body` an `ArrayBuffer`, a `Uint8Array` or a
/// string); both shapes are generated for JS. A rejection is a network error.
/// Cancelling stops waiting (the JS call itself cannot be aborted; its answer is dropped).
pub struct JsRequestClient {
    request: Function,
}

impl JsRequestClient {
    /// Wraps the JS function `request`.
    pub fn new(request: Function) -> Self {
        JsRequestClient { request }
    }

    fn call(&self, request: &HttpRequest) -> std::result::Result<Promise, JsValue> {
        let headers = Object::new();
        for (name, value) in &request.headers {
            Reflect::set(&headers, &name.into(), &value.into())?;
        }
        let arg = Object::new();
        Reflect::set(&arg, &"method".into(), &request.method.to_ascii_uppercase().into())?;
        Reflect::set(&arg, &"url".into(), &request.url.as_str().into())?;
        Reflect::set(&arg, &"headers".into(), &headers)?;
        if let Some(body) = &request.body {
            Reflect::set(&arg, &"body".into(), &Uint8Array::from(body.as_slice()))?;
        }
        self.request.call1(&JsValue::NULL, &arg)?.dyn_into::<Promise>()
    }
}

#[async_trait(?Send)]
impl HttpClient for JsRequestClient {
    /// `requestUrl` answers with the whole body at once.
    fn streams(&self) -> bool {
        false
    }

    async fn send(&self, request: HttpRequest, cancel: &CancelToken) -> Result<HttpResponse> {
        let promise = self.call(&request).map_err(|e| Error::Network(js_message(&e)))?;
        let answer = with_cancel(cancel, JsFuture::from(promise)).await?.map_err(|e| Error::Network(js_message(&e)))?;
        let field = |name: &str| Reflect::get(&answer, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        let status = field("status").as_f64().ok_or_else(|| Error::Network("the answer has no status".into()))? as u16;
        let mut headers = Vec::new();
        let raw_headers = field("headers");
        if raw_headers.is_object() {
            for entry in Object::entries(raw_headers.unchecked_ref()).iter() {
                let pair: js_sys::Array = entry.unchecked_into();
                if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                    headers.push((name.to_ascii_lowercase(), value));
                }
            }
        }
        let body = field("body");
        let bytes = if let Some(text) = body.as_string() {
            text.into_bytes()
        } else if body.is_instance_of::<ArrayBuffer>() {
            Uint8Array::new(&body).to_vec()
        } else if body.is_instance_of::<Uint8Array>() {
            body.unchecked_into::<Uint8Array>().to_vec()
        } else {
            Vec::new()
        };
        let body: ByteStream = futures::stream::iter([Ok(bytes)]).boxed_local();
        Ok(HttpResponse { status, headers, body: crate::host::cancellable(body, cancel) })
    }
}
