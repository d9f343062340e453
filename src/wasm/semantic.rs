//! Semantic search for JS, on the same `SearchEngine` (methods added here, so the full-text
//! binding stays as it was): choose an embedder, download a local model once (checked against
//! its pinned SHA-256), embed the notes in the background with progress and cancel, and search
//! in `fulltext`, `semantic` or `hybrid` mode. The vectors live in the engine's `SharedIndex`,
//! so the agent's `semantic_search` tool uses them too.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::embed_worker::{minilm_from_buffer, start_workers};
use super::search::SearchEngine;
use super::{from_js, js_error, to_js, JsClock};
use crate::cancel::CancelToken;
use crate::embed::{
    install_model, is_installed, load_static_model, local_model_specs, minilm_spec, model_file_error,
    place_model_bytes_among, with_minilm_queries, ApiEmbedder, Embedder, EmbedderOptions, EmbedderSet, HybridQuery,
    InstallOptions, ModelSpec, Precision, MINILM_DEFAULT_TOKENS, QUERY_TOKENS,
};
use crate::index::hybrid_search;
use crate::protocol::EmbedWorkersRequest;
use crate::search::Progress;
use crate::vault::Vault;

fn specs(model: &str) -> Result<Vec<ModelSpec>, JsValue> {
    local_model_specs(model).map_err(js_error)
}

impl SearchEngine {
    /// MiniLM in this thread, inputs cut at `max_tokens`: its weights read from the host's buffer
    /// a window at a time, so the wasm memory (which never shrinks) holds the tensors and not
    /// also a copy of the 91 MB file.
    async fn minilm_in_thread(&self, max_tokens: usize) -> Result<Rc<dyn Embedder>, JsValue> {
        let spec = minilm_spec();
        let path = |name: &str| spec.path(name).map_err(js_error);
        let spec = &spec;
        let missing = |name: &'static str| move |e| js_error(model_file_error(spec, name, e));
        let weights =
            self.vault.read_binary_buffer(&path("model.safetensors")?).await.map_err(missing("model.safetensors"))?;
        let vocab = self.vault.read(&path("vocab.txt")?).await.map_err(missing("vocab.txt"))?;
        let config = self.vault.read(&path("config.json")?).await.map_err(missing("config.json"))?;
        Ok(Rc::new(minilm_from_buffer(&weights, &vocab, &config, max_tokens).map_err(js_error)?))
    }
}

#[wasm_bindgen]
impl SearchEngine {
    /// Chooses how notes are embedded: `{kind: "static"}`, `{kind: "minilm", maxTokens?}` (both
    /// read from `.obsidian-agent/models/`) or `{kind: "api", baseUrl, model, apiKey?,
    /// dimensions?}`; each with `precision?: "f32" | "int8"`; MiniLM with `workers?`, how many
    /// workers of its own to run in (the host's `embedWorkers`; 0, the default, or a host
    /// without them: in this thread). Vectors made by another embedder are dropped. Resolves to
    /// `{id, dimensions, workers, workersFailed?}` (dimensions 0 for an API until its first
    /// answer; `workers` the number MiniLM runs in, `workersFailed` why none could start).
    #[wasm_bindgen(js_name = setEmbedder, unchecked_return_type = "Protocol.EmbedderSet")]
    pub async fn set_embedder(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.EmbedderOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let options: EmbedderOptions = from_js(options)?;
        let (mut workers, mut workers_failed) = (0, None);
        let (embedder, precision): (Rc<dyn Embedder>, Option<Precision>) = match options {
            EmbedderOptions::Static { precision, minilm_queries: Some(true) } => {
                let queries = self.minilm_in_thread(QUERY_TOKENS).await?;
                (with_minilm_queries(&*self.vault, queries).await.map_err(js_error)?, precision)
            }
            EmbedderOptions::Static { precision, .. } => {
                (load_static_model(&*self.vault).await.map_err(js_error)?, precision)
            }
            EmbedderOptions::Minilm { max_tokens, precision, workers: Some(count) } if count > 0 => {
                let max_tokens = max_tokens.unwrap_or(MINILM_DEFAULT_TOKENS);
                let spec = minilm_spec();
                let file = |name: &str| spec.path(name).map(|p| p.to_string()).map_err(js_error);
                let request = EmbedWorkersRequest {
                    weights: file("model.safetensors")?,
                    vocab: file("vocab.txt")?,
                    config: file("config.json")?,
                    max_tokens: max_tokens as u32,
                    count,
                };
                match start_workers(self.vault.host(), &request).await {
                    Ok(parallel) => {
                        workers = parallel.width();
                        (Rc::new(parallel), precision)
                    }
                    Err(why) => {
                        workers_failed = Some(why.to_string());
                        (self.minilm_in_thread(max_tokens).await?, precision)
                    }
                }
            }
            EmbedderOptions::Minilm { max_tokens, precision, .. } => {
                (self.minilm_in_thread(max_tokens.unwrap_or(MINILM_DEFAULT_TOKENS)).await?, precision)
            }
            EmbedderOptions::Api { config, precision } => {
                let api = ApiEmbedder::new(config, self.http.clone(), Rc::new(JsClock)).map_err(js_error)?;
                (Rc::new(api), precision)
            }
        };
        let semantic = self.index.semantic();
        semantic.set_precision(precision.unwrap_or_default());
        semantic.set_embedder(embedder.clone());
        to_js(&EmbedderSet {
            id: embedder.id().to_string(),
            dimensions: embedder.dimensions(),
            workers,
            workers_failed,
        })
    }

