//! [`SharedIndex`]: one vault's full-text index and vectors, shared.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::embed::SemanticIndex;
use crate::host::Clock;
use crate::search::{read_note, LoadOutcome, NoteRead, Pacer, PartWorkers, Progress, SearchIndex, READ_BATCH};
use crate::vault::{EntryKind, Vault, VaultPath};
use crate::{Error, Result};

/// How often a search that waits for a build under way looks again (milliseconds).
const BUILD_POLL_MS: u64 = 25;

/// The index of one vault — full text and vectors — shared by the search modal, the indexer
/// that keeps it current and the agent's tools. The full-text part is empty until built or
/// loaded ([`SharedIndex::ensure`] builds it on demand). Borrows last one call and never span
/// an await: a build makes a new index and swaps it in, so searches keep answering meanwhile.
#[derive(Clone, Default)]
pub struct SharedIndex {
    fulltext: Rc<RefCell<Option<SearchIndex>>>,
    /// A build or load through this handle is under way (so [`SharedIndex::ensure`] waits for it
    /// instead of starting a second one).
    building: Rc<Cell<bool>>,
    semantic: SemanticIndex,
    /// Where parts of a full build may be built (other cores), if the host lends workers.
    part_workers: Rc<RefCell<Option<Rc<dyn PartWorkers>>>>,
}

impl SharedIndex {
    /// A handle with no index yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `index` in place (after a build or load).
    pub fn replace(&self, index: SearchIndex) {
        *self.fulltext.borrow_mut() = Some(index);
    }

    /// Lets full builds through this handle build parts of a large vault on `workers`
    /// ([`SearchIndex::build_in_parts`]).
    pub fn set_part_workers(&self, workers: Rc<dyn PartWorkers>) {
        *self.part_workers.borrow_mut() = Some(workers);
    }

    fn workers(&self) -> Option<Rc<dyn PartWorkers>> {
        self.part_workers.borrow().clone()
    }

    /// The vault's vectors, which travel with its full-text index (so the agent's tools and
    /// the search modal share them too).
    pub fn semantic(&self) -> &SemanticIndex {
        &self.semantic
    }

    /// Whether a full-text index is in place.
    pub fn is_ready(&self) -> bool {
        self.fulltext.borrow().is_some()
    }

    /// Runs `f` on the index. Fails when there is none yet, or when it is being changed.
    pub fn read<T>(&self, f: impl FnOnce(&SearchIndex) -> Result<T>) -> Result<T> {
        let guard = self.fulltext.try_borrow().map_err(|_| busy())?;
        f(guard.as_ref().ok_or_else(not_ready)?)
    }

    /// Runs `f` on the index to change it. Fails when there is none yet, or when it is in use.
    pub fn write<T>(&self, f: impl FnOnce(&mut SearchIndex) -> Result<T>) -> Result<T> {
        let mut guard = self.fulltext.try_borrow_mut().map_err(|_| busy())?;
        f(guard.as_mut().ok_or_else(not_ready)?)
    }

