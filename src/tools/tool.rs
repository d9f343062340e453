//! What a tool is: its typed arguments and their schema, what a call touches, the plan it
//! makes, and what applying the plan does; and the erased form the registry and pipeline hold.

use std::cell::{Cell, RefCell};

use async_trait::async_trait;
use schemars::generate::SchemaSettings;
use schemars::transform::RestrictFormats;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::ReadLedger;
use crate::cancel::CancelToken;
use crate::host::{AgentHost, Clock};
use crate::index::SharedIndex;
use crate::mcp::ModelSampler;
use crate::media::MediaSupport;
use crate::mode::ToolGroup;
use crate::pipeline::ApprovalPolicy;
use crate::protocol::{ApprovalCategory, ChangePreview, ContentBlock, ToolSpec};
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
    /// Images or documents that follow the results in the message the model gets (a tool
    /// result itself is text only in Chat Completions).
    pub media: Vec<ContentBlock>,
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
    /// What the model takes besides text (images, PDFs as documents).
    pub media: MediaSupport,
    /// The task's model, for an MCP server that asks it for a reply while its tool runs.
    pub sampler: Option<&'a ModelSampler>,
    /// The approval policy as it stands, for what a tool asks the user while it runs.
    pub policy: &'a RefCell<ApprovalPolicy>,
    /// The time this call has spent waiting for the user, which its time limit does not count.
    pub user_time: &'a UserTime,
}

/// How long a call has waited for the user (a server's form, a request for the model to
/// approve): the tool time limit is for the tool, not for the person answering it.
#[derive(Debug, Default)]
pub struct UserTime {
    spent_ms: Cell<u64>,
    since: Cell<Option<u64>>,
}

impl UserTime {
    /// `answer`'s value, its time counted as the user's.
    pub async fn during<T>(&self, clock: &dyn Clock, answer: impl std::future::Future<Output = T>) -> T {
        let start = clock.now_ms();
        self.since.set(Some(start));
        let value = answer.await;
        self.since.set(None);
        self.spent_ms.set(self.spent_ms.get() + clock.now_ms().saturating_sub(start));
        value
    }

    /// The time spent waiting for the user up to `now`, a wait under way included.
    pub fn spent_ms(&self, now: u64) -> u64 {
        self.spent_ms.get() + self.since.get().map_or(0, |since| now.saturating_sub(since))
    }

    /// Whether the call is waiting for the user now.
    pub fn waiting(&self) -> bool {
        self.since.get().is_some()
    }
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

/// A tool, typed. Its arguments are parsed once, into [`Tool::Args`], whose derived JSON Schema
/// is what the model sees; a call then *plans* what it will do, the user approves that plan (the
/// approval view shows [`Tool::preview`]), and [`Tool::apply`] carries out that same plan. The
/// model reaches a tool only through the `ToolExecutionPipeline`, which holds it as a
/// [`DynTool`]: it validates the arguments against the schema, checks the [`Tool::paths`], asks
/// for approval and checkpoints writes between the plan and its application.
#[async_trait(?Send)]
pub trait Tool: 'static {
    /// The arguments. Their doc comments are the fields' descriptions for the model, and
    /// `#[serde(deny_unknown_fields)]` makes the schema refuse other fields.
    type Args: DeserializeOwned + JsonSchema + 'static;
    /// What a call will do, worked out before approval. A tool that changes nothing plans
    /// nothing: its plan is its arguments.
    type Plan: 'static;

    const NAME: &'static str;
    const KIND: ToolKind;
    const GROUP: ToolGroup;
    /// Whether a large result may be written to a file and replaced by a reference. Tools that
    /// page their own output (`read_file`) or talk to the user say no.
    const EXTERNALIZABLE: bool = true;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// What approving this call means. Defaults from [`Tool::KIND`].
    fn category(&self) -> ApprovalCategory {
        match Self::KIND {
            ToolKind::Read => ApprovalCategory::Read,
            ToolKind::Write => ApprovalCategory::Write,
            ToolKind::Control => ApprovalCategory::Control,
        }
    }

