//! Native integration tests, built as one binary (`tests/native/*.rs`).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/vault_contract.rs"]
mod vault_contract;

#[path = "native/vault.rs"]
mod vault;

#[path = "native/host.rs"]
mod host;

#[path = "native/search.rs"]
mod search;
