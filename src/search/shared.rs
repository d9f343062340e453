//! The vault's index as everyone who searches it shares it.

use std::cell::RefCell;
use std::rc::Rc;

use super::{read_note, NoteRead, SearchIndex};
use crate::embed::SemanticIndex;
use crate::vault::{EntryKind, Vault, VaultPath};
use crate::{Error, Result};

/// The index of one vault, shared by the search modal, the indexer that keeps it current and
/// the agent's tools. Empty until built or loaded. Borrows last one call and never span an
/// await: a build makes a new index and swaps it in, so searches keep answering meanwhile.
#[derive(Clone, Default)]
pub struct SharedIndex(Rc<RefCell<Option<SearchIndex>>>, SemanticIndex);

impl SharedIndex {
    /// A handle with no index yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Puts `index` in place (after a build or load).
    pub fn replace(&self, index: SearchIndex) {
        *self.0.borrow_mut() = Some(index);
    }

    /// The vault's vectors, which travel with its full-text index (so the agent's tools and
    /// the search modal share them too).
    pub fn semantic(&self) -> &SemanticIndex {
        &self.1
    }

    /// Whether an index is in place.
    pub fn is_ready(&self) -> bool {
        self.0.borrow().is_some()
    }

    /// Runs `f` on the index. Fails when there is none yet, or when it is being changed.
    pub fn read<T>(&self, f: impl FnOnce(&SearchIndex) -> Result<T>) -> Result<T> {
        let guard = self.0.try_borrow().map_err(|_| busy())?;
        f(guard.as_ref().ok_or_else(not_ready)?)
    }

    /// Runs `f` on the index to change it. Fails when there is none yet, or when it is in use.
    pub fn write<T>(&self, f: impl FnOnce(&mut SearchIndex) -> Result<T>) -> Result<T> {
        let mut guard = self.0.try_borrow_mut().map_err(|_| busy())?;
        f(guard.as_mut().ok_or_else(not_ready)?)
    }
}

impl SharedIndex {
    /// Brings the index up to date with whatever is now at `path` after a change there: a note
    /// is (re)indexed or removed; for a folder, every note below it and every indexed note that
    /// was below it. Without an index in place there is nothing to do. Notes are read first and
    /// indexed after, so the index is never held across an await.
    pub async fn refresh(&self, vault: &dyn Vault, path: &VaultPath) -> Result<()> {
        // The vectors catch up lazily: the next semantic search re-embeds what changed.
        self.1.mark_stale(path.as_str());
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
        paths.sort();
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
