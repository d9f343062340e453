//! [`SearchIndex`]: the vault's full-text index — build, incremental updates, search,
//! backlinks and tags.
//!
//! Layout: one main shard (a single-segment tantivy index in memory) plus up to
//! [`MAX_DELTA_SHARDS`] small delta shards, each written by one update, and per shard a set of
//! dead documents (older versions of changed notes, removed notes). An update indexes one note
//! into a new delta shard and marks the old version dead, so it costs the same whatever the
//! vault's size; deltas are merged together when there are too many, and [`SearchIndex::compact`]
//! folds everything into a new main shard (done before a save once the changes pass
//! [`SearchIndex::changes_bound`]; below it a save writes them beside the main shard). Searches run over every
//! shard with BM25 statistics summed across shards, so scores do not depend on where a note
//! lives.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use levenshtein_automata::LevenshteinAutomatonBuilder;
use serde::{Deserialize, Serialize};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema};
use tantivy::{DocAddress, Score, Searcher, Term};
use ts_rs::TS;

use super::build_parts::{remote_parts_for, IndexPart, PackedPart, PartWorkers};
use super::catalog::{Catalog, NoteEntry};
use super::language::{rank_in_language, LanguagePreference, Window};
use super::note::parse_note;
use super::query::{self, Expr, Matching, QueryBuilder};
use super::schema::{section_text, Fields};
use super::shard::{self, search_error, Shard, DELTA_MEMORY};
use super::snippet::Snippets;
use super::tokenizer::{unstemmed_analyzer, vault_analyzer};
use crate::host::Clock;
use crate::vault::{is_note, list_notes_skipping, SkipReason, Skipped, Vault, VaultPath};
use crate::{Error, Result};

/// Delta shards merge into one when there are more than this.
pub const MAX_DELTA_SHARDS: usize = 8;
/// Documents ranked beyond those wanted from a shard holding replaced ones (see `rank`).
const RANK_SLACK: usize = 16;
/// Work between two yields to the host's event loop (and progress reports), in milliseconds.
const YIELD_EVERY_MS: u64 = 40;
/// Notes a build reads in one [`Vault::read_batch`]: one round trip where the vault is across
/// a message channel, few enough that a batch's text stays small.
pub(crate) const READ_BATCH: usize = 64;

/// How far an indexing run has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// A search request. `text` uses the query language in [`crate::search`]'s docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, rename_all = "camelCase")]
pub struct SearchQuery {
    pub text: String,
    /// At most this many hits (default 10).
    pub limit: usize,
    /// Hits to skip first, for paging.
    pub offset: usize,
    /// Only notes in this folder or below it.
    pub folder: Option<String>,
    /// Only notes with all of these tags (a tag also matches tags nested under it).
    pub tags: Vec<String>,
    /// Only notes whose path starts with this.
    #[serde(alias = "path_prefix")]
    pub path_prefix: Option<String>,
    /// Whether to compute snippets (default true).
    pub snippets: bool,
    /// Snippets for the first this many hits only (`None`: for every hit). A hybrid search ranks
    /// more full-text candidates than it shows, and snippets are most of a search's cost.
    #[serde(alias = "snippet_limit")]
    pub snippet_limit: Option<usize>,
    /// The user's language (`en`, `pt-BR`), preferred when the query's own words do not say
    /// which language it is in (see [`crate::search::LanguagePreference`]). `None`: no preference
    /// beyond the query's.
    pub language: Option<String>,
}

impl Default for SearchQuery {
    fn default() -> Self {
        SearchQuery {
            text: String::new(),
            limit: 10,
            offset: 0,
            folder: None,
            tags: Vec::new(),
            path_prefix: None,
            snippets: true,
            snippet_limit: None,
            language: None,
        }
    }
}

