//! `write_file`: creates a note, or replaces one the agent has read.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::{line_count, plural, read_unchanged, write_note, write_preview};
use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct WriteFile;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
    content: String,
}

#[async_trait(?Send)]
impl Tool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create a note, or replace the whole content of an existing one. Missing folders are created. \
         To replace an existing note you must have read it in this task (read_file); if it changed since, \
         the write is refused. For small changes prefer edit_file."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Vault-relative path of the note, e.g. \"Projects/Plan.md\"."},
                "content": {"type": "string", "description": "The complete new content."}
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
        let old = read_unchanged(ctx, &args.path).await?;
        Ok(Some(write_preview(&args.path, old.as_deref(), &args.content)))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        let old = read_unchanged(ctx, &args.path).await?;
        write_note(ctx, &args.path, old.as_deref(), &args.content).await?;
        let lines = plural(line_count(&args.content), "line", "lines");
        let verb = if old.is_some() { "Replaced" } else { "Created" };
        Ok(ToolOutput::text(format!("{verb} {} ({lines}).", args.path)))
    }
}
