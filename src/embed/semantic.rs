//! [`SemanticIndex`]: the vault's vectors and the embedder that made them, shared (like
//! [`crate::index::SharedIndex`], which holds one) by the search modal, the background embedding
//! job and the agent's `semantic_search` tool.
//!
//! The embedding job ([`SemanticIndex::embed_vault`]) runs in the background: it reads the notes,
//! skips those whose vectors are current (same mtime, or same content hash), embeds the chunks of
//! the others in batches, and puts each note's vectors in place as soon as they are all done. It
//! yields to the host's event loop (`Clock::sleep(0)`) at least every 40 ms, reports progress,
//! stops at once when cancelled, and saves what it has every [`SAVE_EVERY_MS`] and at the end —
//! so a new run resumes where the last one stopped. A run that ends having embedded fewer chunks
//! than a [`SAVE_SHARE`]th of the index (an edited note or two) leaves them unsaved for a later
//! run: the next start looks at every note anyway and embeds them again. Borrows never span an
//! await: searches answer while a job is running.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::chunk::{embed_chunks, MAX_CHUNK_CHARS};
use super::vector_index::{Precision, VectorHit, VectorIndex};
use super::Embedder;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::Clock;
use crate::search::{parse_note, read_note, NoteRead, Pacer, Progress};
use crate::vault::{list_notes, Vault, VaultPath};
use crate::{Error, Result};

/// The job saves its work at least this often (milliseconds).
pub const SAVE_EVERY_MS: u64 = 30_000;
/// A run that did not stop early saves at its end when the work done since the last save
/// (chunks embedded, notes re-dated) is at least this share of the index's chunks (1/64).
/// Saving rewrites the whole file — 16 MB for the sample vault, held once more in wasm memory,
/// which keeps that peak — where the few notes of a smaller change cost the next start a
/// moment to embed again.
pub const SAVE_SHARE: usize = 64;
/// Notes changed since the last job that a search embeds before answering, at most.
const CATCH_UP_NOTES: usize = 32;

/// The cosine similarity below which a note is not listed as found by meaning, for vectors made
/// by the embedder `id`: calibrated per model on `bench/semantic_queries.json` (`cargo bench
/// --bench semantic`, "relevance floor"), since the static model's and MiniLM's scores live on
/// different scales. Other embedders (an API's) have no floor.
pub fn relevance_floor(id: &str) -> f32 {
    if id.starts_with("static") {
        STATIC_FLOOR
    } else if id.starts_with("minilm") {
        MINILM_FLOOR
    } else {
        f32::NEG_INFINITY
    }
}

/// The static model (`@2`, fitted to MiniLM) found the relevant notes of the questions and
/// paraphrases at 0.31 or more (5th percentile 0.39, median 0.66); eight of the ten nonsense
/// queries' first hits (pizza, chess, a purple elephant…) score 0.16–0.38, and two 0.45 and 0.80
/// (strings of non-words: the model reads them as word pieces, which no floor separates).
const STATIC_FLOOR: f32 = 0.30;
/// MiniLM found the relevant notes at 0.29 or more (5th percentile 0.34, median 0.59); the ten
/// nonsense queries' first hits score 0.13–0.28, eight of them below 0.27.
const MINILM_FLOOR: f32 = 0.27;

/// What the embedding job is doing (for a progress bar).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EmbedStatus {
    pub running: bool,
    /// Notes looked at / in the vault.
    pub done: usize,
    pub total: usize,
    /// Chunks embedded by this run.
    pub chunks: usize,
    /// Notes whose vectors this run made.
    pub embedded_notes: usize,
    pub cancelled: bool,
    pub error: Option<String>,
}

/// What one run of the job did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EmbedReport {
    /// Notes in the vault.
    pub notes: usize,
    /// Notes (re-)embedded by this run.
    pub embedded_notes: usize,
    /// Chunks embedded by this run.
    pub chunks: usize,
    /// Notes whose vectors were dropped because the note is gone.
    pub removed: usize,
    pub cancelled: bool,
    /// Bytes written by the last save (0: the vectors had not changed, nothing was written).
    pub saved_bytes: usize,
}

