//! Hybrid ranking: the full-text index (BM25) and the vectors, fused, with an optional hop
//! through wikilinks. Every hit says which signal found it; a hit found by meaning alone gets a
//! snippet from the section its vector matched best ([`meaning_snippet`]).
//!
//! Fusions ([`Fusion`]), all over the top [`CANDIDATES`] of each list (the vectors' above the
//! model's [`relevance_floor`]):
//! - `rrf` — reciprocal rank fusion, `Σ 1/(k + rank)` with k = 60: the reference;
//! - `weighted` — each list's scores min–max normalised to [0, 1], then `w·dense + (1−w)·bm25`;
//! - `dense_first` — the cosine similarity plus a small share of the normalised BM25 score;
//! - `covered`, `confident`, `rank_covered`, `blend` — query-adaptive: full text's share of each
//!   hit shrinks with how little of the query the hit holds ([`SearchIndex::coverage`]), so a
//!   paraphrase's incidental word matches stop outranking the vectors.
//!
//! `BENCHMARKS.md` ("Semantic search") compares them all on paraphrases, questions (a tuning and
//! a held-out part) and known-item queries over the sample vault; [`Fusion::default`] says why
//! it is the default.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tantivy::tokenizer::TextAnalyzer;
use ts_rs::TS;

use super::chunk::{embed_chunks, MAX_CHUNK_CHARS};
use super::semantic::relevance_floor;
use super::vector_index::{VectorHit, VectorIndex};
use crate::search::{
    parse_note, query_terms, rank_in_language, tokens, vault_analyzer, LanguagePreference, SearchIndex, SearchQuery,
    Window,
};
use crate::vault::{is_note, Vault, VaultPath};
use crate::Result;

/// Hits taken from each signal before fusing.
pub const CANDIDATES: usize = 50;

/// Which signals a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
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

/// How two ranked lists become one. The `covered`, `confident` and `rank_covered` fusions also
/// read how much of the query each full-text hit holds ([`SearchIndex::coverage`]): a hit that
/// matched only the query's common words says little, whatever its rank.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fusion {
    Rrf {
        k: f32,
    },
    Weighted {
        dense: f32,
    },
    DenseFirst {
        bm25: f32,
    },
    /// `weighted`, each full-text hit's share multiplied by its coverage to the power `power`.
    Covered {
        dense: f32,
        power: f32,
    },
    /// `weighted`, the whole full-text list's share multiplied by the coverage of its first hit
    /// (how sure full text is about this query).
    Confident {
        dense: f32,
    },
    /// Weighted RRF: `dense / (k + rank)` for the vectors, `(1 − dense) · coverage / (k + rank)`
    /// for full text.
    RankCovered {
        k: f32,
        dense: f32,
    },
    /// The sum of `covered` (power 1) and `rank_covered` (scaled by k + 1, so that both run
    /// from 0 to 1): scores and ranks both count.
    Blend {
        k: f32,
        dense: f32,
    },
}

impl Fusion {
    /// Whether the fusion reads the full-text hits' coverage of the query.
    pub fn needs_coverage(&self) -> bool {
        matches!(
            self,
            Fusion::Covered { .. } | Fusion::Confident { .. } | Fusion::RankCovered { .. } | Fusion::Blend { .. }
        )
    }
}

impl Default for Fusion {
    /// `covered`, dense 0.5, power 1: of the fusions that beat the vectors alone by 0.02
    /// nDCG@10 on the paraphrases with the default (static) model, the one that keeps known-item
    /// queries (titles, typos, phrases) best, within 0.01 of the best on the tuning questions
    /// (BENCHMARKS.md, "Semantic search", lists every fusion tried).
    fn default() -> Self {
        Fusion::Covered { dense: 0.5, power: 1.0 }
    }
}

