//! Hybrid ranking: the full-text index (BM25) and the vectors, fused, with an optional hop
//! through wikilinks. Every hit says which signal found it.
//!
//! Fusions ([`Fusion`]), all over the top [`CANDIDATES`] of each list:
//! - `rrf` — reciprocal rank fusion, `Σ 1/(k + rank)` with k = 60: the reference;
//! - `weighted` — each list's scores min–max normalised to [0, 1], then `w·dense + (1−w)·bm25`;
//! - `dense_first` — the cosine similarity plus a small share of the normalised BM25 score, so
//!   BM25 only reorders notes the vectors find about equally close.
//!
//! `BENCHMARKS.md` ("Semantic search") compares them on paraphrases and questions over the sample
//! vault; [`Fusion::default`] (weighted, w = 0.7) is the one that beat each signal alone over all
//! of them with the default (static) model. On pure paraphrases nothing beats the vectors alone,
//! which is what semantic mode is for.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::vector_index::VectorIndex;
use crate::search::{SearchIndex, SearchQuery};
use crate::Result;

/// Hits taken from each signal before fusing.
pub const CANDIDATES: usize = 50;

/// Which signals a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// BM25 over words (the query language applies).
    Fulltext,
    /// Vectors only.
    Semantic,
    /// Both, fused.
    #[default]
    Hybrid,
}

impl std::str::FromStr for SearchMode {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "fulltext" | "full-text" | "text" => Ok(SearchMode::Fulltext),
            "semantic" | "vector" => Ok(SearchMode::Semantic),
            "hybrid" => Ok(SearchMode::Hybrid),
            other => {
                Err(crate::Error::Invalid(format!("unknown search mode {other:?} (fulltext, semantic or hybrid)")))
            }
        }
    }
}

/// How two ranked lists become one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fusion {
    Rrf { k: f32 },
    Weighted { dense: f32 },
    DenseFirst { bm25: f32 },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Weighted { dense: 0.7 }
    }
}

/// Which signals found a hit, and where each ranked it (1 = first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Signals {
    pub fulltext: Option<u32>,
    pub semantic: Option<u32>,
    /// Reached through a wikilink from (or to) this hit.
    pub linked_from: Option<String>,
}

impl Signals {
    /// `fulltext`, `semantic`, `both` or `link`.
    pub fn label(&self) -> &'static str {
        match (self.fulltext, self.semantic) {
            (Some(_), Some(_)) => "both",
            (Some(_), None) => "fulltext",
            (None, Some(_)) => "semantic",
            (None, None) => "link",
        }
    }
}

/// One fused result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HybridHit {
    pub path: String,
    pub title: String,
    pub score: f32,
    pub heading: Option<String>,
    pub snippet: String,
    pub found_by: Signals,
}

/// A hybrid search request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HybridQuery {
    pub text: String,
    pub limit: usize,
    pub mode: SearchMode,
    pub fusion: Fusion,
    /// Add notes one wikilink away from the top hits (scored below the hit they hang off).
    pub expand_links: bool,
    pub folder: Option<String>,
}

impl Default for HybridQuery {
    fn default() -> Self {
        HybridQuery {
            text: String::new(),
            limit: 10,
            mode: SearchMode::Hybrid,
            fusion: Fusion::default(),
            expand_links: false,
            folder: None,
        }
    }
}

/// A fused entry: path, score, and each list's rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Fused {
    pub path: String,
    pub score: f32,
    pub bm25_rank: Option<u32>,
    pub dense_rank: Option<u32>,
}

