//! `move_file`: moves or renames a note or folder.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct MoveFile;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
    new_path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for MoveFile {
    fn name(&self) -> &'static str {
        "move_file"
    }

    fn description(&self) -> &str {
        "Move or rename a note or folder. Missing destination folders are created; an existing \
         destination is never overwritten. In Obsidian, links to the moved note are updated as for a \
         user's move."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Vault-relative path of the note or folder to move."},
                "new_path": {"type": "string", "description": "Its new vault-relative path."}
            },
            "required": ["path", "new_path"],
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
        let args: Args = parse_args(self.name(), args)?;
        Ok(vec![PathUse::write(args.path), PathUse::write(args.new_path)])
    }

    async fn preview(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<Option<ChangePreview>, ToolError> {
        let args: Args = parse_args(self.name(), args)?;
        Ok(Some(ChangePreview::Move { from: args.path.to_string(), to: args.new_path.to_string() }))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        if args.path == args.new_path {
            return Err(ToolError::model("path and new_path are the same"));
        }
        if ctx.vault.stat(&args.path).await?.is_none() {
            return Err(ToolError::model(format!("not found: {}", args.path)));
        }
        if ctx.vault.stat(&args.new_path).await?.is_some() {
            return Err(ToolError::model(format!("{} already exists; choose another destination", args.new_path)));
        }
        ctx.vault.rename(&args.path, &args.new_path).await?;
        ctx.ledger.forget(&args.path);
        Ok(ToolOutput::text(format!("Moved {} to {}.", args.path, args.new_path)))
    }
}
