//! Stage 5: checkpoints before every write. `undo.rs` puts them back.

use std::cell::RefCell;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::CHECKPOINT_FOLDER;
use crate::hash::content_hash;
use crate::vault::{read_atomic, write_atomic, EntryKind, Vault, VaultPath};
use crate::{Error, Result};

const MANIFEST: &str = "manifest.json";
/// Version 2 records what the task left at each path; version 1 manifests are still read.
const FORMAT_VERSION: u32 = 2;

/// The state of every path a task touched, as it was before the task first touched it, saved
/// under `.obsidian-agent/checkpoints/<taskId>/`: a manifest, and one blob per file.
///
/// The pipeline records each path a write names before the write runs (a folder: everything
/// below it; a new path: its missing parent folders too), and only the first time, so the
/// record is the state before the task; after the write, it records what appeared below those
/// paths as absent before, and what the task left at every path it touched (so an undo can tell
/// the task's changes from the user's later ones). A write never runs unless its record was
/// saved.
pub struct CheckpointStore {
    vault: Rc<dyn Vault>,
    folder: VaultPath,
    manifest: RefCell<Manifest>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Manifest {
    pub(super) version: u32,
    pub(super) task_id: String,
    pub(super) created_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) undone_ms: Option<u64>,
    pub(super) entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Entry {
    pub(super) path: VaultPath,
    #[serde(flatten)]
    pub(super) prior: Prior,
    /// What the task left at the path after its last write there; none while no write of the
    /// task has finished on it (then it left the path as it was before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) left: Option<State>,
    /// What someone else had put at the path when a later write of the task found it changed
    /// (so what the task left there, or wherever it moved it, holds their change too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) changed_between: Option<State>,
}

/// What was at a path before the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "prior", rename_all = "snake_case")]
pub(super) enum Prior {
    Absent,
    Folder,
    File { blob: String, size: u64, hash: String },
}

/// What is at a path, enough to tell whether it changed: nothing, a folder, or a file's hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum State {
    Absent,
    Folder,
    File { hash: String },
}

impl Prior {
    pub(super) fn state(&self) -> State {
        match self {
            Prior::Absent => State::Absent,
            Prior::Folder => State::Folder,
            Prior::File { hash, .. } => State::File { hash: hash.clone() },
        }
    }
}

impl Entry {
    /// What the task left at the path; `None` for a version 1 manifest, which did not record it.
    pub(super) fn left_state(&self, version: u32) -> Option<State> {
        match &self.left {
            Some(state) => Some(state.clone()),
            None if version >= 2 => Some(self.prior.state()),
            None => None,
        }
    }
}

impl Manifest {
    /// The paths the task changed: every recorded path in a version 1 manifest; in later ones
    /// those where the task left something other than what was there before.
    pub(super) fn changed_paths(&self) -> Vec<VaultPath> {
        self.entries
            .iter()
            .filter(|e| self.version < 2 || e.left.as_ref().is_some_and(|l| *l != e.prior.state()))
            .map(|e| e.path.clone())
            .collect()
    }
}

fn hash_hex(bytes: &[u8]) -> String {
    format!("{:016x}", content_hash(bytes))
}

/// What is at `path` now.
pub(super) async fn state_of(vault: &dyn Vault, path: &VaultPath) -> Result<State> {
    Ok(match vault.stat(path).await? {
        None => State::Absent,
        Some(stat) if stat.kind == EntryKind::Folder => State::Folder,
        Some(_) => State::File { hash: hash_hex(&vault.read_binary(path).await?) },
    })
}

/// What a task's checkpoint holds, for the UI's list of undoable tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointSummary {
    #[serde(alias = "task_id")]
    pub task_id: String,
    #[serde(alias = "created_ms")]
    pub created_ms: u64,
    /// Paths the task changed.
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "undone_ms")]
    pub undone_ms: Option<u64>,
}

