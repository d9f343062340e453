//! `get_frontmatter`: a note's properties, tags and aliases.

use async_trait::async_trait;
use serde_json::json;

use super::note_io::NotePath;
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::{parse_note, Frontmatter};
use crate::vault::VaultPath;

pub struct GetFrontmatter;

#[async_trait(?Send)]
impl Tool for GetFrontmatter {
    const NAME: &'static str = "get_frontmatter";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Read;
    type Args = NotePath;
    type Plan = NotePath;

    fn description(&self) -> &str {
        "Read a note's frontmatter properties (the YAML block at its top) as JSON, with its title, \
         aliases and all its tags (frontmatter and inline). Cheaper than reading the whole note."
    }

    fn paths(&self, args: &NotePath) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: NotePath, _ctx: &ToolContext<'_>) -> Result<NotePath, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: NotePath, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
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
