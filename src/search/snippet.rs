//! Snippets: the best passage of a hit's text, with the matched words marked `**…**`.

use std::collections::BTreeMap;

use memchr::memmem::Finder;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use super::schema::{section_at, Fields};
use super::shard::search_error;
use super::tokenizer::{snippet_analyzer, stem_surface};
use crate::Result;

/// Snippet length, in characters, before trimming to whole words.
const SNIPPET_CHARS: usize = 200;

/// Makes snippets for one query's hits.
pub(crate) struct Snippets {
    generator: SnippetGenerator,
    fields: Fields,
    /// The highlighted terms' finders and weights (the generator keeps its terms private).
    words: Vec<(Finder<'static>, f32)>,
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
        let words = finders(&terms);
        let analyzer = snippet_analyzer(terms.keys().map(String::as_str));
        let generator = SnippetGenerator::new(terms, analyzer, fields.body, SNIPPET_CHARS);
        Snippets { generator, fields: *fields, words }
    }

    /// The snippet for a document and the heading of the section it comes from.
    pub(crate) fn for_doc(&self, searcher: &Searcher, addr: DocAddress) -> Result<(String, Option<String>)> {
        let doc: TantivyDocument = searcher.doc(addr).map_err(search_error)?;
        let body = doc.get_first(self.fields.body).and_then(|v| v.as_str()).unwrap_or_default();
        let sections = doc.get_first(self.fields.sections).and_then(|v| v.as_str()).unwrap_or_default();
        // Tokenising and stemming a whole long note is most of a snippet's cost: look only in
        // the section where the query's terms appear most (a cheap substring check first).
        let (start, end) = best_section(&self.words, body, sections);
        let snippet = self.generator.snippet(&body[start..end]);
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
        crate::sort::sort_by_key(&mut ranges, |r| r.start);
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
        let heading = section_at(sections, start + snippet.fragment_range().start);
        Ok((one_line(&marked), heading))
    }
}

/// A substring finder for each term's [`stem_surface`] (what of a stemmed term the text holds),
/// with its weight: built once per query, asked of every section of every hit.
fn finders<'a>(terms: impl IntoIterator<Item = (&'a String, &'a f32)>) -> Vec<(Finder<'static>, f32)> {
    terms.into_iter().map(|(t, w)| (Finder::new(stem_surface(t)).into_owned(), *w)).collect()
}

/// The byte range of the body section (split at the stored heading offsets) containing the
/// most query terms, weighted by rarity; the whole body when no section clearly wins.
fn best_section(words: &[(Finder<'static>, f32)], body: &str, sections: &str) -> (usize, usize) {
    if words.is_empty() || body.len() < 2 * SNIPPET_CHARS {
        return (0, body.len());
    }
    let mut bounds: Vec<usize> = vec![0];
    for line in sections.lines() {
        if let Some(offset) = line.split_once('\t').and_then(|(o, _)| o.parse::<usize>().ok()) {
            if offset > *bounds.last().unwrap_or(&0) && offset < body.len() && body.is_char_boundary(offset) {
                bounds.push(offset);
            }
        }
    }
    bounds.push(body.len());
    if bounds.len() <= 2 {
        return (0, body.len());
    }
    // ASCII lowercasing keeps byte offsets; terms are lowercase already.
    let lower = body.to_ascii_lowercase();
    let mut best = (0.0f32, 0, body.len());
    for pair in bounds.windows(2) {
        let section = &lower.as_bytes()[pair[0]..pair[1]];
        let score: f32 = words.iter().filter(|(f, _)| f.find(section).is_some()).map(|(_, w)| w).sum();
        if score > best.0 {
            best = (score, pair[0], pair[1]);
        }
    }
    if best.0 == 0.0 {
        return (0, body.len());
    }
    (best.1, best.2)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_holding_a_stemmed_word_is_found_where_the_stem_is_not_in_the_text() {
        // `daily` is indexed as `daili`, `possibility` as `possibl`: neither is in the text.
        let filler = "Nothing to see here. ".repeat(20);
        let body = format!("{filler}\n## Daily notes\nOpen your daily note.\n## Other\n{filler}");
        let daily = body.find("## Daily").unwrap();
        let other = body.find("## Other").unwrap();
        let sections = format!("{daily}\tDaily notes\n{other}\tOther");
        for term in ["daili", "possibl"] {
            let text = body.replace("daily", if term == "daili" { "daily" } else { "possibility" });
            let terms = BTreeMap::from([(term.to_string(), 1.0)]);
            assert_eq!(best_section(&finders(&terms), &text, &sections), (daily, other), "{term}");
        }
        // A short or non-ASCII term is looked for whole.
        assert_eq!(stem_surface("day"), "day");
        assert_eq!(stem_surface("überall"), "überall");
        // No section holds the word: the whole body.
        let terms = BTreeMap::from([("quokka".to_string(), 1.0)]);
        assert_eq!(best_section(&finders(&terms), &body, &sections), (0, body.len()));
    }
}
