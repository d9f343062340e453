//! `search_files`: notes that contain the query's words, best first.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::hits::{hits_output, Hit};
use super::note_io::plural;
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
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
    const NAME: &'static str = "search_files";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Search;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Full-text search over the vault's notes (titles, aliases, headings, tags, text; any language). \
         Returns the best-matching notes with a score and a snippet in which matches are **bold**. All \
         words must match (if no note has all, any may); \"exact phrase\", a OR b, -exclude, #tag, \
         folder:Path, title:word also work, and typos are forgiven. Use a few distinctive words; narrow \
         with `folder`."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        args.folder.iter().cloned().collect()
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
        let scored = |h: &SearchHit| format!("score {:.2}", h.score);
        let shown: Vec<Hit> = hits
            .iter()
            .map(|h| Hit::new(&h.path, &h.title, h.heading.as_deref(), &h.snippet, h.score, scored(h)))
            .collect();
        Ok(hits_output(summary, &args.query, &shown))
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
