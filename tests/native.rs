//! Native integration tests, built as one binary (`tests/native/*.rs`).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/vault_contract.rs"]
mod vault_contract;

#[path = "native/vault.rs"]
mod vault;

#[path = "native/host.rs"]
mod host;

#[path = "native/provider_support.rs"]
mod provider_support;

#[path = "native/provider.rs"]
mod provider;

#[path = "native/local_server.rs"]
mod local_server;

#[path = "native/chat_cli.rs"]
mod chat_cli;

#[path = "native/run_cli.rs"]
mod run_cli;

#[path = "native/agent.rs"]
mod agent;

#[path = "native/search.rs"]
mod search;

#[path = "native/semantic_support.rs"]
mod semantic_support;

#[path = "native/semantic.rs"]
mod semantic;

#[path = "native/hostile_vault.rs"]
mod hostile_vault;

#[path = "native/faulty_vault.rs"]
mod faulty_vault;

#[path = "native/atomic_saves.rs"]
mod atomic_saves;

#[path = "native/faults.rs"]
mod faults;

#[path = "native/model_files.rs"]
mod model_files;

#[path = "native/search_path.rs"]
mod search_path;

#[path = "native/generated_ts.rs"]
mod generated_ts;

#[path = "native/mcp.rs"]
mod mcp;

#[path = "native/mcp_oauth.rs"]
mod mcp_oauth;

#[path = "native/injection.rs"]
mod injection;