impl CheckpointStore {
    /// A new, empty checkpoint for `task_id` (nothing is written until the first record).
    pub fn new(vault: Rc<dyn Vault>, task_id: &str, now_ms: u64) -> Result<Self> {
        let folder = checkpoint_folder(task_id)?;
        let manifest = Manifest {
            version: FORMAT_VERSION,
            task_id: task_id.to_string(),
            created_ms: now_ms,
            undone_ms: None,
            entries: vec![],
        };
        Ok(CheckpointStore { vault, folder, manifest: RefCell::new(manifest) })
    }

    /// Saves the pre-task state of `path` unless it was saved before: a file's bytes, a
    /// folder and everything below it, or that nothing was there (and which parent folders
    /// were missing).
    pub async fn record(&self, path: &VaultPath) -> Result<()> {
        let before = self.manifest.borrow().entries.len();
        // Paths the task wrote before, at, below or above this one: if one is not what the task
        // left, someone else changed it meanwhile, and the write about to run must not make
        // their change look like the task's (an undo would take it away unasked).
        let related: Vec<(usize, Option<State>)> = {
            let manifest = self.manifest.borrow();
            manifest
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.changed_between.is_none() && (e.path.starts_with(path) || path.starts_with(&e.path)))
                .map(|(i, e)| (i, e.left_state(manifest.version)))
                .collect()
        };
        let mut flagged = false;
        for (i, left) in related {
            let entry_path = self.manifest.borrow().entries[i].path.clone();
            let now = state_of(&*self.vault, &entry_path).await?;
            if left.is_some_and(|left| left != now) {
                self.manifest.borrow_mut().entries[i].changed_between = Some(now);
                flagged = true;
            }
        }
        for ancestor in path.ancestors().into_iter().filter(|a| !a.is_root()) {
            if self.vault.stat(&ancestor).await?.is_none() {
                self.record_one(&ancestor, None).await?;
            }
        }
        let stat = self.vault.stat(path).await?;
        self.record_one(path, stat.as_ref().map(|s| s.kind)).await?;
        if stat.is_some_and(|s| s.kind == EntryKind::Folder) {
            let mut pending = vec![path.clone()];
            while let Some(dir) = pending.pop() {
                let listing = self.vault.list(&dir).await?;
                for file in &listing.files {
                    self.record_one(file, Some(EntryKind::File)).await?;
                }
                for sub in &listing.folders {
                    self.record_one(sub, Some(EntryKind::Folder)).await?;
                }
                pending.extend(listing.folders);
            }
        }
        if flagged || self.manifest.borrow().entries.len() != before {
            self.save_manifest().await?;
        }
        Ok(())
    }

    /// Records, after a write to `path` (whether it succeeded or not), what the write brought
    /// into being below it (a folder moved onto a path that held a folder before the task): all
    /// of it was absent before; then what the task left at `path`, below it and above it.
    pub async fn record_created(&self, path: &VaultPath) -> Result<()> {
        if self.vault.stat(path).await?.is_some_and(|s| s.kind == EntryKind::Folder) {
            let mut pending = vec![path.clone()];
            while let Some(dir) = pending.pop() {
                let listing = self.vault.list(&dir).await?;
                for entry in listing.files.iter().chain(&listing.folders) {
                    self.record_one(entry, None).await?;
                }
                pending.extend(listing.folders);
            }
        }
        let affected: Vec<usize> = {
            let manifest = self.manifest.borrow();
            let related = |e: &Entry| e.path.starts_with(path) || path.starts_with(&e.path);
            manifest.entries.iter().enumerate().filter(|(_, e)| related(e)).map(|(i, _)| i).collect()
        };
        for i in affected {
            let entry_path = self.manifest.borrow().entries[i].path.clone();
            let state = state_of(&*self.vault, &entry_path).await?;
            self.manifest.borrow_mut().entries[i].left = Some(state);
        }
        self.save_manifest().await
    }

    /// The paths the task has changed so far, in the order they were first touched: those
    /// where its finished writes left something other than what was there before (a write
    /// that failed changed nothing).
    pub fn changed_paths(&self) -> Vec<VaultPath> {
        self.manifest.borrow().changed_paths()
    }

    async fn record_one(&self, path: &VaultPath, kind: Option<EntryKind>) -> Result<()> {
        // Below a path that was missing or a file before the task, nothing existed, whatever the
        // task has put there since (a folder moved in, then trashed). Below a folder, whatever
        // existed was recorded with the folder.
        let (recorded, under_non_folder) = {
            let manifest = self.manifest.borrow();
            let recorded = manifest.entries.iter().any(|e| &e.path == path);
            let under_non_folder = manifest
                .entries
                .iter()
                .any(|e| e.prior != Prior::Folder && &e.path != path && path.starts_with(&e.path));
            (recorded, under_non_folder)
        };
        if recorded {
            return Ok(());
        }
        // An existing path found below such a path by `record` was put there by someone else
        // between two of the task's writes (the task's own creations are recorded right after
        // each write): what is there is what the task must give back, so it keeps its kind.
        let kind = if under_non_folder && kind.is_none() { None } else { kind };
        let prior = match kind {
            None => Prior::Absent,
            Some(EntryKind::Folder) => Prior::Folder,
            Some(EntryKind::File) => {
                let bytes = self.vault.read_binary(path).await?;
                let index = self.manifest.borrow().entries.len();
                let blob = format!("{index}.bin");
                self.vault.write_binary(&self.folder.join(&blob)?, &bytes).await?;
                Prior::File { blob, size: bytes.len() as u64, hash: hash_hex(&bytes) }
            }
        };
        self.manifest.borrow_mut().entries.push(Entry { path: path.clone(), prior, left: None, changed_between: None });
        Ok(())
    }

    /// Takes up the checkpoint this task saved before (a resumed task), so later records add
    /// to it instead of replacing it. Nothing saved yet: stays empty.
    pub async fn reopen(&self) -> Result<()> {
        if self.vault.stat(&self.folder.join(MANIFEST)?).await?.is_some() {
            *self.manifest.borrow_mut() = load_manifest(&*self.vault, &self.folder).await?;
        }
        Ok(())
    }

    async fn save_manifest(&self) -> Result<()> {
        let manifest = self.manifest.borrow().clone();
        save_manifest(&*self.vault, &self.folder, &manifest).await
    }
}

