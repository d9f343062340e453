//! The vault's saved index, as the commands that search use it.

use std::io::Write;

use vault_agent::embed::{load_minilm, load_static_model, load_static_with_minilm_queries, SemanticIndex};
use vault_agent::host::SystemClock;
use vault_agent::search::{LoadOutcome, SearchIndex, ThreadParts};
use vault_agent::vault::FsVault;

/// The saved index brought up to date with the vault (built when missing, stale or corrupt),
/// saved again when anything changed. Saving is a convenience for the next run: a read-only
/// vault still gets its index.
pub async fn current_index(vault: &FsVault) -> vault_agent::Result<SearchIndex> {
    let (mut index, outcome) =
        SearchIndex::load_or_build_in_parts(vault, &SystemClock, &mut |_| {}, Some(&ThreadParts)).await?;
    index.sync(vault, &SystemClock, &mut |_| {}).await?;
    if let LoadOutcome::Built { reason } = &outcome {
        eprintln!("vault-agent: indexed the vault ({reason})");
    }
    // Built, or changed by the sync — notes only re-dated too: saved, the next run does not
    // read them again.
    if index.has_unsaved_changes() {
        if let Err(e) = index.persist(vault).await {
            eprintln!("vault-agent: could not save the index: {e}");
        }
    }
    Ok(index)
}

/// The vault's vectors for the local model `embedder` (`static`, `static+minilm` — the static
/// model's vectors, queries read by MiniLM — or `minilm`), loaded from the
/// saved file and brought up to date (new and changed notes embedded, with a progress line on
/// stderr), saved again.
pub async fn current_vectors(vault: &FsVault, semantic: &SemanticIndex, embedder: &str) -> vault_agent::Result<()> {
    let model = match embedder {
        "static" => load_static_model(vault).await?,
        "static+minilm" => load_static_with_minilm_queries(vault).await?,
        "minilm" => load_minilm(vault, 256).await?,
        other => {
            return Err(vault_agent::Error::Invalid(format!(
                "unknown embedder {other:?} (static, static+minilm or minilm)"
            )))
        }
    };
    semantic.set_embedder(model);
    semantic.load(vault).await?;
    let start = std::time::Instant::now();
    let report = semantic
        .embed_vault(vault, &SystemClock, &mut |p| {
            eprint!("\rembedding {}/{}", p.done, p.total);
            let _ = std::io::stderr().flush();
        })
        .await?;
    eprint!("\r");
    // A small change is left unsaved by the run (the plugin's next start embeds it again); each
    // command here is such a start, so save it now.
    semantic.save_changes(vault).await?;
    if report.chunks > 0 || report.removed > 0 {
        eprintln!(
            "vault-agent: embedded {} notes ({} chunks) in {:.1} s",
            report.embedded_notes,
            report.chunks,
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
