//! `append_to_file`: adds text at the end of a note, creating it if needed.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::{read_existing, NoteWrite};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct AppendToFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note.
    path: VaultPath,
    /// Text to add at the end.
    content: String,
}

/// `old` followed by `addition`, on a new line if `old` does not end with one.
fn appended(old: Option<&str>, addition: &str) -> String {
    match old {
        None | Some("") => addition.to_string(),
        Some(old) if old.ends_with('\n') => format!("{old}{addition}"),
        Some(old) => format!("{old}\n{addition}"),
    }
}

#[async_trait(?Send)]
impl Tool for AppendToFile {
    const NAME: &'static str = "append_to_file";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = NoteWrite;

    fn description(&self) -> &str {
        "Append text to the end of a note (on a new line), creating the note if it does not exist. \
         Nothing already in the note changes, so reading it first is not required."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<NoteWrite, ToolError> {
        // Appending starts from the note's current text, so a user's edit is kept, not lost.
        let old = read_existing(ctx, &args.path).await?;
        let verb = if old.is_some() { "Appended to" } else { "Created" };
        let done = format!("{verb} {} ({} chars added).", args.path, args.content.chars().count());
        let new = appended(old.as_deref(), &args.content);
        Ok(NoteWrite { path: args.path, old, new, done })
    }

    fn preview(&self, plan: &NoteWrite) -> Option<ChangePreview> {
        Some(plan.preview())
    }

    async fn apply(&self, plan: NoteWrite, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        plan.apply(ctx).await
    }
}

#[cfg(test)]
mod tests {
    use super::appended;

    #[test]
    fn appends_on_a_new_line() {
        assert_eq!(appended(None, "x"), "x");
        assert_eq!(appended(Some(""), "x"), "x");
        assert_eq!(appended(Some("a\n"), "x"), "a\nx");
        assert_eq!(appended(Some("a"), "x"), "a\nx");
    }
}
