//! `search_by_tag`: the notes that carry a tag, nested tags included.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::plural;
use super::{OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};

/// Notes listed when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 100;

pub struct SearchByTag;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The tag, e.g. "project" or "#area/health".
    #[schemars(length(min = 1))]
    tag: String,
    /// At most this many notes (default 100).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for SearchByTag {
    const NAME: &'static str = "search_by_tag";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Search;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "List the notes that carry a tag, in their frontmatter or inline. A tag also matches the tags \
         nested under it: \"project\" finds #project and #project/alpha. Case-insensitive; '#' optional."
    }

    fn search_query(&self, args: &Args) -> Option<String> {
        Some(format!("#{}", args.tag.trim_start_matches('#')))
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
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
