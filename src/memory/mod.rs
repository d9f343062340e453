//! The agent's long-term memory: short entries — facts about the user and the vault, the
//! user's preferences — kept in `.obsidian-agent/memory/` and given to later tasks' prompts.
//!
//! Entries are written by the `remember` tool, the pre-condensing flush and the end-of-task
//! extraction (`extract.rs`); a task's prompt gets the ones relevant to its request, within a
//! token budget ([`recall`]). Recipes ([`Recipe`], [`RecipeStore`]) remember what a kind of
//! request took, so a repeated one can take the fast path.

mod entry;
mod extract;
mod json_file;
mod recall;
mod recipe;
mod recipe_store;
mod store;

pub use entry::{MemoryEntry, MemoryKind};
pub use extract::{ask_for_memories, parse_memories};
pub use recall::{recall, render, MEMORY_TOKENS};
pub use recipe::{Recipe, RecipeStep, KEPT_TASKS};
pub use recipe_store::{
    term_similarity, RecipeStore, RequestVector, COSINE_MATCH, FAST_PATH_SUCCESSES, RECIPE_FILE, TERM_FLOOR, TERM_MATCH,
};
pub use store::{MemoryStore, LEGACY_FILE, MEMORY_FILE, MEMORY_FOLDER};

#[cfg(test)]
mod memory_tests;
