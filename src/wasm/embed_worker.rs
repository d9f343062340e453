//! MiniLM in workers of its own (issue 13: embedding in parallel). Both ends live here:
//! [`MiniLmWorker`], the model an embedding worker runs (`js/core/embedWorkers.ts`), and
//! [`start_workers`], which asks the host for such workers and makes of them one
//! [`ParallelEmbedder`] the core's job uses like any embedder — while the core's own worker
//! stays free to answer searches.

use std::rc::Rc;

use js_sys::{Array, Float32Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::vault::js_message;
use super::{js_error, to_js};
use crate::embed::{Embedder, MiniLm, ParallelEmbedder};
use crate::protocol::{EmbedWorkersRequest, FromEmbedWorker};
use crate::{Error, Result};

/// all-MiniLM-L6-v2, loaded in an embedding worker.
#[wasm_bindgen]
pub struct MiniLmWorker {
    model: MiniLm,
}

#[wasm_bindgen]
impl MiniLmWorker {
    /// Loads the model from `model.safetensors` (`weights`, read from the JS buffer a window at
    /// a time, so the wasm memory holds the tensors and not a second copy of the file),
    /// `vocab.txt` and `config.json`; inputs cut at `maxTokens`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        weights: &Uint8Array,
        vocab: &str,
        config: &str,
        #[wasm_bindgen(js_name = maxTokens)] max_tokens: u32,
    ) -> Result<MiniLmWorker, JsValue> {
        let model = minilm_from_buffer(weights, vocab, config, max_tokens as usize).map_err(js_error)?;
        Ok(MiniLmWorker { model })
    }

    /// The worker's `ready` message: the model's id, dimensions and batch size.
    #[wasm_bindgen(unchecked_return_type = "Extract<Protocol.FromEmbedWorker, { kind: \"ready\" }>")]
    pub fn describe(&self) -> Result<JsValue, JsValue> {
        to_js(&FromEmbedWorker::Ready {
            model: self.model.id().to_string(),
            dimensions: self.model.dimensions() as u32,
            batch_size: self.model.batch_size() as u32,
        })
    }

    /// One unit vector per text, back to back.
    pub fn embed(&self, texts: Vec<String>) -> Float32Array {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let flat: Vec<f32> = self.model.embed_texts(&refs).into_iter().flatten().collect();
        Float32Array::from(flat.as_slice())
    }
}

/// MiniLM with `model.safetensors` read from `weights`, a JS buffer, a window at a time: the
/// wasm memory holds the tensors and not a second copy of the 91 MB file.
pub(super) fn minilm_from_buffer(weights: &Uint8Array, vocab: &str, config: &str, max_tokens: usize) -> Result<MiniLm> {
    let len = weights.length() as usize;
    let mut read_at = |offset: usize, buf: &mut [u8]| {
        weights.subarray(offset as u32, (offset + buf.len()) as u32).copy_to(buf);
        Ok(())
    };
    MiniLm::load_from(len, &mut read_at, vocab, config, max_tokens)
}

#[wasm_bindgen]
extern "C" {
    /// A started embedding worker, as the host hands it over (`EmbedWorker` in
    /// `js/core/embedWorkers.ts`).
    type EmbedWorkerHandle;
    #[wasm_bindgen(method, getter)]
    fn model(this: &EmbedWorkerHandle) -> String;
    #[wasm_bindgen(method, getter)]
    fn dimensions(this: &EmbedWorkerHandle) -> u32;
    #[wasm_bindgen(method, getter, js_name = batchSize)]
    fn batch_size(this: &EmbedWorkerHandle) -> u32;
    #[wasm_bindgen(method, catch)]
    fn embed(this: &EmbedWorkerHandle, texts: Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method)]
    fn close(this: &EmbedWorkerHandle);
}

/// One embedding worker as an [`Embedder`]; dropping it ends the worker.
struct WorkerEmbedder {
    handle: EmbedWorkerHandle,
    id: String,
    dimensions: usize,
    batch_size: usize,
}

impl Drop for WorkerEmbedder {
    fn drop(&mut self) {
        self.handle.close();
    }
}

#[async_trait::async_trait(?Send)]
impl Embedder for WorkerEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn batch_size(&self) -> usize {
        self.batch_size
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let failed = |e: JsValue| Error::Host { op: "embed in a worker".into(), message: js_message(&e) };
        let texts_js: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let promise = self.handle.embed(texts_js).map_err(failed)?;
        let data: Float32Array = JsFuture::from(promise).await.map_err(failed)?.unchecked_into();
        let flat = data.to_vec();
        if self.dimensions == 0 || flat.len() != texts.len() * self.dimensions {
            return Err(Error::Host {
                op: "embed in a worker".into(),
                message: format!("{} numbers for {} texts of {} dimensions", flat.len(), texts.len(), self.dimensions),
            });
        }
        Ok(flat.chunks_exact(self.dimensions).map(<[f32]>::to_vec).collect())
    }
}

/// Asks `host.embedWorkers` for `request.count` workers running MiniLM and joins them into one
/// embedder. Fails if the host has no such call, or if any worker could not start (those that
/// did are ended).
pub(super) async fn start_workers(host: &JsValue, request: &EmbedWorkersRequest) -> Result<ParallelEmbedder> {
    let failed = |e: JsValue| Error::Host { op: "start embedding workers".into(), message: js_message(&e) };
    if !super::has_method(host, "embedWorkers") {
        return Err(Error::Invalid("this host runs no embedding workers".into()));
    }
    let call: js_sys::Function = js_sys::Reflect::get(host, &"embedWorkers".into()).map_err(failed)?.unchecked_into();
    let promise: Promise = call.call1(host, &to_js(request).map_err(failed)?).map_err(failed)?.unchecked_into();
    let handles: Array = JsFuture::from(promise).await.map_err(failed)?.unchecked_into();
    let copies: Vec<Rc<dyn Embedder>> = handles
        .iter()
        .map(|h| {
            let handle: EmbedWorkerHandle = h.unchecked_into();
            Rc::new(WorkerEmbedder {
                id: handle.model(),
                dimensions: handle.dimensions() as usize,
                batch_size: (handle.batch_size() as usize).max(1),
                handle,
            }) as Rc<dyn Embedder>
        })
        .collect();
    ParallelEmbedder::new(copies)
}
