//! A static (model2vec-style) embedder: one vector per WordPiece token, distilled from
//! all-MiniLM-L6-v2 (see [`super::distill`]). A text's vector is the mean of its tokens' rows,
//! normalised. No transformer runs, so it embeds thousands of chunks per second in wasm.
//!
//! File layout (`.obsidian-agent/models/<name>.vam`), little-endian:
//! `VASTM\x01`, `u32` header length, the header (JSON: [`StaticHeader`]), `u32` vocabulary length
//! and the vocabulary (`vocab.txt`'s lines), then per token an `f32` scale, then per token
//! `dimensions` int8 codes (row `t` ≈ codes·scale, the token's weight folded into the scale).

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::kernels::tail_as_i8;
use super::wordpiece::WordPiece;
use super::Embedder;
use crate::{Error, Result};

const MAGIC: &[u8; 6] = b"VASTM\x01";

/// What a static model file says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StaticHeader {
    /// The embedder id vectors made with it are stored under (cache invalidation).
    pub id: String,
    pub dimensions: usize,
    pub tokens: usize,
    /// Where the rows came from and how they were made (for people).
    pub source: String,
}

/// A loaded static embedder.
pub struct StaticEmbedder {
    header: StaticHeader,
    vocab: WordPiece,
    scales: Vec<f32>,
    codes: Vec<i8>,
    max_tokens: usize,
}

impl StaticEmbedder {
    /// Builds the embedder from rows already weighted (the distiller's output).
    pub fn from_rows(header: StaticHeader, vocab: WordPiece, rows: &[Vec<f32>]) -> Result<StaticEmbedder> {
        if rows.len() != vocab.len() || rows.iter().any(|r| r.len() != header.dimensions) {
            return Err(Error::Invalid("one row of the right width per vocabulary token is needed".into()));
        }
        let mut scales = Vec::with_capacity(rows.len());
        let mut codes = Vec::with_capacity(rows.len() * header.dimensions);
        for row in rows {
            let (q, scale) = super::kernels::quantize_i8(row);
            scales.push(scale);
            codes.extend(q);
        }
        Ok(StaticEmbedder { header, vocab, scales, codes, max_tokens: 512 })
    }

    /// Reads a model file.
    pub fn from_bytes(bytes: &[u8]) -> Result<StaticEmbedder> {
        StaticEmbedder::from_vec(bytes.to_vec())
    }

    /// [`StaticEmbedder::from_bytes`], taking the bytes: the rows, the file's tail, keep their
    /// allocation, so loading the model holds it once, not the file and a copy of its rows.
    pub fn from_vec(bytes: Vec<u8>) -> Result<StaticEmbedder> {
        let (header, vocab, scales, codes_at) = StaticEmbedder::parse(&bytes)?;
        let codes = tail_as_i8(bytes, codes_at);
        Ok(StaticEmbedder { header, vocab, scales, codes, max_tokens: 512 })
    }

