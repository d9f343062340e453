//! `get_frontmatter`: a note's properties, tags and aliases.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{parse_args, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::{parse_note, Frontmatter};
use crate::vault::VaultPath;

pub struct GetFrontmatter;

#[derive(Deserialize)]
struct Args {
    path: VaultPath,
}

#[async_trait(?Send)]
impl Tool for GetFrontmatter {
    fn name(&self) -> &'static str {
        "get_frontmatter"
    }

    fn description(&self) -> &'static str {
        "Read a note's frontmatter properties (the YAML block at its top) as JSON, with its title, \
         aliases and all its tags (frontmatter and inline). Cheaper than reading the whole note."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Vault-relative path of the note."}},
            "required": ["path"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Read
    }

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(vec![PathUse::read(parse_args::<Args>(self.name(), args)?.path)])
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
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
