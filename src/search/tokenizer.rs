//! Tokenisation for every language in a vault, without dictionaries.
//!
//! Scripts written without spaces between words (Chinese, Japanese, Korean, Thai, Lao, Khmer,
//! Myanmar) are cut into overlapping character bigrams, as Lucene's `CJKAnalyzer` does: a run
//! `双向链接` becomes `双向 向链 链接` at consecutive positions, so a query for `链接` finds it
//! and a query for the whole word is a phrase of its bigrams. A run of one character is kept as
//! a unigram. Everything else is split into words of letters, digits and combining marks.
//! A dictionary segmenter (lindera, jieba) would add megabytes to the wasm; bigrams add nothing.
//!
//! Words are then lowercased, folded to ASCII where a folding exists (`Ü` → `u`, so a query
//! typed without accents still matches), and stemmed with the English Snowball stemmer. The
//! stemmer only rewrites English suffixes; applied to other languages it is mostly a no-op, and
//! since queries go through the same analyser, it never costs recall.

use std::borrow::Cow;
use std::hash::Hasher;
use std::sync::OnceLock;

use rustc_hash::FxHasher;
use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RawTokenizer, TextAnalyzer, Token, TokenStream, Tokenizer};

/// The name the analyser is registered under in the index.
pub const TOKENIZER_NAME: &str = "vault";

/// Bumped whenever tokenisation changes, so persisted indexes built with another are rebuilt.
pub const TOKENIZER_VERSION: u32 = 1;

/// Tokens this long or longer (in bytes, before normalisation) are dropped: base64 blobs and the
/// like. A dropped token still takes its position, so phrases never match across it.
const MAX_TOKEN_BYTES: usize = 64;

/// Slots of the stem cache at most (a power of two). Word frequencies follow Zipf's law: on the
/// sample vault, 16K slots answer more than nine stems in ten, for about a megabyte.
const CACHE_SLOTS: usize = 1 << 14;
/// The cache starts this small and grows fourfold whenever the analyser has stemmed four times
/// as many words as it has slots: a query's analyser sees a handful of words, and allocating a
/// megabyte for each would cost more than the words it analyses.
const FIRST_CACHE_SLOTS: usize = 1 << 6;

/// The analyser every text field uses: `ScriptTokenizer`, then lowercase, ASCII folding and
/// English stemming (tantivy's `LowerCaser`, `AsciiFoldingFilter` and `Stemmer`).
pub fn vault_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(VaultTokenizer::new(true))
}

/// The analyser snippets are highlighted with: [`vault_analyzer`]'s tokens, except that only
/// a word that could stem to one of `terms` (it starts with a term's [`stem_surface`]) is
/// stemmed; the others are left as they are, which no term can equal. Stemming every word of a
/// note's section was most of a snippet's cost.
pub(crate) fn snippet_analyzer<'a>(terms: impl IntoIterator<Item = &'a str>) -> TextAnalyzer {
    let mut tokenizer = VaultTokenizer::new(true);
    tokenizer.normalizer.wanted = Some(terms.into_iter().map(|t| stem_surface(t).to_string()).collect());
    TextAnalyzer::from(tokenizer)
}

/// What of an index term a note's text holds as it is written. The English stemmer rewrites
/// only a word's end (`daily` → `daili`, `possibility` → `possibl`, `filing` → `file`): without
/// its last letter a stem of four letters or more is the start of the word it came from. Shorter
/// or non-ASCII terms are taken whole. (The stemmer's few irregular words, `skies` → `sky`,
/// `dying` → `die`, escape this.)
pub(crate) fn stem_surface(term: &str) -> &str {
    if term.len() >= 4 && term.is_ascii() {
        &term[..term.len() - 1]
    } else {
        term
    }
}

/// The same analyser without stemming: query prefixes (`configu…`) are matched against the
/// index's terms as typed, since a stemmer would rewrite an unfinished word.
pub fn unstemmed_analyzer() -> TextAnalyzer {
    TextAnalyzer::from(VaultTokenizer::new(false))
}

/// Runs `analyzer` over `text` and returns the token texts.
pub fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// [`ScriptTokenizer`]'s words, normalised without re-running a filter chain on each: the
/// terms are exactly what `ScriptTokenizer → RemoveLongFilter → LowerCaser →
/// AsciiFoldingFilter → Stemmer` gives, at a fraction of the cost (that chain was most of the
/// cost of indexing).
///
/// - Lowercasing and ASCII folding both work character by character, so each character's
///   lowercased, folded form is computed once — by tantivy's own filters, over that character
///   — and kept in the same per-page tables as the character classes.
/// - English stemming only rewrites words with ASCII letters (every suffix it knows is ASCII),
///   and the same words recur thousands of times: stems are remembered in a small cache.
#[derive(Clone)]
pub struct VaultTokenizer {
    words: ScriptTokenizer,
    normalizer: Normalizer,
}