/// Which signals found a hit, and where each ranked it (1 = first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, rename_all = "camelCase")]
pub struct HybridQuery {
    pub text: String,
    pub limit: usize,
    pub mode: SearchMode,
    pub fusion: Fusion,
    /// Add notes one wikilink away from the top hits (scored below the hit they hang off).
    pub expand_links: bool,
    pub folder: Option<String>,
    /// The user's language, preferred when the query's words do not say theirs (see
    /// [`crate::search::LanguagePreference`]).
    pub language: Option<String>,
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
            language: None,
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
/// `coverage` holds each full-text hit's [`SearchIndex::coverage`] (read only by the fusions
/// that [`Fusion::needs_coverage`]; missing values count as 1).
pub fn fuse<'a>(bm25: &'a [(String, f32)], coverage: &[f32], dense: &'a [(String, f32)], fusion: Fusion) -> Vec<Fused> {
    let cover = |i: usize| coverage.get(i).copied().unwrap_or(1.0);
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
            let r = rank as f32 + 1.0;
            e.score += match (fusion, dense_list) {
                (Fusion::Rrf { k }, _) => 1.0 / (k + r),
                (Fusion::Weighted { dense } | Fusion::Covered { dense, .. } | Fusion::Confident { dense }, true) => {
                    dense * n
                }
                (Fusion::Weighted { dense }, false) => (1.0 - dense) * n,
                (Fusion::Covered { dense, power }, false) => (1.0 - dense) * n * cover(rank).powf(power),
                (Fusion::Confident { dense }, false) => (1.0 - dense) * n * cover(0),
                (Fusion::DenseFirst { .. }, true) => *score,
                (Fusion::DenseFirst { bm25 }, false) => bm25 * n,
                (Fusion::RankCovered { k, dense }, true) => dense / (k + r),
                (Fusion::RankCovered { k, dense }, false) => (1.0 - dense) * cover(rank) / (k + r),
                (Fusion::Blend { k, dense }, true) => dense * n + dense * (k + 1.0) / (k + r),
                (Fusion::Blend { k, dense }, false) => (1.0 - dense) * cover(rank) * (n + (k + 1.0) / (k + r)),
            };
        }
    };
    add(bm25, false);
    add(dense, true);
    let mut out: Vec<Fused> = by_path.into_values().collect();
    crate::sort::sort_by(&mut out, |a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    out
}

/// About this many characters of a section make the snippet of a hit found by meaning.
pub const MEANING_SNIPPET_CHARS: usize = 200;

/// Whether a hit still waits for a snippet of its meaning.
fn wants_meaning_snippet(hit: &HybridHit) -> bool {
    hit.snippet.is_empty() && hit.found_by.semantic.is_some()
}

/// Gives each hit found by meaning alone (no full-text snippet) a snippet from the text the
/// full-text index stored for the section its vector matched best (the hit's heading): the
/// sentence sharing most words with the query and what follows it ([`meaning_snippet`]). Read
/// in place — no note is read from the vault or parsed again, which in the plugin is a round
/// trip to the UI thread on every keystroke. Hits the index cannot serve (not indexed, or the
/// section has changed) keep an empty snippet for [`add_meaning_snippets`].
pub(crate) fn add_meaning_snippets_from_index(index: &SearchIndex, hits: &mut [HybridHit], query: &str) {
    let terms = query_terms(query);
    let mut analyzer = vault_analyzer();
    for hit in hits.iter_mut().filter(|h| wants_meaning_snippet(h)) {
        if let Some(text) = index.section_text(&hit.path, hit.heading.as_deref()) {
            hit.snippet = snippet_of_text(&mut analyzer, &text, &terms);
        }
    }
}

