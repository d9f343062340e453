//! `write_file`: creates a note, or replaces one the agent has read.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::{line_count, plural, read_unchanged, NoteWrite};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct WriteFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note, e.g. "Projects/Plan.md".
    path: VaultPath,
    /// The complete new content.
    content: String,
}

#[async_trait(?Send)]
impl Tool for WriteFile {
    const NAME: &'static str = "write_file";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = NoteWrite;

    fn description(&self) -> &str {
        "Create a note, or replace the whole content of an existing one. Missing folders are created. \
         To replace an existing note you must have read it in this task (read_file); if it changed since, \
         the write is refused. For small changes prefer edit_file."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<NoteWrite, ToolError> {
        let old = read_unchanged(ctx, &args.path).await?;
        let lines = plural(line_count(&args.content), "line", "lines");
        let verb = if old.is_some() { "Replaced" } else { "Created" };
        let done = format!("{verb} {} ({lines}).", args.path);
        Ok(NoteWrite { path: args.path, old, new: args.content, done })
    }

    fn preview(&self, plan: &NoteWrite) -> Option<ChangePreview> {
        Some(plan.preview())
    }

    async fn apply(&self, plan: NoteWrite, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        plan.apply(ctx).await
    }
}
