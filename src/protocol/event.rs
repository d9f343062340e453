//! Events the agent streams to its host while a task runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::{ApprovalDecision, ApprovalRequest, ErrorKind, Question, RunReport, Usage};

/// One event of a running task, in the order things happened. The host renders them; it
/// answers `ApprovalRequired` and `QuestionAsked` through its `AgentHost` implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    TaskStarted {
        task_id: String,
        mode: String,
    },
    /// A model call begins (steps count from 1).
    StepStarted {
        step: u32,
    },
    /// A model call ended; `usage` is its own, `total` the task's so far (for a live meter).
    StepFinished {
        step: u32,
        usage: Usage,
        total: Usage,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolStarted {
        call_id: String,
        tool: String,
        input: Value,
    },
    ToolFinished {
        call_id: String,
        tool: String,
        is_error: bool,
        /// The first line of what the model was told.
        summary: String,
        duration_ms: u64,
    },
    ApprovalRequired {
        request: ApprovalRequest,
    },
    ApprovalResolved {
        request_id: String,
        decision: ApprovalDecision,
    },
    QuestionAsked {
        question: Question,
    },
    /// A large result was written to the vault and replaced by a reference in the history.
    Externalized {
        call_id: String,
        path: String,
        chars: usize,
    },
    /// Older messages were replaced by a summary to fit the model's window.
    ContextCondensed {
        /// Estimated input tokens before and after.
        tokens_before: u64,
        tokens_after: u64,
        /// How many messages the summary replaced.
        messages_summarized: usize,
    },
    /// The task moved to another mode (`switch_mode`).
    ModeChanged {
        mode: String,
    },
    /// Something the user should know that does not stop the task (the soft iteration limit,
    /// a failed audit-log write, a blocked repetition).
    Warning {
        message: String,
    },
    /// The task ended; always the last event.
    Done {
        report: RunReport,
    },
    /// A fatal error; `Done` follows.
    Error {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<ErrorKind>,
    },
}