#[derive(Default)]
struct Inner {
    index: RefCell<Option<VectorIndex>>,
    embedder: RefCell<Option<Rc<dyn Embedder>>>,
    status: RefCell<EmbedStatus>,
    cancel: RefCell<Option<CancelToken>>,
    stale: RefCell<BTreeSet<String>>,
    precision: RefCell<Precision>,
    /// The vectors changed since they were last saved or loaded.
    unsaved: Cell<bool>,
    /// The work since then a restart would redo: chunks embedded, and notes whose unchanged
    /// text was read again (re-dated).
    unsaved_work: Cell<usize>,
    /// The last [`QUERIES_KEPT`] queries' vectors by the current embedder, the latest first.
    queries: RefCell<VecDeque<(String, Vec<f32>)>>,
}

/// Query vectors kept: a query asked again — a key typed and taken back, the search window's
/// mode switched, the agent searching what the user just did — is not embedded again (with
/// MiniLM reading the queries that is ~15 ms a search in the page; with an API, a request).
const QUERIES_KEPT: usize = 32;

/// The vault's semantic index, shared. See the module docs.
#[derive(Clone, Default)]
pub struct SemanticIndex(Rc<Inner>);

struct Pending {
    path: String,
    hash: String,
    mtime: u64,
    headings: Vec<Option<String>>,
    vectors: Vec<Vec<f32>>,
}

impl SemanticIndex {
    /// A handle with no embedder and no vectors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `embedder` from now on. Vectors made by another embedder are dropped (they are not
    /// comparable); the next job embeds everything again.
    pub fn set_embedder(&self, embedder: Rc<dyn Embedder>) {
        let mut index = self.0.index.borrow_mut();
        if index.as_ref().is_some_and(|i| i.embedder() != embedder.id()) {
            *index = None;
        }
        *self.0.embedder.borrow_mut() = Some(embedder);
        self.0.queries.borrow_mut().clear();
    }

    /// How new vectors are stored (int8 takes a quarter of the memory). Applies to the next
    /// index made from scratch.
    pub fn set_precision(&self, precision: Precision) {
        *self.0.precision.borrow_mut() = precision;
    }

    /// The embedder, if one is set.
    pub fn embedder(&self) -> Option<Rc<dyn Embedder>> {
        self.0.embedder.borrow().clone()
    }

    /// Whether searching by meaning can answer: an embedder is set and its vectors exist.
    pub fn is_ready(&self) -> bool {
        let embedder = self.0.embedder.borrow();
        let index = self.0.index.borrow();
        matches!((embedder.as_ref(), index.as_ref()), (Some(e), Some(i)) if e.id() == i.embedder() && i.note_count() > 0)
    }

    /// Runs `f` on the vectors. Fails when there are none.
    pub fn read<T>(&self, f: impl FnOnce(&VectorIndex) -> Result<T>) -> Result<T> {
        let guard = self.0.index.try_borrow().map_err(|_| Error::Invalid("the vector index is busy".into()))?;
        f(guard.as_ref().ok_or_else(|| Error::Invalid("no notes have been embedded yet".into()))?)
    }

    /// Puts `index` in place, as it is saved (a loaded index): a run that changes nothing
    /// writes nothing.
    pub fn replace(&self, index: VectorIndex) {
        index.prepare();
        *self.0.index.borrow_mut() = Some(index);
        self.set_saved();
    }

    /// The job's progress.
    pub fn status(&self) -> EmbedStatus {
        self.0.status.borrow().clone()
    }

    /// Stops a running job (it saves what it has and ends).
    pub fn cancel(&self) {
        if let Some(token) = self.0.cancel.borrow().as_ref() {
            token.cancel();
        }
    }

    /// Turns semantic search off: stops a running job and forgets the embedder and the vectors
    /// held in memory (the saved vectors stay on disk, so turning it on again resumes from them).
    /// Searches by meaning fail and hybrid searches are full text until an embedder is set.
    pub fn clear(&self) {
        self.cancel();
        *self.0.embedder.borrow_mut() = None;
        *self.0.index.borrow_mut() = None;
        self.0.stale.borrow_mut().clear();
        self.0.queries.borrow_mut().clear();
    }

