//! `semantic_search`: notes by meaning — the vectors alone, or (the default) fused with the
//! full-text index — for questions phrased in other words than the notes use. `search_files`
//! stays the tool for exact words, phrases, tags and the query language.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::hits::{hits_output, Hit};
use super::note_io::plural;
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::embed::{HybridHit, HybridQuery, SearchMode};
use crate::index::hybrid_search;
use crate::vault::VaultPath;

/// Hits returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 10;

pub struct SemanticSearch;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// What you are looking for, in your own words.
    #[schemars(length(min = 1))]
    query: String,
    /// hybrid (default) or semantic.
    mode: Option<Signal>,
    /// Only notes below this folder.
    folder: Option<VaultPath>,
    /// At most this many notes (default 10).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<usize>,
    /// Also return notes linked to or from the top hits.
    #[serde(default)]
    expand_links: bool,
}

/// What finds the notes: meaning with matching words, or meaning alone.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Signal {
    Hybrid,
    Semantic,
}

#[async_trait(?Send)]
impl Tool for SemanticSearch {
    const NAME: &'static str = "semantic_search";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Search;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Find notes by meaning, even when they use other words than the query (\"how do I keep notes in step \
         across devices\" finds a note about sync). mode \"hybrid\" (default) combines meaning with matching \
         words; \"semantic\" uses meaning only. Each hit says which signal found it and, for meaning, the \
         section that matched best. Ask in a full sentence. For exact words, phrases, #tags or folder: filters \
         use search_files. expand_links adds notes one wikilink away from the best hits."
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
        let mode = match args.mode {
            Some(Signal::Semantic) => SearchMode::Semantic,
            Some(Signal::Hybrid) | None => SearchMode::Hybrid,
        };
        if !ctx.search.semantic().is_ready() {
            return Err(unavailable());
        }
        let shared = ctx.index().await?;
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        let query = HybridQuery {
            text: args.query.clone(),
            limit,
            mode,
            folder: args.folder.as_ref().map(|f| f.to_string()),
            expand_links: args.expand_links,
            ..HybridQuery::default()
        };
        let keep = |p: &str| ctx.is_visible(p);
        let hits = hybrid_search(shared, Some(ctx.vault), &query, &keep).await?;

        let summary = format!("{} found by meaning for {:?}", plural(hits.len(), "note", "notes"), args.query);
        let scored = |h: &HybridHit| match &h.found_by.linked_from {
            Some(from) => format!("score {:.3}, {} from {from}", h.score, h.found_by.label()),
            None => format!("score {:.3}, {}", h.score, h.found_by.label()),
        };
        let shown: Vec<Hit> = hits
            .iter()
            .map(|h| Hit::new(&h.path, &h.title, h.heading.as_deref(), &h.snippet, h.score, scored(h)))
            .collect();
        Ok(hits_output(summary, &args.query, &shown))
    }
}

fn unavailable() -> ToolError {
    ToolError::model(
        "semantic search is not available: the notes have not been embedded (the user can set up a local \
         model or an embeddings API in the plugin's settings). Use search_files instead.",
    )
}