impl SearchQuery {
    /// A query for `text` with the defaults.
    pub fn new(text: impl Into<String>) -> SearchQuery {
        SearchQuery { text: text.into(), ..SearchQuery::default() }
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    /// Vault-relative path.
    pub path: String,
    pub title: String,
    /// BM25 score (higher is better; comparable within one search only).
    pub score: f32,
    /// Up to ~200 characters of the note's text around the best match, on one line, matched
    /// words wrapped in `**…**` (Markdown bold). Empty when snippets were not asked for.
    pub snippet: String,
    /// The heading path (`A › B`) of the section the snippet comes from, if any.
    pub heading: Option<String>,
}

/// The vault's full-text index. See the module docs for its layout.
pub struct SearchIndex {
    pub(crate) schema: Schema,
    pub(crate) fields: Fields,
    pub(crate) main: Shard,
    pub(crate) deltas: Vec<Shard>,
    pub(crate) catalog: Catalog,
    /// Where each note's live document is: shard (0 = main, i = deltas[i-1]) and address.
    locs: HashMap<String, (usize, DocAddress)>,
    lev1: LevenshteinAutomatonBuilder,
    lev2: LevenshteinAutomatonBuilder,
    /// What the last build or sync left out, and why.
    skipped: Vec<Skipped>,
    /// How many parts the build that made this index was made in (1: all of it here, or loaded).
    built_in_parts: usize,
    /// This index's contents: a fresh version (unique in the process) after every change.
    version: u64,
    /// The version the last save wrote (or the saved index was loaded at).
    saved_version: u64,
    /// The catalog as last saved whole (its JSON, as written): a save writes the notes changed
    /// since beside it. `None` until a save writes it.
    pub(crate) catalog_base: Option<Arc<Vec<u8>>>,
    /// The notes added, changed or removed since `catalog_base`, with the version of each one's
    /// last change.
    pub(crate) catalog_changed: HashMap<String, u64>,
}

/// Versions of indexes, unique in the process: an index rebuilt while an older one's save was
/// under way never takes that save's version for its own.
static VERSIONS: AtomicU64 = AtomicU64::new(1);

fn next_version() -> u64 {
    VERSIONS.fetch_add(1, Ordering::Relaxed)
}

/// Why a note that was listed cannot be indexed.
fn skip_reason(e: &Error) -> SkipReason {
    match e {
        Error::NotText(_) => SkipReason::NotText,
        e => SkipReason::Unreadable(e.to_string()),
    }
}

/// What [`read_note`] found.
pub enum NoteRead {
    /// The note's text and mtime.
    Text { text: String, mtime: u64 },
    /// Nothing is there any more.
    Gone,
    /// Not something the index holds (not `.md`, in a hidden folder, not UTF-8).
    NotANote,
}

/// Reads a note for indexing. Lets a host read without holding the index (so searches go on
/// meanwhile) and then call [`SearchIndex::index_note`] or [`SearchIndex::remove`].
pub async fn read_note(vault: &dyn Vault, path: &VaultPath) -> Result<NoteRead> {
    if !is_note(path) {
        return Ok(NoteRead::NotANote);
    }
    let text = match vault.read(path).await {
        Ok(text) => text,
        Err(Error::NotFound(_)) => return Ok(NoteRead::Gone),
        Err(Error::NotText(_)) => return Ok(NoteRead::NotANote),
        Err(e) => return Err(e),
    };
    let mtime = vault.stat(path).await?.map(|s| s.mtime).unwrap_or(0);
    Ok(NoteRead::Text { text, mtime })
}

/// Yields to the host's event loop when [`YIELD_EVERY_MS`] of work went by since the last yield.
/// By time, not by note count: notes range from a line to megabytes.
pub(crate) struct Pacer<'a> {
    clock: &'a dyn Clock,
    last: u64,
}

impl<'a> Pacer<'a> {
    pub(crate) fn new(clock: &'a dyn Clock) -> Self {
        Pacer { clock, last: clock.now_ms() }
    }

    /// After one unit of work: when it is time, reports progress and yields.
    pub(crate) async fn tick(&mut self, progress: &mut dyn FnMut(Progress), done: usize, total: usize) {
        if self.clock.now_ms().saturating_sub(self.last) >= YIELD_EVERY_MS {
            progress(Progress { done, total });
            self.clock.sleep(0).await;
            self.last = self.clock.now_ms();
        }
    }
}

