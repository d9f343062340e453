//! What the host is asked before a tool call runs, and what it can answer.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::SubtaskInfo;

/// The kind of effect a tool call has, which is what an approval policy decides on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalCategory {
    /// Reads, lists and searches notes.
    Read,
    /// Creates, changes or moves notes and folders.
    Write,
    /// Moves notes or folders to the trash.
    Delete,
    /// Finishes the task or asks the user a question; never needs approval.
    Control,
    /// Calls a tool of an MCP server: sends its arguments outside the vault.
    Mcp,
    /// Fetches a web page: sends a request outside the vault.
    Web,
    /// Saves something to the agent's memory, which later tasks' prompts draw on.
    Memory,
}

impl ApprovalCategory {
    /// Every category, in a stable order.
    pub const ALL: [ApprovalCategory; 7] = [
        ApprovalCategory::Read,
        ApprovalCategory::Write,
        ApprovalCategory::Delete,
        ApprovalCategory::Control,
        ApprovalCategory::Mcp,
        ApprovalCategory::Web,
        ApprovalCategory::Memory,
    ];

    /// The category's name as users type it (`read`, `write`, `delete`, `control`, `mcp`, `web`,
    /// `memory`).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalCategory::Read => "read",
            ApprovalCategory::Write => "write",
            ApprovalCategory::Delete => "delete",
            ApprovalCategory::Control => "control",
            ApprovalCategory::Mcp => "mcp",
            ApprovalCategory::Web => "web",
            ApprovalCategory::Memory => "memory",
        }
    }

    /// Parses a name as returned by [`ApprovalCategory::as_str`].
    pub fn parse(name: &str) -> Option<ApprovalCategory> {
        ApprovalCategory::ALL.into_iter().find(|c| c.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

/// The host's answer to an [`ApprovalRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this call.
    Approve,
    /// Run this call, and every later call of the same category in this task without asking.
    AlwaysAllow,
    /// Do not run this call; the task goes on and the model is told it was skipped.
    Skip,
    /// Do not run this call and stop the task. Also what "no answer" means.
    Deny,
}

/// What a write would change, for the approval view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChangePreview {
    /// A note is created (`old` is `None`) or replaced. `diff` is a unified diff of the two;
    /// `rows` the same diff as the approval view shows it, with the words that changed inside
    /// changed lines marked.
    Write {
        path: String,
        old: Option<String>,
        new: String,
        diff: String,
        #[serde(default)]
        rows: Vec<DiffRow>,
    },
    /// A note or folder is moved.
    Move { from: String, to: String },
    /// A note or folder goes to the trash.
    Delete { path: String },
    /// A folder is created.
    CreateFolder { path: String },
}

/// One row of a diff: a hunk's start, or a line kept, removed or added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffRow {
    pub kind: DiffRowKind,
    /// Line numbers from 1, in the old and the new text (a removed line has no new one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "old_line")]
    pub old_line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "new_line")]
    pub new_line: Option<usize>,
    /// The row's text in pieces; `changed` marks the words that differ from the paired line.
    pub parts: Vec<DiffPart>,
}

/// What a [`DiffRow`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DiffRowKind {
    Hunk,
    Context,
    Removed,
    Added,
}

/// A piece of a [`DiffRow`]'s text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DiffPart {
    pub text: String,
    #[serde(default)]
    pub changed: bool,
}

/// A tool call waiting for the host's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// Unique within the task; the host answers with it.
    pub id: String,
    /// The model's id for the tool call.
    #[serde(alias = "call_id")]
    pub call_id: String,
    pub tool: String,
    pub category: ApprovalCategory,
    /// One line saying what the call does, e.g. `edit_file Projects/Plan.md`.
    pub summary: String,
    #[serde(default)]
    pub input: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<ChangePreview>,
    /// The sub-task asking, when it is not the user's task itself (`new_task`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtask: Option<SubtaskInfo>,
}

/// A question the model asks the user (`ask_followup_question`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Question {
    /// Unique within the task; the host answers with it.
    pub id: String,
    pub question: String,
    /// Answers the model suggests; the user may also type their own.
    #[serde(default)]
    pub suggestions: Vec<String>,
    /// The sub-task asking, when it is not the user's task itself (`new_task`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtask: Option<SubtaskInfo>,
}