/// Gives each hit found by meaning alone (no full-text snippet) a snippet: from the section its
/// vector matched best (the hit's heading), the sentence sharing most words with the query and
/// what follows it ([`meaning_snippet`]), read from the note itself. A note that cannot be read
/// keeps an empty snippet.
pub(crate) async fn add_meaning_snippets(vault: &dyn Vault, hits: &mut [HybridHit], query: &str) {
    let terms = query_terms(query);
    let wanted: Vec<(usize, VaultPath)> = hits
        .iter()
        .enumerate()
        .filter(|(_, h)| wants_meaning_snippet(h))
        .filter_map(|(i, h)| VaultPath::parse(&h.path).ok().filter(is_note).map(|p| (i, p)))
        .collect();
    if wanted.is_empty() {
        return;
    }
    // One read for them all: in the plugin every read is a round trip to the UI thread, and
    // thirty of them one after another made a search by meaning several times slower.
    let paths: Vec<VaultPath> = wanted.iter().map(|(_, p)| p.clone()).collect();
    let reads = vault.read_batch(&paths).await;
    let mut analyzer = vault_analyzer();
    for ((i, _), read) in wanted.iter().zip(reads) {
        let Ok((text, _)) = read else { continue };
        let hit = &mut hits[*i];
        let chunks = embed_chunks(&parse_note(&hit.path, &text), MAX_CHUNK_CHARS);
        let in_section: Vec<&str> =
            chunks.iter().filter(|c| c.heading == hit.heading).map(|c| c.text.as_str()).collect();
        let candidates =
            if in_section.is_empty() { chunks.iter().map(|c| c.text.as_str()).collect() } else { in_section };
        let best = candidates.iter().max_by_key(|c| overlap(&mut analyzer, &terms, c)).copied();
        if let Some(chunk) = best {
            hit.snippet = snippet_of(&mut analyzer, chunk, &terms);
        }
    }
}

/// How many of `terms` a text holds.
fn overlap(analyzer: &mut TextAnalyzer, terms: &[String], text: &str) -> usize {
    let words = tokens(analyzer, text);
    terms.iter().filter(|t| words.contains(t)).count()
}

/// The snippet of an embedded chunk (its first line is the title and heading path, which the
/// hit shows apart): the sentence holding most of the query's `terms` (the first on a tie), then
/// the sentences after it, on one line, up to about [`MEANING_SNIPPET_CHARS`] characters, cut at a
/// word with `…` when longer. `…` in front says the section starts earlier.
pub fn meaning_snippet(chunk: &str, terms: &[String]) -> String {
    snippet_of(&mut vault_analyzer(), chunk, terms)
}

fn snippet_of(analyzer: &mut TextAnalyzer, chunk: &str, terms: &[String]) -> String {
    snippet_of_text(analyzer, chunk.split_once('\n').map_or("", |x| x.1), terms)
}

/// [`snippet_of`] for a section's text alone, without the title line in front.
fn snippet_of_text(analyzer: &mut TextAnalyzer, body: &str, terms: &[String]) -> String {
    let sentences = sentences(body);
    let Some(start) = (0..sentences.len()).rev().max_by_key(|&i| overlap(analyzer, terms, sentences[i])) else {
        return String::new();
    };
    let mut out = String::new();
    for sentence in &sentences[start..] {
        if !out.is_empty() && out.chars().count() + sentence.chars().count() > MEANING_SNIPPET_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(sentence);
    }
    if out.chars().count() > MEANING_SNIPPET_CHARS {
        let cut: String = out.chars().take(MEANING_SNIPPET_CHARS).collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |x| x.0).trim_end();
        out = format!("{cut}…");
    }
    if start > 0 {
        out.insert(0, '…');
    }
    out
}

/// `text`'s sentences, whitespace collapsed: cut after `.`, `!`, `?` (and their CJK forms)
/// followed by a space, and at line ends.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(i, c)) in chars.iter().enumerate() {
            let next_space = chars.get(k + 1).is_none_or(|&(_, n)| n.is_whitespace());
            if matches!(c, '。' | '！' | '？') || (matches!(c, '.' | '!' | '?') && next_space) {
                let end = i + c.len_utf8();
                out.push(line[start..end].trim());
                start = end;
            }
        }
        out.push(line[start..].trim());
    }
    out.retain(|s| s.chars().any(char::is_alphanumeric));
    out
}

