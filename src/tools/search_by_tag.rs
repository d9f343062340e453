//! `search_by_tag`: the notes that carry a tag, nested tags included.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::note_scan::visible_notes;
use super::{parse_args, OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::parse_note;
use crate::vault::VaultPath;

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

    fn description(&self) -> &'static str {
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
        let mut notes = match ctx.search.filter(|s| s.is_ready()) {
            Some(index) => index.read(|i| i.notes_with_tag(&tag))?,
            None => scan(ctx, &tag).await?,
        };
        notes.retain(|p| VaultPath::parse(p).is_ok_and(|p| !ctx.rules.is_ignored(&p)));
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

async fn scan(ctx: &ToolContext<'_>, tag: &str) -> Result<Vec<String>, ToolError> {
    let nested = format!("{tag}/");
    let mut found = Vec::new();
    for path in visible_notes(ctx).await? {
        ctx.cancel.check()?;
        let Ok(text) = ctx.vault.read(&path).await else { continue };
        let note = parse_note(path.as_str(), &text);
        if note.tags.iter().map(|t| t.to_lowercase()).any(|t| t == tag || t.starts_with(&nested)) {
            found.push(path.to_string());
        }
    }
    Ok(found)
}
