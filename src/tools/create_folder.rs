//! `create_folder`: makes a folder and its missing parents.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::{EntryKind, VaultPath};

pub struct CreateFolder;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for CreateFolder {
    fn name(&self) -> &'static str {
        "create_folder"
    }

    fn description(&self) -> &str {
        "Create a folder (and any missing parent folders). Succeeds if it already exists."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Vault-relative folder path."}},
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

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(vec![PathUse::write(parse_args::<Args>(self.name(), args)?.path)])
    }

    async fn preview(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<Option<ChangePreview>, ToolError> {
        let args: Args = parse_args(self.name(), args)?;
        Ok(Some(ChangePreview::CreateFolder { path: args.path.to_string() }))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        match ctx.vault.stat(&args.path).await? {
            Some(stat) if stat.kind == EntryKind::Folder => {
                Ok(ToolOutput::text(format!("Folder {} already exists.", args.path)))
            }
            Some(_) => Err(ToolError::model(format!("{} is a file; choose another folder name", args.path))),
            None => {
                ctx.vault.mkdir(&args.path).await?;
                Ok(ToolOutput::text(format!("Created folder {}.", args.path)))
            }
        }
    }
}
