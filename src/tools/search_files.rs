//! `search_files`: notes that contain the query's words, best first.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::plural;
use super::{OutputItem, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::index::SharedIndex;
use crate::search::{SearchHit, SearchQuery};
use crate::vault::VaultPath;

/// Hits returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 20;

pub struct SearchFiles;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Words to search for.
    #[schemars(length(min = 1))]
    query: String,
    /// Only notes below this folder.
    folder: Option<VaultPath>,
    /// At most this many notes (default 20).
    #[schemars(range(min = 1, max = 200))]
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for SearchFiles {
    type Args = Args;
    type Plan = Args;

    fn name(&self) -> &'static str {
        "search_files"
    }

    fn description(&self) -> &str {
        "Full-text search over the vault's notes (titles, aliases, headings, tags, text; any language). \
         Returns the best-matching notes with a score and a snippet in which matches are **bold**. All \
         words must match (if no note has all, any may); \"exact phrase\", a OR b, -exclude, #tag, \
         folder:Path, title:word also work, and typos are forgiven. Use a few distinctive words; narrow \
         with `folder`."
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Search
    }

    fn paths(&self, args: &Args) -> Vec<PathUse> {
        args.folder.iter().cloned().map(PathUse::read).collect()
    }

    fn search_query(&self, args: &Args) -> Option<String> {
        Some(args.query.clone())
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        let mut hits = indexed(ctx.index().await?, &args, limit)?;
        hits.retain(|h| ctx.is_visible(&h.path));
        hits.truncate(limit);

        let summary = format!("{} found for {:?}", plural(hits.len(), "note", "notes"), args.query);
        if hits.is_empty() {
            return Ok(ToolOutput::text(format!("No notes match {:?}.", args.query)).with_summary(summary));
        }
        let mut content = format!("{summary}:\n");
        for hit in &hits {
            content.push_str(&format!("- {} (score {:.2})", hit.path, hit.score));
            if !hit.path.ends_with(&format!("{}.md", hit.title)) {
                content.push_str(&format!(" \"{}\"", hit.title));
            }
            if let Some(heading) = &hit.heading {
                content.push_str(&format!(" › {heading}"));
            }
            if !hit.snippet.is_empty() {
                content.push_str(&format!(": {}", hit.snippet));
            }
            content.push('\n');
        }
        let items = hits.iter().map(|h| OutputItem { label: h.path.clone(), score: Some(h.score) }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
}

/// Hits from the full-text index, a few more than asked so ignored notes can be dropped.
fn indexed(index: &SharedIndex, args: &Args, limit: usize) -> Result<Vec<SearchHit>, ToolError> {
    let query = SearchQuery {
        text: args.query.clone(),
        limit: limit + 10,
        folder: args.folder.as_ref().map(|f| f.to_string()),
        ..SearchQuery::default()
    };
    Ok(index.read(|i| i.search(&query))?)
}
