//! `search_files`: notes that contain the query's words, best first.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::{parse_args, OutputItem, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::vault::{walk_files, VaultPath};

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
    path: VaultPath,
    score: f32,
    snippet: String,
}

#[async_trait(?Send)]
impl Tool for SearchFiles {
    fn name(&self) -> &'static str {
        "search_files"
    }

    fn description(&self) -> &'static str {
        "Full-text search over the vault's notes. Returns the best-matching notes with a score and a \
         snippet. Use a few distinctive words; narrow with `folder`."
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
        let terms: Vec<String> =
            args.query.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect();
        if terms.is_empty() {
            return Err(ToolError::model("the query has no words to search for"));
        }
        let root = args.folder.clone().unwrap_or_else(VaultPath::root);
        let skip = |p: &VaultPath| ctx.rules.is_ignored(p) || p.name().is_some_and(|n| n.starts_with('.'));
        let files = walk_files(ctx.vault, &root, &skip).await?;
        let mut hits = Vec::new();
        for path in files.iter().filter(|p| p.extension() == Some("md") && !ctx.rules.is_ignored(p)) {
            ctx.cancel.check()?;
            let Ok(text) = ctx.vault.read(path).await else { continue };
            if let Some(hit) = score(path, &text, &terms) {
                hits.push(hit);
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        let total = hits.len();
        hits.truncate(args.limit.unwrap_or(DEFAULT_LIMIT));

        let summary = format!("{} match {:?}", plural(total, "note", "notes"), args.query);
        if hits.is_empty() {
            return Ok(ToolOutput::text(format!("No notes match {:?}.", args.query)).with_summary(summary));
        }
        let mut content = format!("{summary} (showing {}):\n", hits.len());
        for hit in &hits {
            content.push_str(&format!("- {} (score {:.2}): {}\n", hit.path, hit.score, hit.snippet));
        }
        let items = hits.iter().map(|h| OutputItem { label: h.path.to_string(), score: Some(h.score) }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
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
    Some(Hit { path: path.clone(), score, snippet })
}