impl VaultTokenizer {
    fn new(stem: bool) -> Self {
        VaultTokenizer { words: ScriptTokenizer::default(), normalizer: Normalizer::new(stem) }
    }
}

#[derive(Clone)]
struct Normalizer {
    /// The English Snowball stemmer (what tantivy's `Stemmer` filter calls); `None` for the
    /// unstemmed analyser.
    stemmer: Option<frostem::Stemmer>,
    /// A direct-mapped cache, word → stem, indexed by the word's hash: a slot is overwritten by
    /// the next word hashing to it, so frequent words stay and memory is bounded.
    slots: Vec<(String, String)>,
    /// Words stemmed so far (to size the cache).
    seen: usize,
    /// Only words starting with one of these are stemmed ([`snippet_analyzer`]).
    wanted: Option<Vec<String>>,
}

impl Normalizer {
    fn new(stem: bool) -> Self {
        let stemmer = stem.then(|| frostem::Stemmer::new(frostem::Algorithm::English));
        Normalizer { stemmer, slots: Vec::new(), seen: 0, wanted: None }
    }

    /// Writes the normalised form of `word` into `out`.
    fn normalize(&mut self, word: &str, kind: WordKind, out: &mut String) {
        out.clear();
        match kind {
            // No character of those scripts has a case or a folding (a test checks them all),
            // and the stemmer only touches ASCII letters.
            WordKind::Bigram => return out.push_str(word),
            WordKind::Ascii => {
                out.push_str(word);
                out.make_ascii_lowercase();
            }
            WordKind::Other => word.chars().for_each(|c| fold_char(c, out)),
        }
        if self.stemmer.is_some()
            && out.bytes().any(|b| b.is_ascii_lowercase())
            && self.wanted.as_ref().is_none_or(|w| w.iter().any(|p| out.starts_with(p.as_str())))
        {
            self.stem(out);
        }
    }

    /// Replaces `word` (lowercased and folded) with its stem.
    fn stem(&mut self, word: &mut String) {
        let Some(stemmer) = self.stemmer else { return };
        self.seen += 1;
        if self.seen >= 4 * self.slots.len().max(FIRST_CACHE_SLOTS / 4) && self.slots.len() < CACHE_SLOTS {
            let slots = (4 * self.slots.len()).clamp(FIRST_CACHE_SLOTS, CACHE_SLOTS);
            self.slots = vec![(String::new(), String::new()); slots];
        }
        if self.slots.is_empty() {
            // The first few words: not worth a cache.
            if let Cow::Owned(stem) = stemmer.stem(word) {
                *word = stem;
            }
            return;
        }
        let mut hasher = FxHasher::default();
        hasher.write(word.as_bytes());
        let slot = hasher.finish() as usize & (self.slots.len() - 1);
        let (key, stem) = &mut self.slots[slot];
        if key != word {
            stem.clear();
            stem.push_str(&stemmer.stem(word));
            key.clear();
            key.push_str(word);
        }
        word.clear();
        word.push_str(stem);
    }
}

/// Appends what `analyzer` makes of `word` (one token: it starts with a `RawTokenizer`).
fn run(analyzer: &mut TextAnalyzer, word: &str, out: &mut String) {
    let mut stream = analyzer.token_stream(word);
    if stream.advance() {
        out.push_str(&stream.token().text);
    }
}

impl Tokenizer for VaultTokenizer {
    type TokenStream<'a> = VaultTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> VaultTokenStream<'a> {
        VaultTokenStream { words: self.words.token_stream(text), normalizer: &mut self.normalizer }
    }
}

/// The token stream of [`VaultTokenizer`].
pub struct VaultTokenStream<'a> {
    words: ScriptTokenStream<'a>,
    normalizer: &'a mut Normalizer,
}

impl TokenStream for VaultTokenStream<'_> {
    fn advance(&mut self) -> bool {
        while let Some((from, to, kind)) = self.words.next_word() {
            if to - from >= MAX_TOKEN_BYTES {
                continue;
            }
            let word = &self.words.text[from..to];
            self.normalizer.normalize(word, kind, &mut self.words.token.text);
            return true;
        }
        false
    }

    fn token(&self) -> &Token {
        self.words.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.words.token
    }
}

/// How a character takes part in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Part of a space-separated word.
    Word,
    /// A script without spaces: cut into bigrams.
    Bigram,
    /// Whitespace, punctuation, symbols.
    Break,
}

fn class(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() { Class::Word } else { Class::Break };
    }
    match page(c) {
        Some(page) => page.class[(c as u32 & 0xFF) as usize],
        None => classify(c),
    }
}

