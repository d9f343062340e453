//! `new_task`: the model hands a part of its work to a sub-task — a fresh agent, in a mode of
//! its choice, that sees only the message it is given and answers with its result. Starting,
//! running and accounting for the sub-task is the agent's ([`Delegate`]); this tool only reads
//! the arguments.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{args_schema, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::mode::Mode;

/// The tool's name.
pub const NEW_TASK: &str = "new_task";

/// Runs a sub-task for a `new_task` call: the agent layer implements it.
#[async_trait(?Send)]
pub trait Delegate {
    /// Runs `message` as a sub-task in the mode `mode` and returns its final answer as the
    /// call's result (an error the model can act on when it cannot start or does not finish).
    async fn delegate(&self, mode: &str, message: &str, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

/// Offers sub-tasks in the modes of one task.
pub struct NewTask {
    delegate: std::rc::Rc<dyn Delegate>,
    slugs: Vec<String>,
    /// The modes whose sub-tasks only read (no edits, web or MCP tools): those run in
    /// parallel, like reads.
    read_only: Vec<String>,
    description: String,
}

impl NewTask {
    /// A tool that starts sub-tasks in `modes` through `delegate`.
    pub fn new(delegate: std::rc::Rc<dyn Delegate>, modes: &[Mode]) -> Self {
        let list: Vec<String> = modes.iter().map(|m| format!("{} ({})", m.slug, m.name)).collect();
        let description = format!(
            "Hand a self-contained piece of the work to a sub-task: a fresh agent that knows nothing of this \
             conversation, works in the mode you choose and returns its final answer as this call's result. Put \
             all it needs in the message. Modes: {}.",
            list.join("; ")
        );
        let read_only = modes
            .iter()
            .filter(|m| m.groups.iter().all(|g| matches!(g, ToolGroup::Read | ToolGroup::Search | ToolGroup::Agent)))
            .map(|m| m.slug.clone())
            .collect();
        NewTask { delegate, slugs: modes.iter().map(|m| m.slug.clone()).collect(), read_only, description }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The mode the sub-task works in.
    mode: String,
    /// What to do and what to answer with.
    message: String,
}

#[async_trait(?Send)]
impl Tool for NewTask {
    type Args = Args;
    type Plan = Args;

    const NAME: &'static str = NEW_TASK;
    /// Steering, not a change of its own: the sub-task's calls go through its own pipeline
    /// (approval, checkpoints), and, like the tools that wait for the user, it has no timeout.
    const KIND: ToolKind = ToolKind::Control;
    const GROUP: ToolGroup = ToolGroup::Agent;

    fn description(&self) -> &str {
        &self.description
    }

    /// The derived schema, with the task's modes as the choices.
    fn parameters(&self) -> Value {
        let mut schema = args_schema::<Args>();
        schema["properties"]["mode"]["enum"] = json!(self.slugs);
        schema
    }

    /// A sub-task in a read-only mode runs alongside the turn's reads and other such sub-tasks
    /// (it cannot widen its mode: see `switch_mode` in a sub-task); one that may write runs alone.
    fn parallel_safe(&self, args: &Value) -> bool {
        args.get("mode").and_then(Value::as_str).is_some_and(|mode| self.read_only.iter().any(|m| m == mode))
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if !self.slugs.contains(&args.mode) {
            return Err(ToolError::model(format!("there is no mode {:?}", args.mode)));
        }
        self.delegate.delegate(&args.mode, &args.message, ctx).await
    }
}

/// How long a sub-task's title may be, in characters.
const TITLE_CHARS: usize = 80;

/// A sub-task's message in one line, for the user: its first non-blank line, cut at 80
/// characters.
pub fn subtask_title(message: &str) -> String {
    let line = message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    match line.char_indices().nth(TITLE_CHARS) {
        Some((at, _)) => format!("{}…", line[..at].trim_end()),
        None => line.to_string(),
    }
}
