//! Searching the vault's shared index by mode: full text, vectors, or both fused.

use super::SharedIndex;
use crate::embed::{
    add_meaning_snippets, add_meaning_snippets_from_index, hybrid_rank, HybridHit, HybridQuery, SearchMode,
};
use crate::search::SearchIndex;
use crate::vault::Vault;
use crate::Result;

/// Searches with `query.mode` over the vault's shared index: full text, vectors or both. A
/// missing signal is left out (hybrid before the notes are embedded is full text alone, and
/// before the full-text index is built, vectors alone); semantic mode without vectors fails.
/// `keep` filters paths (ignored notes). The query is embedded first, then both indexes are
/// read without an await in between, and hits found by meaning alone get their snippet from the
/// text the full-text index stored; those it cannot serve get one read from `vault`.
pub async fn hybrid_search(
    shared: &SharedIndex,
    vault: Option<&dyn Vault>,
    query: &HybridQuery,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<HybridHit>> {
    let semantic = shared.semantic();
    let vector = match query.mode {
        SearchMode::Fulltext => None,
        SearchMode::Semantic => Some(semantic.query_vector(vault, &query.text).await?),
        SearchMode::Hybrid if semantic.is_ready() => Some(semantic.query_vector(vault, &query.text).await?),
        SearchMode::Hybrid => None,
    };
    let rank = |fulltext: Option<&SearchIndex>| match &vector {
        Some(v) => semantic.read(|vectors| hybrid_rank(fulltext, Some((vectors, v)), query, keep)),
        None => hybrid_rank(fulltext, None, query, keep),
    };
    let mut hits = if shared.is_ready() {
        shared.read(|index| {
            let mut hits = rank(Some(index))?;
            add_meaning_snippets_from_index(index, &mut hits, &query.text);
            Ok(hits)
        })
    } else if query.mode == SearchMode::Fulltext {
        Err(crate::Error::Invalid("the search index is not built yet".into()))
    } else {
        rank(None)
    }?;
    if let Some(vault) = vault {
        add_meaning_snippets(vault, &mut hits, &query.text).await;
    }
    Ok(hits)
}
