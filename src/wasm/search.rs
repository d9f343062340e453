//! The search engine for JS: build or load the index, keep it up to date one note at a time,
//! search, and save — over the same `VaultHost` the rest of the core uses.
//!
//! Long work never holds the index: a build makes a new index and swaps it in at the end, an
//! update reads the note first and then indexes it synchronously, and a save packs the index
//! synchronously and then writes. So searches keep answering while any of these is awaited.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::index_worker::JsPartWorkers;
use super::{from_js, js_error, to_js, FetchClient, JsClock, JsVault, VaultHost};
use crate::host::HttpClient;
use crate::index::{DatedNote, SharedIndex};
use crate::search::{read_note, NoteRead, Progress, SearchIndex, SearchQuery};
use crate::vault::VaultPath;

/// Full-text search over one vault.
#[wasm_bindgen]
pub struct SearchEngine {
    pub(super) vault: Rc<JsVault>,
    pub(super) index: SharedIndex,
    /// Downloads models and calls an embeddings API: the core's transport when the engine
    /// comes from a `VaultCore` (so `requestUrl` steps in where CORS refuses `fetch`).
    pub(super) http: Rc<dyn HttpClient>,
}

fn path(raw: &str) -> Result<VaultPath, JsValue> {
    VaultPath::parse(raw).map_err(js_error)
}

/// Calls `onProgress(done, total)` if given; an exception in it is ignored (it only reports).
fn reporter(callback: Option<js_sys::Function>) -> impl FnMut(Progress) {
    move |p: Progress| {
        if let Some(f) = &callback {
            let _ = f.call2(&JsValue::NULL, &JsValue::from(p.done as u32), &JsValue::from(p.total as u32));
        }
    }
}

#[wasm_bindgen]
impl SearchEngine {
    /// An engine over `host`, with no index yet.
    #[wasm_bindgen(constructor)]
    pub fn new(host: VaultHost) -> SearchEngine {
        SearchEngine::shared(Rc::new(JsVault::new(host)), SharedIndex::new(), Rc::new(FetchClient))
    }

    /// Indexes every note, yielding to the event loop between chunks and calling
    /// `onProgress(done, total)`. Resolves to the number of notes indexed.
    pub async fn build(
        &self,
        #[wasm_bindgen(js_name = onProgress, unchecked_param_type = "((done: number, total: number) => void) | null")]
        on_progress: Option<js_sys::Function>,
    ) -> Result<u32, JsValue> {
        let count = self.index.build(&*self.vault, &JsClock, &mut reporter(on_progress)).await.map_err(js_error)?;
        Ok(count as u32)
    }

