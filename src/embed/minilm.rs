//! all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT) run in plain Rust: the transformer forward pass,
//! mean pooling over the real tokens and L2 normalisation — what sentence-transformers does with
//! the same files (`model.safetensors`, `vocab.txt`, `config.json`).
//!
//! No padding: the sequences of a batch are packed one after another, so the dense layers (the
//! bulk of the work) run over all their tokens at once and attention runs per sequence. Mean
//! pooling then covers exactly the real tokens, which is what pooling "with the attention mask"
//! means for a padded batch.

use std::collections::HashMap;

use async_trait::async_trait;
use serde::Deserialize;

use super::kernels::{gelu, layer_norm, linear, normalize, quantize_i8, softmax};
use super::wordpiece::WordPiece;
use super::Embedder;
use crate::{Error, Result};

/// The files the model is made of, as they sit in `.obsidian-agent/models/<name>/`.
pub const MINILM_FILES: [&str; 3] = ["model.safetensors", "vocab.txt", "config.json"];

/// The model's shape (`config.json`).
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f32,
    pub max_position_embeddings: usize,
}

fn default_eps() -> f32 {
    1e-12
}

struct Layer {
    q_w: Vec<f32>,
    q_b: Vec<f32>,
    k_w: Vec<f32>,
    k_b: Vec<f32>,
    v_w: Vec<f32>,
    v_b: Vec<f32>,
    o_w: Vec<f32>,
    o_b: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    i_w: Vec<f32>,
    i_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
}

/// A loaded MiniLM sentence embedder.
pub struct MiniLm {
    config: BertConfig,
    vocab: WordPiece,
    word: TokenRows,
    position: Vec<f32>,
    token_type: Vec<f32>,
    ln_g: Vec<f32>,
    ln_b: Vec<f32>,
    layers: Vec<Layer>,
    max_tokens: usize,
    id: String,
}

/// The token embedding table as int8 codes with one scale per row: a quarter of f32's memory
/// (11.7 MB for MiniLM's 30,522 × 384 instead of 46.9 MB), of which a text reads a few hundred
/// rows. Rounding a row to 127 steps of its largest value moves the sentence vectors by less
/// than the reference test's tolerance (`minilm_matches_sentence_transformers`).
struct TokenRows {
    codes: Vec<i8>,
    scales: Vec<f32>,
}

/// The name of the tensor read as [`TokenRows`].
const TOKEN_TABLE: &str = "embeddings.word_embeddings.weight";

/// Reads `len` bytes of a file from `offset` into a buffer: how a model file is read without
/// holding all of it at once (in a worker, the file is a JS buffer outside the wasm memory).
pub type ReadAt<'a> = dyn FnMut(usize, &mut [u8]) -> Result<()> + 'a;

/// The tensors of a `.safetensors` file of `len` bytes, as f32 (only F32 tensors are read), but
/// [`TOKEN_TABLE`], read as [`TokenRows`] of `width` as it streams in (so its f32 copy never
/// exists). The file is read through `read_at` a window at a time, so loading holds the tensors
/// and one window, not a second copy of the file.
fn read_safetensors(len: usize, read_at: &mut ReadAt, width: usize) -> Result<(HashMap<String, Vec<f32>>, TokenRows)> {
    #[derive(Deserialize)]
    struct Entry {
        dtype: String,
        data_offsets: [usize; 2],
    }
    const WINDOW: usize = 1 << 16;
    let bad = |why: &str| Error::Invalid(format!("not a safetensors file: {why}"));
    if len < 8 {
        return Err(bad("too short"));
    }
    let mut len_bytes = [0u8; 8];
    read_at(0, &mut len_bytes)?;
    let header_len = u64::from_le_bytes(len_bytes) as usize;
    let data_start = header_len.checked_add(8).filter(|&end| end <= len).ok_or_else(|| bad("header cut short"))?;
    let mut header = vec![0u8; header_len];
    read_at(8, &mut header)?;
    let entries: HashMap<String, serde_json::Value> =
        serde_json::from_slice(&header).map_err(|e| bad(&e.to_string()))?;
    let mut out = HashMap::new();
    let mut rows = TokenRows { codes: Vec::new(), scales: Vec::new() };
    let mut row: Vec<f32> = Vec::with_capacity(width);
    let mut window = vec![0u8; WINDOW];
    for (name, value) in entries {
        if name == "__metadata__" {
            continue;
        }
        let entry: Entry = serde_json::from_value(value).map_err(|e| bad(&e.to_string()))?;
        if entry.dtype != "F32" {
            continue;
        }
        let [from, to] = entry.data_offsets;
        if from > to || to > len - data_start || (to - from) % 4 != 0 {
            return Err(bad(&format!("{name} lies outside the file")));
        }
        let table = name == TOKEN_TABLE;
        if table && (width == 0 || (to - from) % (4 * width) != 0) {
            return Err(bad(&format!("{name} is not rows of {width}")));
        }
        let mut tensor = Vec::with_capacity(if table { 0 } else { (to - from) / 4 });
        let mut at = from;
        while at < to {
            let n = (to - at).min(WINDOW);
            read_at(data_start + at, &mut window[..n])?;
            let values = window[..n].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
            if table {
                for v in values {
                    row.push(v);
                    if row.len() == width {
                        let (codes, scale) = quantize_i8(&row);
                        rows.codes.extend(codes);
                        rows.scales.push(scale);
                        row.clear();
                    }
                }
            } else {
                tensor.extend(values);
            }
            at += n;
        }
        if !table {
            out.insert(name, tensor);
        }
    }
    Ok((out, rows))
}