impl SearchIndex {
    /// Indexes every Markdown note of the vault (hidden folders skipped). Works in chunks,
    /// yielding to the host between them, and reports progress (first `0/total`, last
    /// `total/total`). An entry that cannot or must not be read (not UTF-8, a link outside the
    /// vault, a loop, an I/O error) is skipped and listed in [`SearchIndex::skipped`]; only a
    /// vault whose root cannot be listed fails the build.
    pub async fn build(
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<SearchIndex> {
        SearchIndex::build_in_parts(vault, clock, progress, None).await
    }

    /// [`SearchIndex::build`], with parts of a large vault built by `workers` (other cores)
    /// beside the part built here: the batches read are handed out in turn. The parts are the
    /// index's shards until the next compaction. When no worker starts, or one fails, every
    /// note is indexed here.
    pub async fn build_in_parts(
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
        workers: Option<&dyn PartWorkers>,
    ) -> Result<SearchIndex> {
        let (notes, mut skipped) = list_notes_skipping(vault).await?;
        let total = notes.len();
        progress(Progress { done: 0, total });
        let remote = match (workers, remote_parts_for(total)) {
            (Some(workers), count) if count > 0 => workers.start(count).await.unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut here = IndexPart::new()?;
        let mut pacer = Pacer::new(clock);
        let mut done = 0;
        for (turn, batch) in notes.chunks(READ_BATCH).enumerate() {
            let reads = vault.read_batch(batch).await;
            // Turn 0 of every round is this part's: it also reads, and answers searches.
            let part = turn % (remote.len() + 1);
            let mut handed: Vec<(&str, &str, u64)> = Vec::new();
            for (path, read) in batch.iter().zip(&reads) {
                done += 1;
                let (text, mtime) = match read {
                    Ok(read) => read,
                    Err(Error::NotFound(_)) => continue,
                    Err(e) => {
                        skipped.push(Skipped { path: path.to_string(), reason: skip_reason(e) });
                        continue;
                    }
                };
                if part == 0 {
                    here.add(path.as_str(), text, *mtime)?;
                    pacer.tick(progress, done, total).await;
                } else {
                    handed.push((path.as_str(), text, *mtime));
                }
            }
            if part > 0 {
                remote[part - 1].add(&handed);
                pacer.tick(progress, done, total).await;
            }
        }
        // The parts elsewhere finish while this one does.
        let finishing: Vec<_> = remote.iter().map(|part| part.finish()).collect();
        let (main, mut catalog) = here.finish_here()?;
        let mut parts = Vec::with_capacity(remote.len());
        for part in finishing {
            match part.await.and_then(PackedPart::open) {
                Ok(part) => parts.push(part),
                // Its notes are lost with it: build them all here instead.
                Err(_) => return Box::pin(SearchIndex::build_in_parts(vault, clock, progress, None)).await,
            }
        }
        let mut shards = Vec::with_capacity(1 + parts.len());
        shards.push(main);
        for (shard, notes) in parts {
            catalog.extend(notes);
            shards.push(shard);
        }
        let built_in_parts = shards.len();
        // The parts' segments become the main shard's as they are: nothing to merge before
        // the first save, which writes them side by side.
        let Ok(main) = shard::join(shards) else {
            return Box::pin(SearchIndex::build_in_parts(vault, clock, progress, None)).await;
        };
        let (schema, fields) = Fields::schema();
        let mut index = SearchIndex::assemble(schema, fields, main, Vec::new(), Catalog::from_notes(catalog));
        index.built_in_parts = built_in_parts;
        index.skipped = skipped;
        progress(Progress { done: total, total });
        Ok(index)
    }

    /// An index over notes given as `(path, text, mtime)`, without a vault (tests, tools).
    pub fn from_notes<'a>(notes: impl IntoIterator<Item = (&'a str, &'a str, u64)>) -> Result<SearchIndex> {
        let mut part = IndexPart::new()?;
        for (path, text, mtime) in notes {
            part.add(path, text, mtime)?;
        }
        let (main, catalog) = part.finish_here()?;
        let (schema, fields) = Fields::schema();
        Ok(SearchIndex::assemble(schema, fields, main, Vec::new(), Catalog::from_notes(catalog)))
    }

    /// The index over `main` and `deltas` (a saved index's changes), whose live documents are
    /// `catalog`'s notes, each once.
    pub(crate) fn assemble(
        schema: Schema,
        fields: Fields,
        main: Shard,
        deltas: Vec<Shard>,
        catalog: Catalog,
    ) -> SearchIndex {
        let mut index = SearchIndex {
            schema,
            fields,
            main,
            deltas,
            catalog,
            locs: HashMap::new(),
            lev1: LevenshteinAutomatonBuilder::new(1, true),
            lev2: LevenshteinAutomatonBuilder::new(2, true),
            skipped: Vec::new(),
            built_in_parts: 1,
            version: next_version(),
            saved_version: 0,
            catalog_base: None,
            catalog_changed: HashMap::new(),
        };
        index.relocate(0);
        index
    }

    /// Whether the index holds changes no save has written: a build, or a note indexed,
    /// re-dated or removed since. A quiet session has nothing to save.
    pub fn has_unsaved_changes(&self) -> bool {
        self.version != self.saved_version
    }

    /// The version of the contents, for [`SearchIndex::mark_saved`].
    pub(crate) fn version(&self) -> u64 {
        self.version
    }

    /// Records that the contents at `version` are saved (a later change stays unsaved).
    pub(crate) fn mark_saved(&mut self, version: u64) {
        self.saved_version = version;
    }

    fn changed(&mut self) {
        self.version = next_version();
    }

    /// Records a change of the catalog's entry for `path` (a new version of the index).
    fn catalog_changed(&mut self, path: &str) {
        self.changed();
        self.catalog_changed.insert(path.to_string(), self.version);
    }

    /// What the last [`SearchIndex::build`] or [`SearchIndex::sync`] left out, and why.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// How many parts the build that made this index was made in: 1 when every note was
    /// indexed here (or the index was loaded), more when workers built some
    /// ([`SearchIndex::build_in_parts`]).
    pub fn built_in_parts(&self) -> usize {
        self.built_in_parts
    }

    /// The number of indexed notes.
    pub fn note_count(&self) -> usize {
        self.catalog.len()
    }

    /// What the index knows about a note, if it is indexed.
    pub fn note(&self, path: &str) -> Option<&NoteEntry> {
        self.catalog.get(path)
    }

    /// Every indexed note, by path.
    pub fn notes(&self) -> impl Iterator<Item = (&str, &NoteEntry)> {
        self.catalog.notes().iter().map(|(p, e)| (p.as_str(), e))
    }

    /// The text of `path`'s sections under `heading` as the index stored it (see
    /// `schema::section_text`; `None` for the text before the first heading): `None` when the
    /// note is not indexed, empty when it has no such section.
    pub fn section_text(&self, path: &str, heading: Option<&str>) -> Option<String> {
        let &(i, addr) = self.locs.get(path)?;
        let doc: tantivy::TantivyDocument = self.shard(i).searcher.doc(addr).ok()?;
        let text =
            |field: Field| doc.get_first(field).and_then(|v| tantivy::schema::Value::as_str(&v)).unwrap_or_default();
        Some(section_text(text(self.fields.body), text(self.fields.sections), heading))
    }

    /// The number of delta shards waiting to be compacted into the main one.
    pub fn delta_count(&self) -> usize {
        self.deltas.len()
    }

    /// The number of segments the main shard holds: one after a compaction, one per part
    /// after a build in parts (until the next compaction).
    pub fn main_segments(&self) -> usize {
        self.main.paths.len()
    }

    /// Whether [`SearchIndex::compact`] has anything to do.
    pub fn needs_compaction(&self) -> bool {
        !self.deltas.is_empty() || !self.main.dead.is_empty()
    }

    /// Whether a save compacts the index first, rewriting the main shard, rather than saving the
    /// changes beside it: when the main shard is still a build's parts (several segments), or
    /// when the replaced documents it still holds, or the notes in the deltas, pass
    /// [`SearchIndex::changes_bound`] — each of them weighs on every query (a replaced document
    /// is skipped after it is ranked) and on every load.
    pub fn compaction_due(&self) -> bool {
        let bound = self.changes_bound();
        let in_deltas: usize = self.deltas.iter().map(Shard::live_docs).sum();
        self.main_segments() > 1 || self.main.dead.len() > bound || in_deltas > bound
    }

    /// How many replaced documents, or notes in deltas, a saved index keeps beside its main shard
    /// before a save compacts it: a sixteenth of the main shard (a compaction's cost grows with
    /// it), at least 16 and at most 256.
    pub fn changes_bound(&self) -> usize {
        (self.main.num_docs() / 16).clamp(16, 256)
    }

    fn shard(&self, i: usize) -> &Shard {
        if i == 0 {
            &self.main
        } else {
            &self.deltas[i - 1]
        }
    }

    fn shards(&self) -> impl Iterator<Item = &Shard> {
        std::iter::once(&self.main).chain(self.deltas.iter())
    }

    /// Records where the live documents of shards `from..` are.
    fn relocate(&mut self, from: usize) {
        let count = 1 + self.deltas.len();
        for i in from..count {
            let entries: Vec<(String, DocAddress)> =
                self.shard(i).live().map(|(addr, path)| (path.to_string(), addr)).collect();
            for (path, addr) in entries {
                self.locs.insert(path, (i, addr));
            }
        }
    }

    // ---- incremental updates ----------------------------------------------------------------

    /// Re-reads one note from the vault and updates the index: a new or changed note is
    /// (re)indexed, a note that no longer exists is removed. Files that are not notes (not
    /// `.md`, or in a hidden folder) are ignored. Returns whether the index changed.
    pub async fn update(&mut self, vault: &dyn Vault, path: &VaultPath) -> Result<bool> {
        match read_note(vault, path).await? {
            NoteRead::Text { text, mtime } => self.index_note(path.as_str(), &text, mtime),
            NoteRead::Gone => Ok(self.remove(path.as_str())),
            NoteRead::NotANote => Ok(false),
        }
    }

    /// Indexes `text` as the note at `path` (replacing an older version). Unchanged text only
    /// refreshes the recorded mtime. Returns whether the index changed.
    pub fn index_note(&mut self, path: &str, text: &str, mtime: u64) -> Result<bool> {
        let note = parse_note(path, text);
        if let Some(entry) = self.catalog.get(path) {
            if entry.hash == note.hash {
                if entry.mtime != mtime {
                    let mut entry = entry.clone();
                    entry.mtime = mtime;
                    self.catalog.insert(path.to_string(), entry);
                    // The catalog's dates are saved too: the next start does not read this note again.
                    self.catalog_changed(path);
                }
                return Ok(false);
            }
        }
        let mut writer = shard::writer(&self.schema, DELTA_MEMORY)?;
        writer.add_document(self.fields.document(&note, mtime)).map_err(search_error)?;
        let delta = Shard::open(writer.finalize().map_err(search_error)?)?;
        self.kill(path);
        self.deltas.push(delta);
        self.catalog.insert(path.to_string(), NoteEntry::new(&note, mtime));
        self.catalog_changed(path);
        self.relocate(self.deltas.len());
        if self.deltas.len() > MAX_DELTA_SHARDS {
            self.merge_deltas()?;
        }
        Ok(true)
    }

    /// Removes a note from the index. Returns whether it was indexed.
    pub fn remove(&mut self, path: &str) -> bool {
        self.kill(path);
        let removed = self.catalog.remove(path).is_some();
        if removed {
            self.catalog_changed(path);
        }
        removed
    }

    /// Follows a rename: the note leaves `from` and is read again at `to`.
    pub async fn rename(&mut self, vault: &dyn Vault, from: &VaultPath, to: &VaultPath) -> Result<bool> {
        let removed = self.remove(from.as_str());
        let added = self.update(vault, to).await?;
        Ok(removed || added)
    }

    fn kill(&mut self, path: &str) {
        if let Some((i, addr)) = self.locs.remove(path) {
            if i == 0 {
                self.main.dead.insert(addr);
            } else {
                self.deltas[i - 1].dead.insert(addr);
            }
        }
    }

    fn merge_deltas(&mut self) -> Result<()> {
        let merged = {
            let shards: Vec<&Shard> = self.deltas.iter().collect();
            shard::merge(&shards)?
        };
        self.deltas = vec![merged];
        self.relocate(1);
        Ok(())
    }

    /// Folds the deltas into one shard without their dead documents (none when no note in them is
    /// live), as a save writes them. Its cost grows with the deltas, not with the vault.
    pub(crate) fn fold_deltas(&mut self) -> Result<()> {
        let live: usize = self.deltas.iter().map(Shard::live_docs).sum();
        if live == 0 {
            // No note lives there (`locs` points at none of them).
            self.deltas.clear();
        } else if self.deltas.len() > 1 || !self.deltas[0].dead.is_empty() {
            self.merge_deltas()?;
        }
        Ok(())
    }

    /// Folds the deltas and the dead documents into a new main shard. Its cost grows with the
    /// vault (it rewrites the index), so it runs when the host is idle and before persisting,
    /// never inside an update.
    pub fn compact(&mut self) -> Result<()> {
        if !self.needs_compaction() {
            return Ok(());
        }
        let merged = {
            let shards: Vec<&Shard> = self.shards().collect();
            if shards.iter().map(|s| s.live_docs()).sum::<usize>() == 0 {
                Shard::open(shard::writer(&self.schema, DELTA_MEMORY)?.finalize().map_err(search_error)?)?
            } else {
                shard::merge(&shards)?
            }
        };
        self.main = merged;
        self.deltas.clear();
        self.locs.clear();
        self.relocate(0);
        Ok(())
    }

    /// Brings the index up to date with the vault: new notes are indexed, notes whose mtime
    /// changed are re-read (and re-indexed if their text changed), vanished notes are removed.
    /// Returns the number of notes added, changed or removed. What cannot be read is skipped,
    /// as in [`SearchIndex::build`].
    pub async fn sync(
        &mut self,
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<usize> {
        let (notes, mut skipped) = list_notes_skipping(vault).await?;
        let total = notes.len();
        let mut changed = 0;
        let mut pacer = Pacer::new(clock);
        for path in self.unlisted(notes.iter().map(VaultPath::as_str)) {
            changed += usize::from(self.remove(&path));
        }
        for (i, path) in notes.iter().enumerate() {
            let mtime = vault.stat(path).await.ok().flatten().map(|s| s.mtime).unwrap_or(0);
            if !self.outdated(path.as_str(), mtime) {
                continue;
            }
            let updated = match read_note(vault, path).await {
                Ok(NoteRead::Text { text, mtime }) => self.index_note(path.as_str(), &text, mtime)?,
                Ok(NoteRead::Gone) => self.remove(path.as_str()),
                Ok(NoteRead::NotANote) => {
                    // Listed as a note, so it is not text: it leaves the index if it was there.
                    skipped.push(Skipped { path: path.to_string(), reason: SkipReason::NotText });
                    self.remove(path.as_str())
                }
                Err(e) => {
                    skipped.push(Skipped { path: path.to_string(), reason: skip_reason(&e) });
                    false
                }
            };
            changed += usize::from(updated);
            pacer.tick(progress, i + 1, total).await;
        }
        self.skipped = skipped;
        progress(Progress { done: total, total });
        Ok(changed)
    }

    /// Compares `notes` (every note of the vault now, with its mtime, as the host's file list
    /// says) with what the index holds: the notes to read again (new, or with another mtime) and
    /// the indexed notes no longer listed. What [`SearchIndex::sync`] finds by listing and
    /// stating the vault, from a listing the host already has.
    pub fn stale(&self, notes: &[(VaultPath, u64)]) -> (Vec<VaultPath>, Vec<String>) {
        let gone = self.unlisted(notes.iter().map(|(p, _)| p.as_str()));
        let stale = notes
            .iter()
            .filter(|(path, mtime)| is_note(path) && self.outdated(path.as_str(), *mtime))
            .map(|(path, _)| path.clone())
            .collect();
        (stale, gone)
    }

    /// The indexed notes not among `listed` (every note of the vault now).
    fn unlisted<'a>(&self, listed: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let listed: std::collections::HashSet<&str> = listed.into_iter().collect();
        self.catalog.notes().keys().filter(|p| !listed.contains(p.as_str())).cloned().collect()
    }

    /// Whether the note at `path`, modified at `mtime`, must be read again: it is not indexed,
    /// or indexed at another date.
    fn outdated(&self, path: &str, mtime: u64) -> bool {
        self.catalog.get(path).is_none_or(|e| e.mtime != mtime)
    }

    // ---- search -----------------------------------------------------------------------------

    /// Runs a query (see the query language in [`crate::search`]) with its filters. A query
    /// that cannot be read strictly is read leniently, so every string is a valid query.
    pub fn search(&self, request: &SearchQuery) -> Result<Vec<SearchHit>> {
        let expr = query::parse(&request.text);
        let preference = LanguagePreference::new(&request.text, request.language.as_deref());
        // Notes in other languages fall behind after ranking, in a window that widens until
        // the page is exact (see `rank_in_language`).
        let page_end = request.offset + request.limit.max(1);
        let window = preference.window(page_end);
        let mut query = self.query(request, &expr, if expr.is_question() { Matching::Question } else { Matching::All });
        let mut ranked = self.rank(query.as_ref(), window)?;
        if ranked.is_empty() && !expr.is_question() && expr.is_multi_and() {
            // Nothing has every word: rank the notes that have some of them.
            query = self.query(request, &expr, Matching::Any);
            ranked = self.rank(query.as_ref(), window)?;
        }
        let in_window = |ranked: Vec<(Score, usize, DocAddress)>, width: usize| Window {
            complete: ranked.len() < width,
            last: ranked.last().map_or(0.0, |hit| hit.0),
            items: ranked,
        };
        let title = |path: &str| self.catalog.get(path).map_or("", |e| e.title.as_str());
        let ranked = rank_in_language(
            in_window(ranked, window),
            window,
            page_end,
            |width| Ok(in_window(self.rank(query.as_ref(), width)?, width)),
            |ranked| {
                let paths: Vec<&str> =
                    ranked.iter().map(|&(_, i, addr)| self.shard(i).path(addr).unwrap_or_default()).collect();
                preference.factors(&paths, title)
            },
            |hit| &mut hit.0,
        )?;
        let ranked: Vec<_> = ranked.into_iter().skip(request.offset).take(request.limit).collect();
        if !request.snippets || ranked.is_empty() {
            return Ok(ranked
                .into_iter()
                .map(|(score, i, addr)| self.hit(i, addr, score, String::new(), None))
                .collect());
        }
        let snippets = Snippets::new(&self.fields, query.as_ref(), &self.searchers());
        let with_snippets = request.snippet_limit.unwrap_or(usize::MAX);
        ranked
            .into_iter()
            .enumerate()
            .map(|(rank, (score, i, addr))| {
                if rank >= with_snippets {
                    return Ok(self.hit(i, addr, score, String::new(), None));
                }
                let (snippet, heading) = snippets.for_doc(&self.shard(i).searcher, addr)?;
                Ok(self.hit(i, addr, score, snippet, heading))
            })
            .collect()
    }

    /// For each of `paths`, the share of the query's own words (a question's without its
    /// function words; see [`crate::search`]) that the note holds, each word weighted by its
    /// inverse document frequency: 1.0 when it holds them all, near 0 when it holds only the
    /// common ones. Hybrid search uses it to tell a decisive full-text match from an incidental
    /// one. A note not in the index covers nothing; when the index holds none of the words (all
    /// typos), every note covers them all.
    pub fn coverage(&self, text: &str, paths: &[&str]) -> Vec<f32> {
        let terms = query::content_terms(&query::parse(text), &mut vault_analyzer());
        let fields: Vec<Field> = self.fields.boosted().iter().map(|&(f, _)| f).collect();
        let docs: u64 = self.shards().map(|s| s.searcher.num_docs()).sum();
        // A word no note holds (a typo, matched through its corrections) is left out: it would
        // weigh the most and be held by nobody.
        let idf: Vec<f32> = terms
            .iter()
            .map(|t| {
                let df: u64 = fields
                    .iter()
                    .map(|&f| {
                        self.shards()
                            .map(|s| s.searcher.doc_freq(&Term::from_field_text(f, t)).unwrap_or(0))
                            .sum::<u64>()
                    })
                    .max()
                    .unwrap_or(0);
                if df == 0 {
                    0.0
                } else {
                    (1.0 + (docs as f32 - df as f32 + 0.5) / (df as f32 + 0.5)).ln()
                }
            })
            .collect();
        let total: f32 = idf.iter().sum();
        paths
            .iter()
            .map(|path| {
                let Some(&(i, addr)) = self.locs.get(*path) else { return 0.0 };
                if total <= 0.0 {
                    return 1.0;
                }
                let segment = self.shard(i).searcher.segment_reader(addr.segment_ord);
                let held: f32 = terms
                    .iter()
                    .zip(&idf)
                    .filter(|(t, _)| fields.iter().any(|&f| holds(segment, f, t, addr.doc_id)))
                    .map(|(_, w)| w)
                    .sum();
                held / total
            })
            .collect()
    }

    fn hit(&self, shard: usize, addr: DocAddress, score: Score, snippet: String, heading: Option<String>) -> SearchHit {
        let path = self.shard(shard).path(addr).unwrap_or_default().to_string();
        let title = self.catalog.get(&path).map(|e| e.title.clone()).unwrap_or_default();
        SearchHit { path, title, score, snippet, heading }
    }

    fn searchers(&self) -> Vec<&Searcher> {
        self.shards().map(|s| &s.searcher).collect()
    }

    /// The query for `expr` with `request`'s filters.
    fn query(&self, request: &SearchQuery, expr: &Expr, matching: Matching) -> Box<dyn Query> {
        let mut builder = QueryBuilder {
            fields: &self.fields,
            analyzer: vault_analyzer(),
            unstemmed: unstemmed_analyzer(),
            searchers: self.searchers(),
            matching,
            lev1: &self.lev1,
            lev2: &self.lev2,
            in_question: false,
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, builder.build(expr))];
        let mut filters = Vec::new();
        if let Some(folder) = request.folder.as_deref().filter(|f| !f.trim_matches('/').is_empty()) {
            filters.push(Expr::Folder(folder.to_string()));
        }
        for tag in request.tags.iter().filter(|t| !t.trim_start_matches('#').is_empty()) {
            filters.push(Expr::Tag(tag.clone()));
        }
        if let Some(prefix) = request.path_prefix.as_deref().filter(|p| !p.is_empty()) {
            filters.push(Expr::Path(prefix.to_string()));
        }
        for f in &filters {
            clauses.push((Occur::Must, builder.build(f)));
        }
        if clauses.len() == 1 {
            clauses.remove(0).1
        } else {
            Box::new(BooleanQuery::new(clauses))
        }
    }

