//! A question's words as one query: a note scores the sum of the scores of the words it
//! matches, times a bonus that grows with how many of them it matches (coordination).
//!
//! It scores each word's postings once. Built from tantivy's own parts instead — the words
//! ORed, plus one minimum-should-match clause per number of words matched — every word was
//! scored up to n times for each note, which made questions a quarter to three quarters slower
//! at the median.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError, Term, TERMINATED};

/// Notes matching any of `words`; a note matching m of the n words scores
/// `sum × (1 + bonus × (m − 1) / (n − 1))`, so one matching every word scores
/// `(1 + bonus) ×` its plain sum and one matching a single word its plain sum.
#[derive(Debug)]
pub(crate) struct CoordinationQuery {
    words: Vec<Box<dyn Query>>,
    bonus: Score,
}

impl CoordinationQuery {
    pub(crate) fn new(words: Vec<Box<dyn Query>>, bonus: Score) -> Self {
        CoordinationQuery { words, bonus }
    }
}

impl Clone for CoordinationQuery {
    fn clone(&self) -> Self {
        CoordinationQuery { words: self.words.iter().map(|q| q.box_clone()).collect(), bonus: self.bonus }
    }
}

impl Query for CoordinationQuery {
    fn weight(&self, scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        let words = self.words.iter().map(|q| q.weight(scoring)).collect::<tantivy::Result<_>>()?;
        Ok(Box::new(CoordinationWeight { words, bonus: self.bonus }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for word in &self.words {
            word.query_terms(visitor);
        }
    }
}

struct CoordinationWeight {
    words: Vec<Box<dyn Weight>>,
    bonus: Score,
}

impl Weight for CoordinationWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let words: Vec<Box<dyn Scorer>> =
            self.words.iter().map(|w| w.scorer(reader, boost)).collect::<tantivy::Result<_>>()?;
        let share = if words.len() >= 2 { self.bonus / (words.len() - 1) as Score } else { 0.0 };
        let doc = words.iter().map(|s| s.doc()).min().unwrap_or(TERMINATED);
        Ok(Box::new(CoordinationScorer { words, share, doc }))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.scorer(reader, 1.0)?;
        if scorer.seek(doc) != doc {
            return Err(TantivyError::InvalidArgument(format!("document #{doc} does not match")));
        }
        Ok(Explanation::new("sum of the words matched, with the coordination bonus", scorer.score()))
    }
}

/// The union of the words' scorers; `doc` is the smallest of their documents.
struct CoordinationScorer {
    words: Vec<Box<dyn Scorer>>,
    share: Score,
    doc: DocId,
}

impl CoordinationScorer {
    fn settle(&mut self) -> DocId {
        self.doc = self.words.iter().map(|s| s.doc()).min().unwrap_or(TERMINATED);
        self.doc
    }
}

impl DocSet for CoordinationScorer {
    fn advance(&mut self) -> DocId {
        if self.doc == TERMINATED {
            return TERMINATED;
        }
        for word in &mut self.words {
            if word.doc() == self.doc {
                word.advance();
            }
        }
        self.settle()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        for word in &mut self.words {
            if word.doc() < target {
                word.seek(target);
            }
        }
        self.settle()
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.words.iter().map(|s| s.size_hint()).max().unwrap_or(0)
    }
}

impl Scorer for CoordinationScorer {
    fn score(&mut self) -> Score {
        let (mut sum, mut matched) = (0.0, 0);
        for word in &mut self.words {
            if word.doc() == self.doc {
                sum += word.score();
                matched += 1;
            }
        }
        if matched == 0 {
            return 0.0;
        }
        sum * (1.0 + self.share * (matched - 1) as Score)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::TopDocs;
    use tantivy::query::{Query, TermQuery};
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{doc, DocAddress, Index, Score, Term};

    use super::CoordinationQuery;

    /// Each note's score for `query`, by note number.
    fn scores(index: &Index, query: &dyn Query) -> Vec<(u32, Score)> {
        let searcher = index.reader().unwrap().searcher();
        let mut hits: Vec<(u32, Score)> = searcher
            .search(query, &TopDocs::with_limit(10).order_by_score())
            .unwrap()
            .into_iter()
            .map(|(score, DocAddress { doc_id, .. })| (doc_id, score))
            .collect();
        hits.sort_by_key(|h| h.0);
        hits
    }

    #[test]
    fn a_note_scores_the_sum_of_its_words_times_the_bonus_for_how_many_it_matches() {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for text in ["alpha beta gamma", "alpha beta delta", "alpha delta delta", "delta"] {
            writer.add_document(doc!(body => text)).unwrap();
        }
        writer.commit().unwrap();
        let word = |w: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(Term::from_field_text(body, w), IndexRecordOption::WithFreqs))
        };
        let alone: Vec<Vec<(u32, Score)>> =
            ["alpha", "beta", "gamma"].iter().map(|w| scores(&index, &*word(w))).collect();
        let of = |w: usize, note: u32| alone[w].iter().find(|h| h.0 == note).map_or(0.0, |h| h.1);
        let query = CoordinationQuery::new(vec![word("alpha"), word("beta"), word("gamma")], 2.0);
        let got = scores(&index, &query);
        // Three words: each further word matched adds 2 / 2 = 1 × the sum again.
        let want = [(0, (of(0, 0) + of(1, 0) + of(2, 0)) * 3.0), (1, (of(0, 1) + of(1, 1)) * 2.0), (2, of(0, 2))];
        assert_eq!(got.len(), 3, "the note with none of the words is not found: {got:?}");
        for ((note, score), (want_note, want_score)) in got.iter().zip(want) {
            assert_eq!(*note, want_note);
            assert!((score - want_score).abs() < 1e-4, "note {note}: {score} vs {want_score}");
        }
        // The words' terms are the query's (highlighting reads them).
        let mut terms = Vec::new();
        query.query_terms(&mut |t, _| terms.push(t.value().as_str().unwrap().to_string()));
        assert_eq!(terms, ["alpha", "beta", "gamma"]);
    }
}
