//! What a tool is: its schema for the model, what it touches, and what it does.

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;
use ts_rs::TS;

use super::ReadLedger;
use crate::cancel::CancelToken;
use crate::host::{AgentHost, Clock};
use crate::index::SharedIndex;
use crate::protocol::{ApprovalCategory, ChangePreview, ToolSpec};
use crate::vault::{PathRules, Vault, VaultPath};

/// What a tool does to the vault, which decides how the pipeline schedules it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Only reads; safe to run concurrently with other reads.
    Read,
    /// Changes the vault; runs alone, after a checkpoint.
    Write,
    /// Steers the task (finish, ask the user); runs alone.
    Control,
}

/// The groups a mode grants tools by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolGroup {
    /// Reading notes and their metadata.
    Read,
    /// Finding notes.
    Search,
    /// Changing notes and folders.
    Edit,
    /// Steering the task: completion, questions, modes.
    Agent,
    /// Tools from MCP servers.
    Mcp,
}

/// How a call uses a path it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    /// The call may create, change, move or trash what is at the path (a folder: everything
    /// below it).
    Write,
}

/// A path a call names, as the pipeline checks and checkpoints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathUse {
    pub path: VaultPath,
    pub access: Access,
}

impl PathUse {
    pub fn read(path: VaultPath) -> Self {
        PathUse { path, access: Access::Read }
    }
    pub fn write(path: VaultPath) -> Self {
        PathUse { path, access: Access::Write }
    }
}

/// A call's effect on the task itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// `attempt_completion`: the task is done; `result` is the answer.
    Complete { result: String },
    /// `switch_mode`: the task goes on in the mode `mode`.
    SwitchMode { mode: String },
}

/// One entry of a result, for the compact reference that replaces a large result: a path
/// and, for search results, its score.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputItem {
    pub label: String,
    pub score: Option<f32>,
}

/// A successful call's result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// What the model is told (unless it is too large and gets externalized).
    pub content: String,
    /// One line saying what was found or done, e.g. `23 notes match "tantivy"`.
    pub summary: Option<String>,
    /// The result's entries, best first (search hits, listed files).
    pub items: Vec<OutputItem>,
    pub control: Option<Control>,
}

impl ToolOutput {
    /// A plain text result.
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), ..Default::default() }
    }

    /// Sets the one-line summary.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Sets the entries.
    pub fn with_items(mut self, items: Vec<OutputItem>) -> Self {
        self.items = items;
        self
    }
}

/// Why a call failed. Only `Fatal` ends the task.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The model can act on this (wrong path, text not found, conflict): it goes back as an
    /// error result and the loop continues.
    #[error("{0}")]
    RespondToModel(String),
    /// Nothing the model does can fix this; the task ends.
    #[error("{0}")]
    Fatal(String),
}

impl ToolError {
    /// An error for the model.
    pub fn model(message: impl Into<String>) -> Self {
        ToolError::RespondToModel(message.into())
    }
}

impl From<crate::Error> for ToolError {
    fn from(error: crate::Error) -> Self {
        ToolError::RespondToModel(error.to_string())
    }
}

/// What a tool may use while it runs. Paths it names have passed the pipeline's sandbox and
/// ignore/protect checks; paths it discovers (listing, searching) it filters with `rules`.
pub struct ToolContext<'a> {
    pub vault: &'a dyn Vault,
    pub clock: &'a dyn Clock,
    pub host: &'a dyn AgentHost,
    pub cancel: &'a CancelToken,
    pub rules: &'a PathRules,
    pub ledger: &'a ReadLedger,
    /// The vault's index; search tools reach it through [`ToolContext::index`], which builds it
    /// first when it is not yet.
    pub search: &'a SharedIndex,
    pub task_id: &'a str,
    /// The model's id for the call.
    pub call_id: &'a str,
    /// The call's index within the task.
    pub call_index: u32,
}

impl ToolContext<'_> {
    /// The vault's index with its full text in place: built from the vault first when it is not
    /// yet (or awaited, when the host's build is under way). Every search tool reads the index,
    /// so a query finds the same notes whenever it is asked.
    pub async fn index(&self) -> Result<&SharedIndex, ToolError> {
        self.search.ensure(self.vault, self.clock).await?;
        Ok(self.search)
    }

    /// Whether the agent may see `path`: a visible file ([`crate::vault::is_hidden`]) that the
    /// user's ignore list does not hide.
    pub fn is_visible(&self, path: &str) -> bool {
        VaultPath::parse(path).is_ok_and(|p| self.rules.is_visible(&p))
    }
}

/// A tool the model can call. The model reaches a tool only through the
/// `ToolExecutionPipeline`, which validates the arguments against [`Tool::parameters`], checks
/// the [`Tool::paths`], asks for approval, checkpoints writes, then calls [`Tool::execute`].
#[async_trait(?Send)]
pub trait Tool {
    fn name(&self) -> &'static str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    fn kind(&self) -> ToolKind;
    fn group(&self) -> ToolGroup;

    /// What approving this call means. Defaults from [`Tool::kind`].
    fn category(&self) -> ApprovalCategory {
        match self.kind() {
            ToolKind::Read => ApprovalCategory::Read,
            ToolKind::Write => ApprovalCategory::Write,
            ToolKind::Control => ApprovalCategory::Control,
        }
    }

    /// The vault paths the call names and how it uses them. Called on schema-valid arguments.
    fn paths(&self, _args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(Vec::new())
    }

    /// For search tools, the query text (the repetition detector compares queries).
    fn search_query(&self, _args: &Value) -> Option<String> {
        None
    }

    /// Whether a large result may be written to a file and replaced by a reference. Tools that
    /// page their own output (`read_file`) say no.
    fn externalizable(&self) -> bool {
        true
    }

    /// What a write would change, for the approval view. An error here goes to the model
    /// without asking the user (an edit whose text is not found).
    async fn preview(&self, _args: &Value, _ctx: &ToolContext<'_>) -> Result<Option<ChangePreview>, ToolError> {
        Ok(None)
    }

    /// Runs the call.
    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;

    /// The tool as the model sees it.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            input_schema: self.parameters(),
        }
    }
}

/// Deserializes schema-valid arguments into a tool's typed argument struct.
pub fn parse_args<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, ToolError> {
    T::deserialize(args).map_err(|e| ToolError::model(format!("invalid arguments for {tool}: {e}")))
}
