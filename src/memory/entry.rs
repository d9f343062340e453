//! One memory entry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What an entry says something about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// A fact about the user or their vault ("project notes live in Projects/").
    Fact,
    /// How the user wants things done ("dates as YYYY-MM-DD"); relevant to most requests.
    Preference,
}

impl MemoryKind {
    /// The kind's name as stored and typed (`fact`, `preference`).
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Fact => "fact",
            MemoryKind::Preference => "preference",
        }
    }
}

/// One thing the agent remembers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MemoryEntry {
    /// Stable within the store (`m1`, `m2`, …); what `edit` and `delete` name.
    pub id: String,
    pub kind: MemoryKind,
    /// One line.
    pub text: String,
    /// When it was saved (ms since the epoch; 0: unknown, for entries migrated from `facts.md`).
    pub created_ms: u64,
    /// The task that saved it, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}
