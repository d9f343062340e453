//! `get_frontmatter`: a note's properties, tags and aliases.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::{parse_note, Frontmatter};
use crate::vault::VaultPath;

pub struct GetFrontmatter;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note.
    path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for GetFrontmatter {
    type Args = Args;
    type Plan = Args;

    fn name(&self) -> &'static str {
        "get_frontmatter"
    }

    fn description(&self) -> &str {
        "Read a note's frontmatter properties (the YAML block at its top) as JSON, with its title, \
         aliases and all its tags (frontmatter and inline). Cheaper than reading the whole note."
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Read
    }

    fn paths(&self, args: &Args) -> Vec<PathUse> {
        vec![PathUse::read(args.path.clone())]
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let text = ctx.vault.read(&args.path).await?;
        let frontmatter = Frontmatter::parse(&text);
        let note = parse_note(args.path.as_str(), &text);
        let mut out = json!({
            "path": args.path.as_str(),
            "title": note.title,
            "aliases": note.aliases,
            "tags": note.tags,
            "properties": frontmatter.properties,
        });
        if let Some(warning) = &frontmatter.warning {
            out["warning"] = json!(warning);
        }
        let count = frontmatter.properties.len();
        let content = serde_json::to_string_pretty(&out).map_err(|e| ToolError::Fatal(e.to_string()))?;
        Ok(ToolOutput::text(content).with_summary(format!("{count} properties, {} tags", note.tags.len())))
    }
}
