//! `delete_file`: moves a note or folder to the trash.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::{ApprovalCategory, ChangePreview};
use crate::vault::VaultPath;

pub struct DeleteFile;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for DeleteFile {
    fn name(&self) -> &'static str {
        "delete_file"
    }

    fn description(&self) -> &str {
        "Move a note or folder to the trash. Undoing the task puts it back."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Vault-relative path of the note or folder."}},
            "required": ["path"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Edit
    }

    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Delete
    }

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(vec![PathUse::write(parse_args::<Args>(self.name(), args)?.path)])
    }

    async fn preview(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<Option<ChangePreview>, ToolError> {
        let args: Args = parse_args(self.name(), args)?;
        Ok(Some(ChangePreview::Delete { path: args.path.to_string() }))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        if ctx.vault.stat(&args.path).await?.is_none() {
            return Err(ToolError::model(format!("not found: {}", args.path)));
        }
        ctx.vault.trash(&args.path).await?;
        ctx.ledger.forget(&args.path);
        Ok(ToolOutput::text(format!("Moved {} to the trash.", args.path)))
    }
}
