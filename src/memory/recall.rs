//! Which memories a request gets: all of them while they fit the budget; past it, the ones
//! that share words with the request (BM25-scored, with the search index's analyser, so
//! "gardening" finds "garden") and then preferences, which bear on most requests.

use std::collections::{HashMap, HashSet};

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
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(b.cmp(&a)));
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
    let mut analyzer = vault_analyzer();
    let mut terms = |text: &str| -> Vec<String> {
        tokens(&mut analyzer, text).into_iter().filter(|t| !STOP_WORDS.contains(&t.as_str())).collect()
    };
    let query: HashSet<String> = terms(request).into_iter().collect();
    let docs: Vec<Vec<String>> = entries.iter().map(|e| terms(&e.text)).collect();
    let n = docs.len() as f64;
    let mut df: HashMap<&str, f64> = HashMap::new();
    for doc in &docs {
        for term in doc.iter().map(String::as_str).collect::<HashSet<_>>() {
            *df.entry(term).or_default() += 1.0;
        }
    }
    let average = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0)).max(1.0);
    let (k1, b) = (1.2, 0.75);
    docs.iter()
        .map(|doc| {
            let len = doc.len() as f64;
            query
                .iter()
                .map(|term| {
                    let tf = doc.iter().filter(|t| *t == term).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let d = df.get(term.as_str()).copied().unwrap_or(0.0);
                    // A word in most memories tells none of them apart ("note", "user").
                    if n >= COMMON_FROM && d * 2.0 > n {
                        return 0.0;
                    }
                    let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
                    idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / average))
                })
                .sum()
        })
        .collect()
}