/// Appends `c` lowercased and folded to ASCII where a folding exists (what tantivy's
/// `LowerCaser` then `AsciiFoldingFilter` make of it).
fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    let Some(page) = page(c) else {
        out.push_str(&fold_slow(c));
        return;
    };
    let low = (c as u32 & 0xFF) as u8;
    match page.folded[low as usize] {
        '\0' => out.push_str(page.longer.iter().find(|(l, _)| *l == low).map_or("", |(_, s)| s.as_str())),
        folded => out.push(folded),
    }
}

/// What the analyser needs to know about 256 consecutive characters of the Basic Multilingual
/// Plane.
struct Page {
    class: [Class; 256],
    /// Each character lowercased and folded, when that is one character; `'\0'` when it is
    /// several (`ß` → `ss`, `ﬁ` → `fi`), found in `longer`. (`'\0'` is itself a break, never
    /// part of a word.)
    folded: [char; 256],
    longer: Vec<(u8, String)>,
}

/// The page of `c` when it lies in the Basic Multilingual Plane. Searching Unicode tables takes
/// hundreds of instructions a character, and tantivy's filters more: each page is computed
/// once, when a character of it is first met (most vaults meet a few dozen of the 256 pages),
/// and looked up after that.
fn page(c: char) -> Option<&'static Page> {
    static PAGES: [OnceLock<Box<Page>>; 256] = [const { OnceLock::new() }; 256];
    let u = c as u32;
    if u > 0xFFFF {
        return None;
    }
    Some(PAGES[(u >> 8) as usize].get_or_init(|| {
        let mut page = Box::new(Page { class: [Class::Break; 256], folded: ['\0'; 256], longer: Vec::new() });
        for low in 0..=255u8 {
            let Some(c) = char::from_u32(u & !0xFF | u32::from(low)) else { continue };
            page.class[low as usize] = classify(c);
            let folded = fold_slow(c);
            let mut chars = folded.chars();
            match (chars.next(), chars.next()) {
                (Some(one), None) if one != '\0' => page.folded[low as usize] = one,
                _ => page.longer.push((low, folded)),
            }
        }
        page
    }))
}

/// `c` through tantivy's `LowerCaser` and `AsciiFoldingFilter`.
fn fold_slow(c: char) -> String {
    let mut chain =
        TextAnalyzer::builder(RawTokenizer::default()).filter(LowerCaser).filter(AsciiFoldingFilter).build();
    let mut folded = String::new();
    run(&mut chain, c.encode_utf8(&mut [0u8; 4]), &mut folded);
    folded
}

/// [`class`] from the Unicode tables.
fn classify(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() { Class::Word } else { Class::Break };
    }
    let u = c as u32;
    if is_bigram_script(u) {
        // Ideographic punctuation and spaces inside these blocks are breaks.
        return if c.is_alphanumeric() || is_mark(u) { Class::Bigram } else { Class::Break };
    }
    if c.is_alphanumeric() || is_mark(u) {
        Class::Word
    } else {
        Class::Break
    }
}

fn is_bigram_script(u: u32) -> bool {
    matches!(u,
        0x0E00..=0x0EFF       // Thai, Lao
        | 0x1000..=0x109F     // Myanmar
        | 0x1100..=0x11FF     // Hangul Jamo
        | 0x1780..=0x17FF     // Khmer
        | 0x19E0..=0x19FF     // Khmer symbols
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3130..=0x318F     // Hangul compatibility Jamo
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xA960..=0xA97F     // Hangul Jamo extended A
        | 0xAC00..=0xD7FF     // Hangul syllables, Jamo extended B
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // Halfwidth Katakana
        | 0x20000..=0x3134F // CJK extensions B–H
    )
}

/// Combining marks and joiners that belong inside a word (accents written separately, Indic
/// viramas and nuktas, Arabic and Hebrew points, ZWJ/ZWNJ in Persian and Indic scripts).
fn is_mark(u: u32) -> bool {
    matches!(u,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2 | 0x05C4..=0x05C5 | 0x05C7
        | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06DC | 0x06DF..=0x06E4 | 0x06E7..=0x06E8 | 0x06EA..=0x06ED
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963
        | 0x0981..=0x0983 | 0x09BC | 0x09BE..=0x09CD | 0x09D7 | 0x09E2..=0x09E3
        | 0x0A01..=0x0A03 | 0x0A3C..=0x0A51 | 0x0A81..=0x0A83 | 0x0ABC..=0x0ACD
        | 0x0B01..=0x0B03 | 0x0B3C..=0x0B57 | 0x0B82 | 0x0BBE..=0x0BCD | 0x0C00..=0x0C04 | 0x0C3E..=0x0C56
        | 0x0C81..=0x0C83 | 0x0CBC..=0x0CD6 | 0x0D00..=0x0D03 | 0x0D3B..=0x0D4D | 0x0D57 | 0x0D81..=0x0D83 | 0x0DCA..=0x0DDF
        | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECD
        | 0x102B..=0x103E | 0x1056..=0x1059 | 0x105E..=0x1060 | 0x1062..=0x1064 | 0x1067..=0x106D | 0x1071..=0x1074 | 0x1082..=0x108D
        | 0x17B4..=0x17D3 | 0x17DD
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF
        | 0x200C..=0x200D
        | 0x20D0..=0x20FF
        | 0x3099..=0x309A
        | 0xFE20..=0xFE2F
    )
}

