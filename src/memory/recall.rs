//! Which memories a request gets: all of them while they fit the budget; past it, the ones
//! that share words with the request (BM25-scored, with the search index's analyser, so
//! "gardening" finds "garden") and then preferences, which bear on most requests.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use tantivy::tokenizer::TextAnalyzer;

use super::{MemoryEntry, MemoryKind};
use crate::search::{tokens, vault_analyzer};

/// The prompt's memory budget, in tokens (about 4,000 characters).
pub const MEMORY_TOKENS: usize = 1_000;

/// Words too common to tell memories apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "has", "have", "i", "in", "is", "it", "my",
    "me", "of", "on", "or", "our", "so", "that", "the", "their", "this", "to", "us", "was", "we", "what", "with",
    "you", "your",
];

/// From this many entries on, a word in more than half of them does not count as a match.
const COMMON_FROM: f64 = 8.0;

/// What an entry costs in the prompt, in tokens (about four characters each, plus the line).
fn cost(entry: &MemoryEntry) -> usize {
    render_line(entry).chars().count().div_ceil(4)
}

/// The entries for `request`, within `budget_tokens`: every entry when all fit (the ones
/// sharing words with the request first, then newest first). When they do not, only entries
/// that share words with the request (best match first) and then preferences (newest first),
/// as many as fit; an entry that does not fit is skipped for a smaller one.
pub fn recall<'a>(entries: &'a [MemoryEntry], request: &str, budget_tokens: usize) -> Vec<&'a MemoryEntry> {
    let scores = scores(entries, request);
    let mut order: Vec<usize> = (0..entries.len()).collect();
    // Best score first; ties (and no score) newest first.
    crate::sort::sort_by(&mut order, |&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
    let everything: usize = entries.iter().map(cost).sum();
    if everything <= budget_tokens {
        return order.into_iter().map(|i| &entries[i]).collect();
    }
    let mut left = budget_tokens;
    let mut chosen = Vec::new();
    for i in order {
        let entry = &entries[i];
        if scores[i] <= 0.0 && entry.kind != MemoryKind::Preference {
            continue;
        }
        let c = cost(entry);
        if c <= left {
            left -= c;
            chosen.push(entry);
        }
    }
    chosen
}

/// The chosen entries as the prompt's lines.
pub fn render(entries: &[&MemoryEntry]) -> String {
    entries.iter().map(|e| render_line(e)).collect::<Vec<_>>().join("\n")
}

fn render_line(entry: &MemoryEntry) -> String {
    match entry.kind {
        MemoryKind::Fact => format!("- {}", entry.text),
        MemoryKind::Preference => format!("- Preference: {}", entry.text),
    }
}

/// Each entry's BM25 score against the request's terms (0 for no shared term).
fn scores(entries: &[MemoryEntry], request: &str) -> Vec<f64> {
    let texts: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    let ranker = TermRanker::new(&texts);
    let query = ranker.terms(request);
    (0..texts.len()).map(|doc| ranker.score(&query, doc)).collect()
}

/// BM25 over a handful of short texts (memories, recipes' requests), with the search index's
/// analyser (so "gardening" finds "garden"); stop words, and from eight texts on words in more
/// than half of them, do not count.
pub(crate) struct TermRanker {
    analyzer: RefCell<TextAnalyzer>,
    docs: Vec<Vec<String>>,
    df: HashMap<String, f64>,
    average: f64,
}

impl TermRanker {
    pub(crate) fn new(texts: &[&str]) -> Self {
        let mut analyzer = vault_analyzer();
        let docs: Vec<Vec<String>> = texts.iter().map(|t| terms(&mut analyzer, t)).collect();
        let mut df: HashMap<String, f64> = HashMap::new();
        for doc in &docs {
            for term in doc.iter().collect::<HashSet<_>>() {
                *df.entry(term.clone()).or_default() += 1.0;
            }
        }
        let n = docs.len() as f64;
        let average = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0)).max(1.0);
        TermRanker { analyzer: RefCell::new(analyzer), docs, df, average }
    }

    /// `text`'s distinct terms, as the ranker counts them.
    pub(crate) fn terms(&self, text: &str) -> HashSet<String> {
        terms(&mut self.analyzer.borrow_mut(), text).into_iter().collect()
    }

    /// The terms of text `doc` (as given to [`TermRanker::new`]).
    pub(crate) fn doc_terms(&self, doc: usize) -> HashSet<String> {
        self.docs[doc].iter().cloned().collect()
    }

    /// Text `doc`'s BM25 score for `query` (0 when they share no term that counts).
    pub(crate) fn score(&self, query: &HashSet<String>, doc: usize) -> f64 {
        let doc = &self.docs[doc];
        let n = self.docs.len() as f64;
        let len = doc.len() as f64;
        let (k1, b) = (1.2, 0.75);
        query
            .iter()
            .map(|term| {
                let tf = doc.iter().filter(|t| *t == term).count() as f64;
                if tf == 0.0 {
                    return 0.0;
                }
                let d = self.df.get(term.as_str()).copied().unwrap_or(0.0);
                // A word in most texts tells none of them apart ("note", "user").
                if n >= COMMON_FROM && d * 2.0 > n {
                    return 0.0;
                }
                let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
                idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / self.average))
            })
            .sum()
    }
}

/// `text`'s terms through the index's analyser, less stop words.
fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    tokens(analyzer, text).into_iter().filter(|t| !STOP_WORDS.contains(&t.as_str())).collect()
}
