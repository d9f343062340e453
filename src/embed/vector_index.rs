//! [`VectorIndex`]: one unit vector per chunk, kept per note with the note's content hash (so only
//! changed notes are embedded again). A search scores live rows against the query (a dot product
//! per row, vectorised), each note keeps its best chunk, and the top `k` notes are selected. Up
//! to [`SKETCHED_ABOVE`] live rows every row is scored; above it a first pass ranks every row by
//! its [`SignSketch`] (one bit per dimension, about a tenth of the work) and only the best
//! [`RESCORED`] are scored exactly.
//!
//! Rows are stored as `f32`, or as int8 codes with one scale per row ([`Precision::Int8`]: a
//! quarter of the memory; scores are exact integer dot products times the two scales).
//! Replacing or removing a note leaves dead rows behind, dropped when they pass a quarter of all
//! rows and whenever the index is saved.
//!
//! Saved as `.obsidian-agent/index/vectors.bin`: `VAVEC\x01`, a `u32` header length, the header
//! (JSON: format, embedder id, dimensions, precision, per note its path, hash, mtime, row count
//! and chunk headings, and the xxh3 of the data), then the rows (f32, or the scales followed by
//! the codes), little-endian.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::kernels::{dot, dot_i8, quantize_i8, tail_as_i8};
use super::sign_sketch::SignSketch;
use crate::vault::{read_atomic, write_atomic, Vault, VaultPath};
use crate::{Error, Result};

const MAGIC: &[u8; 6] = b"VAVEC\x01";
/// The persisted layout's version, also bumped when the chunks change (2: the frontmatter's prose
/// became a chunk of its own), so vectors of other chunks are embedded again.
pub const VECTORS_FORMAT: u32 = 2;
/// Where the vectors are saved.
pub const VECTORS_FILE: &str = ".obsidian-agent/index/vectors.bin";

/// Above this many live rows a search ranks rows by their sketch first (below it, scoring every
/// row exactly costs about as little).
pub const SKETCHED_ABOVE: usize = 8192;
/// How many rows the sketch passes on to be scored exactly.
pub const RESCORED: usize = 2048;

/// How rows are stored. Int8 is the default: a quarter of the memory and of the saved file, the
/// same retrieval quality on our query sets, and the fastest scoring in the browser
/// (BENCHMARKS.md). An index keeps the precision it was saved with until it is rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    F32,
    #[default]
    Int8,
}

/// What the index holds for one note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoteVectors {
    /// The content hash of the text the vectors were made from.
    pub hash: String,
    pub mtime: u64,
    /// Each chunk's heading path, in row order.
    pub headings: Vec<Option<String>>,
    #[serde(skip)]
    rows: Vec<u32>,
}

/// A note found by meaning: its best chunk's cosine similarity and that chunk's heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorHit {
    pub path: String,
    pub score: f32,
    pub heading: Option<String>,
}

/// The notes one query's scan scored: each note's best chunk's score, slot and row.
pub struct Nearest<'a> {
    index: &'a VectorIndex,
    scored: Vec<(f32, u32, u32)>,
}

/// One of [`Nearest`]'s notes, not yet copied out: its path, its best chunk's score, and
/// where that chunk is ([`Nearest::hit`]).
#[derive(Debug, Clone, Copy)]
pub struct Near<'a> {
    pub path: &'a str,
    pub score: f32,
    row: u32,
}

impl<'a> Nearest<'a> {
    /// The `k` best, best first (ties by path); asked again with a larger `k`, the same list
    /// longer.
    pub fn top(&mut self, k: usize) -> Vec<VectorHit> {
        self.top_near(k).into_iter().map(|near| self.hit(near)).collect()
    }

    /// [`Nearest::top`] without copying the notes' paths and headings.
    pub fn top_near(&mut self, k: usize) -> Vec<Near<'a>> {
        let index = self.index;
        let by_score = |a: &(f32, u32, u32), b: &(f32, u32, u32)| {
            b.0.total_cmp(&a.0).then_with(|| index.slots[a.1 as usize].cmp(&index.slots[b.1 as usize]))
        };
        let ranked = &mut self.scored;
        let k = k.min(ranked.len());
        if k == 0 {
            return Vec::new();
        }
        if ranked.len() > k {
            ranked.select_nth_unstable_by(k - 1, by_score);
        }
        crate::sort::sort_by(&mut ranked[..k], by_score);
        ranked[..k]
            .iter()
            .map(|&(score, slot, row)| Near { path: index.slots[slot as usize].as_str(), score, row })
            .collect()
    }

    /// `near` as a hit (with `near.score`, which the caller may have changed).
    pub fn hit(&self, near: Near<'_>) -> VectorHit {
        let index = self.index;
        let heading = index
            .notes
            .get(near.path)
            .and_then(|n| n.headings.get(index.chunk[near.row as usize] as usize).cloned().flatten());
        VectorHit { path: near.path.to_string(), score: near.score, heading }
    }
}