    /// Turns semantic search off: stops a running `embedNotes` and forgets the embedder and the
    /// vectors in memory (the saved ones stay, so `setEmbedder` with the same model resumes).
    #[wasm_bindgen(js_name = clearEmbedder)]
    pub fn clear_embedder(&self) {
        self.index.semantic().clear();
    }

    /// Whether a local model's files are in the vault: `"static"`, `"minilm"` or
    /// `"minilm-queries"` (MiniLM and the query map).
    #[wasm_bindgen(js_name = isModelInstalled)]
    pub async fn is_model_installed(&self, model: String) -> Result<bool, JsValue> {
        for spec in specs(&model)? {
            if !is_installed(&*self.vault, &spec).await.map_err(js_error)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The settings action "Download model": `{model: "static" | "minilm", baseUrl?, release?:
    /// {repository, version}}` (`baseUrl`: a mirror; `release`: the plugin's package metadata,
    /// where the static model is published). Downloads the files missing from
    /// `.obsidian-agent/models/`, checks each against its pinned size and SHA-256 and only then
    /// writes it; `onProgress(file, bytes, totalBytes)`.
    #[wasm_bindgen(js_name = installModel)]
    pub async fn install_model(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.InstallOptions")] options: JsValue,
        #[wasm_bindgen(js_name = onProgress, unchecked_param_type = "((file: string, done: number, total: number) => void) | null")]
        on_progress: Option<js_sys::Function>,
    ) -> Result<(), JsValue> {
        let options: InstallOptions = from_js(options)?;
        let mut report = |file: &str, done: u64, total: u64| {
            if let Some(f) = &on_progress {
                let _ =
                    f.call3(&JsValue::NULL, &file.into(), &JsValue::from(done as f64), &JsValue::from(total as f64));
            }
        };
        for spec in specs(&options.model)? {
            let base = spec.download_base(options.base_url.as_deref(), options.release.as_ref()).map_err(js_error)?;
            install_model(&*self.vault, &*self.http, &spec, &base, &CancelToken::new(), &mut report)
                .await
                .map_err(js_error)?;
        }
        Ok(())
    }

    /// The settings action "Load model from a file…": `bytes` of a file the user picked (`name`
    /// for messages) placed as the file of `model` it is, after the same pinned size and SHA-256
    /// check as a download. Resolves to the file's name in the model; a wrong file is refused.
    #[wasm_bindgen(js_name = installModelFile)]
    pub async fn install_model_file(&self, model: String, name: String, bytes: Vec<u8>) -> Result<String, JsValue> {
        place_model_bytes_among(&*self.vault, &specs(&model)?, &bytes, &name).await.map_err(js_error)
    }

    /// Loads the saved vectors (`.obsidian-agent/index/vectors.bin`) if they fit the embedder.
    /// Resolves to whether they were loaded.
    #[wasm_bindgen(js_name = loadEmbeddings)]
    pub async fn load_embeddings(&self) -> Result<bool, JsValue> {
        self.index.semantic().load(&*self.vault).await.map_err(js_error)
    }

    /// Embeds every note whose vectors are missing or stale, in the background (yielding to the
    /// event loop), `onProgress(done, total)` in notes; saves as it goes, and at the end unless
    /// it changed little (`SAVE_SHARE`). Resolves to `{notes, embeddedNotes, chunks, removed,
    /// cancelled, savedBytes}`.
    #[wasm_bindgen(js_name = embedNotes, unchecked_return_type = "Protocol.EmbedReport")]
    pub async fn embed_notes(
        &self,
        #[wasm_bindgen(js_name = onProgress, unchecked_param_type = "((done: number, total: number) => void) | null")]
        on_progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsValue> {
        let mut report = |p: Progress| {
            if let Some(f) = &on_progress {
                let _ = f.call2(&JsValue::NULL, &JsValue::from(p.done as u32), &JsValue::from(p.total as u32));
            }
        };
        let semantic = self.index.semantic().clone();
        let done = semantic.embed_vault(&*self.vault, &JsClock, &mut report).await.map_err(js_error)?;
        to_js(&done)
    }

    /// Stops a running `embedNotes` (it saves what it has and resolves with `cancelled: true`).
    #[wasm_bindgen(js_name = cancelEmbedding)]
    pub fn cancel_embedding(&self) {
        self.index.semantic().cancel();
    }

    /// Saves the vectors if they changed since they were last saved or loaded: a run that
    /// changed little leaves them unsaved (`SAVE_SHARE`), and a core about to end (a restart)
    /// saves them first, so the next core does not embed them again. Call it when no
    /// `embedNotes` is running. Resolves to the bytes written (0: nothing had changed).
    #[wasm_bindgen(js_name = saveEmbeddings)]
    pub async fn save_embeddings(&self) -> Result<f64, JsValue> {
        let bytes = self.index.semantic().save_changes(&*self.vault).await.map_err(js_error)?;
        Ok(bytes as f64)
    }

    /// `{running, done, total, chunks, embeddedNotes, cancelled, error}`.
    #[wasm_bindgen(js_name = embeddingStatus, unchecked_return_type = "Protocol.EmbedStatus")]
    pub fn embedding_status(&self) -> Result<JsValue, JsValue> {
        to_js(&self.index.semantic().status())
    }

    /// The number of notes with vectors.
    #[wasm_bindgen(js_name = embeddedNoteCount)]
    pub fn embedded_note_count(&self) -> u32 {
        self.index.semantic().read(|v| Ok(v.note_count() as u32)).unwrap_or(0)
    }

    /// Searches by `mode`: `{text, mode: "fulltext" | "semantic" | "hybrid", limit?, folder?,
    /// expandLinks?, language?, fusion?: {kind: "covered", dense, power} | {kind: "weighted", dense}
    /// | {kind: "rrf", k} | {kind: "dense_first", bm25} | …}` (a string is a hybrid query). Resolves to `[{path, title, score, heading, snippet,
    /// foundBy: {fulltext, semantic, linkedFrom}}]`: each signal's rank for the hit, if it found it.
    #[wasm_bindgen(js_name = searchMode, unchecked_return_type = "Protocol.HybridHit[]")]
    pub async fn search_mode(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Partial<Protocol.HybridQuery>")] query: JsValue,
    ) -> Result<JsValue, JsValue> {
        let query: HybridQuery = match query.as_string() {
            Some(text) => HybridQuery { text, ..HybridQuery::default() },
            None => from_js(query)?,
        };
        let vault: &dyn crate::vault::Vault = &*self.vault;
        let hits = hybrid_search(&self.index, Some(vault), &query, &|_| true).await.map_err(js_error)?;
        to_js(&hits)
    }
}