    /// Indexes every note of the vault ([`SearchIndex::build`]) and puts the index in place.
    /// Returns the number of notes indexed.
    pub async fn build(
        &self,
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<usize> {
        let _building = Building::start(&self.building);
        let workers = self.workers();
        let index = SearchIndex::build_in_parts(vault, clock, progress, workers.as_deref()).await?;
        let count = index.note_count();
        self.replace(index);
        Ok(count)
    }

    /// Loads the saved index, or builds it ([`SearchIndex::load_or_build`]), and puts it in place.
    pub async fn load_or_build(
        &self,
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<LoadOutcome> {
        let _building = Building::start(&self.building);
        let workers = self.workers();
        let (index, outcome) = SearchIndex::load_or_build_in_parts(vault, clock, progress, workers.as_deref()).await?;
        self.replace(index);
        Ok(outcome)
    }

    /// Makes sure a full-text index is in place: when none is, waits for a build under way (the
    /// plugin's, at start-up) or builds one from the vault. What the search tools call first, so
    /// every search reads the index — one tokeniser, one ranking, whenever it is asked.
    pub async fn ensure(&self, vault: &dyn Vault, clock: &dyn Clock) -> Result<()> {
        while !self.is_ready() && self.building.get() {
            clock.sleep(BUILD_POLL_MS).await;
        }
        if !self.is_ready() {
            self.build(vault, clock, &mut |_| {}).await?;
        }
        Ok(())
    }
}

/// A file as the host lists it, with its modification date: what [`SharedIndex::catch_up`]
/// compares the index with (the plugin sends Obsidian's file list, `TFile.stat.mtime`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct DatedNote {
    /// Vault-relative path.
    pub path: String,
    /// Last modified, in milliseconds since the epoch.
    pub mtime: f64,
}

impl DatedNote {
    /// The path and date as the index keeps them; `None` for a path outside the vault (not
    /// one of its notes).
    pub fn parse(&self) -> Option<(VaultPath, u64)> {
        Some((VaultPath::parse(&self.path).ok()?, self.mtime.max(0.0) as u64))
    }
}

impl SharedIndex {
    /// Brings a loaded index up to date with the vault as the host lists it now (`notes`: every
    /// file with its mtime; what is not a note is ignored): notes no longer listed are removed,
    /// notes new or with another date are read (in batches) and indexed — what changed while
    /// the app was closed. Returns the number of notes that changed. Reads never hold the index.
    pub async fn catch_up(
        &self,
        vault: &dyn Vault,
        notes: &[(VaultPath, u64)],
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<usize> {
        let (stale, gone) = self.read(|index| Ok(index.stale(notes)))?;
        let mut changed = self.write(|index| Ok(gone.iter().filter(|path| index.remove(path)).count()))?;
        let total = stale.len();
        let mut pacer = Pacer::new(clock);
        let mut done = 0;
        for batch in stale.chunks(READ_BATCH) {
            let reads = vault.read_batch(batch).await;
            for (path, read) in batch.iter().zip(reads) {
                done += 1;
                changed += usize::from(self.write(|index| match read {
                    Ok((text, mtime)) => index.index_note(path.as_str(), &text, mtime),
                    Err(e) if e.is_not_found() => Ok(index.remove(path.as_str())),
                    // Unreadable now (not text, an I/O error): left as it was.
                    Err(_) => Ok(false),
                })?);
            }
            pacer.tick(progress, done, total).await;
        }
        progress(Progress { done: total, total });
        Ok(changed)
    }
}

/// Marks a build under way for as long as it lives (a failed or dropped build clears it too).
struct Building<'a>(&'a Cell<bool>);

impl<'a> Building<'a> {
    fn start(flag: &'a Cell<bool>) -> Self {
        flag.set(true);
        Building(flag)
    }
}

impl Drop for Building<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl SharedIndex {
    /// Brings the index up to date with whatever is now at `path` after a change there: a note
    /// is (re)indexed or removed; for a folder, every note below it and every indexed note that
    /// was below it. Without an index in place there is nothing to do. Notes are read first and
    /// indexed after, so the index is never held across an await.
    pub async fn refresh(&self, vault: &dyn Vault, path: &VaultPath) -> Result<()> {
        // The vectors catch up lazily: the next semantic search re-embeds what changed.
        self.semantic.mark_stale(path.as_str());
        if !self.is_ready() {
            return Ok(());
        }
        let prefix = format!("{}/", path.as_str());
        let mut paths: Vec<VaultPath> = self.read(|index| {
            Ok(index
                .notes()
                .filter(|(p, _)| p.starts_with(&prefix))
                .filter_map(|(p, _)| VaultPath::parse(p).ok())
                .collect())
        })?;
        paths.push(path.clone());
        if vault.stat(path).await?.is_some_and(|s| s.kind == EntryKind::Folder) {
            let mut pending = vec![path.clone()];
            while let Some(dir) = pending.pop() {
                let listing = vault.list(&dir).await?;
                paths.extend(listing.files);
                pending.extend(listing.folders);
            }
        }
        crate::sort::sort(&mut paths);
        paths.dedup();
        for note in paths {
            let read = read_note(vault, &note).await?;
            self.write(|index| match read {
                NoteRead::Text { text, mtime } => index.index_note(note.as_str(), &text, mtime).map(drop),
                NoteRead::Gone => {
                    index.remove(note.as_str());
                    Ok(())
                }
                NoteRead::NotANote => Ok(()),
            })?;
        }
        Ok(())
    }
}

fn busy() -> Error {
    Error::Invalid("the search index is busy".into())
}

fn not_ready() -> Error {
    Error::Invalid("the search index is not built yet".into())
}
