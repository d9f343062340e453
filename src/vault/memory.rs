//! An in-memory vault: a real implementation of [`Vault`] for tests and benchmarks.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use async_trait::async_trait;

use super::{decode_text, trash_destination, EntryKind, Listing, Stat, Vault, VaultPath};
use crate::{Error, Result};

/// A vault held in memory. Modification times come from a counter that advances on every
/// write (or from [`MemoryVault::set_now`]), so tests are deterministic.
#[derive(Default)]
pub struct MemoryVault {
    files: RefCell<BTreeMap<VaultPath, File>>,
    folders: RefCell<BTreeSet<VaultPath>>,
    now: Cell<u64>,
}

#[derive(Clone)]
struct File {
    data: Vec<u8>,
    mtime: u64,
}

impl MemoryVault {
    /// An empty vault.
    pub fn new() -> Self {
        Self::default()
    }

    /// A vault holding the given `(path, text)` notes.
    pub fn with_notes<'a>(notes: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self> {
        let vault = Self::new();
        for (path, text) in notes {
            vault.insert(&VaultPath::parse(path)?, text.as_bytes().to_vec())?;
        }
        Ok(vault)
    }

    /// Sets the time (ms since the epoch) stamped on the next writes.
    pub fn set_now(&self, mtime: u64) {
        self.now.set(mtime);
    }

    /// Number of files.
    pub fn file_count(&self) -> usize {
        self.files.borrow().len()
    }

    fn tick(&self) -> u64 {
        let t = self.now.get() + 1;
        self.now.set(t);
        t
    }

    fn is_folder(&self, path: &VaultPath) -> bool {
        path.is_root() || self.folders.borrow().contains(path)
    }

    fn ensure_parents(&self, path: &VaultPath) -> Result<()> {
        for ancestor in path.ancestors() {
            if self.files.borrow().contains_key(&ancestor) {
                return Err(Error::NotAFolder(ancestor.to_string()));
            }
        }
        let mut folders = self.folders.borrow_mut();
        for ancestor in path.ancestors() {
            folders.insert(ancestor);
        }
        Ok(())
    }

    fn insert(&self, path: &VaultPath, data: Vec<u8>) -> Result<()> {
        if path.is_root() || self.is_folder(path) {
            return Err(Error::IsAFolder(path.to_string()));
        }
        self.ensure_parents(path)?;
        let mtime = self.tick();
        self.files.borrow_mut().insert(path.clone(), File { data, mtime });
        Ok(())
    }

    fn get(&self, path: &VaultPath) -> Result<Vec<u8>> {
        if let Some(file) = self.files.borrow().get(path) {
            return Ok(file.data.clone());
        }
        if self.is_folder(path) {
            return Err(Error::IsAFolder(path.to_string()));
        }
        Err(Error::NotFound(path.to_string()))
    }

    fn exists(&self, path: &VaultPath) -> bool {
        self.is_folder(path) || self.files.borrow().contains_key(path)
    }

    /// Moves `from` (file or folder subtree) to `to` without any checks.
    fn move_entry(&self, from: &VaultPath, to: &VaultPath) {
        let mut files = self.files.borrow_mut();
        let moved: Vec<VaultPath> = files.keys().filter(|p| p.starts_with(from)).cloned().collect();
        for old in moved {
            if let (Some(file), Some(new)) = (files.remove(&old), old.rebase(from, to)) {
                files.insert(new, file);
            }
        }
        let mut folders = self.folders.borrow_mut();
        let moved: Vec<VaultPath> = folders.iter().filter(|p| p.starts_with(from)).cloned().collect();
        for old in moved {
            folders.remove(&old);
            if let Some(new) = old.rebase(from, to) {
                folders.insert(new);
            }
        }
    }

    fn delete_entry(&self, path: &VaultPath) {
        self.files.borrow_mut().retain(|p, _| !p.starts_with(path));
        self.folders.borrow_mut().retain(|p| !p.starts_with(path));
    }
}

#[async_trait(?Send)]
impl Vault for MemoryVault {
    async fn read(&self, path: &VaultPath) -> Result<String> {
        decode_text(path, self.get(path)?)
    }

    async fn read_binary(&self, path: &VaultPath) -> Result<Vec<u8>> {
        self.get(path)
    }

    async fn write(&self, path: &VaultPath, content: &str) -> Result<()> {
        self.insert(path, content.as_bytes().to_vec())
    }

    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        self.insert(path, data.to_vec())
    }

    async fn list(&self, dir: &VaultPath) -> Result<Listing> {
        if !self.is_folder(dir) {
            return Err(if self.files.borrow().contains_key(dir) {
                Error::NotAFolder(dir.to_string())
            } else {
                Error::NotFound(dir.to_string())
            });
        }
        // Paths sort as strings, so everything inside `dir` lies in one run after it (past
        // siblings such as `dir.md` or `dir 2`, which sort before `dir/`): list that run instead
        // of scanning the whole vault for every folder.
        let prefix = if dir.is_root() { String::new() } else { format!("{}/", dir.as_str()) };
        let before = |p: &&VaultPath| p.as_str() < prefix.as_str();
        let inside = |p: &&VaultPath| p.as_str().starts_with(&prefix);
        let child = |p: &&VaultPath| !p.as_str()[prefix.len()..].contains('/');
        let after = (Bound::Excluded(dir), Bound::Unbounded);
        let files = self.files.borrow();
        let folders = self.folders.borrow();
        Ok(Listing {
            files: files
                .range::<VaultPath, _>(after)
                .map(|(p, _)| p)
                .skip_while(before)
                .take_while(inside)
                .filter(child)
                .cloned()
                .collect(),
            folders: folders
                .range::<VaultPath, _>(after)
                .skip_while(before)
                .take_while(inside)
                .filter(child)
                .cloned()
                .collect(),
            skipped: Vec::new(),
        })
    }

    async fn stat(&self, path: &VaultPath) -> Result<Option<Stat>> {
        if let Some(file) = self.files.borrow().get(path) {
            return Ok(Some(Stat { kind: EntryKind::File, size: file.data.len() as u64, mtime: file.mtime }));
        }
        if self.is_folder(path) {
            return Ok(Some(Stat { kind: EntryKind::Folder, size: 0, mtime: 0 }));
        }
        Ok(None)
    }

    async fn mkdir(&self, path: &VaultPath) -> Result<()> {
        if self.files.borrow().contains_key(path) {
            return Err(Error::NotAFolder(path.to_string()));
        }
        self.ensure_parents(path)?;
        if !path.is_root() {
            self.folders.borrow_mut().insert(path.clone());
        }
        Ok(())
    }

    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<()> {
        if from.is_root() || !self.exists(from) {
            return Err(Error::NotFound(from.to_string()));
        }
        if self.exists(to) {
            return Err(Error::AlreadyExists(to.to_string()));
        }
        if to.starts_with(from) {
            return Err(Error::Invalid(format!("cannot move {from} into itself ({to})")));
        }
        self.ensure_parents(to)?;
        self.move_entry(from, to);
        Ok(())
    }

    async fn trash(&self, path: &VaultPath) -> Result<()> {
        if path.is_root() || !self.exists(path) {
            return Err(Error::NotFound(path.to_string()));
        }
        let destination = trash_destination(self, path).await?;
        self.ensure_parents(&destination)?;
        self.move_entry(path, &destination);
        Ok(())
    }

    async fn remove(&self, path: &VaultPath) -> Result<()> {
        if path.is_root() || !self.exists(path) {
            return Err(Error::NotFound(path.to_string()));
        }
        self.delete_entry(path);
        Ok(())
    }
}
