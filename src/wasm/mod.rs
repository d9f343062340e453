//! The binding layer: the only module that names `wasm_bindgen`, `js_sys` or `web_sys`.
//!
//! Every exported method does the same three things: turn JS values into core types, call the
//! core, and turn the result (or the error, through [`js_error`]) back into JS values.

mod clock;
mod http;
mod search;
mod vault;

use wasm_bindgen::prelude::*;

pub use clock::JsClock;
pub use http::FetchClient;
pub use search::SearchEngine;
pub use vault::{JsVault, VaultHost};

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

/// The core as the plugin sees it, bound to one vault host.
#[wasm_bindgen]
pub struct VaultCore {
    vault: JsVault,
}

#[wasm_bindgen]
impl VaultCore {
    /// Binds the core to `host`, a `VaultHost` (see `js/host/VaultHost.ts`).
    #[wasm_bindgen(constructor)]
    pub fn new(host: VaultHost) -> VaultCore {
        VaultCore { vault: JsVault::new(host) }
    }

    /// The number of Markdown notes in the vault, outside hidden folders.
    #[wasm_bindgen(js_name = noteCount)]
    pub async fn note_count(&self) -> Result<u32, JsValue> {
        let skip_hidden = |p: &crate::vault::VaultPath| p.name().is_some_and(|n| n.starts_with('.'));
        let files = walk_files(&self.vault as &dyn Vault, &crate::vault::VaultPath::root(), &skip_hidden)
            .await
            .map_err(js_error)?;
        Ok(files.iter().filter(|p| p.extension() == Some("md")).count() as u32)
    }
}
