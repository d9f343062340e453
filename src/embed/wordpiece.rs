//! BERT's uncased WordPiece tokenizer, as all-MiniLM-L6-v2's `tokenizer.json` configures it:
//! clean the text, space out CJK ideographs, lowercase and strip accents, split at whitespace
//! and punctuation, then cut each word into the longest vocabulary pieces (`##` marks a piece
//! inside a word). No padding: a sequence is as long as its text (the packaged tokenizer pads to
//! 128, which would dilute mean pooling unless masked).
//!
//! Written here rather than taken from the `tokenizers` crate: it is the one tokenizer both local
//! embedders need, about 150 lines, and adds nothing heavy to the wasm.

use std::collections::HashMap;

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

use crate::{Error, Result};

/// Words longer than this (in characters) become `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary and the ids of its special tokens.
#[derive(Debug, Clone)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    tokens: Vec<String>,
    pub cls: u32,
    pub sep: u32,
    pub unk: u32,
}

impl WordPiece {
    /// Reads `vocab.txt`: one token per line, the line number is the id.
    pub fn from_vocab(vocab: &str) -> Result<WordPiece> {
        let tokens: Vec<String> = vocab.lines().map(|l| l.trim_end_matches('\r').to_string()).collect();
        let ids: HashMap<String, u32> = tokens.iter().enumerate().map(|(i, t)| (t.clone(), i as u32)).collect();
        let special = |name: &str| {
            ids.get(name).copied().ok_or_else(|| Error::Invalid(format!("the vocabulary has no {name} token")))
        };
        Ok(WordPiece { cls: special("[CLS]")?, sep: special("[SEP]")?, unk: special("[UNK]")?, ids, tokens })
    }

    /// The number of tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the vocabulary is empty (never, once built: it has the special tokens).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The token with `id`.
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// The vocabulary in id order (`vocab.txt`'s lines).
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The ids of `text`'s pieces, without `[CLS]`/`[SEP]`, at most `limit` of them.
    pub fn pieces(&self, text: &str, limit: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for word in pre_tokenize(&normalize(text)) {
            if out.len() >= limit {
                break;
            }
            self.word_pieces(&word, &mut out);
        }
        out.truncate(limit);
        out
    }

    /// `[CLS] pieces [SEP]`, at most `max_len` ids in all (the text is cut, as BERT truncates).
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let mut ids = Vec::with_capacity(max_len.min(512));
        ids.push(self.cls);
        ids.extend(self.pieces(text, max_len.saturating_sub(2)));
        ids.push(self.sep);
        ids
    }

    fn word_pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut candidate = String::with_capacity(word.len() + 2);
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(candidate.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => pieces.push(id),
                None => {
                    // One piece that is not in the vocabulary makes the whole word unknown.
                    out.push(self.unk);
                    return;
                }
            }
            start = end;
        }
        out.extend(pieces);
    }
}

/// BertNormalizer: drop NUL, U+FFFD and control characters, whitespace becomes a space, CJK
/// ideographs are spaced out, then lowercase and strip accents (NFD without combining marks).
pub(crate) fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let lower = cleaned.to_lowercase();
    lower.nfd().filter(|c| get_general_category(*c) != GeneralCategory::NonspacingMark).collect()
}

/// BertPreTokenizer: words split at whitespace, and every punctuation character on its own.
pub(crate) fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else if is_punctuation(c) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            words.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r') || get_general_category(c) == GeneralCategory::SpaceSeparator
}

fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
    )
}

fn is_punctuation(c: char) -> bool {
    let u = c as u32;
    if (33..=47).contains(&u) || (58..=64).contains(&u) || (91..=96).contains(&u) || (123..=126).contains(&u) {
        return true;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let words = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nthe\ncafe\n,\n京\n都\nhello";
        WordPiece::from_vocab(words).unwrap()
    }

    #[test]
    fn longest_pieces_first_and_unknown_words_whole() {
        let v = vocab();
        assert_eq!(v.pieces("unaffable", 10), vec![4, 5, 6]);
        assert_eq!(v.pieces("The Café, 京都", 10), vec![7, 8, 9, 10, 11]);
        assert_eq!(v.pieces("unknownword hello", 10), vec![1, 12]);
        assert_eq!(v.encode("hello hello hello", 4), vec![2, 12, 12, 3]);
    }

    #[test]
    fn normalisation_strips_accents_controls_and_spaces_out_ideographs() {
        assert_eq!(normalize("Ça\u{0}va\tÉTÉ"), "cava ete");
        assert_eq!(pre_tokenize(&normalize("京都 (Kyoto)!")), vec!["京", "都", "(", "kyoto", ")", "!"]);
    }
}
