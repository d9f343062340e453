//! What browser tests share: the test server's address and JS hosts.

use wasm_bindgen::prelude::*;

/// The local test server (`tests/servers/server.mjs`), port fixed at compile time.
pub fn server_url(path: &str) -> String {
    let port = option_env!("VAULT_AGENT_TEST_PORT").unwrap_or("47800");
    format!("http://127.0.0.1:{port}{path}")
}

#[wasm_bindgen(module = "/tests/browser/memory_host.js")]
extern "C" {
    /// A contract-keeping `VaultHost` held in JS memory.
    #[wasm_bindgen(js_name = newMemoryHost)]
    pub fn new_memory_host() -> JsValue;
    /// The same, whose `readBatch` answers each note's bytes (as the plugin's host does).
    #[wasm_bindgen(js_name = newBytesHost)]
    pub fn new_bytes_host() -> JsValue;
    /// A `VaultHost` whose calls reject, throw, or answer nonsense.
    #[wasm_bindgen(js_name = newFailingHost)]
    pub fn new_failing_host() -> JsValue;
}

#[wasm_bindgen(module = "/tests/browser/request_fn.js")]
extern "C" {
    /// A non-streaming request function (like Obsidian's `requestUrl`) over `fetch`: it reads
    /// the whole body before answering, and sends requests for `unreachableOrigin` to the test
    /// server instead. It counts its calls in `requestCalls()`.
    #[wasm_bindgen(js_name = newRequestFunction)]
    pub fn new_request_function(unreachable_origin: &str, server_origin: &str) -> js_sys::Function;
    #[wasm_bindgen(js_name = requestCalls)]
    pub fn request_calls() -> u32;
}
