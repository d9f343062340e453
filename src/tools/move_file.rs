//! `move_file`: moves or renames a note or folder.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct MoveFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note or folder to move.
    path: VaultPath,
    /// Its new vault-relative path.
    new_path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for MoveFile {
    const NAME: &'static str = "move_file";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    /// A move whose source exists and whose destination is free.
    type Plan = Args;

    fn description(&self) -> &str {
        "Move or rename a note or folder. Missing destination folders are created; an existing \
         destination is never overwritten. In Obsidian, links to the moved note are updated as for a \
         user's move."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone(), args.new_path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        if args.path == args.new_path {
            return Err(ToolError::model("path and new_path are the same"));
        }
        if ctx.vault.stat(&args.path).await?.is_none() {
            return Err(ToolError::model(format!("not found: {}", args.path)));
        }
        if ctx.vault.stat(&args.new_path).await?.is_some() {
            return Err(ToolError::model(format!("{} already exists; choose another destination", args.new_path)));
        }
        Ok(args)
    }

    fn preview(&self, plan: &Args) -> Option<ChangePreview> {
        Some(ChangePreview::Move { from: plan.path.to_string(), to: plan.new_path.to_string() })
    }

    async fn apply(&self, plan: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        // A destination that appeared while the approval waited is refused by the vault: a move
        // never overwrites.
        ctx.vault.rename(&plan.path, &plan.new_path).await?;
        ctx.ledger.forget(&plan.path);
        Ok(ToolOutput::text(format!("Moved {} to {}.", plan.path, plan.new_path)))
    }
}
