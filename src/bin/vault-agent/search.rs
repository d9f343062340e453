//! `vault-agent search --vault DIR [--limit N] [--json] QUERY`: ranked vault-relative paths,
//! or with `--json` an array of `{"path","title","score","snippet"}`. Uses the saved index,
//! brought up to date with the vault (built and saved when missing, stale or corrupt).

use std::path::PathBuf;

use vault_agent::search::SearchQuery;
use vault_agent::vault::FsVault;

use crate::vault_index::current_index;

#[derive(clap::Args)]
pub struct Args {
    /// The vault folder.
    #[arg(long)]
    vault: PathBuf,
    /// At most this many results.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Print JSON: an array of {"path","title","score","snippet"}.
    #[arg(long)]
    json: bool,
    /// The query: words, "phrases", OR, -exclude, #tag, folder:…, path:…
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
}

#[derive(serde::Serialize)]
struct JsonHit<'a> {
    path: &'a str,
    title: &'a str,
    score: f32,
    snippet: &'a str,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = FsVault::open(&args.vault)?;
    let index = current_index(&vault).await?;
    let query = SearchQuery { text: args.query.join(" "), limit: args.limit, ..SearchQuery::default() };
    let hits = index.search(&query)?;
    if args.json {
        let out: Vec<JsonHit<'_>> = hits
            .iter()
            .map(|h| JsonHit { path: &h.path, title: &h.title, score: h.score, snippet: &h.snippet })
            .collect();
        let text = serde_json::to_string_pretty(&out).map_err(|e| vault_agent::Error::Invalid(e.to_string()))?;
        println!("{text}");
    } else {
        for hit in &hits {
            println!("{}", hit.path);
        }
    }
    Ok(())
}