    /// The `wanted` live notes that score best for `query` over every shard, best first (ties
    /// by path).
    fn rank(&self, query: &dyn Query, wanted: usize) -> Result<Vec<(Score, usize, DocAddress)>> {
        let stats = CombinedStats(self.searchers());
        let mut ranked = Vec::new();
        for (i, shard) in self.shards().enumerate() {
            // Replaced documents are skipped after ranking, so a few more are ranked than wanted;
            // only when more of those than that are replaced ones is the shard ranked again
            // with room for all of them (a wide top list is slow: it prunes less).
            let mut extra = shard.dead.len().min(RANK_SLACK);
            loop {
                let limit = wanted + extra;
                let collector = TopDocs::with_limit(limit).order_by_score();
                let top =
                    shard.searcher.search_with_statistics_provider(query, &collector, &stats).map_err(search_error)?;
                let complete = top.len() < limit;
                let before = ranked.len();
                ranked.extend(
                    top.into_iter().filter(|(_, addr)| !shard.dead.contains(addr)).map(|(s, addr)| (s, i, addr)),
                );
                if complete || ranked.len() - before >= wanted || extra == shard.dead.len() {
                    break;
                }
                ranked.truncate(before);
                extra = shard.dead.len();
            }
        }
        crate::sort::sort_by(&mut ranked, |a, b| {
            b.0.total_cmp(&a.0).then_with(|| self.shard(a.1).path(a.2).cmp(&self.shard(b.1).path(b.2)))
        });
        ranked.truncate(wanted);
        Ok(ranked)
    }

