//! The binding layer: the only module that names `wasm_bindgen`, `js_sys` or `web_sys`.
//!
//! Every exported method does the same three things: turn JS values into core types, call the
//! core, and turn the result (or the error, through [`js_error`]) back into JS values.

mod agent;
mod clock;
mod http;
mod search;
mod semantic;
mod vault;

use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

pub use agent::Chat;
pub use clock::JsClock;
pub use http::FetchClient;
pub use search::SearchEngine;
pub use vault::{JsVault, VaultHost};

use crate::host::Clock;
use crate::pipeline::{list_checkpoints, sweep_orphans, undo_task, ORPHAN_AGE_MS};
use crate::search::SharedIndex;
use crate::vault::{walk_files, Vault};

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The core's version (the crate version).
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// The one place where a core error becomes a JS `Error`.
pub(crate) fn js_error(error: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&error.to_string()).into()
}

/// A core value as a plain JS value (maps as objects, not `Map`s).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true)).map_err(js_error)
}

/// A JS value as a core value, or a JS `Error` saying what did not fit.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| js_error(format!("invalid argument: {e}")))
}

/// The core as the plugin sees it, bound to one vault host.
#[wasm_bindgen]
pub struct VaultCore {
    vault: Rc<JsVault>,
    search: SharedIndex,
}

#[wasm_bindgen]
impl VaultCore {
    /// Binds the core to `host`, a `VaultHost` (see `js/host/VaultHost.ts`).
    #[wasm_bindgen(constructor)]
    pub fn new(host: VaultHost) -> VaultCore {
        VaultCore { vault: Rc::new(JsVault::new(host)), search: SharedIndex::new() }
    }

    /// The vault's search engine. Every engine a core hands out shares one index, and the
    /// agent's tools search that index once it is built or loaded.
    #[wasm_bindgen(js_name = searchEngine)]
    pub fn search_engine(&self) -> SearchEngine {
        SearchEngine::shared(self.vault.clone(), self.search.clone())
    }

    /// A new chat with the agent: `options` is `{provider, agent?, vault?}` (see
    /// `ChatOptions` in `js/core.ts`); `onEvent` receives every `AgentEvent`.
    #[wasm_bindgen(js_name = newChat)]
    pub fn new_chat(&self, options: JsValue, on_event: js_sys::Function) -> Result<Chat, JsValue> {
        Chat::new(self.vault.clone(), self.search.clone(), options, on_event)
    }

    /// Restores everything the task `taskId` changed; resolves with an `UndoReport`.
    #[wasm_bindgen(js_name = undoTask)]
    pub async fn undo_task(&self, task_id: String) -> Result<JsValue, JsValue> {
        let report = undo_task(self.vault.clone(), &task_id, JsClock.now_ms()).await.map_err(js_error)?;
        to_js(&report)
    }

    /// The tasks that can be undone, newest first.
    #[wasm_bindgen(js_name = listCheckpoints)]
    pub async fn list_checkpoints(&self) -> Result<JsValue, JsValue> {
        to_js(&list_checkpoints(&*self.vault).await.map_err(js_error)?)
    }

    /// Removes temporary task folders left over from tasks that ended more than an hour ago
    /// without cleaning up (a crash, a closed app). Resolves with the folders removed.
    #[wasm_bindgen(js_name = sweepTemporaryFiles)]
    pub async fn sweep_temporary_files(&self) -> Result<JsValue, JsValue> {
        let removed = sweep_orphans(&*self.vault, JsClock.now_ms(), ORPHAN_AGE_MS).await.map_err(js_error)?;
        to_js(&removed)
    }

    /// The number of Markdown notes in the vault, outside hidden folders.
    #[wasm_bindgen(js_name = noteCount)]
    pub async fn note_count(&self) -> Result<u32, JsValue> {
        let skip_hidden = |p: &crate::vault::VaultPath| p.name().is_some_and(|n| n.starts_with('.'));
        let files = walk_files(&*self.vault as &dyn Vault, &crate::vault::VaultPath::root(), &skip_hidden)
            .await
            .map_err(js_error)?;
        Ok(files.iter().filter(|p| p.extension() == Some("md")).count() as u32)
    }
}
