//! The query language and its translation into tantivy queries.
//!
//! Syntax (every part optional, never an error — unbalanced quotes and parentheses are closed
//! at the end, stray ones ignored):
//! - `word word` — both words (AND); if nothing matches all of them, any of them (OR) is tried.
//!   A query of [`QUESTION_MIN_WORDS`] plain words or more (no quotes, operators or fields) is
//!   read as a question: its function words ("how do I …") are dropped and the rest are ORed,
//!   notes that match more of them scoring higher (a coordination bonus). Requiring every word
//!   of a long question lists the few notes that happen to hold them all, not the answer.
//! - `"exact phrase"` — the words next to each other, in order.
//! - `a OR b`, `(a OR b) c`, `-word` / `NOT word` to exclude, `AND` is allowed and implied.
//! - `tag:#a/b` (also `#a/b` alone) — notes with the tag or one nested under it;
//!   `folder:Plugins/Core` — notes in the folder or below; `path:en/Plu` — path prefix;
//!   `title:`, `alias:`, `heading:`, `body:` — restrict words to one field.
//!
//! A word missing from the index is matched with typos (Levenshtein distance 1, or 2 for words
//! of 8+ characters); the last word of a query also matches as a prefix (search as you type).
//! Expansions are real index terms, so they score with BM25 (discounted) and are highlighted.

use std::collections::HashMap;
use std::ops::Bound;

use levenshtein_automata::{Distance, LevenshteinAutomatonBuilder, DFA};
use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, EmptyQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Searcher, Term};

use super::coordination::CoordinationQuery;
use super::schema::Fields;
use super::tokenizer::tokens;

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    /// Words from the user. `phrase` when quoted; `field` restricts them to one field; `last`
    /// marks the query's final unquoted word (prefix matching).
    Text {
        text: String,
        phrase: bool,
        field: Option<TextField>,
        last: bool,
    },
    Tag(String),
    Folder(String),
    Path(String),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
}

/// A full-text field a word can be restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextField {
    Title,
    Aliases,
    Headings,
    Body,
}

/// Parses the query language. Never fails; an empty query is an empty `And`.
pub(crate) fn parse(input: &str) -> Expr {
    let tokens = lex(input);
    let mut parser = Parser { tokens, pos: 0 };
    let mut expr = parser.sequence(false);
    mark_last(&mut expr, !input.ends_with(char::is_whitespace));
    expr
}

#[derive(Debug, Clone, PartialEq)]
enum Lexeme {
    Word(String),
    Quoted(String),
    Open,
    Close,
    Minus,
    Or,
    And,
    Not,
    /// `field:` directly followed by a word, a quoted phrase or `(`.
    FieldPrefix(String),
}

