//! Parts of a large vault's index built in workers of their own (issue 18: a faster build).
//! Both ends live here: [`IndexPartWorker`], what an index worker runs
//! (`js/core/indexWorkers.ts`), and [`JsPartWorkers`], which asks the host for such workers so
//! the core's full build hands them batches of notes ([`crate::search::PartWorkers`]).

use js_sys::{Array, Float64Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use super::vault::js_message;
use crate::search::{IndexPart, PackedPart, PartFuture, PartWorkers, RemotePart};
use crate::{Error, Result};

/// One part of an index, built in an index worker.
#[wasm_bindgen]
pub struct IndexPartWorker {
    part: Option<IndexPart>,
}

#[wasm_bindgen]
impl IndexPartWorker {
    /// An empty part.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<IndexPartWorker, JsValue> {
        Ok(IndexPartWorker { part: Some(IndexPart::new().map_err(js_error)?) })
    }

    /// Indexes `paths[i]`'s text `texts[i]`, modified at `mtimes[i]`, in order.
    pub fn add(&mut self, paths: Vec<String>, texts: Vec<String>, mtimes: Vec<f64>) -> Result<(), JsValue> {
        let part = self.part.as_mut().ok_or_else(|| js_error("the part is finished"))?;
        if paths.len() != texts.len() || paths.len() != mtimes.len() {
            return Err(js_error("paths, texts and dates differ in number"));
        }
        for ((path, text), mtime) in paths.iter().zip(&texts).zip(mtimes) {
            part.add(path, text, mtime.max(0.0) as u64).map_err(js_error)?;
        }
        Ok(())
    }

    /// Ends the part: the worker's `part` message, its buffers to be transferred.
    #[wasm_bindgen(unchecked_return_type = "Extract<Protocol.FromIndexWorker, { kind: \"part\" }>")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let part = self.part.take().ok_or_else(|| js_error("the part is finished"))?;
        let packed = part.finish().map_err(js_error)?;
        let object = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| js_sys::Reflect::set(&object, &key.into(), value).map(drop);
        set("kind", &"part".into())?;
        set("segments", &Uint8Array::from(packed.segments.as_slice()).into())?;
        set("catalog", &Uint8Array::from(packed.catalog.as_slice()).into())?;
        Ok(object.into())
    }
}

#[wasm_bindgen]
extern "C" {
    /// A started index worker, as the host hands it over (`IndexWorker` in
    /// `js/core/indexWorkers.ts`).
    type IndexWorkerHandle;
    #[wasm_bindgen(method)]
    fn add(this: &IndexWorkerHandle, paths: Array, texts: Array, mtimes: Float64Array);
    #[wasm_bindgen(method, catch)]
    fn finish(this: &IndexWorkerHandle) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method)]
    fn close(this: &IndexWorkerHandle);
}

/// One index worker's part; dropping it ends the worker.
struct WorkerPart {
    handle: IndexWorkerHandle,
}

impl Drop for WorkerPart {
    fn drop(&mut self) {
        self.handle.close();
    }
}

fn failed(op: &str) -> impl Fn(JsValue) -> Error + '_ {
    move |e| Error::Host { op: op.into(), message: js_message(&e) }
}

#[async_trait::async_trait(?Send)]
impl RemotePart for WorkerPart {
    fn add(&self, notes: &[(&str, &str, u64)]) {
        let paths: Array = notes.iter().map(|(p, _, _)| JsValue::from_str(p)).collect();
        let texts: Array = notes.iter().map(|(_, t, _)| JsValue::from_str(t)).collect();
        let mtimes: Vec<f64> = notes.iter().map(|&(_, _, m)| m as f64).collect();
        self.handle.add(paths, texts, Float64Array::from(mtimes.as_slice()));
    }

    fn finish(&self) -> PartFuture<'_> {
        let asked = self.handle.finish();
        Box::pin(async move {
            let promise = asked.map_err(failed("build an index part"))?;
            let part = JsFuture::from(promise).await.map_err(failed("build an index part"))?;
            let bytes = |key: &str| -> Result<Vec<u8>> {
                let value = js_sys::Reflect::get(&part, &key.into()).map_err(failed("build an index part"))?;
                let array = value.dyn_into::<Uint8Array>().map_err(|_| Error::Host {
                    op: "build an index part".into(),
                    message: format!("the part's {key} are not bytes"),
                })?;
                Ok(array.to_vec())
            };
            Ok(PackedPart { segments: bytes("segments")?, catalog: bytes("catalog")? })
        })
    }
}

/// The host's `indexWorkers(count)`: workers to build parts of a full build in.
pub(super) struct JsPartWorkers {
    host: JsValue,
}

impl JsPartWorkers {
    /// The host's index workers, where it has them.
    pub(super) fn of(host: &JsValue) -> Option<JsPartWorkers> {
        super::has_method(host, "indexWorkers").then(|| JsPartWorkers { host: host.clone() })
    }
}

#[async_trait::async_trait(?Send)]
impl PartWorkers for JsPartWorkers {
    async fn start(&self, count: usize) -> Result<Vec<Box<dyn RemotePart>>> {
        let failed = failed("start index workers");
        let call: js_sys::Function =
            js_sys::Reflect::get(&self.host, &"indexWorkers".into()).map_err(&failed)?.unchecked_into();
        let promise: Promise = call.call1(&self.host, &JsValue::from(count as u32)).map_err(&failed)?.unchecked_into();
        let handles: Array = JsFuture::from(promise).await.map_err(&failed)?.unchecked_into();
        Ok(handles.iter().map(|h| Box::new(WorkerPart { handle: h.unchecked_into() }) as Box<dyn RemotePart>).collect())
    }
}