/// The synchronous part of [`crate::index::hybrid_search`]: rank with whichever of the two
/// signals is given (`vectors` with the query's vector).
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
        // Snippets only for as many as are shown: a candidate further down that the fusion
        // lifts onto the page gets its own below.
        let request = SearchQuery {
            text: query.text.clone(),
            limit: CANDIDATES,
            snippet_limit: Some(query.limit),
            folder: query.folder.clone(),
            language: query.language.clone(),
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
        for hit in nearest_in_language(index, vector, query, &in_folder)? {
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
            fuse(&[], &[], &dense, Fusion::DenseFirst { bm25: 0.0 })
        }
        (SearchMode::Hybrid, false, false) => {
            let coverage = match fulltext.filter(|_| query.fusion.needs_coverage()) {
                Some(index) => index.coverage(&query.text, &bm25.iter().map(|b| b.0.as_str()).collect::<Vec<_>>()),
                None => Vec::new(),
            };
            fuse(&bm25, &coverage, &dense, query.fusion)
        }
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
        .map(|f| {
            // A hit full text found keeps its snippet (matches in bold) and that snippet's section;
            // one found by meaning alone names the section whose vector matched best, and
            // `hybrid_search` gives it a snippet from that section.
            let (heading, snippet) = match snippets.get(&f.path) {
                Some((_, h, s)) => (h.clone(), s.clone()),
                None => (headings.get(&f.path).cloned().flatten(), String::new()),
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
    hits.truncate(query.limit);
    if let Some(index) = fulltext {
        let lifted = |h: &HybridHit| h.found_by.fulltext.is_some_and(|rank| rank as usize > query.limit);
        for hit in hits.iter_mut().filter(|h| lifted(h)) {
            let one = SearchQuery {
                text: query.text.clone(),
                // A few: another note's path may start with this one's.
                limit: 5,
                path_prefix: Some(hit.path.clone()),
                language: query.language.clone(),
                ..SearchQuery::default()
            };
            if let Some(found) = index.search(&one)?.into_iter().find(|f| f.path == hit.path) {
                (hit.snippet, hit.heading) = (found.snippet, found.heading);
            }
        }
    }
    if query.expand_links {
        if let Some(index) = fulltext {
            expand_links(index, &mut hits, query.limit, &in_folder);
        }
    }
    Ok(hits)
}

/// The vectors' [`CANDIDATES`] nearest notes above the model's relevance floor (below it a note
/// is no closer to the query than to nonsense), the query's or the user's language preferred as
/// full text prefers it ([`rank_in_language`]). In a vault of translations the user's own note
/// can be the 60th nearest behind twenty translations of its neighbours.
fn nearest_in_language(
    index: &VectorIndex,
    vector: &[f32],
    query: &HybridQuery,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<VectorHit>> {
    let floor = relevance_floor(index.embedder());
    let preference = LanguagePreference::new(&query.text, query.language.as_deref());
    let width = preference.window(CANDIDATES);
    let mut nearest = index.nearest(vector, keep);
    let mut window = |width: usize| {
        let mut near = nearest.top_near(width);
        let last = near.last().map_or(f32::NEG_INFINITY, |n| n.score);
        near.retain(|n| n.score >= floor);
        // Under the floor a note is no hit, so a window that reaches it holds every hit.
        Window { complete: near.len() < width || last < floor, last, items: near }
    };
    let near = rank_in_language(
        window(width),
        width,
        CANDIDATES,
        |width| Ok(window(width)),
        |near| preference.factors(&near.iter().map(|n| n.path).collect::<Vec<_>>(), file_stem),
        |n| &mut n.score,
    )?;
    Ok(near.into_iter().take(CANDIDATES).map(|n| nearest.hit(n)).collect())
}

/// The file name without folder and `.md`.
fn stem(path: &str) -> String {
    file_stem(path).to_string()
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
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
    crate::sort::sort_by(hits, |a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    hits.truncate(limit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::Precision;

    #[test]
    fn the_users_own_note_is_found_by_meaning_behind_any_number_of_nearer_translations() {
        // Sixty translations nearer the query than the one English note: it is the 61st nearest.
        let mut index = VectorIndex::new("static-test", 2, Precision::F32);
        let unit = |cos: f32| vec![cos, (1.0 - cos * cos).sqrt()];
        for i in 0..60 {
            let folder = ["fr", "de", "ja"][i % 3];
            index
                .insert(&format!("{folder}/Canvas {i}.md"), "h", 0, vec![(None, unit(0.99 - i as f32 * 1e-4))])
                .unwrap();
        }
        index.insert("en/Canvas.md", "h", 0, vec![(None, unit(0.9))]).unwrap();
        let query = |language: Option<&str>| HybridQuery {
            text: "canvas".into(),
            mode: SearchMode::Semantic,
            language: language.map(Into::into),
            ..HybridQuery::default()
        };
        let found = |language| -> Vec<String> {
            hybrid_rank(None, Some((&index, &[1.0, 0.0])), &query(language), &|_| true)
                .unwrap()
                .into_iter()
                .map(|h| h.path)
                .collect()
        };
        assert_eq!(found(Some("en"))[0], "en/Canvas.md");
        assert_eq!(found(Some("en")).len(), 10);
        // Without a language to prefer, nearness alone decides.
        assert!(!found(None).contains(&"en/Canvas.md".to_string()));
        assert_eq!(found(Some("fr"))[0], "fr/Canvas 0.md");
    }

    fn list(items: &[(&str, f32)]) -> Vec<(String, f32)> {
        items.iter().map(|(p, s)| (p.to_string(), *s)).collect()
    }

    #[test]
    fn rrf_rewards_agreement_and_weighted_follows_the_scores() {
        let bm25 = list(&[("a", 12.0), ("b", 6.0), ("c", 5.0)]);
        let dense = list(&[("c", 0.8), ("d", 0.7), ("a", 0.2)]);
        let rrf = fuse(&bm25, &[], &dense, Fusion::Rrf { k: 60.0 });
        assert_eq!(rrf[0].path, "a");
        assert_eq!((rrf[0].bm25_rank, rrf[0].dense_rank), (Some(1), Some(3)));
        assert!((rrf[0].score - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-6);
        let weighted = fuse(&bm25, &[], &dense, Fusion::Weighted { dense: 0.7 });
        assert_eq!(weighted.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), vec!["c", "d", "a", "b"]);
        let dense_first = fuse(&bm25, &[], &dense, Fusion::DenseFirst { bm25: 0.05 });
        assert_eq!(dense_first[0].path, "c");
        assert_eq!(dense_first.last().map(|f| f.path.as_str()), Some("b"));
    }

    #[test]
    fn fusions_that_read_coverage_push_down_hits_holding_little_of_the_query() {
        let bm25 = list(&[("a", 12.0), ("b", 11.0), ("c", 2.0)]);
        let dense = list(&[("c", 0.8), ("b", 0.75), ("d", 0.7)]);
        // `a` leads full text on a common word only; `b` holds the whole query.
        let coverage = [0.1, 1.0, 1.0];
        let covered = fuse(&bm25, &coverage, &dense, Fusion::default());
        assert_eq!(covered[0].path, "b");
        assert!(covered.iter().position(|f| f.path == "a") > covered.iter().position(|f| f.path == "c"));
        // Without coverage the same fusion trusts full text's order.
        let plain = fuse(&bm25, &[], &dense, Fusion::default());
        assert_eq!(plain[0].path, "b");
        assert!(plain.iter().position(|f| f.path == "a") < plain.iter().position(|f| f.path == "c"));
        assert!(Fusion::default().needs_coverage() && !Fusion::Rrf { k: 60.0 }.needs_coverage());
    }

    #[test]
    fn a_meaning_snippet_starts_at_the_sentence_most_like_the_query() {
        let terms = crate::search::query_terms("how do I recover an overwritten page");
        let chunk = "File recovery › Restore a snapshot\nSnapshots are taken every five minutes. \
                     To recover a page, open the snapshot list and pick one. Then press Restore.";
        assert_eq!(
            meaning_snippet(chunk, &terms),
            "…To recover a page, open the snapshot list and pick one. Then press Restore."
        );
        // No shared word: the section's start. Long text is cut at a word.
        let long = format!("Title\n{}", "word ".repeat(100));
        let snippet = meaning_snippet(&long, &terms);
        assert!(snippet.ends_with('…') && !snippet.starts_with('…'), "{snippet}");
        assert!(snippet.chars().count() <= MEANING_SNIPPET_CHARS + 1);
        assert_eq!(meaning_snippet("Title only", &terms), "");
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