    /// Loads the saved vectors if they exist, are intact and were made by the current embedder.
    /// Returns whether they were loaded.
    pub async fn load(&self, vault: &dyn Vault) -> Result<bool> {
        let Some(index) = VectorIndex::load(vault).await? else { return Ok(false) };
        let fits = self.embedder().is_none_or(|e| e.id() == index.embedder());
        if fits {
            self.replace(index);
        }
        Ok(fits)
    }

    /// Notes that a note at `path` changed (the agent wrote it): the next search embeds it again.
    pub fn mark_stale(&self, path: &str) {
        self.0.stale.borrow_mut().insert(path.to_string());
    }

    /// Embeds every note whose vectors are missing or out of date, and drops the vectors of
    /// notes that are gone. See the module docs. Fails with [`Error::Cancelled`] only if cancelled
    /// before anything started; a cancelled run returns its report with `cancelled` set.
    pub async fn embed_vault(
        &self,
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<EmbedReport> {
        let embedder = self.embedder().ok_or_else(|| Error::Invalid("no embedding model is set up".into()))?;
        if self.status().running {
            return Err(Error::Invalid("embedding is already running".into()));
        }
        let token = CancelToken::new();
        *self.0.cancel.borrow_mut() = Some(token.clone());
        *self.0.status.borrow_mut() = EmbedStatus { running: true, ..EmbedStatus::default() };
        let result = self.run_job(vault, clock, &*embedder, &token, progress).await;
        let mut status = self.0.status.borrow_mut();
        status.running = false;
        match &result {
            Ok(report) => status.cancelled = report.cancelled,
            Err(e) => status.error = Some(e.to_string()),
        }
        result
    }

    async fn run_job(
        &self,
        vault: &dyn Vault,
        clock: &dyn Clock,
        embedder: &dyn Embedder,
        token: &CancelToken,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<EmbedReport> {
        let notes = list_notes(vault).await?;
        let total = notes.len();
        let mut report = EmbedReport { notes: total, ..EmbedReport::default() };
        {
            let present: BTreeSet<&str> = notes.iter().map(VaultPath::as_str).collect();
            let mut slot = self.0.index.borrow_mut();
            if slot.as_ref().is_some_and(|i| i.embedder() != embedder.id()) {
                *slot = None;
            }
            if let Some(index) = slot.as_mut() {
                let gone: Vec<String> =
                    index.notes().map(|(p, _)| p).filter(|p| !present.contains(p)).map(str::to_string).collect();
                for path in gone {
                    report.removed += usize::from(index.remove(&path));
                }
                if report.removed > 0 {
                    self.0.unsaved.set(true);
                }
            }
        }
        self.update_status(|s| s.total = total);
        progress(Progress { done: 0, total });
        let mut pacer = Pacer::new(clock);
        let mut last_save = clock.now_ms();
        let mut queue: Vec<Pending> = Vec::new();
        let mut texts: Vec<String> = Vec::new();
        let batch = embedder.batch_size().max(1);
        for (i, path) in notes.iter().enumerate() {
            if token.is_cancelled() {
                report.cancelled = true;
                break;
            }
            if let Some(item) = self.needs_embedding(vault, path).await? {
                texts.extend(item.1);
                queue.push(item.0);
            }
            while texts.len() >= batch || (i + 1 == total && !texts.is_empty()) {
                let take = texts.len().min(batch);
                let chunk: Vec<String> = texts.drain(..take).collect();
                let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                let vectors = match with_cancel(token, embedder.embed(&refs)).await {
                    Ok(v) => v?,
                    Err(_) => {
                        report.cancelled = true;
                        break;
                    }
                };
                report.chunks += vectors.len();
                self.place(&mut queue, vectors, embedder, &mut report)?;
                self.update_status(|s| {
                    s.chunks = report.chunks;
                    s.embedded_notes = report.embedded_notes;
                });
                // A long note makes several batches in a row; a slow model (MiniLM in this
                // thread) would hold searches for all of them without a yield between.
                pacer.tick(progress, i, total).await;
            }
            if report.cancelled {
                break;
            }
            self.update_status(|s| s.done = i + 1);
            pacer.tick(progress, i + 1, total).await;
            if clock.now_ms().saturating_sub(last_save) >= SAVE_EVERY_MS && self.uses(embedder) && self.0.unsaved.get()
            {
                report.saved_bytes = self.save(vault).await?;
                last_save = clock.now_ms();
            }
        }
        // A run that changed nothing, or little, writes nothing (SAVE_SHARE): saving means
        // holding a second copy of every vector while they are written, and wasm memory keeps
        // that peak. A stopped run saves what it has: the plugin may be closing.
        if self.uses(embedder) && self.0.unsaved.get() && (report.cancelled || self.worth_saving()) {
            report.saved_bytes = self.save(vault).await?;
        }
        if !report.cancelled {
            self.0.stale.borrow_mut().clear();
            progress(Progress { done: total, total });
        }
        // The first search after a run should not wait for the vectors' first pass to be made.
        if let Some(index) = self.0.index.borrow().as_ref() {
            index.prepare();
        }
        Ok(report)
    }

    /// Reads `path`; `None` when its vectors are current (its mtime is refreshed if only that
    /// changed), else what to embed.
    async fn needs_embedding(&self, vault: &dyn Vault, path: &VaultPath) -> Result<Option<(Pending, Vec<String>)>> {
        let stale = self.0.stale.borrow().contains(path.as_str());
        let mtime = vault.stat(path).await?.map(|s| s.mtime).unwrap_or(0);
        let known = self.0.index.borrow().as_ref().and_then(|i| i.note(path.as_str()).map(|n| n.mtime));
        if !stale && known == Some(mtime) && mtime != 0 {
            return Ok(None);
        }
        let NoteRead::Text { text, mtime } = read_note(vault, path).await? else { return Ok(None) };
        let note = parse_note(path.as_str(), &text);
        {
            let mut slot = self.0.index.borrow_mut();
            if let Some(index) = slot.as_mut().filter(|i| i.is_current(path.as_str(), &note.hash)) {
                index.touch(path.as_str(), mtime);
                self.changed(1);
                return Ok(None);
            }
        }
        let chunks = embed_chunks(&note, MAX_CHUNK_CHARS);
        let headings = chunks.iter().map(|c| c.heading.clone()).collect();
        let texts = chunks.into_iter().map(|c| c.text).collect();
        Ok(Some((Pending { path: path.to_string(), hash: note.hash, mtime, headings, vectors: Vec::new() }, texts)))
    }

    /// Hands embedded vectors to the queued notes in order; puts every complete note in place.
    fn place(
        &self,
        queue: &mut Vec<Pending>,
        vectors: Vec<Vec<f32>>,
        embedder: &dyn Embedder,
        report: &mut EmbedReport,
    ) -> Result<()> {
        if !self.uses(embedder) {
            queue.clear();
            return Ok(());
        }
        let mut vectors = vectors.into_iter();
        let mut slot = self.0.index.borrow_mut();
        while let Some(front) = queue.first_mut() {
            while front.vectors.len() < front.headings.len() {
                match vectors.next() {
                    Some(v) => front.vectors.push(v),
                    None => return Ok(()),
                }
            }
            let done = queue.remove(0);
            let dims = done.vectors.first().map_or(embedder.dimensions(), Vec::len);
            let index = slot.get_or_insert_with(|| VectorIndex::new(embedder.id(), dims, *self.0.precision.borrow()));
            let chunks = done.vectors.len();
            index.insert(&done.path, &done.hash, done.mtime, done.headings.into_iter().zip(done.vectors).collect())?;
            self.changed(chunks);
            self.0.stale.borrow_mut().remove(&done.path);
            report.embedded_notes += 1;
        }
        Ok(())
    }

    /// Whether `embedder` is still the one in use. Turning semantic search off, or choosing
    /// another model, during a run makes the run's vectors moot: they are neither kept nor saved.
    fn uses(&self, embedder: &dyn Embedder) -> bool {
        self.0.embedder.borrow().as_ref().is_some_and(|e| e.id() == embedder.id())
    }

    /// Whether the chunks embedded since the last save are worth rewriting the file for
    /// ([`SAVE_SHARE`]).
    fn worth_saving(&self) -> bool {
        let rows = self.0.index.borrow().as_ref().map_or(0, VectorIndex::vector_count);
        self.0.unsaved_work.get().saturating_mul(SAVE_SHARE) >= rows
    }

    /// Notes that the vectors changed, and how much work a restart would redo for it.
    fn changed(&self, work: usize) {
        self.0.unsaved.set(true);
        self.0.unsaved_work.set(self.0.unsaved_work.get() + work);
    }

    fn set_saved(&self) {
        self.0.unsaved.set(false);
        self.0.unsaved_work.set(0);
    }

    fn update_status(&self, f: impl FnOnce(&mut EmbedStatus)) {
        f(&mut self.0.status.borrow_mut());
    }

    /// Saves the vectors (when there are any), replace-safe as [`VectorIndex::save`]: an
    /// interrupted save leaves the previous vectors loadable. Resolves to the bytes written.
    pub async fn save(&self, vault: &dyn Vault) -> Result<usize> {
        // Made under the borrow, written after it: searches answer during the write.
        let bytes = match self.0.index.borrow().as_ref() {
            Some(index) => index.to_bytes(),
            None => return Ok(0),
        };
        VectorIndex::save_bytes(vault, &bytes).await?;
        self.set_saved();
        Ok(bytes.len())
    }

    /// Saves the vectors if they changed since they were last saved or loaded (a run that
    /// changed little leaves them unsaved: [`SAVE_SHARE`]). For a host that ends after one run,
    /// such as the CLI, whose next start would otherwise embed the same notes again. Resolves to
    /// the bytes written (0: nothing had changed).
    pub async fn save_changes(&self, vault: &dyn Vault) -> Result<usize> {
        if !self.0.unsaved.get() {
            return Ok(0);
        }
        self.save(vault).await
    }

    /// Re-embeds the notes marked stale (up to a few), so a search sees the agent's own writes.
    async fn catch_up(&self, vault: &dyn Vault, embedder: &dyn Embedder) -> Result<()> {
        let stale: Vec<String> = self.0.stale.borrow().iter().take(CATCH_UP_NOTES).cloned().collect();
        for path in stale {
            self.0.stale.borrow_mut().remove(&path);
            let Ok(note) = VaultPath::parse(&path) else { continue };
            if matches!(read_note(vault, &note).await?, NoteRead::Gone) {
                if let Some(index) = self.0.index.borrow_mut().as_mut() {
                    index.remove(&path);
                    self.0.unsaved.set(true);
                }
                continue;
            }
            if let Some((pending, texts)) = self.needs_embedding(vault, &note).await? {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let vectors = embedder.embed(&refs).await?;
                self.place(&mut vec![pending], vectors, embedder, &mut EmbedReport::default())?;
            }
        }
        Ok(())
    }

    /// `text`'s vector, after embedding the notes the agent changed since the last job (so a
    /// search sees its own writes). Fails when not [`SemanticIndex::is_ready`].
    pub async fn query_vector(&self, vault: Option<&dyn Vault>, text: &str) -> Result<Vec<f32>> {
        let embedder = self.embedder().ok_or_else(|| Error::Invalid("no embedding model is set up".into()))?;
        if !self.is_ready() {
            return Err(Error::Invalid("the notes have not been embedded yet".into()));
        }
        if let Some(vault) = vault {
            if !self.0.stale.borrow().is_empty() {
                self.catch_up(vault, &*embedder).await?;
            }
        }
        let cached = {
            let mut queries = self.0.queries.borrow_mut();
            let at = queries.iter().position(|(q, _)| q == text);
            at.and_then(|at| queries.remove(at))
        };
        let vector = match cached {
            Some((_, vector)) => vector,
            None => embedder.embed_query(text).await?,
        };
        // Kept only if the embedder was not changed while this one embedded.
        if self.embedder().is_some_and(|now| Rc::ptr_eq(&now, &embedder)) {
            let mut queries = self.0.queries.borrow_mut();
            queries.push_front((text.to_string(), vector.clone()));
            queries.truncate(QUERIES_KEPT);
        }
        Ok(vector)
    }

    /// The `k` notes closest in meaning to `text` (among those `keep` accepts).
    pub async fn search(
        &self,
        vault: Option<&dyn Vault>,
        text: &str,
        k: usize,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<VectorHit>> {
        let query = self.query_vector(vault, text).await?;
        self.read(|index| Ok(index.search(&query, k, keep)))
    }
}
