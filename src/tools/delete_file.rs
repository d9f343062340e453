//! `delete_file`: moves a note or folder to the trash.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::{ApprovalCategory, ChangePreview};
use crate::vault::VaultPath;

pub struct DeleteFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note or folder.
    path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for DeleteFile {
    const NAME: &'static str = "delete_file";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    /// What goes to the trash.
    type Plan = VaultPath;

    fn description(&self) -> &str {
        "Move a note or folder to the trash. Undoing the task puts it back."
    }

    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Delete
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<VaultPath, ToolError> {
        if ctx.vault.stat(&args.path).await?.is_none() {
            return Err(ToolError::model(format!("not found: {}", args.path)));
        }
        Ok(args.path)
    }

    fn preview(&self, path: &VaultPath) -> Option<ChangePreview> {
        Some(ChangePreview::Delete { path: path.to_string() })
    }

    async fn apply(&self, path: VaultPath, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        ctx.vault.trash(&path).await?;
        ctx.ledger.forget(&path);
        Ok(ToolOutput::text(format!("Moved {path} to the trash.")))
    }
}
