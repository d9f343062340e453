//! Stage 5: checkpoints before every write, and `undo_task`, which puts them back.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::CHECKPOINT_FOLDER;
use crate::hash::content_hash;
use crate::vault::{EntryKind, Vault, VaultPath};
use crate::{Error, Result};

const MANIFEST: &str = "manifest.json";
const FORMAT_VERSION: u32 = 1;

/// The state of every path a task touched, as it was before the task first touched it, saved
/// under `.obsidian-agent/checkpoints/<taskId>/`: a manifest, and one blob per file.
///
/// The pipeline records each path a write names before the write runs (a folder: everything
/// below it; a new path: its missing parent folders too), and only the first time, so the
/// record is the state before the task; after the write, it records what appeared below those
/// paths as absent before. A write never runs unless its record was saved.
pub struct CheckpointStore {
    vault: Rc<dyn Vault>,
    folder: VaultPath,
    manifest: RefCell<Manifest>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    task_id: String,
    created_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    undone_ms: Option<u64>,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    path: VaultPath,
    #[serde(flatten)]
    prior: Prior,
}

/// What was at a path before the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "prior", rename_all = "snake_case")]
enum Prior {
    Absent,
    Folder,
    File { blob: String, size: u64, hash: String },
}

/// What a task's checkpoint holds, for the UI's list of undoable tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointSummary {
    pub task_id: String,
    pub created_ms: u64,
    /// Paths the task changed.
    pub paths: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undone_ms: Option<u64>,
}

/// What `undo_task` did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UndoReport {
    pub task_id: String,
    /// Files written back with their pre-task bytes (or moved back to where they were).
    pub restored: Vec<String>,
    /// Folders created again.
    pub recreated_folders: Vec<String>,
    /// Files and folders the task created, moved to the trash.
    pub trashed: Vec<String>,
    /// Paths that already were as before the task.
    pub unchanged: Vec<String>,
    /// Paths that could not be restored, with the reason. The others were restored anyway.
    pub failed: Vec<(String, String)>,
    /// The checkpoint of the state just before the undo, so the undo itself can be undone.
    pub undo_checkpoint: String,
}

impl CheckpointStore {
    /// A new, empty checkpoint for `task_id` (nothing is written until the first record).
    pub fn new(vault: Rc<dyn Vault>, task_id: &str, now_ms: u64) -> Result<Self> {
        let folder = VaultPath::parse(CHECKPOINT_FOLDER)?.join(task_id)?;
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
        if self.manifest.borrow().entries.len() != before {
            self.save_manifest().await?;
        }
        Ok(())
    }

    /// Records, after a write to `path`, what the write brought into being below it (a folder
    /// moved onto a path that held a folder before the task): all of it was absent before.
    pub async fn record_created(&self, path: &VaultPath) -> Result<()> {
        if !self.vault.stat(path).await?.is_some_and(|s| s.kind == EntryKind::Folder) {
            return Ok(());
        }
        let before = self.manifest.borrow().entries.len();
        let mut pending = vec![path.clone()];
        while let Some(dir) = pending.pop() {
            let listing = self.vault.list(&dir).await?;
            for entry in listing.files.iter().chain(&listing.folders) {
                self.record_one(entry, None).await?;
            }
            pending.extend(listing.folders);
        }
        if self.manifest.borrow().entries.len() != before {
            self.save_manifest().await?;
        }
        Ok(())
    }

    /// The paths recorded so far, in the order they were first touched.
    pub fn changed_paths(&self) -> Vec<VaultPath> {
        self.manifest.borrow().entries.iter().map(|e| e.path.clone()).collect()
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
        let kind = if under_non_folder { None } else { kind };
        let prior = match kind {
            None => Prior::Absent,
            Some(EntryKind::Folder) => Prior::Folder,
            Some(EntryKind::File) => {
                let bytes = self.vault.read_binary(path).await?;
                let index = self.manifest.borrow().entries.len();
                let blob = format!("{index}.bin");
                self.vault.write_binary(&self.folder.join(&blob)?, &bytes).await?;
                Prior::File { blob, size: bytes.len() as u64, hash: format!("{:016x}", content_hash(&bytes)) }
            }
        };
        self.manifest.borrow_mut().entries.push(Entry { path: path.clone(), prior });
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
        let json = serde_json::to_string_pretty(&*self.manifest.borrow())
            .map_err(|e| Error::Invalid(format!("checkpoint manifest: {e}")))?;
        self.vault.write(&self.folder.join(MANIFEST)?, &json).await
    }
}

async fn load_manifest(vault: &dyn Vault, folder: &VaultPath) -> Result<Manifest> {
    let text = vault.read(&folder.join(MANIFEST)?).await?;
    let manifest: Manifest =
        serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("corrupt checkpoint {folder}: {e}")))?;
    if manifest.version != FORMAT_VERSION {
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
            let paths = m.entries.iter().map(|e| e.path.to_string()).collect();
            out.push(CheckpointSummary { task_id: m.task_id, created_ms: m.created_ms, paths, undone_ms: m.undone_ms });
        }
    }
    out.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then_with(|| b.task_id.cmp(&a.task_id)));
    Ok(out)
}

