//! Events the agent streams to its host while a task runs.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::{
    ApprovalDecision, ApprovalRequest, CallLabel, ContextUse, ErrorKind, FormRequest, ProviderError, ProviderSetting,
    Question, RecipeUse, RunReport, ToolOutcome, Usage,
};

/// One event of a running task, in the order things happened. The host renders them; it
/// answers `ApprovalRequired`, `QuestionAsked` and `FormRequested` through its `AgentHost` implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum AgentEvent {
    TaskStarted {
        #[serde(alias = "task_id")]
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
        /// What `total` costs in US dollars, when the model's price is known.
        #[serde(default)]
        cost: Option<f64>,
        /// How full the model's context is after this call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<ContextUse>,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolStarted {
        #[serde(alias = "call_id")]
        call_id: String,
        tool: String,
        input: Value,
        /// The call as the user reads it, from its arguments.
        #[serde(default)]
        label: CallLabel,
    },
    ToolFinished {
        #[serde(alias = "call_id")]
        call_id: String,
        tool: String,
        #[serde(alias = "is_error")]
        is_error: bool,
        /// The first line of what the model was told.
        summary: String,
        #[serde(alias = "duration_ms")]
        duration_ms: u64,
        /// The call as the user reads it, now with what it found ("— 5 notes").
        #[serde(default)]
        label: CallLabel,
        /// How it ended, in the user's terms.
        #[serde(default)]
        outcome: ToolOutcome,
        /// What the model was told (cut at 4,000 characters): the card's details.
        #[serde(default)]
        result: String,
    },
    /// A running call's progress, as its server reports it (an MCP tool's
    /// `notifications/progress`): `progress` of `total` when the server knows it.
    ToolProgress {
        #[serde(alias = "call_id")]
        call_id: String,
        progress: f64,
        #[serde(default)]
        total: Option<f64>,
        #[serde(default)]
        message: Option<String>,
    },
    ApprovalRequired {
        request: ApprovalRequest,
    },
    ApprovalResolved {
        #[serde(alias = "request_id")]
        request_id: String,
        decision: ApprovalDecision,
    },
    QuestionAsked {
        question: Question,
    },
    /// An MCP server asks the user to fill in a form while its tool runs; answered through
    /// the host (`AgentHost::fill`).
    FormRequested {
        form: FormRequest,
    },
    /// A large result was written to the vault and replaced by a reference in the history.
    Externalized {
        #[serde(alias = "call_id")]
        call_id: String,
        path: String,
        chars: usize,
    },
    /// Older messages were replaced by a summary to fit the model's window.
    ContextCondensed {
        /// Estimated input tokens before and after.
        #[serde(alias = "tokens_before")]
        tokens_before: u64,
        #[serde(alias = "tokens_after")]
        tokens_after: u64,
        /// How many messages the summary replaced.
        #[serde(alias = "messages_summarized")]
        messages_summarized: usize,
    },
    /// The task moved to another mode (`switch_mode`).
    ModeChanged {
        mode: String,
    },
    /// The request matched a recipe that worked often enough: the task takes its fast path
    /// (one planning call, the planned calls through the pipeline, one or two final turns).
    FastPath {
        recipe: RecipeUse,
    },
    /// The fast path gave up (a plan that is not JSON, an unknown tool, a failed step…); the
    /// task goes on in the normal loop.
    FastPathFallback {
        recipe: RecipeUse,
        reason: String,
    },
    /// Something the user should know that does not stop the task (the soft iteration limit,
    /// a failed audit-log write, a blocked repetition).
    Warning {
        message: String,
    },
    /// The MCP server `server` asks the user to sign in (or to sign in again): this task goes
    /// without its tools, and the host offers the sign-in. `message` says so in words.
    McpSignInNeeded {
        server: String,
        message: String,
    },
    /// The chat was saved in the vault under an id or a title the host did not know yet (a
    /// new chat's, before its first task starts; after a task, only if that changed — then it
    /// follows the task's `Done`). The host names the chat with it.
    ChatSaved {
        #[serde(alias = "chat_id")]
        chat_id: String,
        title: String,
    },
    /// The task ended; the task's last event.
    Done {
        report: RunReport,
    },
    /// A model call failed and is tried again after `delay_ms` (the UI shows one live line,
    /// gone once a later attempt answers: the next `StepFinished`, text or tool call).
    Retrying {
        /// The attempt that failed, from 1.
        attempt: u32,
        #[serde(alias = "max_attempts")]
        max_attempts: u32,
        #[serde(alias = "delay_ms")]
        delay_ms: u64,
        problem: ProviderProblem,
    },
    /// An event of a sub-task that the call `call_id` (`new_task`) of this task started, from
    /// `TaskStarted` to `Done`. Its approvals and questions are not wrapped: they come as this
    /// task's own, their ids prefixed with the sub-task's and their `subtask` field set, so a
    /// host answers them as any other.
    Subtask {
        #[serde(alias = "call_id")]
        call_id: String,
        #[serde(alias = "task_id")]
        task_id: String,
        event: Box<AgentEvent>,
    },
    /// A fatal error; `Done` follows.
    Error {
        /// What went wrong, in plain words.
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<ErrorKind>,
        /// The provider's own words (and HTTP status), when a model call failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
        /// The provider setting the error points at (the chat offers to open the settings).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        setting: Option<ProviderSetting>,
    },
}

/// A model-call error as the user is shown it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ProviderProblem {
    pub kind: ErrorKind,
    /// A sentence in plain words ([`ProviderError::explain`]).
    pub message: String,
    /// The provider's own words and HTTP status.
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<ProviderSetting>,
}

impl From<&ProviderError> for ProviderProblem {
    fn from(error: &ProviderError) -> Self {
        ProviderProblem { kind: error.kind, message: error.explain(), detail: error.detail(), setting: error.setting() }
    }
}

impl AgentEvent {
    /// The `Error` event for a failed model call.
    pub fn provider_error(error: &ProviderError) -> Self {
        let problem = ProviderProblem::from(error);
        AgentEvent::Error {
            message: problem.message,
            kind: Some(problem.kind),
            detail: Some(problem.detail),
            setting: problem.setting,
        }
    }

    /// An `Error` event for a failure that is not a model call's.
    pub fn error(message: impl Into<String>) -> Self {
        AgentEvent::Error { message: message.into(), kind: None, detail: None, setting: None }
    }
}
