//! `search_files`: notes that contain the query's words, best first.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::note_scan::visible_notes;
use super::{parse_args, OutputItem, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::{SearchQuery, SharedIndex};
use crate::vault::VaultPath;

/// Hits returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 20;

pub struct SearchFiles;

#[derive(Deserialize)]
struct Args {
    query: String,
    folder: Option<VaultPath>,
    limit: Option<usize>,
}

struct Hit {
    path: String,
    title: Option<String>,
    score: f32,
    heading: Option<String>,
    snippet: String,
}

#[async_trait(?Send)]
impl Tool for SearchFiles {
    fn name(&self) -> &'static str {
        "search_files"
    }

    fn description(&self) -> &'static str {
        "Full-text search over the vault's notes (titles, aliases, headings, tags, text; any language). \
         Returns the best-matching notes with a score and a snippet in which matches are **bold**. All \
         words must match (if no note has all, any may); \"exact phrase\", a OR b, -exclude, #tag, \
         folder:Path, title:word also work, and typos are forgiven. Use a few distinctive words; narrow \
         with `folder`."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "description": "Words to search for."},
                "folder": {"type": "string", "description": "Only notes below this folder."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "At most this many notes (default 20)."}
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
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        let mut hits = match ctx.search.filter(|s| s.is_ready()) {
            Some(index) => indexed(index, &args, limit)?,
            None => scanned(ctx, &args).await?,
        };
        hits.retain(|h| VaultPath::parse(&h.path).is_ok_and(|p| !ctx.rules.is_ignored(&p)));
        hits.truncate(limit);

        let summary = format!("{} found for {:?}", plural(hits.len(), "note", "notes"), args.query);
        if hits.is_empty() {
            return Ok(ToolOutput::text(format!("No notes match {:?}.", args.query)).with_summary(summary));
        }
        let mut content = format!("{summary}:\n");
        for hit in &hits {
            content.push_str(&format!("- {} (score {:.2})", hit.path, hit.score));
            if let Some(title) = hit.title.as_ref().filter(|t| !hit.path.ends_with(&format!("{t}.md"))) {
                content.push_str(&format!(" \"{title}\""));
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
fn indexed(index: &SharedIndex, args: &Args, limit: usize) -> Result<Vec<Hit>, ToolError> {
    let query = SearchQuery {
        text: args.query.clone(),
        limit: limit + 10,
        folder: args.folder.as_ref().map(|f| f.to_string()),
        ..SearchQuery::default()
    };
    let hits = index.read(|i| i.search(&query))?;
    Ok(hits
        .into_iter()
        .map(|h| Hit { path: h.path, title: Some(h.title), score: h.score, heading: h.heading, snippet: h.snippet })
        .collect())
}

/// Without an index: notes holding every word of the query, by a plain scan.
async fn scanned(ctx: &ToolContext<'_>, args: &Args) -> Result<Vec<Hit>, ToolError> {
    let terms: Vec<String> =
        args.query.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect();
    if terms.is_empty() {
        return Err(ToolError::model("the query has no words to search for"));
    }
    let root = args.folder.clone().unwrap_or_else(VaultPath::root);
    let mut hits = Vec::new();
    for path in visible_notes(ctx).await?.iter().filter(|p| p.starts_with(&root)) {
        ctx.cancel.check()?;
        let Ok(text) = ctx.vault.read(path).await else { continue };
        if let Some(hit) = score(path, &text, &terms) {
            hits.push(hit);
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    Ok(hits)
}

/// A note matches when it holds every term; its score counts occurrences, with matches in the
/// file name counting ten times.
fn score(path: &VaultPath, text: &str, terms: &[String]) -> Option<Hit> {
    let lower = text.to_lowercase();
    let name = path.stem().unwrap_or("").to_lowercase();
    let mut score = 0f32;
    for term in terms {
        let in_body = lower.matches(term.as_str()).count();
        let in_name = name.matches(term.as_str()).count();
        if in_body + in_name == 0 {
            return None;
        }
        score += (1.0 + in_body as f32).ln() + 10.0 * in_name as f32;
    }
    let first = &terms[0];
    let snippet = text
        .lines()
        .find(|line| line.to_lowercase().contains(first.as_str()))
        .map(|line| line.trim().chars().take(160).collect())
        .unwrap_or_default();
    Some(Hit { path: path.to_string(), title: None, score, heading: None, snippet })
}