/// The folder of task `task_id`'s checkpoint.
pub(super) fn checkpoint_folder(task_id: &str) -> Result<VaultPath> {
    VaultPath::parse(CHECKPOINT_FOLDER)?.join(task_id)
}

pub(super) async fn load_manifest(vault: &dyn Vault, folder: &VaultPath) -> Result<Manifest> {
    let bytes = read_atomic(vault, &folder.join(MANIFEST)?).await?;
    let manifest: Manifest =
        serde_json::from_slice(&bytes).map_err(|e| Error::Invalid(format!("corrupt checkpoint {folder}: {e}")))?;
    if manifest.version == 0 || manifest.version > FORMAT_VERSION {
        return Err(Error::Invalid(format!("checkpoint {folder} has unknown format version {}", manifest.version)));
    }
    Ok(manifest)
}

/// Every task with a checkpoint, newest first.
pub async fn list_checkpoints(vault: &dyn Vault) -> Result<Vec<CheckpointSummary>> {
    let root = VaultPath::parse(CHECKPOINT_FOLDER)?;
    let folders = match vault.list(&root).await {
        Ok(listing) => listing.folders,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for folder in folders {
        // A folder without a readable manifest is not a checkpoint we can undo.
        if let Ok(m) = load_manifest(vault, &folder).await {
            let paths = m.changed_paths().iter().map(|p| p.to_string()).collect();
            out.push(CheckpointSummary { task_id: m.task_id, created_ms: m.created_ms, paths, undone_ms: m.undone_ms });
        }
    }
    crate::sort::sort_by(&mut out, |a, b| b.created_ms.cmp(&a.created_ms).then_with(|| b.task_id.cmp(&a.task_id)));
    Ok(out)
}

pub(super) async fn save_manifest(vault: &dyn Vault, folder: &VaultPath, manifest: &Manifest) -> Result<()> {
    let json = serde_json::to_string_pretty(manifest).map_err(|e| Error::Invalid(format!("manifest: {e}")))?;
    // Replace-safe: a torn or failed save must not lose the record of earlier writes.
    write_atomic(vault, &folder.join(MANIFEST)?, json.as_bytes()).await
}