/// Fuses two ranked lists of `(path, score)`, best first in each. Ties go to the path.
pub fn fuse<'a>(bm25: &'a [(String, f32)], dense: &'a [(String, f32)], fusion: Fusion) -> Vec<Fused> {
    let mut by_path: HashMap<&str, Fused> = HashMap::new();
    let normalised = |list: &[(String, f32)]| -> Vec<f32> {
        let max = list.iter().map(|x| x.1).fold(f32::NEG_INFINITY, f32::max);
        let min = list.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
        list.iter().map(|x| if max > min { (x.1 - min) / (max - min) } else { 1.0 }).collect()
    };
    // Each list adds its share to the hits it holds, and says at which rank it holds them.
    let mut add = |list: &'a [(String, f32)], dense_list: bool| {
        for (rank, ((path, score), n)) in list.iter().zip(normalised(list)).enumerate() {
            let e = by_path.entry(path).or_insert_with(|| Fused {
                path: path.clone(),
                score: 0.0,
                bm25_rank: None,
                dense_rank: None,
            });
            let rank_field = if dense_list { &mut e.dense_rank } else { &mut e.bm25_rank };
            *rank_field = Some(rank as u32 + 1);
            e.score += match (fusion, dense_list) {
                (Fusion::Rrf { k }, _) => 1.0 / (k + rank as f32 + 1.0),
                (Fusion::Weighted { dense }, true) => dense * n,
                (Fusion::Weighted { dense }, false) => (1.0 - dense) * n,
                (Fusion::DenseFirst { .. }, true) => *score,
                (Fusion::DenseFirst { bm25 }, false) => bm25 * n,
            };
        }
    };
    add(bm25, false);
    add(dense, true);
    let mut out: Vec<Fused> = by_path.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    out
}

