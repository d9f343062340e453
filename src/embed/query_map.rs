//! Queries read by MiniLM into the static model's space.
//!
//! The static model was fitted to point each text at MiniLM's vector of it (projected on the
//! principal components of MiniLM's vectors), so the two models' vectors are related by a linear
//! map. A [`QueryMap`] is that map, fitted by least squares on passages embedded by both (MiniLM's
//! vector in, the static model's out). [`MiniLmQueries`] uses it: notes are embedded by the static
//! model (thousands of chunks a second), and only queries by MiniLM, whose one short text costs a
//! single forward pass, then read into the notes' space. A short query is where the static model
//! is weakest (a few tokens' rows, no context); a note's chunk averages many. On our query sets
//! this lifts the static vectors on paraphrases from 0.593 to 0.610 nDCG@10, and the default
//! fusion from 0.584 to 0.625 (BENCHMARKS.md, "MiniLM reads the queries").
//!
//! Saved as `.vaqm`: `VAQMP\x01`, a `u32` header length, the header (JSON: [`QueryMapHeader`]),
//! then `(inputs + 1) × outputs` little-endian `f32` (one row per input, the last the intercept).

use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::kernels::normalize;
use super::Embedder;
use crate::{Error, Result};

const MAGIC: &[u8; 6] = b"VAQMP\x01";

/// What a map file says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryMapHeader {
    /// The id of the embedder whose vectors go in (e.g. `minilm-l6-v2@128`).
    pub from: String,
    /// The id of the embedder whose space they come out in (the static model's).
    pub to: String,
    pub inputs: usize,
    pub outputs: usize,
    /// How it was made (for people).
    pub source: String,
}

/// A linear map from one embedder's vectors into another's space. See the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryMap {
    header: QueryMapHeader,
    /// `(inputs + 1) × outputs`, row-major: row `i` is input `i`'s weights, the last the intercept.
    weights: Vec<f32>,
}

impl QueryMap {
    /// Fits the map by ridge regression with an intercept: `pairs` are (input vector, output
    /// vector) of the same texts; `ridge` is the penalty per pair on the weights (not the
    /// intercept). Fails when there are fewer pairs than inputs or their lengths disagree.
    pub fn fit(header: QueryMapHeader, pairs: &[(Vec<f32>, Vec<f32>)], ridge: f64) -> Result<QueryMap> {
        let (n, k) = (header.inputs + 1, header.outputs);
        if pairs.len() < n || pairs.iter().any(|(x, y)| x.len() != header.inputs || y.len() != k) {
            return Err(Error::Invalid(format!(
                "a map of {} inputs needs at least {n} pairs of {} and {k} numbers",
                header.inputs, header.inputs
            )));
        }
        // The normal equations (XᵀX + λI) W = XᵀY, in f64, solved by Cholesky.
        let mut a = vec![0f64; n * n];
        let mut b = vec![0f64; n * k];
        let mut row = vec![0f64; n];
        for (x, y) in pairs {
            for (r, &v) in row.iter_mut().zip(x.iter().chain([&1.0])) {
                *r = f64::from(v);
            }
            for i in 0..n {
                let ri = row[i];
                for (cell, &rj) in a[i * n..][..=i].iter_mut().zip(&row) {
                    *cell += ri * rj;
                }
                for (cell, &yj) in b[i * k..][..k].iter_mut().zip(y) {
                    *cell += ri * f64::from(yj);
                }
            }
        }
        for i in 0..n - 1 {
            a[i * n + i] += ridge * pairs.len() as f64;
        }
        let lower = cholesky(&a, n).ok_or_else(|| Error::Invalid("the pairs do not determine a map".into()))?;
        // Per output: L z = b, then Lᵀ w = z, both in f64 (w rounded to f32 only once solved).
        let mut weights = vec![0f32; n * k];
        let (mut z, mut w) = (vec![0f64; n], vec![0f64; n]);
        for c in 0..k {
            for i in 0..n {
                let s = b[i * k + c] - (0..i).map(|m| lower[i * n + m] * z[m]).sum::<f64>();
                z[i] = s / lower[i * n + i];
            }
            for i in (0..n).rev() {
                let s = z[i] - (i + 1..n).map(|m| lower[m * n + i] * w[m]).sum::<f64>();
                w[i] = s / lower[i * n + i];
            }
            for (i, &v) in w.iter().enumerate() {
                weights[i * k + c] = v as f32;
            }
        }
        Ok(QueryMap { header, weights })
    }