/// Restores every path the task `task_id` touched to its state before the task: files get
/// their pre-task bytes back, files the task created go to the trash, files it deleted or moved
/// come back (a moved file is moved back, so the host can update links again). The state
/// just before the undo is itself checkpointed first, as task `undo-<task_id>`. A path that
/// cannot be restored is reported in [`UndoReport::failed`] and the others are restored anyway.
pub async fn undo_task(vault: Rc<dyn Vault>, task_id: &str, now_ms: u64) -> Result<UndoReport> {
    let folder = VaultPath::parse(CHECKPOINT_FOLDER)?.join(task_id)?;
    let mut manifest = match load_manifest(&*vault, &folder).await {
        Err(e) if e.is_not_found() => return Err(Error::NotFound(format!("no checkpoint for task {task_id}"))),
        other => other?,
    };

    let undo_id = format!("undo-{task_id}");
    let safety = CheckpointStore::new(vault.clone(), &undo_id, now_ms)?;
    for entry in &manifest.entries {
        safety.record(&entry.path).await?;
    }

    let mut report = UndoReport { task_id: task_id.to_string(), undo_checkpoint: undo_id, ..Default::default() };
    let mut done: HashSet<VaultPath> = HashSet::new();
    let blob = |name: &str| folder.join(name);

    // Moves first: a file the task created whose bytes are those of a file it removed was
    // moved; moving it back (rather than trash + rewrite) lets the host fix links again. This
    // is only a better way to the same result, so any failure here leaves the path to the
    // general restore below.
    for created in manifest.entries.iter().filter(|e| e.prior == Prior::Absent) {
        if let Ok(Some(original)) = find_moved_original(&*vault, &folder, &manifest, created, &done).await {
            if vault.rename(&created.path, &original).await.is_ok() {
                done.insert(created.path.clone());
                done.insert(original.clone());
                report.restored.push(original.to_string());
            }
        }
    }

    // Then what the task created goes to the trash, shallowest first (a folder takes its
    // contents with it).
    let mut absent: Vec<&Entry> =
        manifest.entries.iter().filter(|e| e.prior == Prior::Absent && !done.contains(&e.path)).collect();
    absent.sort_by_key(|e| e.path.segments().count());
    for entry in absent {
        let step = async {
            if vault.stat(&entry.path).await?.is_some() {
                vault.trash(&entry.path).await?;
                Ok::<_, Error>(true)
            } else {
                Ok(false)
            }
        };
        match step.await {
            Ok(true) => report.trashed.push(entry.path.to_string()),
            Ok(false) => report.unchanged.push(entry.path.to_string()),
            Err(e) => report.failed.push((entry.path.to_string(), e.to_string())),
        }
    }

    // Folders that were there come back, then files get their bytes.
    let mut folders: Vec<&Entry> = manifest.entries.iter().filter(|e| e.prior == Prior::Folder).collect();
    folders.sort_by_key(|e| e.path.segments().count());
    for entry in folders {
        let step = async {
            match vault.stat(&entry.path).await? {
                Some(stat) if stat.kind == EntryKind::Folder => Ok::<_, Error>(false),
                other => {
                    if other.is_some() {
                        vault.trash(&entry.path).await?;
                    }
                    vault.mkdir(&entry.path).await?;
                    Ok(true)
                }
            }
        };
        match step.await {
            Ok(true) => report.recreated_folders.push(entry.path.to_string()),
            Ok(false) => report.unchanged.push(entry.path.to_string()),
            Err(e) => report.failed.push((entry.path.to_string(), e.to_string())),
        }
    }
    for entry in &manifest.entries {
        let Prior::File { blob: name, .. } = &entry.prior else { continue };
        if done.contains(&entry.path) {
            continue;
        }
        match restore_file(&*vault, &entry.path, &blob(name)?).await {
            Ok(true) => report.restored.push(entry.path.to_string()),
            Ok(false) => report.unchanged.push(entry.path.to_string()),
            Err(e) => report.failed.push((entry.path.to_string(), e.to_string())),
        }
    }

    manifest.undone_ms = Some(now_ms);
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| Error::Invalid(format!("manifest: {e}")))?;
    vault.write(&folder.join(MANIFEST)?, &json).await?;
    Ok(report)
}

/// The pre-task path of a file the task moved to `created.path`: a file that is gone now and
/// had exactly the bytes that are at `created.path`.
async fn find_moved_original(
    vault: &dyn Vault,
    folder: &VaultPath,
    manifest: &Manifest,
    created: &Entry,
    done: &HashSet<VaultPath>,
) -> Result<Option<VaultPath>> {
    if !is_file(vault, &created.path).await? {
        return Ok(None);
    }
    let current = vault.read_binary(&created.path).await?;
    for original in &manifest.entries {
        let Prior::File { blob, size, .. } = &original.prior else { continue };
        if *size != current.len() as u64 || done.contains(&original.path) || vault.stat(&original.path).await?.is_some()
        {
            continue;
        }
        if vault.read_binary(&folder.join(blob)?).await? == current {
            return Ok(Some(original.path.clone()));
        }
    }
    Ok(None)
}

/// Puts the bytes of `blob` back at `path`; false when they already are there.
async fn restore_file(vault: &dyn Vault, path: &VaultPath, blob: &VaultPath) -> Result<bool> {
    let original = vault.read_binary(blob).await?;
    let current = match vault.stat(path).await? {
        Some(stat) if stat.kind == EntryKind::File => Some(vault.read_binary(path).await?),
        Some(_) => {
            vault.trash(path).await?;
            None
        }
        None => None,
    };
    if current.as_deref() == Some(original.as_slice()) {
        return Ok(false);
    }
    // Text goes back through the host's text write, so an open editor sees it.
    match std::str::from_utf8(&original) {
        Ok(text) => vault.write(path, text).await?,
        Err(_) => vault.write_binary(path, &original).await?,
    }
    Ok(true)
}

async fn is_file(vault: &dyn Vault, path: &VaultPath) -> Result<bool> {
    Ok(vault.stat(path).await?.is_some_and(|s| s.kind == EntryKind::File))
}