    /// Checks the file and reads all but its rows, which start at the returned offset and run
    /// to its end.
    fn parse(bytes: &[u8]) -> Result<(StaticHeader, WordPiece, Vec<f32>, usize)> {
        let bad = |why: &str| Error::Invalid(format!("not a static embedding model: {why}"));
        let mut r = Reader { bytes, at: 0 };
        if r.take(MAGIC.len()).ok_or_else(|| bad("too short"))? != MAGIC {
            return Err(bad("wrong magic"));
        }
        let header_len = r.u32().ok_or_else(|| bad("no header"))? as usize;
        let header: StaticHeader = serde_json::from_slice(r.take(header_len).ok_or_else(|| bad("header cut short"))?)
            .map_err(|e| bad(&e.to_string()))?;
        let vocab_len = r.u32().ok_or_else(|| bad("no vocabulary"))? as usize;
        let vocab_text = std::str::from_utf8(r.take(vocab_len).ok_or_else(|| bad("vocabulary cut short"))?)
            .map_err(|_| bad("the vocabulary is not UTF-8"))?;
        let vocab = WordPiece::from_vocab(vocab_text)?;
        if vocab.len() != header.tokens {
            return Err(bad("the vocabulary and the header disagree"));
        }
        // An empty line is no token, and `to_bytes` could not write it back (found by fuzzing).
        if vocab.tokens().iter().any(String::is_empty) {
            return Err(bad("the vocabulary has an empty token"));
        }
        let scales = r.take(4 * header.tokens).ok_or_else(|| bad("scales cut short"))?;
        let scales = scales.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let rows_len =
            header.tokens.checked_mul(header.dimensions).ok_or_else(|| bad("the header's sizes overflow"))?;
        let codes_at = r.at;
        r.take(rows_len).ok_or_else(|| bad("rows cut short"))?;
        if r.at != bytes.len() {
            return Err(bad("trailing bytes"));
        }
        Ok((header, vocab, scales, codes_at))
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).unwrap_or_default();
        let vocab = self.vocab.tokens().join("\n");
        let mut out = Vec::with_capacity(self.codes.len() + 4 * self.scales.len() + vocab.len() + 64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
        out.extend_from_slice(vocab.as_bytes());
        for s in &self.scales {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend(self.codes.iter().map(|&c| c as u8));
        out
    }

    /// What the file says about itself.
    pub fn header(&self) -> &StaticHeader {
        &self.header
    }

    /// Embeds one text: the normalised mean of its tokens' rows (a text without any token is the
    /// zero vector, which matches nothing).
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let d = self.header.dimensions;
        let mut sum = vec![0f32; d];
        for id in self.vocab.pieces(text, self.max_tokens) {
            let (scale, row) = (self.scales[id as usize], &self.codes[id as usize * d..][..d]);
            for (s, &c) in sum.iter_mut().zip(row) {
                *s += scale * f32::from(c);
            }
        }
        super::kernels::normalize(&mut sum);
        sum
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[async_trait(?Send)]
impl Embedder for StaticEmbedder {
    fn id(&self) -> &str {
        &self.header.id
    }

    fn dimensions(&self) -> usize {
        self.header.dimensions
    }

    fn batch_size(&self) -> usize {
        64
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.embed_one(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> StaticEmbedder {
        let vocab = WordPiece::from_vocab("[PAD]\n[UNK]\n[CLS]\n[SEP]\nbread\nflour\nrocket").unwrap();
        let rows = vec![
            vec![0.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![0.0, 0.0, 0.0],
            vec![1.0, 0.2, 0.0],
            vec![0.9, 0.3, 0.0],
            vec![0.0, 0.1, 1.0],
        ];
        let header = StaticHeader { id: "test".into(), dimensions: 3, tokens: 7, source: "hand".into() };
        StaticEmbedder::from_rows(header, vocab, &rows).unwrap()
    }

    #[test]
    fn round_trips_through_bytes_and_embeds_by_meaning() {
        let m = model();
        let again = StaticEmbedder::from_bytes(&m.to_bytes()).unwrap();
        assert_eq!(again.header(), m.header());
        let bread = again.embed_one("Bread");
        let flour = again.embed_one("flour");
        let rocket = again.embed_one("rocket");
        let cos = |a: &[f32], b: &[f32]| super::super::kernels::dot(a, b);
        assert!(cos(&bread, &flour) > 0.9 && cos(&bread, &rocket) < 0.2);
        assert_eq!(again.embed_one("zzz"), vec![0.0; 3]);
    }

    #[test]
    fn loading_makes_the_read_bytes_the_rows_instead_of_copying_them() {
        let bytes = model().to_bytes();
        let read_at = bytes.as_ptr() as usize;
        let loaded = StaticEmbedder::from_vec(bytes).unwrap();
        assert_eq!(loaded.codes.as_ptr() as usize, read_at);
        assert_eq!(loaded.codes, model().codes);
        assert_eq!(loaded.to_bytes(), model().to_bytes());
    }

    #[test]
    fn damaged_files_are_refused() {
        let bytes = model().to_bytes();
        assert!(StaticEmbedder::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(StaticEmbedder::from_bytes(b"VASTM\x02").is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(StaticEmbedder::from_bytes(&longer).is_err());
    }

    /// Found by the fuzzer (tests/fuzz.rs, `static_model`): a vocabulary ending in an empty line
    /// was read as one more token, which `to_bytes` then dropped, so the saved model no longer
    /// loaded. And a header whose sizes overflow is refused, not a panic.
    #[test]
    fn an_empty_token_or_overflowing_sizes_are_refused() {
        let with = |header: &str, vocab: &str, rest: usize| {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
            bytes.extend_from_slice(header.as_bytes());
            bytes.extend_from_slice(&(vocab.len() as u32).to_le_bytes());
            bytes.extend_from_slice(vocab.as_bytes());
            bytes.extend(std::iter::repeat_n(0u8, rest));
            StaticEmbedder::from_bytes(&bytes)
        };
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n\n";
        let header = r#"{"id":"t","dimensions":1,"tokens":5,"source":"s"}"#;
        let error = with(header, vocab, 5 * 4 + 5).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("empty token"), "{error}");
        let header = r#"{"id":"t","dimensions":18446744073709551615,"tokens":4,"source":"s"}"#;
        let error = with(header, "[PAD]\n[UNK]\n[CLS]\n[SEP]", 16).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("overflow"), "{error}");
        assert!(with(r#"{"id":"t","dimensions":1,"tokens":4,"source":"s"}"#, "[PAD]\n[UNK]\n[CLS]\n[SEP]", 20).is_ok());
    }
}
