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
            let mut opening = one_line(&body[..end]);
            if ends_mid_sentence(body, end) {
                opening.push('…');
            }
            return Ok((opening, None));
        }
        let text = &body[start..end];
        let range = snippet.fragment_range();
        let fragment = snippet.fragment();
        // Overlapping matches (CJK bigrams `录音` + `音机`) become one highlight.
        let merged = crate::sort::merged_ranges(
            snippet.highlighted().iter().filter(|r| r.end <= fragment.len()).cloned().collect(),
        );
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
        // The passage reads from its sentence's start when that is a few words back; else an
        // ellipsis says it starts mid-sentence, as one at the end says it stops there.
        let marked = match lead_in(text, range.start) {
            Some(lead) => format!("{lead}{marked}"),
            None => format!("…{marked}"),
        };
        let mut marked = one_line(&marked);
        if let Some(stop) = full_stop_at(text, range.end) {
            marked.push(stop);
        } else if ends_mid_sentence(text, range.end) {
            marked.push('…');
        }
        let heading = section_at(sections, start + range.start);
        Ok((marked, heading))
    }
}

/// How far back a passage is taken to its sentence's start.
const LEAD_IN_CHARS: usize = 40;

/// The text from the start of the sentence holding byte `at` of `text` up to `at`, when that
/// start is at most [`LEAD_IN_CHARS`] back (the text's start, a line's, or after `.`, `!`, `?`
/// and a space, or a CJK full stop); `None` when it is further.
fn lead_in(text: &str, at: usize) -> Option<&str> {
    let before = &text[..at];
    let mut next = text[at..].chars().next();
    for (taken, (i, c)) in before.char_indices().rev().enumerate() {
        if c == '\n' || ends_sentence(c, next) {
            return Some(before[i + c.len_utf8()..].trim_start());
        }
        if taken >= LEAD_IN_CHARS {
            return None;
        }
        next = Some(c);
    }
    Some(before.trim_start())
}

/// The punctuation ending a sentence right at byte `at` of `text` (a passage ends at a word).
fn full_stop_at(text: &str, at: usize) -> Option<char> {
    let mut rest = text[at..].chars();
    let c = rest.next()?;
    ends_sentence(c, rest.next()).then_some(c)
}

/// Whether `c`, followed by `next` (`None`: the text ends), ends a sentence: `.`, `!` or `?`
/// before a space or the end (not `file.md`, `v1.2`), or a full stop that needs no space.
fn ends_sentence(c: char, next: Option<char>) -> bool {
    is_full_stop(c) || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace))
}

/// A sentence's end that needs no space after it: CJK full stops, the Indic danda, the Arabic
/// question mark.
fn is_full_stop(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '।' | '॥' | '؟')
}

/// Whether `text` goes on after byte `end` and the passage before it stops mid-sentence.
fn ends_mid_sentence(text: &str, end: usize) -> bool {
    let last = text[..end].trim_end().chars().last();
    !text[end..].trim().is_empty() && !last.is_some_and(|c| matches!(c, '.' | '!' | '?' | ':') || is_full_stop(c))
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
    fn a_passage_reads_from_its_sentences_start_when_that_is_near_or_says_it_is_cut() {
        let text = "Intro line.\nCanvas is a core plugin. You can see and understand the connections here";
        let at = text.find("see").unwrap();
        assert_eq!(lead_in(text, at), Some("You can "));
        // At a line's start, or the text's: nothing to add and nothing cut.
        assert_eq!(lead_in(text, text.find("Canvas").unwrap()), Some(""));
        assert_eq!(lead_in(text, 0), Some(""));
        // The sentence starts more than 40 characters back: cut.
        let long = format!("A sentence that {} goes on and on", "keeps going ".repeat(6));
        assert_eq!(lead_in(&long, long.find("on and").unwrap()), None);
        // A dot inside a word (a version, a file name) does not end a sentence.
        let dotted = "Open file.md in v1.2 then see";
        assert_eq!(lead_in(dotted, dotted.find("see").unwrap()), Some("Open file.md in v1.2 then "));
        // CJK sentences end at their full stop, with no space after it.
        let cjk = "第一句。第二句的内容";
        assert_eq!(lead_in(cjk, cjk.find("内容").unwrap()), Some("第二句的"));
        let bengali = "প্রথম বাক্য। দ্বিতীয় বাক্য";
        assert_eq!(lead_in(bengali, bengali.rfind("বাক্য").unwrap()), Some("দ্বিতীয় "));
        assert!(ends_mid_sentence(text, text.find("understand").unwrap()));
        assert!(!ends_mid_sentence(text, text.find("Canvas").unwrap() - 1), "after a full stop");
        assert!(!ends_mid_sentence(text, text.len()), "at the end");
        // A passage that stops at a sentence's last word takes its full stop, not an ellipsis.
        assert_eq!(full_stop_at(text, text.find(" You").unwrap() - 1), Some('.'));
        assert_eq!(full_stop_at(dotted, dotted.find(".md").unwrap()), None, "file.md");
        assert_eq!(full_stop_at(text, text.len()), None);
    }

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