    /// The JSON Schema of the arguments object: [`Tool::Args`]'s, unless the tool adds to it
    /// (values known only at run time).
    fn parameters(&self) -> Value {
        args_schema::<Self::Args>()
    }

    /// The vault paths the call names: a write tool may change them, any other tool reads them.
    fn paths(&self, _args: &Self::Args) -> Vec<VaultPath> {
        Vec::new()
    }

    /// For search tools, the query text (the repetition detector compares queries).
    fn search_query(&self, _args: &Self::Args) -> Option<String> {
        None
    }

    /// Whether the user approved calls like this one in advance (a fetch from a domain they
    /// allow-listed): it then runs without asking, whatever the category's policy says.
    fn preapproved(&self, _args: &Self::Args) -> bool {
        false
    }

    /// Whether a call with `args` (as the model sent them) may run at the same time as the
    /// other such calls of its turn: reads may, anything that changes the vault or waits for
    /// the user may not.
    fn parallel_safe(&self, _args: &Value) -> bool {
        Self::KIND == ToolKind::Read
    }

    /// Works out what the call will do, before approval. An error here goes to the model
    /// without asking the user (an edit whose text is not found).
    async fn plan(&self, args: Self::Args, ctx: &ToolContext<'_>) -> Result<Self::Plan, ToolError>;

    /// What the plan would change, for the approval view.
    fn preview(&self, _plan: &Self::Plan) -> Option<ChangePreview> {
        None
    }

    /// Carries out the plan.
    async fn apply(&self, plan: Self::Plan, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

/// A tool as the registry and the pipeline hold it: arguments as JSON, types erased. Every
/// [`Tool`] is one; a tool whose schema comes from elsewhere (an MCP server's) implements this
/// trait directly. Either way the pipeline validates a call's arguments against
/// [`DynTool::parameters`] before [`DynTool::parse`].
#[async_trait(?Send)]
pub trait DynTool {
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    fn kind(&self) -> ToolKind;
    fn group(&self) -> ToolGroup;
    /// What approving a call means.
    fn category(&self) -> ApprovalCategory;
    /// Whether a large result may be externalized.
    fn externalizable(&self) -> bool;
    /// Whether a call with `args` may run alongside the turn's other such calls.
    fn parallel_safe(&self, _args: &Value) -> bool {
        self.kind() == ToolKind::Read
    }

    /// Parses schema-valid arguments, once, into a call.
    fn parse<'a>(&'a self, args: &Value) -> Result<Box<dyn ParsedCall<'a> + 'a>, ToolError>;

    /// The tool as the model sees it.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            input_schema: self.parameters(),
        }
    }
}

/// A call whose arguments are parsed, not yet planned.
#[async_trait(?Send)]
pub trait ParsedCall<'a> {
    /// The vault paths the call names and how it uses them.
    fn paths(&self) -> Vec<PathUse>;
    /// For search tools, the query text.
    fn search_query(&self) -> Option<String>;
    /// Whether the user approved calls like this one in advance.
    fn preapproved(&self) -> bool;
    /// Works out what the call will do.
    async fn plan(self: Box<Self>, ctx: &ToolContext<'_>) -> Result<Box<dyn PlannedCall + 'a>, ToolError>;
}

