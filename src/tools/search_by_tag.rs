//! `search_by_tag`: the notes that carry a tag, nested tags included.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::{parse_args, OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};

/// Notes listed when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 100;

pub struct SearchByTag;

#[derive(Deserialize)]
struct Args {
    tag: String,
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for SearchByTag {
    fn name(&self) -> &'static str {
        "search_by_tag"
    }

    fn description(&self) -> &str {
        "List the notes that carry a tag, in their frontmatter or inline. A tag also matches the tags \
         nested under it: \"project\" finds #project and #project/alpha. Case-insensitive; '#' optional."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "tag": {"type": "string", "minLength": 1, "description": "The tag, e.g. \"project\" or \"#area/health\"."},
                "limit": {"type": "integer", "minimum": 1, "description": "At most this many notes (default 100)."}
            },
            "required": ["tag"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Search
    }

    fn search_query(&self, args: &Value) -> Option<String> {
        args.get("tag").and_then(Value::as_str).map(|t| format!("#{}", t.trim_start_matches('#')))
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        let tag = args.tag.trim().trim_start_matches('#').trim_matches('/').to_lowercase();
        if tag.is_empty() {
            return Err(ToolError::model("the tag is empty"));
        }
        let mut notes = ctx.index().await?.read(|i| i.notes_with_tag(&tag))?;
        notes.retain(|p| ctx.is_visible(p));
        let total = notes.len();
        notes.truncate(args.limit.unwrap_or(DEFAULT_LIMIT));
        let summary = format!("{} tagged #{tag}", plural(total, "note", "notes"));
        if notes.is_empty() {
            return Ok(ToolOutput::text(format!("No notes are tagged #{tag}.")).with_summary(summary));
        }
        let mut content = format!("{summary}:\n{}", notes.join("\n"));
        if total > notes.len() {
            content.push_str(&format!("\n[{} more; raise limit]", total - notes.len()));
        }
        let items = notes.into_iter().map(|label| OutputItem { label, score: None }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
}