/// The vectors of a vault's chunks. See the module docs.
#[derive(Debug, Clone)]
pub struct VectorIndex {
    embedder: String,
    dims: usize,
    precision: Precision,
    notes: BTreeMap<String, NoteVectors>,
    /// Row → slot in `slots` (the owning note), `u32::MAX` when dead.
    owner: Vec<u32>,
    /// Row → chunk index within its note.
    chunk: Vec<u32>,
    slots: Vec<String>,
    floats: Vec<f32>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    dead: usize,
    /// Made by [`VectorIndex::prepare`] or the first search that needs it, then grown row by row.
    sketch: OnceLock<SignSketch>,
}

#[derive(Deserialize)]
struct Header {
    format: u32,
    embedder: String,
    dims: usize,
    precision: Precision,
    rows: usize,
    notes: BTreeMap<String, NoteVectors>,
    counts: Vec<(String, u32)>,
    xxh3: String,
}

/// [`Header`] as it is written, borrowing from the index.
#[derive(Serialize)]
struct HeaderRef<'a> {
    format: u32,
    embedder: &'a str,
    dims: usize,
    precision: Precision,
    rows: usize,
    notes: &'a BTreeMap<String, NoteVectors>,
    counts: Vec<(&'a str, u32)>,
    xxh3: String,
}

impl VectorIndex {
    /// An empty index for vectors of `embedder` with `dims` dimensions.
    pub fn new(embedder: impl Into<String>, dims: usize, precision: Precision) -> VectorIndex {
        VectorIndex {
            embedder: embedder.into(),
            dims,
            precision,
            notes: BTreeMap::new(),
            owner: Vec::new(),
            chunk: Vec::new(),
            slots: Vec::new(),
            floats: Vec::new(),
            codes: Vec::new(),
            scales: Vec::new(),
            dead: 0,
            sketch: OnceLock::new(),
        }
    }

    /// The id of the embedder whose vectors these are.
    pub fn embedder(&self) -> &str {
        &self.embedder
    }

