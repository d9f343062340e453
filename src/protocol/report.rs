//! The report every agent run ends with.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{CallLabel, ErrorKind, StopReason, ToolOutcome, Usage};

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "reason", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum EndReason {
    /// The model called `attempt_completion`.
    Completed,
    /// The model answered with text and no tool call.
    Answered,
    /// The host cancelled the task.
    Cancelled,
    /// `max_iterations` model calls were made.
    MaxIterations,
    /// The model made `consecutive_mistake_limit` failing steps in a row.
    MistakeLimit,
    /// The model kept repeating blocked tool calls.
    RepetitionLoop,
    /// The user denied a tool call.
    Denied,
    /// The task used its budget of tool calls (`AgentConfig::max_tool_calls`).
    ToolBudget { limit: u32 },
    /// The task ran past its deadline (`AgentConfig::deadline_ms`).
    Deadline { limit_ms: u64 },
    /// A fatal error: the provider failed for good, or a tool reported a fatal error.
    Failed { kind: Option<ErrorKind>, message: String },
    /// A guardrail stopped the task: a call or answer looked steered by something the task
    /// read (the canary, a secret going out, a burst of writes). `message` says which and why.
    Guardrail { message: String },
}

impl EndReason {
    /// Whether the task reached an answer the user asked for (completion or a text answer).
    pub fn is_success(&self) -> bool {
        matches!(self, EndReason::Completed | EndReason::Answered)
    }

    /// Whether the task stopped at a limit that a fresh budget lifts: the chat offers
    /// *Continue* (`Conversation::continue_last`).
    pub fn can_continue(&self) -> bool {
        matches!(self, EndReason::MaxIterations | EndReason::ToolBudget { .. } | EndReason::Deadline { .. })
    }

    /// What the user is told about the end, one sentence: "Stopped: the model repeated the
    /// same calls". An end is a reason, not an input error; hosts print this as it is.
    pub fn describe(&self) -> String {
        match self {
            EndReason::Completed => "Completed.".into(),
            EndReason::Answered => "Answered.".into(),
            EndReason::Cancelled => "Stopped by the user.".into(),
            EndReason::MaxIterations => "Stopped: the task reached its step limit.".into(),
            EndReason::MistakeLimit => "Stopped: the model's tool calls kept failing.".into(),
            EndReason::RepetitionLoop => "Stopped: the model repeated the same calls.".into(),
            EndReason::Denied => "Stopped: a tool call was denied.".into(),
            EndReason::ToolBudget { limit } => format!("Stopped: the task used its budget of {limit} tool calls."),
            EndReason::Deadline { limit_ms } => {
                format!("Stopped: the task ran past its deadline of {}.", duration_text(*limit_ms))
            }
            EndReason::Failed { message, .. } => format!("Failed: {message}"),
            EndReason::Guardrail { message } => format!("Stopped by a safety check: {message}."),
        }
    }
}

/// `90 s`, `5 min`, `1 h 30 min`.
fn duration_text(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=119 => format!("{s} s"),
        120..=3599 => format!("{} min", s / 60),
        _ if (s % 3600) / 60 == 0 => format!("{} h", s / 3600),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// One tool call's metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallReport {
    #[serde(alias = "call_id")]
    pub call_id: String,
    pub tool: String,
    /// The call's index within the task (the same index names its externalized file).
    pub index: u32,
    #[serde(alias = "latency_ms")]
    pub latency_ms: u64,
    /// Size of the full result, before any externalization.
    #[serde(alias = "result_chars")]
    pub result_chars: usize,
    /// The error sent back to the model, if the call failed or was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the full result was written, when it was too large for the history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub externalized: Option<String>,
    /// The call as the user reads it (a saved chat shows its cards from this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<CallLabel>,
    /// How it ended, in the user's terms.
    #[serde(default)]
    pub outcome: ToolOutcome,
    /// The report of the sub-task the call started (`new_task`): its steps, its usage (already
    /// counted in this run's), its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtask: Option<Box<RunReport>>,
}

/// One iteration: a model call and the tool calls it asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StepReport {
    pub step: u32,
    /// From sending the request to the end of the stream.
    #[serde(alias = "model_latency_ms")]
    pub model_latency_ms: u64,
    /// Time to the first streamed event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "first_token_ms")]
    pub first_token_ms: Option<u64>,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "stop_reason")]
    pub stop_reason: Option<StopReason>,
    #[serde(alias = "tool_calls")]
    pub tool_calls: Vec<ToolCallReport>,
}

/// Everything a run did, for the UI, the logs and benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    #[serde(alias = "task_id")]
    pub task_id: String,
    pub end: EndReason,
    /// What the user is told about the end: [`EndReason::describe`] ("Stopped: the model
    /// repeated the same calls.").
    #[serde(default)]
    pub ended: String,
    /// The final answer: `attempt_completion`'s result or the last text answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "final_text")]
    pub final_text: Option<String>,
    pub steps: Vec<StepReport>,
    /// Summed over every model call, the sub-tasks' included.
    pub usage: Usage,
    /// What `usage` cost in US dollars, when the model's price was known.
    #[serde(default)]
    pub cost: Option<f64>,
    #[serde(alias = "duration_ms")]
    pub duration_ms: u64,
    #[serde(alias = "tool_calls")]
    pub tool_calls: u32,
    #[serde(alias = "tool_errors")]
    pub tool_errors: u32,
    /// Vault paths the task changed (the ones `undo_task` restores).
    #[serde(default)]
    #[serde(alias = "changed_paths")]
    pub changed_paths: Vec<String>,
    /// How many times the history was condensed.
    #[serde(default)]
    pub condensations: u32,
    /// The recipe whose fast path answered, when one did (the chat marks the answer with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "fast_path")]
    pub fast_path: Option<RecipeUse>,
    /// How full the model's context was after the task's last call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextUse>,
}

/// How full a model's context is after a call: the tokens of its request and answer (what the
/// next request holds at least) against the window the task keeps to, which the history is
/// condensed before it fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ContextUse {
    pub tokens: u64,
    pub window: u32,
}

impl ContextUse {
    /// The context after a call that used `usage`, in a `window`-token context.
    pub fn after(usage: &Usage, window: u32) -> Self {
        ContextUse { tokens: usage.total_input() + usage.output_tokens, window }
    }
}

/// A recipe as the chat names it: which one, the request it was learned from, its record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RecipeUse {
    pub id: String,
    pub request: String,
    pub successes: u32,
    pub failures: u32,
}
