//! `replace_selection`: replaces one stretch of a note, known by where it starts and what it
//! holds. The editor's inline edit runs it through its own pipeline; it is never offered to the
//! model (it is not among the built-in tools).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::{read_existing, NoteWrite};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

/// The tool's name.
pub const REPLACE_SELECTION: &str = "replace_selection";

pub struct ReplaceSelection;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note.
    pub path: VaultPath,
    /// Where the selection starts, in bytes of the note's UTF-8 text.
    pub start: usize,
    /// The selected text, as the note holds it.
    pub selection: String,
    /// What replaces it.
    pub replacement: String,
}

#[async_trait(?Send)]
impl Tool for ReplaceSelection {
    const NAME: &'static str = REPLACE_SELECTION;
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = NoteWrite;

    fn description(&self) -> &str {
        "Replace the selected text of a note (the editor's inline edit)."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    /// Refused as a conflict when the note no longer holds the selection where it was: the
    /// user changed the note after selecting.
    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<NoteWrite, ToolError> {
        let Some(old) = read_existing(ctx, &args.path).await? else {
            return Err(ToolError::model(format!("{} does not exist", args.path)));
        };
        let end = args.start + args.selection.len();
        if old.get(args.start..end) != Some(args.selection.as_str()) {
            return Err(ToolError::model(format!(
                "Conflict: {} no longer holds the selection where it was (the note changed). Nothing was written.",
                args.path
            )));
        }
        let new = format!("{}{}{}", &old[..args.start], args.replacement, &old[end..]);
        let done = format!("Replaced the selection in {}.", args.path);
        Ok(NoteWrite { path: args.path, old: Some(old), new, done })
    }

    fn preview(&self, plan: &NoteWrite) -> Option<ChangePreview> {
        Some(plan.preview())
    }

    async fn apply(&self, plan: NoteWrite, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        plan.apply(ctx).await
    }
}
