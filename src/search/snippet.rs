//! Snippets: the best passage of a hit's text, with the matched words marked `**…**`.

use std::collections::BTreeMap;

use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use super::schema::{section_at, Fields};
use super::shard::search_error;
use super::tokenizer::vault_analyzer;
use crate::Result;

/// Snippet length, in characters, before trimming to whole words.
const SNIPPET_CHARS: usize = 200;

/// Makes snippets for one query's hits.
pub(crate) struct Snippets {
    generator: SnippetGenerator,
    fields: Fields,
}

impl Snippets {
    /// Highlights every body term of `query` (its typo and prefix expansions included), rarer
    /// terms weighing more when choosing the passage.
    pub(crate) fn new(fields: &Fields, query: &dyn Query, searchers: &[&Searcher]) -> Snippets {
        let mut terms: BTreeMap<String, f32> = BTreeMap::new();
        query.query_terms(&mut |term, _| {
            if term.field() == fields.body {
                if let Some(text) = term.value().as_str() {
                    let df: u64 = searchers.iter().map(|s| s.doc_freq(term).unwrap_or(0)).sum();
                    if df > 0 {
                        terms.insert(text.to_string(), 1.0 / (1.0 + df as f32));
                    }
                }
            }
        });
        let generator = SnippetGenerator::new(terms, vault_analyzer(), fields.body, SNIPPET_CHARS);
        Snippets { generator, fields: *fields }
    }

    /// The snippet for a document and the heading of the section it comes from.
    pub(crate) fn for_doc(&self, searcher: &Searcher, addr: DocAddress) -> Result<(String, Option<String>)> {
        let doc: TantivyDocument = searcher.doc(addr).map_err(search_error)?;
        let body = doc.get_first(self.fields.body).and_then(|v| v.as_str()).unwrap_or_default();
        let sections = doc.get_first(self.fields.sections).and_then(|v| v.as_str()).unwrap_or_default();
        let snippet = self.generator.snippet(body);
        if snippet.fragment().is_empty() {
            // Matched by title, alias or tag only: the note's opening.
            let end = char_boundary(body, SNIPPET_CHARS);
            let opening = one_line(&body[..end]);
            return Ok((opening, None));
        }
        let fragment = snippet.fragment();
        // Overlapping matches (CJK bigrams `录音` + `音机`) become one highlight.
        let mut ranges: Vec<std::ops::Range<usize>> =
            snippet.highlighted().iter().filter(|r| r.end <= fragment.len()).cloned().collect();
        ranges.sort_by_key(|r| r.start);
        let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        let mut marked = String::with_capacity(fragment.len() + 16);
        let mut at = 0;
        for range in merged {
            marked.push_str(&fragment[at..range.start]);
            marked.push_str("**");
            marked.push_str(&fragment[range.start..range.end]);
            marked.push_str("**");
            at = range.end;
        }
        marked.push_str(&fragment[at..]);
        let heading = section_at(sections, snippet.fragment_range().start);
        Ok((one_line(&marked), heading))
    }
}

/// The largest char boundary at or before `max` bytes.
fn char_boundary(text: &str, max: usize) -> usize {
    if text.len() <= max {
        return text.len();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// Collapses runs of whitespace (newlines included) into single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