/// The synchronous part of [`crate::index::hybrid_search`]: rank with whichever of the two signals is given
/// (`vectors` with the query's vector).
pub fn hybrid_rank(
    fulltext: Option<&SearchIndex>,
    vectors: Option<(&VectorIndex, &[f32])>,
    query: &HybridQuery,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<HybridHit>> {
    let folder = query.folder.as_deref().map(|f| format!("{}/", f.trim_matches('/'))).filter(|f| f != "/");
    let in_folder = |p: &str| folder.as_deref().is_none_or(|f| p.starts_with(f)) && keep(p);
    let mut bm25 = Vec::new();
    let mut snippets: HashMap<String, (String, Option<String>, String)> = HashMap::new();
    if let (true, Some(index)) = (query.mode != SearchMode::Semantic, fulltext) {
        let request = SearchQuery {
            text: query.text.clone(),
            limit: CANDIDATES,
            folder: query.folder.clone(),
            ..SearchQuery::default()
        };
        for hit in index.search(&request)?.into_iter().filter(|h| keep(&h.path)) {
            bm25.push((hit.path.clone(), hit.score));
            snippets.insert(hit.path, (hit.title, hit.heading, hit.snippet));
        }
    }
    let mut dense = Vec::new();
    let mut headings: HashMap<String, Option<String>> = HashMap::new();
    if let (true, Some((index, vector))) = (query.mode != SearchMode::Fulltext, vectors) {
        for hit in index.search(vector, CANDIDATES, &in_folder) {
            dense.push((hit.path.clone(), hit.score));
            headings.insert(hit.path, hit.heading);
        }
    }
    let fused = match (query.mode, bm25.is_empty(), dense.is_empty()) {
        // One signal alone keeps its own scores.
        (SearchMode::Fulltext, ..) | (SearchMode::Hybrid, false, true) => bm25
            .iter()
            .enumerate()
            .map(|(i, (p, s))| Fused { path: p.clone(), score: *s, bm25_rank: Some(i as u32 + 1), dense_rank: None })
            .collect(),
        (SearchMode::Semantic, ..) | (SearchMode::Hybrid, true, _) => {
            fuse(&[], &dense, Fusion::DenseFirst { bm25: 0.0 })
        }
        (SearchMode::Hybrid, false, false) => fuse(&bm25, &dense, query.fusion),
    };
    let title_of = |path: &str| {
        snippets
            .get(path)
            .map(|s| s.0.clone())
            .or_else(|| fulltext.and_then(|i| i.note(path)).map(|e| e.title.clone()))
            .unwrap_or_else(|| stem(path))
    };
    let mut hits: Vec<HybridHit> = fused
        .into_iter()
        .take(query.limit)
        .map(|f| {
            // The snippet is the full-text one (matches in bold); a hit found by meaning names
            // the section whose vector matched best.
            let (heading, snippet) = match (snippets.get(&f.path), f.dense_rank) {
                (Some((_, h, s)), None) => (h.clone(), s.clone()),
                (Some((_, _, s)), Some(_)) => (headings.get(&f.path).cloned().flatten(), s.clone()),
                (None, _) => (headings.get(&f.path).cloned().flatten(), String::new()),
            };
            HybridHit {
                title: title_of(&f.path),
                score: f.score,
                heading,
                snippet,
                found_by: Signals { fulltext: f.bm25_rank, semantic: f.dense_rank, linked_from: None },
                path: f.path,
            }
        })
        .collect();
    if query.expand_links {
        if let Some(index) = fulltext {
            expand_links(index, &mut hits, query.limit, &in_folder);
        }
    }
    Ok(hits)
}

/// The file name without folder and `.md`.
fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

/// Adds notes linked from or to the top hits (one hop), each scored at half the hit it hangs
/// off, keeping the best `limit`.
fn expand_links(index: &SearchIndex, hits: &mut Vec<HybridHit>, limit: usize, keep: &dyn Fn(&str) -> bool) {
    let seen: std::collections::HashSet<String> = hits.iter().map(|h| h.path.clone()).collect();
    let mut added: HashMap<String, HybridHit> = HashMap::new();
    for hit in hits.iter().take(3) {
        let mut neighbours: Vec<String> = index
            .note(&hit.path)
            .map(|e| e.links.iter().filter_map(|l| index.resolve_link(l, &hit.path)).collect())
            .unwrap_or_default();
        neighbours.extend(index.backlinks(&hit.path).unwrap_or_default());
        for path in neighbours.into_iter().filter(|p| !seen.contains(p) && keep(p)) {
            let score = hit.score * 0.5;
            if added.get(&path).is_none_or(|h| h.score < score) {
                let title = index.note(&path).map(|e| e.title.clone()).unwrap_or_default();
                let found_by = Signals { linked_from: Some(hit.path.clone()), ..Signals::default() };
                added.insert(
                    path.clone(),
                    HybridHit { path, title, score, heading: None, snippet: String::new(), found_by },
                );
            }
        }
    }
    hits.extend(added.into_values());
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    hits.truncate(limit);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[(&str, f32)]) -> Vec<(String, f32)> {
        items.iter().map(|(p, s)| (p.to_string(), *s)).collect()
    }

    #[test]
    fn rrf_rewards_agreement_and_weighted_follows_the_scores() {
        let bm25 = list(&[("a", 12.0), ("b", 6.0), ("c", 5.0)]);
        let dense = list(&[("c", 0.8), ("d", 0.7), ("a", 0.2)]);
        let rrf = fuse(&bm25, &dense, Fusion::Rrf { k: 60.0 });
        assert_eq!(rrf[0].path, "a");
        assert_eq!((rrf[0].bm25_rank, rrf[0].dense_rank), (Some(1), Some(3)));
        assert!((rrf[0].score - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-6);
        let weighted = fuse(&bm25, &dense, Fusion::Weighted { dense: 0.7 });
        assert_eq!(weighted.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), vec!["c", "d", "a", "b"]);
        let dense_first = fuse(&bm25, &dense, Fusion::DenseFirst { bm25: 0.05 });
        assert_eq!(dense_first[0].path, "c");
        assert_eq!(dense_first.last().map(|f| f.path.as_str()), Some("b"));
    }

    #[test]
    fn signals_name_who_found_a_hit() {
        let s = |f: Option<u32>, d: Option<u32>| Signals { fulltext: f, semantic: d, linked_from: None };
        assert_eq!(s(Some(1), Some(2)).label(), "both");
        assert_eq!(s(None, Some(2)).label(), "semantic");
        assert_eq!(s(Some(1), None).label(), "fulltext");
        assert_eq!(s(None, None).label(), "link");
        assert_eq!("hybrid".parse::<SearchMode>().unwrap(), SearchMode::Hybrid);
        assert!("fuzzy".parse::<SearchMode>().is_err());
    }
}
