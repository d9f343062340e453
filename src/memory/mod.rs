//! The agent's long-term memory: short entries — facts about the user and the vault, the
//! user's preferences — kept in `.obsidian-agent/memory/` and given to later tasks' prompts.
//!
//! Entries are written by the `remember` tool, the pre-condensing flush and the end-of-task
//! extraction ([`extract`]); a task's prompt gets the ones relevant to its request, within a
//! token budget ([`recall`]).

mod entry;
mod extract;
mod recall;
mod store;

pub use entry::{MemoryEntry, MemoryKind};
pub use extract::{ask_for_memories, parse_memories};
pub use recall::{recall, render, MEMORY_TOKENS};
pub use store::{MemoryStore, LEGACY_FILE, MEMORY_FILE, MEMORY_FOLDER};

#[cfg(test)]
mod memory_tests;
