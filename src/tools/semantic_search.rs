//! `semantic_search`: notes by meaning — the vectors alone, or (the default) fused with the
//! full-text index — for questions phrased in other words than the notes use. `search_files`
//! stays the tool for exact words, phrases, tags and the query language.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::{parse_args, OutputItem, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::embed::{HybridQuery, SearchMode};
use crate::index::hybrid_search;
use crate::vault::VaultPath;

/// Hits returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 10;

pub struct SemanticSearch;

#[derive(Deserialize)]
struct Args {
    query: String,
    #[serde(default)]
    mode: Option<String>,
    folder: Option<VaultPath>,
    limit: Option<usize>,
    #[serde(default)]
    expand_links: bool,
}

#[async_trait(?Send)]
impl Tool for SemanticSearch {
    fn name(&self) -> &'static str {
        "semantic_search"
    }

    fn description(&self) -> &str {
        "Find notes by meaning, even when they use other words than the query (\"how do I keep notes in step \
         across devices\" finds a note about sync). mode \"hybrid\" (default) combines meaning with matching \
         words; \"semantic\" uses meaning only. Each hit says which signal found it and, for meaning, the \
         section that matched best. Ask in a full sentence. For exact words, phrases, #tags or folder: filters \
         use search_files. expand_links adds notes one wikilink away from the best hits."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "What you are looking for, in your own words."},
                "mode": {"type": "string", "enum": ["hybrid", "semantic"], "description": "hybrid (default) or semantic."},
                "folder": {"type": "string", "description": "Only notes below this folder."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "At most this many notes (default 10)."},
                "expand_links": {"type": "boolean", "description": "Also return notes linked to or from the top hits."}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Search
    }

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        Ok(parse_args::<Args>(self.name(), args)?.folder.into_iter().map(PathUse::read).collect())
    }

    fn search_query(&self, args: &Value) -> Option<String> {
        args.get("query").and_then(Value::as_str).map(str::to_string)
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        let mode = match args.mode.as_deref() {
            Some("semantic") => SearchMode::Semantic,
            _ => SearchMode::Hybrid,
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
        if hits.is_empty() {
            return Ok(ToolOutput::text(format!("No notes match {:?}.", args.query)).with_summary(summary));
        }
        let mut content = format!("{summary}:\n");
        for hit in &hits {
            content.push_str(&format!("- {} (score {:.3}, {}", hit.path, hit.score, hit.found_by.label()));
            if let Some(from) = &hit.found_by.linked_from {
                content.push_str(&format!(" from {from}"));
            }
            content.push(')');
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

fn unavailable() -> ToolError {
    ToolError::model(
        "semantic search is not available: the notes have not been embedded (the user can set up a local \
         model or an embeddings API in the plugin's settings). Use search_files instead.",
    )
}