/// A planned call: what the approval shows is what [`PlannedCall::apply`] does.
#[async_trait(?Send)]
pub trait PlannedCall {
    /// What the call would change, for the approval view.
    fn preview(&self) -> Option<ChangePreview>;
    /// Keeps only the changes `hunks` of the preview (the user turned the others down);
    /// `false` when the plan cannot be narrowed so.
    fn keep_hunks(&mut self, _hunks: &[usize]) -> bool {
        false
    }
    /// Carries out the plan.
    async fn apply(self: Box<Self>, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

#[async_trait(?Send)]
impl<T: Tool> DynTool for T {
    fn name(&self) -> &str {
        T::NAME
    }
    fn description(&self) -> &str {
        Tool::description(self)
    }
    fn parameters(&self) -> Value {
        Tool::parameters(self)
    }
    fn kind(&self) -> ToolKind {
        T::KIND
    }
    fn group(&self) -> ToolGroup {
        T::GROUP
    }
    fn category(&self) -> ApprovalCategory {
        Tool::category(self)
    }
    fn externalizable(&self) -> bool {
        T::EXTERNALIZABLE
    }
    fn parallel_safe(&self, args: &Value) -> bool {
        Tool::parallel_safe(self, args)
    }

    fn parse<'a>(&'a self, args: &Value) -> Result<Box<dyn ParsedCall<'a> + 'a>, ToolError> {
        let args = T::Args::deserialize(args)
            .map_err(|e| ToolError::model(format!("invalid arguments for {}: {e}", T::NAME)))?;
        Ok(Box::new(Parsed { tool: self, args }))
    }
}

/// A typed tool's call with its arguments parsed.
struct Parsed<'a, T: Tool> {
    tool: &'a T,
    args: T::Args,
}

#[async_trait(?Send)]
impl<'a, T: Tool> ParsedCall<'a> for Parsed<'a, T> {
    fn paths(&self) -> Vec<PathUse> {
        let access = if T::KIND == ToolKind::Write { Access::Write } else { Access::Read };
        self.tool.paths(&self.args).into_iter().map(|path| PathUse { path, access }).collect()
    }
    fn search_query(&self) -> Option<String> {
        self.tool.search_query(&self.args)
    }
    fn preapproved(&self) -> bool {
        self.tool.preapproved(&self.args)
    }
    async fn plan(self: Box<Self>, ctx: &ToolContext<'_>) -> Result<Box<dyn PlannedCall + 'a>, ToolError> {
        let plan = self.tool.plan(self.args, ctx).await?;
        Ok(Box::new(Planned { tool: self.tool, plan }))
    }
}

/// A typed tool's call with its plan made.
struct Planned<'a, T: Tool> {
    tool: &'a T,
    plan: T::Plan,
}

#[async_trait(?Send)]
impl<T: Tool> PlannedCall for Planned<'_, T> {
    fn preview(&self) -> Option<ChangePreview> {
        self.tool.preview(&self.plan)
    }
    fn keep_hunks(&mut self, hunks: &[usize]) -> bool {
        // Every tool that changes a note's text plans a `NoteWrite`; the hunks are its diff's.
        (&mut self.plan as &mut dyn std::any::Any)
            .downcast_mut::<super::note_io::NoteWrite>()
            .is_some_and(|write| write.keep_hunks(hunks))
    }
    async fn apply(self: Box<Self>, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        self.tool.apply(self.plan, ctx).await
    }
}

/// The JSON Schema of a tool's arguments `T`, as the model sees it: subschemas inline, no
/// `$schema`, title or root description, and no `format` (schemars marks integers `uint`,
/// which is no JSON Schema format and only noise to a model). An optional argument is one the
/// model leaves out, not one it sets to `null`: its type does not admit `null`.
pub fn args_schema<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut restrict = RestrictFormats::default();
    restrict.infer_from_meta_schema = false;
    let mut schema = settings.with_transform(restrict).into_generator().into_root_schema_for::<T>();
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        root.remove("description");
    }
    let mut schema = schema.to_value();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.values_mut().for_each(not_null);
    }
    schema
}

/// `property` without `null` among its types and choices.
fn not_null(property: &mut Value) {
    let Some(property) = property.as_object_mut() else { return };
    if let Some(Value::Array(types)) = property.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            property.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(choices)) = property.get_mut("enum") {
        choices.retain(|c| !c.is_null());
    }
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