fn lex(input: &str) -> Vec<Lexeme> {
    let mut out = Vec::new();
    let chars: Vec<char> = input.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' || c == '“' || c == '”' || c == '「' {
            let close = |d: char| d == '"' || d == '”' || d == '“' || d == '」';
            let start = i + 1;
            let mut end = start;
            while end < chars.len() && !close(chars[end]) {
                end += 1;
            }
            out.push(Lexeme::Quoted(chars[start..end].iter().collect()));
            i = end + 1;
        } else if c == '(' {
            out.push(Lexeme::Open);
            i += 1;
        } else if c == ')' {
            out.push(Lexeme::Close);
            i += 1;
        } else if c == '-' && i + 1 < chars.len() && !chars[i + 1].is_whitespace() && at_word_start(&out, &chars, i) {
            out.push(Lexeme::Minus);
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && !matches!(chars[i], '(' | ')' | '"' | '“' | '”') {
                if chars[i] == ':' {
                    let name: String = chars[start..i].iter().collect();
                    if field_name(&name).is_some() {
                        out.push(Lexeme::FieldPrefix(name.to_lowercase()));
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
            if matches!(out.last(), Some(Lexeme::FieldPrefix(_)))
                && chars.get(start..i).is_some_and(|s| s.last() == Some(&':'))
            {
                continue;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(match word.as_str() {
                "OR" | "|" => Lexeme::Or,
                "AND" | "&&" => Lexeme::And,
                "NOT" => Lexeme::Not,
                _ => Lexeme::Word(word),
            });
        }
    }
    out
}

fn at_word_start(out: &[Lexeme], chars: &[char], i: usize) -> bool {
    i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == '(' || matches!(out.last(), Some(Lexeme::Open))
}

fn field_name(name: &str) -> Option<&'static str> {
    Some(match name.to_lowercase().as_str() {
        "tag" | "tags" => "tag",
        "folder" | "in" => "folder",
        "path" | "file" => "path",
        "title" | "name" => "title",
        "alias" | "aliases" => "alias",
        "heading" | "headings" | "section" => "heading",
        "body" | "content" => "body",
        _ => return None,
    })
}

struct Parser {
    tokens: Vec<Lexeme>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Lexeme> {
        self.tokens.get(self.pos)
    }

    /// Items joined by implicit AND, up to `)` (when nested) or the end.
    fn sequence(&mut self, nested: bool) -> Expr {
        let mut items = Vec::new();
        while let Some(tok) = self.peek() {
            match tok {
                Lexeme::Close if nested => {
                    self.pos += 1;
                    break;
                }
                Lexeme::Close | Lexeme::And | Lexeme::Or => self.pos += 1,
                _ => {
                    if let Some(item) = self.disjunction() {
                        items.push(item);
                    }
                }
            }
        }
        Expr::And(items)
    }

    fn disjunction(&mut self) -> Option<Expr> {
        let first = self.unary()?;
        let mut alternatives = vec![first];
        while self.peek() == Some(&Lexeme::Or) {
            self.pos += 1;
            if let Some(next) = self.unary() {
                alternatives.push(next);
            }
        }
        Some(if alternatives.len() == 1 { alternatives.remove(0) } else { Expr::Or(alternatives) })
    }

    fn unary(&mut self) -> Option<Expr> {
        match self.peek()? {
            Lexeme::Minus | Lexeme::Not => {
                self.pos += 1;
                self.unary().map(|e| Expr::Not(Box::new(e)))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Option<Expr> {
        let tok = self.peek()?.clone();
        self.pos += 1;
        match tok {
            Lexeme::Open => Some(self.sequence(true)),
            Lexeme::Quoted(text) => Some(Expr::Text { text, phrase: true, field: None, last: false }),
            Lexeme::Word(word) => Some(match word.strip_prefix('#') {
                Some(tag) if !tag.is_empty() && !tag.starts_with('#') => Expr::Tag(tag.to_string()),
                _ => Expr::Text { text: word, phrase: false, field: None, last: false },
            }),
            Lexeme::FieldPrefix(name) => {
                let value = match self.peek().cloned() {
                    Some(Lexeme::Word(w)) => {
                        self.pos += 1;
                        (w, false)
                    }
                    Some(Lexeme::Quoted(q)) => {
                        self.pos += 1;
                        (q, true)
                    }
                    Some(Lexeme::Open) if matches!(field_name(&name), Some("title" | "alias" | "heading" | "body")) => {
                        self.pos += 1;
                        let mut inner = self.sequence(true);
                        restrict(&mut inner, text_field(&name));
                        return Some(inner);
                    }
                    // `tag:` with nothing after it: the word itself.
                    _ => return Some(Expr::Text { text: name, phrase: false, field: None, last: false }),
                };
                Some(field_expr(&name, value.0, value.1))
            }
            Lexeme::Close | Lexeme::Or | Lexeme::And | Lexeme::Not | Lexeme::Minus => None,
        }
    }
}

fn text_field(name: &str) -> Option<TextField> {
    match field_name(name)? {
        "title" => Some(TextField::Title),
        "alias" => Some(TextField::Aliases),
        "heading" => Some(TextField::Headings),
        "body" => Some(TextField::Body),
        _ => None,
    }
}

fn field_expr(name: &str, value: String, phrase: bool) -> Expr {
    match field_name(name) {
        Some("tag") => Expr::Tag(value.trim_start_matches('#').to_string()),
        Some("folder") => Expr::Folder(value.trim_matches('/').to_string()),
        Some("path") => Expr::Path(value.trim_start_matches('/').to_string()),
        _ => Expr::Text { text: value, phrase, field: text_field(name), last: false },
    }
}

fn restrict(expr: &mut Expr, field: Option<TextField>) {
    match expr {
        Expr::Text { field: f, .. } => *f = field,
        Expr::And(items) | Expr::Or(items) => items.iter_mut().for_each(|e| restrict(e, field)),
        Expr::Not(inner) => restrict(inner, field),
        _ => {}
    }
}

/// Marks the last unquoted word typed (when the query does not end in a space) for prefix
/// matching.
fn mark_last(expr: &mut Expr, open_ended: bool) {
    if !open_ended {
        return;
    }
    match expr {
        Expr::Text { phrase: false, last, .. } => *last = true,
        Expr::And(items) | Expr::Or(items) => {
            if let Some(e) = items.last_mut() {
                mark_last(e, open_ended)
            }
        }
        _ => {}
    }
}

impl Expr {
    /// Whether the top level is an AND of two or more positive parts (worth retrying as OR).
    pub(crate) fn is_multi_and(&self) -> bool {
        matches!(self, Expr::And(items) if items.iter().filter(|e| !matches!(e, Expr::Not(_))).count() > 1)
    }

    /// Whether this reads as a natural-language question: [`QUESTION_MIN_WORDS`] plain words or
    /// more at the top level, and nothing else.
    pub(crate) fn is_question(&self) -> bool {
        matches!(self, Expr::And(items) if items.len() >= QUESTION_MIN_WORDS
            && items.iter().all(|e| matches!(e, Expr::Text { phrase: false, field: None, .. })))
    }
}

/// The analysed terms of the query's own words at the top level (a question's without its
/// function words), each once: what [`crate::search::SearchIndex::coverage`] looks for.
pub(crate) fn content_terms(expr: &Expr, analyzer: &mut TextAnalyzer) -> Vec<String> {
    let Expr::And(items) = expr else { return Vec::new() };
    let question = expr.is_question();
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if let Expr::Text { text, .. } = item {
            if question && is_stop_word(item) {
                continue;
            }
            for t in tokens(analyzer, text) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// The analysed words `text` searches for as a query: its own words at the top level (a
/// question's without its function words), each once. Operators, fields and filters aside.
pub fn query_terms(text: &str) -> Vec<String> {
    content_terms(&parse(text), &mut super::tokenizer::vault_analyzer())
}

/// A query of this many plain words or more is read as a question (see the module docs).
pub(crate) const QUESTION_MIN_WORDS: usize = 3;

/// Words a question is made of that say nothing about its topic. Matched as typed (lower case),
/// before stemming. Only a question's words are filtered: a short query keeps every word.
const QUESTION_STOP_WORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "by", "can", "could", "do", "does", "did",
    "for", "from", "how", "i", "i'm", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "so",
    "some", "should", "that", "the", "their", "them", "there", "these", "they", "this", "those", "to", "was", "way",
    "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// A question's notes that match all its words score (1 + this) × what their words score,
/// those matching one word their score alone, linearly between (so the bonus keeps BM25's
/// scale). Tuned on the tuning questions of `bench/semantic_queries.json`: 0 → 0.781 nDCG@10,
/// 0.5 → 0.801, 1 → 0.822, 2 → 0.829, 4 → 0.830 (English notes); 2 is best over the whole vault.
const COORDINATION: f32 = 2.0;

/// How the top-level words of a query combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Matching {
    /// Every word (AND).
    All,
    /// Any word (OR).
    Any,
    /// A question: its content words, ORed, with a coordination bonus.
    Question,
}

fn is_stop_word(expr: &Expr) -> bool {
    match expr {
        Expr::Text { text, .. } => {
            let word = text.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase();
            QUESTION_STOP_WORDS.contains(&word.as_str())
        }
        _ => false,
    }
}

/// What turning an [`Expr`] into a tantivy query needs: the fields, the analysers, and the
/// searchers whose term dictionaries expansions are drawn from.
pub(crate) struct QueryBuilder<'a> {
    pub fields: &'a Fields,
    pub analyzer: TextAnalyzer,
    pub unstemmed: TextAnalyzer,
    pub searchers: Vec<&'a Searcher>,
    /// How the top-level words combine (nested groups are always AND).
    pub matching: Matching,
    pub lev1: &'a LevenshteinAutomatonBuilder,
    pub lev2: &'a LevenshteinAutomatonBuilder,
    /// Set while a question's words are built: they are matched in the note's own text, not its
    /// properties. Descriptions repeat a note's first lines, and counting those words twice cost
    /// the questions 0.01 (tuning) to 0.015 (held out) nDCG@10 in the bench.
    pub in_question: bool,
}

/// Discounts for words that were not typed: typo corrections and prefix completions.
const FUZZY_BOOST: f32 = 0.5;
const PREFIX_BOOST: f32 = 0.4;
/// At most this many index terms stand in for one typo or prefix.
const MAX_EXPANSIONS: usize = 8;
/// Words shorter than this (in characters) are not corrected for typos: too many neighbours.
const MIN_FUZZY_CHARS: usize = 4;

impl QueryBuilder<'_> {
    /// The tantivy query for `expr` (an expression with no words matches every note, so that
    /// filters alone list notes).
    pub(crate) fn build(&mut self, expr: &Expr) -> Box<dyn Query> {
        match expr {
            Expr::And(items) if items.is_empty() => Box::new(AllQuery),
            Expr::And(items) if self.matching == Matching::Question => {
                self.matching = Matching::All;
                self.question(items)
            }
            Expr::And(items) => {
                let conjunction = std::mem::replace(&mut self.matching, Matching::All) == Matching::All;
                let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                let mut positive = 0;
                for item in items {
                    match item {
                        Expr::Not(inner) => clauses.push((Occur::MustNot, self.excluded(inner))),
                        Expr::Tag(_) | Expr::Folder(_) | Expr::Path(_) => {
                            positive += 1;
                            clauses.push((Occur::Must, self.build(item)));
                        }
                        _ => {
                            positive += 1;
                            let occur = if conjunction { Occur::Must } else { Occur::Should };
                            clauses.push((occur, self.build(item)));
                        }
                    }
                }
                if positive == 0 {
                    clauses.push((Occur::Must, Box::new(AllQuery)));
                }
                Box::new(BooleanQuery::new(clauses))
            }
            Expr::Or(items) => {
                Box::new(BooleanQuery::new(items.iter().map(|e| (Occur::Should, self.build(e))).collect()))
            }
            Expr::Not(inner) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, Box::new(AllQuery)),
                (Occur::MustNot, self.excluded(inner)),
            ])),
            Expr::Tag(tag) => filter(TermQuery::new(
                Term::from_field_text(self.fields.tag, &tag.trim_start_matches('#').to_lowercase()),
                IndexRecordOption::Basic,
            )),
            Expr::Folder(folder) => filter(TermQuery::new(
                Term::from_field_text(self.fields.folder, folder.trim_matches('/')),
                IndexRecordOption::Basic,
            )),
            Expr::Path(prefix) => path_prefix(self.fields.path, prefix),
            Expr::Text { text, phrase, field, last } => self.text(text, *phrase, *field, *last),
        }
    }

    /// A question's content words, ORed, each further word matched adding [`COORDINATION`] /
    /// (n − 1) of the matched words' score again: a note matching all n words scores
    /// (1 + COORDINATION) × its BM25, one matching one word its BM25 alone.
    fn question(&mut self, items: &[Expr]) -> Box<dyn Query> {
        let content: Vec<&Expr> = items.iter().filter(|e| !is_stop_word(e)).collect();
        let words: Vec<&Expr> = if content.is_empty() { items.iter().collect() } else { content };
        self.in_question = true;
        let queries: Vec<Box<dyn Query>> = words.iter().map(|e| self.build(e)).collect();
        self.in_question = false;
        Box::new(CoordinationQuery::new(queries, COORDINATION))
    }

    /// The query for an excluded expression. tantivy 0.27's phrase scorer asserts (in debug
    /// builds) when an exclusion probes it below its current document, which happens when the
    /// phrase matches no note at all (`"garden note" -seeds~2`, found by fuzzing). A union of
    /// the query with itself is probed through the union's own `seek`, which is safe, and
    /// excludes the same notes.
    fn excluded(&mut self, inner: &Expr) -> Box<dyn Query> {
        let query = self.build(inner);
        Box::new(BooleanQuery::new(vec![(Occur::Should, query.box_clone()), (Occur::Should, query)]))
    }

    fn target_fields(&self, field: Option<TextField>) -> Vec<(Field, f32)> {
        let f = self.fields;
        match field {
            None if self.in_question => f.boosted().into_iter().filter(|&(field, _)| field != f.properties).collect(),
            None => f.boosted().to_vec(),
            Some(TextField::Title) => vec![(f.title, 1.0)],
            Some(TextField::Aliases) => vec![(f.aliases, 1.0)],
            Some(TextField::Headings) => vec![(f.headings, 1.0)],
            Some(TextField::Body) => vec![(f.body, 1.0)],
        }
    }

    fn text(&mut self, text: &str, phrase: bool, field: Option<TextField>, last: bool) -> Box<dyn Query> {
        let terms = tokens(&mut self.analyzer, text);
        let fields = self.target_fields(field);
        match terms.len() {
            0 => Box::new(EmptyQuery),
            1 if phrase => any_field(&fields, &terms[0], 1.0),
            1 => self.word(&terms[0], text, &fields, last),
            _ => {
                let clauses = fields
                    .iter()
                    .map(|&(field, boost)| {
                        let terms: Vec<Term> = terms.iter().map(|t| Term::from_field_text(field, t)).collect();
                        let q: Box<dyn Query> = Box::new(BoostQuery::new(Box::new(PhraseQuery::new(terms)), boost));
                        (Occur::Should, q)
                    })
                    .collect();
                Box::new(BooleanQuery::new(clauses))
            }
        }
    }

    /// One analysed word: the word itself in every field, plus typo corrections when the index
    /// lacks it, plus completions when it is the word being typed.
    fn word(&mut self, term: &str, raw: &str, fields: &[(Field, f32)], last: bool) -> Box<dyn Query> {
        let mut alternatives = vec![any_field(fields, term, 1.0)];
        let dictionary_fields: Vec<Field> = fields.iter().map(|&(f, _)| f).collect();
        let chars = term.chars().count();
        let bigram_script = term.chars().any(is_cjk_like);
        let mut completed = false;
        if last {
            if let Some(prefix) = tokens(&mut self.unstemmed, raw).into_iter().next() {
                // One CJK character completes to the bigrams it starts; Latin needs two letters.
                let n = prefix.chars().count();
                if n >= 2 && !bigram_script || n == 1 && bigram_script {
                    let upper = prefix_upper_bound(&prefix);
                    for expansion in self.expand(&dictionary_fields, Expansion::Prefix(prefix.clone(), upper)) {
                        completed = true;
                        if expansion != term {
                            alternatives.push(any_field(fields, &expansion, PREFIX_BOOST));
                        }
                    }
                }
            }
        }
        if !bigram_script && chars >= MIN_FUZZY_CHARS && self.doc_freq(&dictionary_fields, term) == 0 {
            // A word still being typed that some index term completes is unfinished, not
            // misspelt: correcting `canv` or `templ` as a typo would scan the term dictionaries
            // (most of a keystroke's search) for neighbours that mostly add noise.
            let mut corrected = false;
            if !completed {
                let builder = if chars >= 8 { self.lev2 } else { self.lev1 };
                let dfa = builder.build_dfa(term);
                for expansion in self.expand(&dictionary_fields, Expansion::Fuzzy(&dfa)) {
                    alternatives.push(any_field(fields, &expansion, FUZZY_BOOST));
                    corrected = true;
                }
            }
            // What neither completions nor corrections reach is a stem shorter than the typed
            // text (`settin…` → `set`, `configura…` → `configur`): the index terms among its
            // three shorter prefixes stand in for it, a lookup each.
            if last && !corrected {
                for (cut, _) in term.char_indices().skip(3.max(chars.saturating_sub(3))) {
                    let shorter = &term[..cut];
                    if self.doc_freq(&dictionary_fields, shorter) > 0 {
                        alternatives.push(any_field(fields, shorter, PREFIX_BOOST));
                    }
                }
            }
        }
        if alternatives.len() == 1 {
            return alternatives.remove(0);
        }
        Box::new(BooleanQuery::new(alternatives.into_iter().map(|q| (Occur::Should, q)).collect()))
    }

    fn doc_freq(&self, fields: &[Field], term: &str) -> u64 {
        let mut total = 0;
        for searcher in &self.searchers {
            for &field in fields {
                total += searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0);
            }
        }
        total
    }

    /// The most frequent index terms (over `fields` of every searcher) that `how` selects.
    fn expand(&self, fields: &[Field], how: Expansion<'_>) -> Vec<String> {
        let mut freq: HashMap<String, u64> = HashMap::new();
        for searcher in &self.searchers {
            for segment in searcher.segment_readers() {
                for &field in fields {
                    let Ok(inverted) = segment.inverted_index(field) else { continue };
                    let dict = inverted.terms();
                    match &how {
                        Expansion::Fuzzy(dfa) => {
                            if let Ok(s) = dict.search(DfaAutomaton(dfa)).into_stream() {
                                drain(s, &mut freq);
                            }
                        }
                        Expansion::Prefix(lower, upper) => {
                            if let Ok(s) = dict.range().ge(lower.as_bytes()).lt(upper.as_bytes()).into_stream() {
                                drain(s, &mut freq);
                            }
                        }
                    }
                }
            }
        }
        let mut ranked: Vec<(String, u64)> = freq.into_iter().collect();
        crate::sort::sort_by(&mut ranked, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.into_iter().take(MAX_EXPANSIONS).map(|(t, _)| t).collect()
    }
}