    pub fn dimensions(&self) -> usize {
        self.dims
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The number of notes with vectors.
    pub fn note_count(&self) -> usize {
        self.notes.len()
    }

    /// The number of live chunk vectors.
    pub fn vector_count(&self) -> usize {
        self.owner.len() - self.dead
    }

    /// What the index holds for `path`.
    pub fn note(&self, path: &str) -> Option<&NoteVectors> {
        self.notes.get(path)
    }

    /// Every note with vectors, by path.
    pub fn notes(&self) -> impl Iterator<Item = (&str, &NoteVectors)> {
        self.notes.iter().map(|(p, n)| (p.as_str(), n))
    }

    /// Whether `path`'s vectors were made from text with `hash`.
    pub fn is_current(&self, path: &str, hash: &str) -> bool {
        self.notes.get(path).is_some_and(|n| n.hash == hash)
    }

    /// Sets `path`'s vectors (replacing older ones): one per chunk, with its heading.
    pub fn insert(
        &mut self,
        path: &str,
        hash: &str,
        mtime: u64,
        chunks: Vec<(Option<String>, Vec<f32>)>,
    ) -> Result<()> {
        if let Some(bad) = chunks.iter().find(|(_, v)| v.len() != self.dims) {
            return Err(Error::Invalid(format!(
                "a vector of {} dimensions for an index of {} ({path})",
                bad.1.len(),
                self.dims
            )));
        }
        self.remove(path);
        let slot = self.slots.len() as u32;
        self.slots.push(path.to_string());
        let mut rows = Vec::with_capacity(chunks.len());
        let mut headings = Vec::with_capacity(chunks.len());
        for (i, (heading, vector)) in chunks.into_iter().enumerate() {
            rows.push(self.owner.len() as u32);
            self.owner.push(slot);
            self.chunk.push(i as u32);
            match self.precision {
                Precision::F32 => self.floats.extend_from_slice(&vector),
                Precision::Int8 => {
                    let (codes, scale) = quantize_i8(&vector);
                    self.codes.extend(codes);
                    self.scales.push(scale);
                }
            }
            if let Some(sketch) = self.sketch.get_mut() {
                sketch.push(&vector);
            }
            headings.push(heading);
        }
        self.notes.insert(path.to_string(), NoteVectors { hash: hash.to_string(), mtime, headings, rows });
        Ok(())
    }

    /// Records a new mtime for a note whose text did not change.
    pub fn touch(&mut self, path: &str, mtime: u64) {
        if let Some(n) = self.notes.get_mut(path) {
            n.mtime = mtime;
        }
    }

    /// Drops `path`'s vectors. Returns whether it had any.
    pub fn remove(&mut self, path: &str) -> bool {
        let Some(note) = self.notes.remove(path) else { return false };
        for &r in &note.rows {
            self.owner[r as usize] = u32::MAX;
        }
        self.dead += note.rows.len();
        if self.dead * 4 > self.owner.len() {
            self.compact();
        }
        true
    }

    /// Drops dead rows.
    pub fn compact(&mut self) {
        if self.dead == 0 {
            return;
        }
        let mut fresh = VectorIndex::new(self.embedder.clone(), self.dims, self.precision);
        let notes = std::mem::take(&mut self.notes);
        for (path, note) in notes {
            let chunks =
                note.rows.iter().zip(&note.headings).map(|(&r, h)| (h.clone(), self.row(r as usize))).collect();
            // Dimensions match by construction.
            let _ = fresh.insert(&path, &note.hash, note.mtime, chunks);
        }
        *self = fresh;
    }

    /// The `n` live rows of `kept` notes (by slot) whose sketch scores best against `query`, in
    /// row order.
    fn first_pass(&self, query: &[f32], n: usize, kept: &[bool]) -> Vec<u32> {
        let sketch = self.sketch();
        debug_assert_eq!(sketch.len(), self.owner.len());
        let mut scores = Vec::new();
        sketch.scores(query, &mut scores);
        let mut live: Vec<(i32, u32)> = (0..self.owner.len())
            .filter(|&r| self.owner[r] != u32::MAX && kept[self.owner[r] as usize])
            .map(|r| (scores[r], r as u32))
            .collect();
        if live.len() > n {
            live.select_nth_unstable_by(n - 1, |a, b| b.0.cmp(&a.0));
            live.truncate(n);
        }
        let mut rows: Vec<u32> = live.into_iter().map(|(_, r)| r).collect();
        rows.sort_unstable();
        rows
    }

    /// Makes the first pass's sketch now, if searches will use it, rather than on the first
    /// search (a few tens of milliseconds for a large vault in the browser).
    pub fn prepare(&self) {
        if self.vector_count() > SKETCHED_ABOVE {
            self.sketch();
        }
    }

    fn sketch(&self) -> &SignSketch {
        self.sketch.get_or_init(|| SignSketch::build(self.dims, self.owner.len(), |r, buf| self.row_into(r, buf)))
    }

    /// Row `r` as floats.
    fn row(&self, r: usize) -> Vec<f32> {
        let mut row = Vec::with_capacity(self.dims);
        self.row_into(r, &mut row);
        row
    }

    /// Row `r` as floats, into `buf`.
    fn row_into(&self, r: usize, buf: &mut Vec<f32>) {
        let d = self.dims;
        buf.clear();
        match self.precision {
            Precision::F32 => buf.extend_from_slice(&self.floats[r * d..(r + 1) * d]),
            Precision::Int8 => {
                let scale = self.scales[r];
                buf.extend(self.codes[r * d..(r + 1) * d].iter().map(|&c| f32::from(c) * scale));
            }
        }
    }

    /// The `k` notes whose best chunk is most similar to `query` (a unit vector), best first;
    /// `filter` keeps a note when it returns true. Above [`SKETCHED_ABOVE`] live rows only the
    /// [`RESCORED`] rows the sketch ranks first are scored exactly.
    pub fn search(&self, query: &[f32], k: usize, filter: &dyn Fn(&str) -> bool) -> Vec<VectorHit> {
        self.nearest(query, filter).top(k)
    }

    /// The notes [`VectorIndex::search`] scores, to be taken best first as many at a time as
    /// wanted ([`Nearest::top`]) with the rows scanned once.
    pub fn nearest(&self, query: &[f32], filter: &dyn Fn(&str) -> bool) -> Nearest<'_> {
        let rescored = if self.vector_count() > SKETCHED_ABOVE { RESCORED } else { 0 };
        self.nearest_rescoring(query, filter, rescored)
    }