    /// Loads the saved index, or builds it when it is missing, stale or corrupt. Resolves to
    /// `{kind: "loaded"}` or `{kind: "built", reason: {kind, detail}}`.
    #[wasm_bindgen(js_name = loadOrBuild, unchecked_return_type = "Protocol.LoadOutcome")]
    pub async fn load_or_build(
        &self,
        #[wasm_bindgen(js_name = onProgress, unchecked_param_type = "((done: number, total: number) => void) | null")]
        on_progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsValue> {
        let outcome =
            self.index.load_or_build(&*self.vault, &JsClock, &mut reporter(on_progress)).await.map_err(js_error)?;
        to_js(&outcome)
    }

    /// Brings the loaded index up to date with the vault as the host lists it now: `notes` is
    /// every file, `[{path, mtime}]` (what is not a note is ignored). Notes no longer listed are
    /// removed, new or re-dated ones read and indexed, with `onProgress(done, total)` over
    /// those. Resolves to the number of notes that changed.
    #[wasm_bindgen(js_name = catchUp)]
    pub async fn catch_up(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.DatedNote[]")] notes: JsValue,
        #[wasm_bindgen(js_name = onProgress, unchecked_param_type = "((done: number, total: number) => void) | null")]
        on_progress: Option<js_sys::Function>,
    ) -> Result<u32, JsValue> {
        let listed: Vec<DatedNote> = from_js(notes)?;
        let notes: Vec<(VaultPath, u64)> = listed.iter().filter_map(DatedNote::parse).collect();
        let changed =
            self.index.catch_up(&*self.vault, &notes, &JsClock, &mut reporter(on_progress)).await.map_err(js_error)?;
        Ok(changed as u32)
    }

    /// Saves the index to `.obsidian-agent/index/`, when it holds changes no save has written (a
    /// plugin that unloads after a quiet session writes nothing): the changes beside the main
    /// shard already saved, or the index compacted (see `SearchIndex::snapshot`). Resolves to
    /// the bytes written: 0 when there was nothing to save.
    pub async fn persist(&self) -> Result<u32, JsValue> {
        let snapshot =
            self.with_index_mut(|index| index.has_unsaved_changes().then(|| index.snapshot()).transpose())?;
        let Some(snapshot) = snapshot else { return Ok(0) };
        let written = snapshot.write(&*self.vault).await.map_err(js_error)?;
        // Searches and updates went on while the bytes were written: a change made meanwhile,
        // or an index rebuilt meanwhile, stays unsaved.
        self.with_index_mut(|index| {
            index.saved(&snapshot);
            Ok(())
        })?;
        Ok(written as u32)
    }

    /// Re-reads one note and updates the index (a note that is gone is removed). Resolves to
    /// whether the index changed.
    pub async fn update(&self, note: String) -> Result<bool, JsValue> {
        let note = path(&note)?;
        let read = read_note(&*self.vault, &note).await.map_err(js_error)?;
        self.with_index_mut(|index| match read {
            NoteRead::Text { text, mtime } => index.index_note(note.as_str(), &text, mtime),
            NoteRead::Gone => Ok(index.remove(note.as_str())),
            NoteRead::NotANote => Ok(false),
        })
    }

    /// Removes a note. Returns whether it was indexed.
    pub fn remove(&self, note: String) -> Result<bool, JsValue> {
        self.with_index_mut(|index| Ok(index.remove(&note)))
    }

    /// Follows a rename in the vault (call it after the host renamed the file).
    pub async fn rename(&self, from: String, to: String) -> Result<bool, JsValue> {
        let removed = self.remove(from)?;
        let added = self.update(to).await?;
        Ok(removed || added)
    }

    /// Folds pending updates into the main index (for idle time; saving does it too).
    pub fn compact(&self) -> Result<(), JsValue> {
        self.with_index_mut(|index| index.compact())
    }

    /// Searches. `query` is a string, or `{text, limit, offset, folder, tags, pathPrefix,
    /// snippets}`. Resolves to `[{path, title, score, snippet, heading}]`; snippets mark
    /// matches with `**…**`.
    #[wasm_bindgen(unchecked_return_type = "Protocol.SearchHit[]")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Partial<Protocol.SearchQuery>")] query: JsValue,
    ) -> Result<JsValue, JsValue> {
        let query: SearchQuery = match query.as_string() {
            Some(text) => SearchQuery::new(text),
            None => serde_wasm_bindgen::from_value(query).map_err(js_error)?,
        };
        let hits = self.with_index(|index| index.search(&query))?;
        to_js(&hits)
    }

    /// Up to `limit` notes related to `note` (links either way, shared tags, text like its
    /// title), closest first: `[{path, title, score, reasons}]`.
    #[wasm_bindgen(unchecked_return_type = "Protocol.RelatedNote[]")]
    pub fn related(&self, note: String, limit: u32) -> Result<JsValue, JsValue> {
        to_js(&self.with_index(|index| index.related(&note, limit as usize))?)
    }

    /// Notes linking to `path`.
    #[wasm_bindgen(unchecked_return_type = "string[]")]
    pub fn backlinks(&self, note: String) -> Result<JsValue, JsValue> {
        to_js(&self.with_index(|index| index.backlinks(&note))?)
    }

    /// Notes with `tag` or a tag nested under it.
    #[wasm_bindgen(js_name = notesWithTag, unchecked_return_type = "string[]")]
    pub fn notes_with_tag(&self, tag: String) -> Result<JsValue, JsValue> {
        to_js(&self.with_index(|index| index.notes_with_tag(&tag))?)
    }

    /// The number of indexed notes (0 before a build or load).
    /// How many parts the index's build was made in: 1 when the core built every note itself
    /// (or loaded the index), more when index workers built some.
    #[wasm_bindgen(js_name = builtInParts)]
    pub fn built_in_parts(&self) -> u32 {
        self.index.read(|index| Ok(index.built_in_parts() as u32)).unwrap_or(0)
    }

    #[wasm_bindgen(js_name = noteCount)]
    pub fn note_count(&self) -> u32 {
        self.index.read(|i| Ok(i.note_count() as u32)).unwrap_or(0)
    }
}

impl SearchEngine {
    /// An engine over `vault` and `index`, shared with the rest of the core (the agent's tools),
    /// reaching the network through `http`.
    pub(crate) fn shared(vault: Rc<JsVault>, index: SharedIndex, http: Rc<dyn HttpClient>) -> SearchEngine {
        // A host with index workers builds a large vault's index on several cores.
        if let Some(workers) = JsPartWorkers::of(vault.host()) {
            index.set_part_workers(Rc::new(workers));
        }
        SearchEngine { vault, index, http }
    }

    fn with_index<T>(&self, f: impl FnOnce(&SearchIndex) -> crate::Result<T>) -> Result<T, JsValue> {
        self.index.read(f).map_err(js_error)
    }

    fn with_index_mut<T>(&self, f: impl FnOnce(&mut SearchIndex) -> crate::Result<T>) -> Result<T, JsValue> {
        self.index.write(f).map_err(js_error)
    }
}
