//! Tests that run the core inside headless Chrome (`wasm-pack test --headless --chrome -- --test browser`),
//! built as one binary. They need the local test server (`node tests/servers/server.mjs`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "common/vault_contract.rs"]
mod vault_contract;

#[path = "browser/support.rs"]
mod support;

#[path = "browser/host.rs"]
mod host;

#[path = "browser/provider.rs"]
mod provider;

#[path = "browser/agent.rs"]
mod agent;

#[path = "browser/search.rs"]
mod search;

#[path = "browser/semantic.rs"]
mod semantic;