    /// What the file says about itself.
    pub fn header(&self) -> &QueryMapHeader {
        &self.header
    }

    /// `vector` (of [`QueryMapHeader::inputs`]) read into the output space, unit length.
    pub fn apply(&self, vector: &[f32]) -> Vec<f32> {
        let k = self.header.outputs;
        let mut out = self.weights[self.header.inputs * k..].to_vec();
        for (&x, row) in vector.iter().zip(self.weights.chunks_exact(k)) {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
        normalize(&mut out);
        out
    }

    /// The file's bytes (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = serde_json::to_vec(&self.header).unwrap_or_default();
        let mut out = Vec::with_capacity(10 + header.len() + 4 * self.weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        out.extend(self.weights.iter().flat_map(|w| w.to_le_bytes()));
        out
    }

    /// Reads a map file. Fails on anything but a whole, well-formed one.
    pub fn from_bytes(bytes: &[u8]) -> Result<QueryMap> {
        let bad = |why: &str| Error::Invalid(format!("not a query map: {why}"));
        let rest = bytes.strip_prefix(MAGIC).ok_or_else(|| bad("wrong magic"))?;
        let (len, rest) = rest.split_first_chunk::<4>().ok_or_else(|| bad("no header"))?;
        let len = u32::from_le_bytes(*len) as usize;
        let header = rest.get(..len).ok_or_else(|| bad("header cut short"))?;
        let header: QueryMapHeader = serde_json::from_slice(header).map_err(|e| bad(&e.to_string()))?;
        let count = (header.inputs + 1).checked_mul(header.outputs).ok_or_else(|| bad("sizes overflow"))?;
        let data = &rest[len..];
        if header.outputs == 0 || data.len() != count * 4 {
            return Err(bad("the weights do not match the header"));
        }
        let weights = data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Ok(QueryMap { header, weights })
    }
}

/// The lower Cholesky factor of the symmetric positive definite `n × n` matrix whose lower
/// triangle `a` holds; `None` when it is not positive definite.
fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    let mut l = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..=i {
            let s = a[i * n + j] - (0..j).map(|m| l[i * n + m] * l[j * n + m]).sum::<f64>();
            if i == j {
                if s <= 0.0 || !s.is_finite() {
                    return None;
                }
                l[i * n + i] = s.sqrt();
            } else {
                l[i * n + j] = s / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// An embedder in the static model's space whose notes are embedded by the static model and
/// whose queries by MiniLM, read in through a [`QueryMap`]. Its id is the static model's, so the
/// vectors it makes and those the static model made are the same vectors. See the module docs.
pub struct MiniLmQueries {
    notes: Rc<dyn Embedder>,
    queries: Rc<dyn Embedder>,
    map: QueryMap,
}

impl MiniLmQueries {
    /// Fails unless `map` reads `queries`' vectors into `notes`' space.
    pub fn new(notes: Rc<dyn Embedder>, queries: Rc<dyn Embedder>, map: QueryMap) -> Result<MiniLmQueries> {
        let h = map.header();
        if h.from != queries.id() || h.to != notes.id() || h.inputs != queries.dimensions() {
            return Err(Error::Invalid(format!(
                "the query map reads {} into {}, not {} into {}",
                h.from,
                h.to,
                queries.id(),
                notes.id()
            )));
        }
        Ok(MiniLmQueries { notes, queries, map })
    }
}

#[async_trait(?Send)]
impl Embedder for MiniLmQueries {
    fn id(&self) -> &str {
        self.notes.id()
    }

    fn dimensions(&self) -> usize {
        self.notes.dimensions()
    }

    fn batch_size(&self) -> usize {
        self.notes.batch_size()
    }

    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.notes.embed(texts).await
    }

    async fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.map.apply(&self.queries.embed_query(text).await?))
    }
}