    /// [`VectorIndex::search`], with the sketch passing `rescored` rows on to be scored exactly
    /// (0: every row is scored exactly).
    pub fn search_rescoring(
        &self,
        query: &[f32],
        k: usize,
        filter: &dyn Fn(&str) -> bool,
        rescored: usize,
    ) -> Vec<VectorHit> {
        self.nearest_rescoring(query, filter, rescored).top(k)
    }

    fn nearest_rescoring(&self, query: &[f32], filter: &dyn Fn(&str) -> bool, rescored: usize) -> Nearest<'_> {
        if query.len() != self.dims {
            return Nearest { index: self, scored: Vec::new() };
        }
        let mut best: Vec<(f32, u32)> = vec![(f32::NEG_INFINITY, u32::MAX); self.slots.len()];
        let d = self.dims;
        // The filter is asked first, once per note: the first pass must choose among the notes
        // it keeps (a search within a small folder would otherwise find nothing of it in the
        // rows nearest the query over the whole vault).
        let kept: Vec<bool> = self.slots.iter().map(|path| filter(path)).collect();
        let candidates =
            (rescored > 0 && rescored < self.vector_count()).then(|| self.first_pass(query, rescored, &kept));
        let rows: Box<dyn Iterator<Item = usize>> = match &candidates {
            Some(rows) => Box::new(rows.iter().map(|&r| r as usize)),
            None => Box::new(0..self.owner.len()),
        };
        let (q, qs) = quantize_i8(query);
        for r in rows {
            let slot = self.owner[r];
            if slot == u32::MAX || !kept[slot as usize] {
                continue;
            }
            let s = match self.precision {
                Precision::F32 => dot(query, &self.floats[r * d..(r + 1) * d]),
                Precision::Int8 => dot_i8(&q, &self.codes[r * d..(r + 1) * d]) as f32 * qs * self.scales[r],
            };
            let b = &mut best[slot as usize];
            if s > b.0 {
                *b = (s, r as u32);
            }
        }
        let scored = best
            .iter()
            .enumerate()
            .filter(|(_, (s, _))| s.is_finite())
            .map(|(slot, &(s, r))| (s, slot as u32, r))
            .collect();
        Nearest { index: self, scored }
    }

    // ---- persistence ------------------------------------------------------------------------

    /// The saved form (dead rows dropped). Written straight from the rows: the only copy made
    /// is the returned bytes (wasm memory keeps its peak, and a copy of the index, then of its
    /// rows, then of both again took four times the vectors).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Live rows in the order the saved form lists them: note by note, by path, each note's
        // rows in chunk order (`from_vec` numbers them the same way).
        let rows: Vec<usize> = self.notes.values().flat_map(|n| n.rows.iter().map(|&r| r as usize)).collect();
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        self.write_rows(&rows, &mut |bytes| hasher.update(bytes));
        let header = HeaderRef {
            format: VECTORS_FORMAT,
            embedder: &self.embedder,
            dims: self.dims,
            precision: self.precision,
            rows: rows.len(),
            notes: &self.notes,
            counts: self.notes.iter().map(|(p, n)| (p.as_str(), n.rows.len() as u32)).collect(),
            xxh3: format!("{:016x}", hasher.digest()),
        };
        let header = serde_json::to_vec(&header).unwrap_or_default();
        let row_bytes = match self.precision {
            Precision::F32 => self.dims * 4,
            Precision::Int8 => self.dims + 4,
        };
        let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + rows.len() * row_bytes);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(&header);
        self.write_rows(&rows, &mut |bytes| out.extend_from_slice(bytes));
        out
    }

    /// Hands the saved form's data part to `emit`, a row at a time: f32 rows, or every row's
    /// scale and then every row's codes.
    fn write_rows(&self, rows: &[usize], emit: &mut dyn FnMut(&[u8])) {
        let d = self.dims;
        let mut buf = Vec::with_capacity(d * 4);
        match self.precision {
            Precision::F32 => {
                for &r in rows {
                    buf.clear();
                    self.floats[r * d..(r + 1) * d].iter().for_each(|f| buf.extend_from_slice(&f.to_le_bytes()));
                    emit(&buf);
                }
            }
            Precision::Int8 => {
                rows.iter().for_each(|&r| emit(&self.scales[r].to_le_bytes()));
                for &r in rows {
                    buf.clear();
                    buf.extend(self.codes[r * d..(r + 1) * d].iter().map(|&c| c as u8));
                    emit(&buf);
                }
            }
        }
    }

    /// Reads the saved form, checking its version and checksum.
    pub fn from_bytes(bytes: &[u8]) -> Result<VectorIndex> {
        VectorIndex::from_vec(bytes.to_vec())
    }

    /// [`VectorIndex::from_bytes`], taking the bytes: an int8 index keeps their allocation as
    /// its codes, so loading holds the file once, not the file and a copy of its rows.
    pub fn from_vec(bytes: Vec<u8>) -> Result<VectorIndex> {
        let bad = |why: String| Error::Invalid(format!("the saved vectors are unusable: {why}"));
        if bytes.len() < 10 || &bytes[..6] != MAGIC {
            return Err(bad("not a vector index".into()));
        }
        let len = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]) as usize;
        let header = bytes.get(10..10usize.saturating_add(len)).ok_or_else(|| bad("header cut short".into()))?;
        let header: Header = serde_json::from_slice(header).map_err(|e| bad(e.to_string()))?;
        if header.format != VECTORS_FORMAT {
            return Err(bad(format!("format {} (this version reads {VECTORS_FORMAT})", header.format)));
        }
        let start = 10 + len;
        let data = &bytes[start..];
        if format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data)) != header.xxh3 {
            return Err(bad("checksum mismatch".into()));
        }
        let (d, rows) = (header.dims, header.rows);
        let f32s =
            |b: &[u8]| b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<f32>>();
        let mut index = VectorIndex::new(header.embedder, d, header.precision);
        // Checked: the header is outside input, and an overflowing product must not match.
        let expected = match header.precision {
            Precision::F32 => rows.checked_mul(d).and_then(|n| n.checked_mul(4)),
            Precision::Int8 => d.checked_add(4).and_then(|n| n.checked_mul(rows)),
        };
        match header.precision {
            _ if expected != Some(data.len()) => return Err(bad("the data does not match the header".into())),
            Precision::F32 => index.floats = f32s(data),
            Precision::Int8 => {
                index.scales = f32s(&data[..rows * 4]);
                // The codes are the file's tail, after the header and the scales.
                index.codes = tail_as_i8(bytes, start + rows * 4);
            }
        }
        let mut notes = header.notes;
        let mut next = 0u32;
        for (path, count) in header.counts {
            let note = notes.get_mut(&path).ok_or_else(|| bad(format!("no entry for {path}")))?;
            // Each note's rows are listed once: a repeated entry would leave another note with
            // no rows (found by fuzzing).
            if index.slots.last().is_some_and(|last| *last >= path) {
                return Err(bad(format!("{path} is listed twice or out of order")));
            }
            if note.headings.len() != count as usize {
                return Err(bad(format!("{path}: {count} rows but {} headings", note.headings.len())));
            }
            let slot = index.slots.len() as u32;
            index.slots.push(path);
            note.rows = (next..next + count).collect();
            for i in 0..count {
                index.owner.push(slot);
                index.chunk.push(i);
            }
            next += count;
        }
        if next as usize != rows || index.slots.len() != notes.len() {
            return Err(bad("the note list does not match the rows".into()));
        }
        index.notes = notes;
        Ok(index)
    }

    /// Saves to [`VECTORS_FILE`], replace-safe ([`write_atomic`]): an interrupted save leaves the
    /// previous vectors loadable. Resolves to the bytes written.
    pub async fn save(&self, vault: &dyn Vault) -> Result<usize> {
        let bytes = self.to_bytes();
        VectorIndex::save_bytes(vault, &bytes).await?;
        Ok(bytes.len())
    }

    /// Writes bytes made by [`VectorIndex::to_bytes`] as [`VectorIndex::save`] does (for a
    /// caller that must not hold the index across the write).
    pub(crate) async fn save_bytes(vault: &dyn Vault, bytes: &[u8]) -> Result<()> {
        write_atomic(vault, &VaultPath::parse(VECTORS_FILE)?, bytes).await
    }

    /// Loads [`VECTORS_FILE`]: `None` when there is none, or when it is unusable (then it is
    /// rebuilt by embedding again; the reason is in the error of [`VectorIndex::from_bytes`]).
    pub async fn load(vault: &dyn Vault) -> Result<Option<VectorIndex>> {
        match read_atomic(vault, &VaultPath::parse(VECTORS_FILE)?).await {
            Ok(bytes) => Ok(VectorIndex::from_vec(bytes).ok()),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
#[path = "vector_index_tests.rs"]
mod tests;
