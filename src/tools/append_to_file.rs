//! `append_to_file`: adds text at the end of a note, creating it if needed.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::{read_existing, write_note, write_preview};
use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct AppendToFile;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
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
    fn name(&self) -> &'static str {
        "append_to_file"
    }

    fn description(&self) -> &str {
        "Append text to the end of a note (on a new line), creating the note if it does not exist. \
         Nothing already in the note changes, so reading it first is not required."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Vault-relative path of the note."},
                "content": {"type": "string", "description": "Text to add at the end."}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Edit
    }

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(vec![PathUse::write(parse_args::<Args>(self.name(), args)?.path)])
    }

    async fn preview(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<Option<ChangePreview>, ToolError> {
        let args: Args = parse_args(self.name(), args)?;
        let old = read_existing(ctx, &args.path).await?;
        Ok(Some(write_preview(&args.path, old.as_deref(), &appended(old.as_deref(), &args.content))))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        // Appending starts from the note's current text, so a user's edit is kept, not lost.
        let old = read_existing(ctx, &args.path).await?;
        write_note(ctx, &args.path, old.as_deref(), &appended(old.as_deref(), &args.content)).await?;
        let verb = if old.is_some() { "Appended to" } else { "Created" };
        Ok(ToolOutput::text(format!("{verb} {} ({} chars added).", args.path, args.content.chars().count())))
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
