//! `vault-agent search --vault DIR [--limit N] [--json] [--mode fulltext|semantic|hybrid]
//! [--language en] QUERY`:
//! ranked vault-relative paths, or with `--json` an array of `{"path","title","score","snippet"}`
//! (plus `heading` and `foundBy` in the semantic modes). Uses the saved index, brought up to date
//! with the vault (built and saved when missing, stale or corrupt); the semantic modes also embed
//! the notes whose vectors are missing or stale (saved in `.obsidian-agent/index/vectors.bin`)
//! with the local model in `.obsidian-agent/models/` (`vault-agent model install`).

use vault_agent::embed::{Fusion, HybridQuery, SearchMode};
use vault_agent::index::{hybrid_search, SharedIndex};
use vault_agent::search::{SearchIndex, SearchQuery};
use vault_agent::vault::FsVault;

use crate::vault_index::{current_index, current_vectors};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
    /// At most this many results.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Print JSON: an array of {"path","title","score","snippet"}.
    #[arg(long)]
    json: bool,
    /// fulltext (BM25 and the query language), semantic (by meaning) or hybrid (both, fused).
    #[arg(long, default_value = "fulltext")]
    mode: SearchMode,
    /// The local embedding model for the semantic modes: static (fast), static+minilm (the static
    /// model's vectors, queries read by MiniLM: `model install --model minilm-queries`) or minilm.
    #[arg(long, default_value = "static")]
    embedder: String,
    /// How hybrid fuses the two rankings: covered (default: scores, each full-text hit weighed
    /// by how much of the query it holds), weighted, rrf, or dense-first.
    #[arg(long, default_value = "covered")]
    fusion: String,
    /// Add notes one wikilink away from the top hits (semantic modes).
    #[arg(long)]
    expand_links: bool,
    /// Your language (en, pt-BR, …): its notes come before the same notes in other languages
    /// when the query's own words do not say its language. Default: $LANG's, else English
    /// (Obsidian's default). `none` for no preference.
    #[arg(long)]
    language: Option<String>,
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
    let vault = args.vault.open()?;
    let index = current_index(&vault).await?;
    if args.mode != SearchMode::Fulltext {
        return semantic(&vault, index, &args).await;
    }
    let query = SearchQuery {
        text: args.query.join(" "),
        limit: args.limit,
        language: language(&args),
        ..SearchQuery::default()
    };
    let hits = index.search(&query)?;
    let out: Vec<JsonHit<'_>> =
        hits.iter().map(|h| JsonHit { path: &h.path, title: &h.title, score: h.score, snippet: &h.snippet }).collect();
    print_hits(args.json, &out, |h| h.path)
}

/// `--language`, else the locale's language (`pt_BR.UTF-8` → `pt-BR`), else `en`.
fn language(args: &Args) -> Option<String> {
    let chosen = args.language.clone().or_else(|| {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .map(|l| l.split(['.', '@']).next().unwrap_or_default().replace('_', "-"))
            .find(|l| !l.is_empty() && l != "C" && l != "POSIX")
    });
    match chosen.as_deref() {
        Some("none") => None,
        Some(l) => Some(l.to_string()),
        None => Some("en".into()),
    }
}

/// The hits as pretty JSON, or one vault-relative path per line.
fn print_hits<T: serde::Serialize>(json: bool, hits: &[T], path: impl Fn(&T) -> &str) -> vault_agent::Result<()> {
    if json {
        let text = serde_json::to_string_pretty(hits).map_err(|e| vault_agent::Error::Invalid(e.to_string()))?;
        outln!("{text}");
    } else {
        for hit in hits {
            outln!("{}", path(hit));
        }
    }
    Ok(())
}

async fn semantic(vault: &FsVault, index: SearchIndex, args: &Args) -> vault_agent::Result<()> {
    let shared = SharedIndex::new();
    shared.replace(index);
    current_vectors(vault, shared.semantic(), &args.embedder).await?;
    let fusion = match args.fusion.as_str() {
        "rrf" => Fusion::Rrf { k: 60.0 },
        "dense-first" | "dense_first" => Fusion::DenseFirst { bm25: 0.05 },
        "weighted" => Fusion::Weighted { dense: 0.7 },
        "covered" => Fusion::default(),
        other => {
            return Err(vault_agent::Error::Invalid(format!(
                "unknown fusion {other:?} (covered, weighted, rrf, dense-first)"
            )))
        }
    };
    let query = HybridQuery {
        text: args.query.join(" "),
        limit: args.limit,
        mode: args.mode,
        fusion,
        expand_links: args.expand_links,
        folder: None,
        language: language(args),
    };
    let hits = hybrid_search(&shared, Some(vault), &query, &|_| true).await?;
    print_hits(args.json, &hits, |h| &h.path)
}