/// Which index terms stand in for a query word.
enum Expansion<'a> {
    /// Within the automaton's edit distance.
    Fuzzy(&'a DFA),
    /// In `[lower, upper)`: every term starting with a prefix.
    Prefix(String, String),
}

fn drain<A>(mut stream: tantivy::termdict::TermStreamer<'_, A>, freq: &mut HashMap<String, u64>)
where
    A: tantivy_fst::Automaton,
    A::State: Clone,
{
    while stream.advance() {
        if let Ok(text) = std::str::from_utf8(stream.key()) {
            *freq.entry(text.to_string()).or_default() += u64::from(stream.value().doc_freq);
        }
    }
}

fn is_cjk_like(c: char) -> bool {
    let u = c as u32;
    (0x0E00..=0x0EFF).contains(&u)
        || (0x1000..=0x109F).contains(&u)
        || (0x1100..=0x11FF).contains(&u)
        || (0x1780..=0x17FF).contains(&u)
        || (0x3040..=0x9FFF).contains(&u)
        || (0xAC00..=0xD7FF).contains(&u)
        || (0xF900..=0xFAFF).contains(&u)
        || u >= 0x20000
}

/// The smallest string greater than every string starting with `prefix`.
fn prefix_upper_bound(prefix: &str) -> String {
    let mut upper = prefix.to_string();
    upper.push(char::MAX);
    upper
}

fn any_field(fields: &[(Field, f32)], term: &str, factor: f32) -> Box<dyn Query> {
    let clauses: Vec<(Occur, Box<dyn Query>)> = fields
        .iter()
        .map(|&(field, boost)| {
            let q = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
            let q: Box<dyn Query> = Box::new(BoostQuery::new(Box::new(q), boost * factor));
            (Occur::Should, q)
        })
        .collect();
    if clauses.len() == 1 {
        return clauses.into_iter().map(|(_, q)| q).next().unwrap_or_else(|| Box::new(EmptyQuery));
    }
    Box::new(BooleanQuery::new(clauses))
}

/// A filter: it selects notes but adds nothing to their score.
fn filter(query: impl Query) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(Box::new(query), 0.0))
}

/// Notes whose path starts with `prefix`.
pub(crate) fn path_prefix(field: Field, prefix: &str) -> Box<dyn Query> {
    let lower = Term::from_field_text(field, prefix);
    let upper = Term::from_field_text(field, &prefix_upper_bound(prefix));
    filter(RangeQuery::new(Bound::Included(lower), Bound::Excluded(upper)))
}

/// A Levenshtein DFA as an FST automaton (the adapter tantivy keeps private).
struct DfaAutomaton<'a>(&'a DFA);

impl tantivy_fst::Automaton for DfaAutomaton<'_> {
    type State = u32;

    fn start(&self) -> u32 {
        self.0.initial_state()
    }

    fn is_match(&self, state: &u32) -> bool {
        matches!(self.0.distance(*state), Distance::Exact(_))
    }

    fn can_match(&self, state: &u32) -> bool {
        *state != levenshtein_automata::SINK_STATE
    }

    fn accept(&self, state: &u32, byte: u8) -> u32 {
        self.0.transition(*state, byte)
    }
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
