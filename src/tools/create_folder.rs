//! `create_folder`: makes a folder and its missing parents.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::{EntryKind, VaultPath};

pub struct CreateFolder;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative folder path.
    path: VaultPath,
}

/// The folder to make, and whether it is already there.
pub struct Plan {
    path: VaultPath,
    exists: bool,
}

#[async_trait(?Send)]
impl Tool for CreateFolder {
    const NAME: &'static str = "create_folder";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = Plan;

    fn description(&self) -> &str {
        "Create a folder (and any missing parent folders). Succeeds if it already exists."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<Plan, ToolError> {
        let exists = match ctx.vault.stat(&args.path).await? {
            Some(stat) if stat.kind == EntryKind::Folder => true,
            Some(_) => return Err(ToolError::model(format!("{} is a file; choose another folder name", args.path))),
            None => false,
        };
        Ok(Plan { path: args.path, exists })
    }

    fn preview(&self, plan: &Plan) -> Option<ChangePreview> {
        Some(ChangePreview::CreateFolder { path: plan.path.to_string() })
    }

    async fn apply(&self, plan: Plan, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if plan.exists {
            return Ok(ToolOutput::text(format!("Folder {} already exists.", plan.path)));
        }
        ctx.vault.mkdir(&plan.path).await?;
        Ok(ToolOutput::text(format!("Created folder {}.", plan.path)))
    }
}