    /// Paths of the live notes matching `query`, sorted.
    fn matching_paths(&self, query: &dyn Query) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for shard in self.shards() {
            let docs = shard.searcher.search(query, &DocSetCollector).map_err(search_error)?;
            out.extend(
                docs.into_iter().filter(|a| !shard.dead.contains(a)).filter_map(|a| shard.path(a).map(str::to_string)),
            );
        }
        crate::sort::sort(&mut out);
        out.dedup();
        Ok(out)
    }

    /// Notes with `tag` or a tag nested under it (`project` matches `#project/alpha`), sorted.
    /// Case-insensitive, `#` optional.
    pub fn notes_with_tag(&self, tag: &str) -> Result<Vec<String>> {
        let tag = tag.trim().trim_start_matches('#').trim_matches('/').to_lowercase();
        if tag.is_empty() {
            return Err(Error::Invalid("an empty tag".into()));
        }
        let query = TermQuery::new(Term::from_field_text(self.fields.tag, &tag), IndexRecordOption::Basic);
        self.matching_paths(&query)
    }

    /// Notes that link to (or embed) `path`, resolving each link as Obsidian does: by full path,
    /// else by file name or path suffix, preferring the candidate that shares the most folders
    /// with the linking note, then the shortest path. Sorted; the note itself excluded.
    pub fn backlinks(&self, path: &str) -> Result<Vec<String>> {
        let targets = Catalog::targets_for(path);
        let clauses: Vec<(Occur, Box<dyn Query>)> = targets
            .iter()
            .map(|t| {
                let q: Box<dyn Query> =
                    Box::new(TermQuery::new(Term::from_field_text(self.fields.link, t), IndexRecordOption::Basic));
                (Occur::Should, q)
            })
            .collect();
        let candidates = self.matching_paths(&BooleanQuery::new(clauses))?;
        Ok(candidates
            .into_iter()
            .filter(|source| source != path)
            .filter(|source| {
                self.catalog.get(source).is_some_and(|entry| {
                    entry
                        .links
                        .iter()
                        .any(|l| targets.contains(l) && self.catalog.resolve(l, Some(source)) == Some(path))
                })
            })
            .collect())
    }

    /// The note a link target (as written: `Name`, `folder/Name`, `Name.md`) in the note
    /// `source` resolves to (see [`SearchIndex::backlinks`] for the rule).
    pub fn resolve_link(&self, target: &str, source: &str) -> Option<String> {
        let target = super::schema::normalize_link(target)?;
        self.catalog.resolve(&target, Some(source)).map(str::to_string)
    }
}

/// Whether document `doc` of `segment` has `term` in `field`.
fn holds(segment: &tantivy::SegmentReader, field: Field, term: &str, doc: tantivy::DocId) -> bool {
    let Ok(inverted) = segment.inverted_index(field) else { return false };
    match inverted.read_postings(&Term::from_field_text(field, term), IndexRecordOption::Basic) {
        Ok(Some(mut postings)) => {
            use tantivy::DocSet;
            // `seek` only moves forward.
            postings.doc() == doc || postings.doc() < doc && postings.seek(doc) == doc
        }
        _ => false,
    }
}

/// BM25 statistics over several shards, so a term weighs the same in each.
struct CombinedStats<'a>(Vec<&'a Searcher>);

impl Bm25StatisticsProvider for CombinedStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.0.iter().map(|s| s.total_num_tokens(field)).sum()
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.0.iter().map(|s| s.total_num_docs()).sum()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.0.iter().map(|s| s.doc_freq(term)).sum()
    }
}
