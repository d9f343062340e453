//! What fits in the model's window: the token estimate, history sanitising, the per-turn
//! trim of old tool results, and condensing (an LLM summary that replaces the older history).

pub mod condense;
pub mod sanitize;
pub mod tokens;
pub mod trim;

pub use condense::{condensed, split_point, summary_request, tool_ledger, SUMMARY_MARKER, SUMMARY_SECTIONS};
pub use sanitize::{drop_unseen_media, sanitize};
pub use tokens::{estimate_request, TokenEstimator};
pub use trim::trim_tool_results;