/// [`ReadAt`] over bytes in memory.
fn read_from(bytes: &[u8]) -> impl FnMut(usize, &mut [u8]) -> Result<()> + '_ {
    move |offset, buf| {
        let src = offset.checked_add(buf.len()).and_then(|end| bytes.get(offset..end));
        buf.copy_from_slice(src.ok_or_else(|| Error::Invalid("not a safetensors file: cut short".into()))?);
        Ok(())
    }
}

impl MiniLm {
    /// Loads the model from its files' contents. `max_tokens` caps each input (with `[CLS]` and
    /// `[SEP]`); longer texts are cut, as sentence-transformers does at 256.
    pub fn load(safetensors: &[u8], vocab: &str, config: &str, max_tokens: usize) -> Result<MiniLm> {
        Self::load_from(safetensors.len(), &mut read_from(safetensors), vocab, config, max_tokens)
    }

    /// [`MiniLm::load`] from a folder holding `model.safetensors`, `vocab.txt` and
    /// `config.json` (the CLI, benchmarks and tests; the plugin reads them through its vault).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_dir(dir: &std::path::Path, max_tokens: usize) -> Result<MiniLm> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| Error::Io {
                op: "read",
                path: path.display().to_string(),
                message: e.to_string(),
            })
        };
        let text =
            |name: &str| String::from_utf8(read(name)?).map_err(|_| Error::Invalid(format!("{name} is not UTF-8")));
        Self::load(&read("model.safetensors")?, &text("vocab.txt")?, &text("config.json")?, max_tokens)
    }

    /// [`MiniLm::load`] with `model.safetensors` (`len` bytes) read through `read_at`.
    pub fn load_from(len: usize, read_at: &mut ReadAt, vocab: &str, config: &str, max_tokens: usize) -> Result<MiniLm> {
        let config: BertConfig =
            serde_json::from_str(config).map_err(|e| Error::Invalid(format!("config.json: {e}")))?;
        let (mut tensors, word) = read_safetensors(len, read_at, config.hidden_size)?;
        if word.scales.is_empty() {
            return Err(Error::Invalid(format!("model.safetensors has no tensor {TOKEN_TABLE}")));
        }
        let mut take = |name: &str| {
            tensors.remove(name).ok_or_else(|| Error::Invalid(format!("model.safetensors has no tensor {name}")))
        };
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for l in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            layers.push(Layer {
                q_w: take(&format!("{p}attention.self.query.weight"))?,
                q_b: take(&format!("{p}attention.self.query.bias"))?,
                k_w: take(&format!("{p}attention.self.key.weight"))?,
                k_b: take(&format!("{p}attention.self.key.bias"))?,
                v_w: take(&format!("{p}attention.self.value.weight"))?,
                v_b: take(&format!("{p}attention.self.value.bias"))?,
                o_w: take(&format!("{p}attention.output.dense.weight"))?,
                o_b: take(&format!("{p}attention.output.dense.bias"))?,
                ln1_g: take(&format!("{p}attention.output.LayerNorm.weight"))?,
                ln1_b: take(&format!("{p}attention.output.LayerNorm.bias"))?,
                i_w: take(&format!("{p}intermediate.dense.weight"))?,
                i_b: take(&format!("{p}intermediate.dense.bias"))?,
                out_w: take(&format!("{p}output.dense.weight"))?,
                out_b: take(&format!("{p}output.dense.bias"))?,
                ln2_g: take(&format!("{p}output.LayerNorm.weight"))?,
                ln2_b: take(&format!("{p}output.LayerNorm.bias"))?,
            });
        }
        let model = MiniLm {
            word,
            position: take("embeddings.position_embeddings.weight")?,
            token_type: take("embeddings.token_type_embeddings.weight")?,
            ln_g: take("embeddings.LayerNorm.weight")?,
            ln_b: take("embeddings.LayerNorm.bias")?,
            layers,
            vocab: WordPiece::from_vocab(vocab)?,
            max_tokens: max_tokens.clamp(3, config.max_position_embeddings),
            id: format!("minilm-l6-v2@{max_tokens}"),
            config,
        };
        if model.word.scales.len() != model.vocab.len() {
            return Err(Error::Invalid("the vocabulary does not match the model's embedding table".into()));
        }
        Ok(model)
    }

    /// The tokenizer.
    pub fn vocab(&self) -> &WordPiece {
        &self.vocab
    }

    /// The longest input, in tokens.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Embeds already-tokenized sequences (each with `[CLS]`/`[SEP]`): mean pooled, unit length.
    pub fn embed_ids(&self, sequences: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let mut out = self.embed_ids_unnormalized(sequences);
        out.iter_mut().for_each(|v| normalize(v));
        out
    }

    /// The mean-pooled outputs before normalisation (what distillation starts from).
    pub fn embed_ids_unnormalized(&self, sequences: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let h = self.config.hidden_size;
        let lens: Vec<usize> = sequences.iter().map(Vec::len).collect();
        let total: usize = lens.iter().sum();
        let mut x = vec![0f32; total * h];
        let mut row = 0;
        for seq in sequences {
            for (pos, &id) in seq.iter().enumerate() {
                let out = &mut x[row * h..(row + 1) * h];
                let (word, scale) = (&self.word.codes[id as usize * h..][..h], self.word.scales[id as usize]);
                let position = &self.position[pos.min(self.config.max_position_embeddings - 1) * h..][..h];
                for i in 0..h {
                    out[i] = f32::from(word[i]) * scale + position[i] + self.token_type[i];
                }
                row += 1;
            }
        }
        let eps = self.config.layer_norm_eps;
        layer_norm(&mut x, h, &self.ln_g, &self.ln_b, eps);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(layer, &mut x, &lens, &mut scratch);
        }
        let mut out = Vec::with_capacity(sequences.len());
        let mut start = 0;
        for &len in &lens {
            let mut pooled = vec![0f32; h];
            for r in start..start + len {
                for (p, v) in pooled.iter_mut().zip(&x[r * h..(r + 1) * h]) {
                    *p += v;
                }
            }
            pooled.iter_mut().for_each(|p| *p /= len.max(1) as f32);
            out.push(pooled);
            start += len;
        }
        out
    }

    fn layer(&self, layer: &Layer, x: &mut [f32], lens: &[usize], s: &mut Scratch) {
        let h = self.config.hidden_size;
        let heads = self.config.num_attention_heads;
        let d = h / heads;
        let rows = x.len() / h;
        linear(x, rows, &layer.q_w, &layer.q_b, &mut s.q);
        linear(x, rows, &layer.k_w, &layer.k_b, &mut s.k);
        linear(x, rows, &layer.v_w, &layer.v_b, &mut s.v);
        s.ctx.clear();
        s.ctx.resize(rows * h, 0.0);
        let scale = 1.0 / (d as f32).sqrt();
        let mut start = 0;
        for &len in lens {
            for head in 0..heads {
                let off = head * d;
                // Gather this head's keys and values contiguously, so each score is one dot.
                s.kh.clear();
                s.vh.clear();
                for t in start..start + len {
                    s.kh.extend_from_slice(&s.k[t * h + off..][..d]);
                    s.vh.extend_from_slice(&s.v[t * h + off..][..d]);
                }
                for t in start..start + len {
                    let q = &s.q[t * h + off..][..d];
                    s.scores.clear();
                    s.scores.extend(s.kh.chunks_exact(d).map(|k| super::kernels::dot(q, k) * scale));
                    softmax(&mut s.scores);
                    let ctx = &mut s.ctx[t * h + off..][..d];
                    for (p, v) in s.scores.iter().zip(s.vh.chunks_exact(d)) {
                        for i in 0..d {
                            ctx[i] += p * v[i];
                        }
                    }
                }
            }
            start += len;
        }
        linear(&s.ctx, rows, &layer.o_w, &layer.o_b, &mut s.tmp);
        for (a, b) in x.iter_mut().zip(&s.tmp) {
            *a += b;
        }
        layer_norm(x, h, &layer.ln1_g, &layer.ln1_b, self.config.layer_norm_eps);
        linear(x, rows, &layer.i_w, &layer.i_b, &mut s.inter);
        gelu(&mut s.inter);
        linear(&s.inter, rows, &layer.out_w, &layer.out_b, &mut s.tmp);
        for (a, b) in x.iter_mut().zip(&s.tmp) {
            *a += b;
        }
        layer_norm(x, h, &layer.ln2_g, &layer.ln2_b, self.config.layer_norm_eps);
    }

    /// Embeds texts synchronously (what [`Embedder::embed`] does).
    pub fn embed_texts(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| self.vocab.encode(t, self.max_tokens)).collect();
        self.embed_ids(&ids)
    }
}

#[derive(Default)]
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    kh: Vec<f32>,
    vh: Vec<f32>,
    scores: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    inter: Vec<f32>,
}

#[async_trait(?Send)]
impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimensions(&self) -> usize {
        self.config.hidden_size
    }

    fn batch_size(&self) -> usize {
        8
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(self.embed_texts(texts))
    }
}