/// Splits text into words and bigrams (see the module docs), as written: no normalisation.
/// Offsets are byte offsets in the text; positions increase by one per token, so bigrams of
/// one run are a phrase.
#[derive(Clone, Default)]
pub struct ScriptTokenizer {
    token: Token,
}

impl Tokenizer for ScriptTokenizer {
    type TokenStream<'a> = ScriptTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> ScriptTokenStream<'a> {
        self.token.reset();
        ScriptTokenStream { text, cursor: 0, bigram_prev: None, bigram_emitted: false, token: &mut self.token }
    }
}

/// The token stream of [`ScriptTokenizer`].
pub struct ScriptTokenStream<'a> {
    text: &'a str,
    /// Byte offset of the next character to look at.
    cursor: usize,
    /// Start of the previous character of the current bigram run, if in one.
    bigram_prev: Option<usize>,
    /// Whether the current bigram run has produced a token yet.
    bigram_emitted: bool,
    token: &'a mut Token,
}

/// What a word is made of, as far as normalising it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WordKind {
    /// ASCII letters and digits only.
    Ascii,
    /// A bigram or a lone character of a script written without spaces.
    Bigram,
    /// A word with other characters.
    Other,
}

impl ScriptTokenStream<'_> {
    /// Moves the token to the word at `from..to` (its text is left for the caller to fill).
    fn emit(&mut self, from: usize, to: usize, kind: WordKind) -> Option<(usize, usize, WordKind)> {
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = self.token.position.wrapping_add(1);
        self.token.position_length = 1;
        Some((from, to, kind))
    }

    /// A run of one character ends: it becomes a unigram.
    fn flush_lone_char(&mut self) -> Option<(usize, usize)> {
        let prev = self.bigram_prev.take()?;
        let emitted = std::mem::replace(&mut self.bigram_emitted, false);
        if emitted {
            return None;
        }
        let len = self.text[prev..].chars().next().map_or(0, char::len_utf8);
        Some((prev, prev + len))
    }

    /// The next word's byte range and kind, with the token's offsets and position set.
    fn next_word(&mut self) -> Option<(usize, usize, WordKind)> {
        let bytes = self.text.as_bytes();
        while self.cursor < self.text.len() {
            // ASCII fast path: most of most vaults.
            let b = bytes[self.cursor];
            let (c, len) = if b < 0x80 {
                (b as char, 1)
            } else {
                let c = self.text[self.cursor..].chars().next()?;
                (c, c.len_utf8())
            };
            match class(c) {
                Class::Bigram => {
                    let here = self.cursor;
                    self.cursor += len;
                    if let Some(prev) = self.bigram_prev.replace(here) {
                        self.bigram_emitted = true;
                        return self.emit(prev, here + len, WordKind::Bigram);
                    }
                    self.bigram_emitted = false;
                }
                Class::Word => {
                    if let Some((from, to)) = self.flush_lone_char() {
                        return self.emit(from, to, WordKind::Bigram);
                    }
                    let start = self.cursor;
                    let mut end = start + len;
                    let mut ascii = len == 1;
                    while end < self.text.len() {
                        let b = bytes[end];
                        if b < 0x80 {
                            if !b.is_ascii_alphanumeric() {
                                break;
                            }
                            end += 1;
                        } else {
                            match self.text[end..].chars().next() {
                                Some(d) if class(d) == Class::Word => end += d.len_utf8(),
                                _ => break,
                            }
                            ascii = false;
                        }
                    }
                    self.cursor = end;
                    return self.emit(start, end, if ascii { WordKind::Ascii } else { WordKind::Other });
                }
                Class::Break => {
                    if let Some((from, to)) = self.flush_lone_char() {
                        return self.emit(from, to, WordKind::Bigram);
                    }
                    self.cursor += len;
                }
            }
        }
        let (from, to) = self.flush_lone_char()?;
        self.emit(from, to, WordKind::Bigram)
    }
}

impl TokenStream for ScriptTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let Some((from, to, _)) = self.next_word() else { return false };
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..to]);
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
#[path = "tokenizer_tests.rs"]
mod tests;
