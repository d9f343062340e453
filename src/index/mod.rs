//! The vault's index as everyone who searches shares it: the full-text index
//! ([`crate::search::SearchIndex`]) and the vectors ([`crate::embed::SemanticIndex`]) of one
//! vault, held together in a [`SharedIndex`], and the search that reads both
//! ([`hybrid_search`]).
//!
//! It sits above [`crate::search`] and [`crate::embed`] (which know nothing of each other's
//! storage); the search modal (through `src/wasm/`), the agent's tools, the pipeline (which
//! refreshes it after a write) and the CLI use it.

mod hybrid_search;
mod shared;

pub use hybrid_search::hybrid_search;
pub use shared::{DatedNote, SharedIndex};
