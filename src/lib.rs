//! # Vault Agent
//!
//! The core of an AI agent for an Obsidian vault. It compiles to WebAssembly for the Obsidian
//! plugin and natively for the `vault-agent` CLI; the host (the plugin's JS shim, or the CLI)
//! supplies the vault, the clock and HTTP through the traits in [`vault`] and [`host`].
//!
//! ```
//! use vault_agent::vault::{MemoryVault, Vault, VaultPath};
//!
//! # futures::executor::block_on(async {
//! let vault = MemoryVault::new();
//! let note = VaultPath::parse("Projects/Plan.md")?;
//! vault.write(&note, "# Plan\n").await?;
//! assert_eq!(vault.read(&note).await?, "# Plan\n");
//!
//! // Paths that leave the vault, or could mean another file on some host, are refused.
//! assert!(VaultPath::parse("../secrets.md").is_err());
//! # Ok::<(), vault_agent::Error>(())
//! # }).unwrap();
//! ```
//!
//! ## Map
//! - [`vault`] — the `Vault` trait, the path sandbox, `MemoryVault`, `FsVault`.
//! - [`host`] — `Clock` and `HttpClient`, with native implementations.
//! - [`protocol`] — messages, tool specs, usage and stream events shared by every layer.
//! - [`provider`] — the `ModelProvider` trait; Anthropic and OpenAI(-compatible) providers,
//!   SSE, retries, text tool-call dialects.
//! - [`context`] — what fits in the model's window: the token estimate.
//! - [`search`] — note parsing and full-text search (tantivy), in wasm and natively.
//! - [`embed`] — semantic search: embedders, the vector index, hybrid ranking.
//! - [`index`] — the vault's shared index above both: full text and vectors together, and the
//!   search by mode that reads them.
//! - [`mode`] — modes: the tool groups a task may use and the role the model plays.
//! - [`cancel`] — cooperative cancellation.
//! - `wasm` (wasm32 only) — the binding layer for the plugin.

pub mod agent;
pub mod cancel;
pub mod context;
pub mod embed;
mod error;
pub mod guard;
pub mod hash;
pub mod host;
pub mod index;
pub mod mcp;
pub mod media;
pub mod memory;
pub mod mode;
pub mod pipeline;
pub mod prompt;
pub mod protocol;
pub mod provider;
pub mod search;
mod sort;
pub mod tools;
pub mod vault;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, PathProblem, Result};

/// The crate version, as shown by the plugin and the CLI.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
