//! Undo and redo: a task's checkpoint put back, without ever taking away a change made after
//! the task.
//!
//! Each path the task touched is compared with what the task left there. A path that still
//! holds it is restored; a path that already is as before the task is left alone; a path that
//! holds something else (the user typed into the note, a later task changed it) is a conflict,
//! and the caller's choice for it decides: keep mine (the default), restore the pre-task
//! version, or save the pre-task version beside it as a copy. A folder the task created goes
//! only once it is empty, so files the task did not create keep their folder. [`plan_undo`]
//! says all of this before anything changes; [`apply_undo`] does it.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::checkpoint::{checkpoint_folder, load_manifest, save_manifest, state_of, Entry, Manifest, Prior, State};
use super::{list_checkpoints, CheckpointStore};
use crate::memory::RecipeStore;
use crate::vault::{EntryKind, Vault, VaultPath};
use crate::{Error, Result};

/// What to do with a path that changed since the task left it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum UndoChoice {
    /// Leave it as it is now (the default).
    #[default]
    KeepMine,
    /// Put the pre-task version back; what is there now stays in the undo's own checkpoint.
    Restore,
    /// Leave it as it is now and write the pre-task version beside it, under a new name.
    SaveCopy,
}

/// Per path, the choice for a conflict; a path not named keeps what is there.
pub type UndoChoices = HashMap<String, UndoChoice>;

/// A path that changed since the task left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoConflict {
    pub path: String,
    /// Why it is a conflict, in words.
    pub reason: String,
    /// Later tasks that changed the path (or a folder above it), oldest first.
    #[serde(alias = "later_tasks")]
    pub later_tasks: Vec<String>,
    /// What the path held before the task: `file`, `folder` or `absent`.
    pub before: String,
    /// What it holds now.
    pub now: String,
    /// The choices that apply here (`save_copy` only where a file was there before).
    pub choices: Vec<UndoChoice>,
    /// The name the copy would get with `save_copy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(alias = "copy_path")]
    pub copy_path: Option<String>,
}

/// A path left as it is, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KeptPath {
    pub path: String,
    pub reason: String,
}

/// A pre-task version written beside the path the user kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SavedCopy {
    pub path: String,
    pub copy: String,
}

/// What an undo would do, before it does anything.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoPlan {
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Paths that get their pre-task state back (files, moved files, folders).
    pub restore: Vec<String>,
    /// Paths the task created, to go to the trash (a folder only once it is empty).
    pub remove: Vec<String>,
    /// Paths that already are as before the task.
    pub unchanged: Vec<String>,
    /// Paths changed since the task left them: nothing happens to them unless chosen.
    pub conflicts: Vec<UndoConflict>,
    /// Folders the task created that will stay, because they hold files it did not create.
    pub kept: Vec<KeptPath>,
}

/// What an undo did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Files given their pre-task bytes back (or moved back to where they were).
    pub restored: Vec<String>,
    /// Folders created again.
    #[serde(alias = "recreated_folders")]
    pub recreated_folders: Vec<String>,
    /// Files and (empty) folders the task created, moved to the trash.
    pub trashed: Vec<String>,
    /// Paths that already were as before the task.
    pub unchanged: Vec<String>,
    /// Paths left as they are, each with why: changed since the task, or a folder holding
    /// files the task did not create.
    pub kept: Vec<KeptPath>,
    /// Pre-task versions saved beside a kept file.
    pub copies: Vec<SavedCopy>,
    /// Paths that could not be restored, with the reason. The others were restored anyway.
    pub failed: Vec<(String, String)>,
    /// The checkpoint of the state just before the undo: [`redo_task`] applies it.
    #[serde(alias = "undo_checkpoint")]
    pub undo_checkpoint: String,
}

/// The checkpoint a task's undo leaves behind, which redo applies.
pub fn redo_checkpoint(task_id: &str) -> String {
    format!("undo-{task_id}")
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    /// Already as before the task.
    Unchanged,
    /// Still what the task left: undo puts it back.
    Restore,
    /// Changed since the task left it.
    Conflict,
}

struct Assessed<'a> {
    entry: &'a Entry,
    now: State,
    verdict: Verdict,
}

async fn assess<'a>(vault: &dyn Vault, manifest: &'a Manifest) -> Result<Vec<Assessed<'a>>> {
    // Files someone else wrote between two of the task's writes: wherever the task then moved
    // them, their bytes are not the task's to take away.
    let others: Vec<&State> = manifest
        .entries
        .iter()
        .filter_map(|e| e.changed_between.as_ref())
        .filter(|s| matches!(s, State::File { .. }))
        .collect();
    let mut out = Vec::with_capacity(manifest.entries.len());
    for entry in &manifest.entries {
        let now = state_of(vault, &entry.path).await?;
        let verdict = if now == entry.prior.state() {
            Verdict::Unchanged
        } else if entry.changed_between.is_some() || others.contains(&&now) {
            Verdict::Conflict
        } else {
            match entry.left_state(manifest.version) {
                // A version 1 checkpoint does not know what the task left: as before, undo.
                None => Verdict::Restore,
                Some(left) if left == now => Verdict::Restore,
                Some(_) => Verdict::Conflict,
            }
        };
        out.push(Assessed { entry, now, verdict });
    }
    Ok(out)
}

async fn load(vault: &dyn Vault, task_id: &str) -> Result<(VaultPath, Manifest)> {
    let folder = checkpoint_folder(task_id)?;
    match load_manifest(vault, &folder).await {
        Err(e) if e.is_not_found() => Err(Error::NotFound(format!("no checkpoint for task {task_id}"))),
        other => Ok((folder, other?)),
    }
}

fn kind_word(state: &State) -> &'static str {
    match state {
        State::Absent => "absent",
        State::Folder => "folder",
        State::File { .. } => "file",
    }
}

/// Checkpoints made after `manifest` that changed `path` or a folder above it, oldest first.
async fn later_tasks(vault: &dyn Vault, manifest: &Manifest) -> Result<Vec<(String, Vec<VaultPath>)>> {
    let mut out = Vec::new();
    for summary in list_checkpoints(vault).await? {
        let later = summary.created_ms > manifest.created_ms
            || (summary.created_ms == manifest.created_ms && summary.task_id > manifest.task_id);
        if later && summary.task_id != redo_checkpoint(&manifest.task_id) {
            let paths = summary.paths.iter().filter_map(|p| VaultPath::parse(p).ok()).collect();
            out.push((summary.task_id, paths));
        }
    }
    out.reverse();
    Ok(out)
}

/// A free name beside `path` for its version from before task `task_id`:
/// `Note (before task 20261123-101500).md`, then `… 2.md` and so on. Where a file now stands
/// in place of one of `path`'s folders, the copy goes in the folder above that file.
async fn copy_path(
    vault: &dyn Vault,
    path: &VaultPath,
    task_id: &str,
    taken: &HashSet<VaultPath>,
) -> Result<VaultPath> {
    let parent = copy_folder(vault, path).await?;
    let (stem, ext) = match (path.stem(), path.extension()) {
        (Some(stem), Some(ext)) => (stem.to_string(), format!(".{ext}")),
        _ => (path.name().unwrap_or("note").to_string(), String::new()),
    };
    let label = match task_id.strip_prefix("undo-") {
        Some(task) => format!("before undo of task {task}"),
        None => format!("before task {task_id}"),
    };
    for n in 1.. {
        let suffix = if n == 1 { String::new() } else { format!(" {n}") };
        let candidate = parent.join(&format!("{stem} ({label}){suffix}{ext}"))?;
        if !taken.contains(&candidate) && vault.stat(&candidate).await?.is_none() {
            return Ok(candidate);
        }
    }
    unreachable!("an unbounded counter always finds a free name")
}

/// The deepest folder above `path` that a copy can be written in: its parent, unless a file
/// stands where one of its folders would be.
async fn copy_folder(vault: &dyn Vault, path: &VaultPath) -> Result<VaultPath> {
    let mut folders = Vec::new();
    let mut next = path.parent();
    while let Some(folder) = next.filter(|f| !f.is_root()) {
        next = folder.parent();
        folders.push(folder);
    }
    let mut deepest = VaultPath::root();
    for folder in folders.into_iter().rev() {
        if vault.stat(&folder).await?.is_some_and(|s| s.kind == EntryKind::File) {
            break;
        }
        deepest = folder;
    }
    Ok(deepest)
}

/// What undoing task `task_id` would do, changing nothing: what is restored, removed, already
/// as before, and each conflict (with the later tasks that touched it, and its choices).
pub async fn plan_undo(vault: &dyn Vault, task_id: &str) -> Result<UndoPlan> {
    let (_, manifest) = load(vault, task_id).await?;
    let assessed = assess(vault, &manifest).await?;
    let later = later_tasks(vault, &manifest).await?;
    let mut plan = UndoPlan { task_id: task_id.to_string(), ..Default::default() };
    let mut taken = HashSet::new();
    let mut removed: HashSet<&VaultPath> = HashSet::new();
    for a in &assessed {
        let path = a.entry.path.to_string();
        match a.verdict {
            Verdict::Unchanged => plan.unchanged.push(path),
            Verdict::Restore if a.entry.prior == Prior::Absent => {
                plan.remove.push(path);
                removed.insert(&a.entry.path);
            }
            Verdict::Restore => plan.restore.push(path),
            Verdict::Conflict => {
                let by: Vec<String> = later
                    .iter()
                    .filter(|(_, paths)| paths.iter().any(|p| a.entry.path.starts_with(p)))
                    .map(|(id, _)| id.clone())
                    .collect();
                let reason = if by.is_empty() {
                    "changed since the task left it".to_string()
                } else {
                    format!("changed by a later task ({})", by.join(", "))
                };
                let mut choices = vec![UndoChoice::KeepMine, UndoChoice::Restore];
                let mut copy = None;
                if matches!(a.entry.prior, Prior::File { .. }) {
                    choices.push(UndoChoice::SaveCopy);
                    let name = copy_path(vault, &a.entry.path, task_id, &taken).await?;
                    taken.insert(name.clone());
                    copy = Some(name.to_string());
                }
                plan.conflicts.push(UndoConflict {
                    path,
                    reason,
                    later_tasks: by,
                    before: kind_word(&a.entry.prior.state()).into(),
                    now: kind_word(&a.now).into(),
                    choices,
                    copy_path: copy,
                });
            }
        }
    }
    // A folder the task created stays when anything below it is not going away.
    for a in assessed.iter().filter(|a| a.now == State::Folder && removed.contains(&a.entry.path)) {
        let others = files_below(vault, &a.entry.path).await?;
        let staying: Vec<String> =
            others.iter().filter(|f| !removed.contains(f)).map(|f| f.to_string()).take(3).collect();
        if !staying.is_empty() {
            plan.remove.retain(|p| p != a.entry.path.as_str());
            plan.kept.push(KeptPath { path: a.entry.path.to_string(), reason: holds_reason(&staying) });
        }
    }
    Ok(plan)
}

fn holds_reason(others: &[String]) -> String {
    format!("holds files the task did not create ({})", others.join(", "))
}

async fn files_below(vault: &dyn Vault, dir: &VaultPath) -> Result<Vec<VaultPath>> {
    crate::vault::walk_files(vault, dir, &|_| false).await
}

/// Undoes task `task_id` with the default choice for every conflict (keep mine).
pub async fn undo_task(vault: Rc<dyn Vault>, task_id: &str, now_ms: u64) -> Result<UndoReport> {
    apply_undo(vault, task_id, &UndoChoices::new(), now_ms).await
}

/// Applies the undo of task `undo-<task_id>`'s checkpoint — the state just before task
/// `task_id` was undone — with the same care for later changes, and marks the task as no longer
/// undone.
pub async fn redo_task(vault: Rc<dyn Vault>, task_id: &str, choices: &UndoChoices, now_ms: u64) -> Result<UndoReport> {
    let report = apply_undo(vault.clone(), &redo_checkpoint(task_id), choices, now_ms).await?;
    let (folder, mut manifest) = load(&*vault, task_id).await?;
    manifest.undone_ms = None;
    save_manifest(&*vault, &folder, &manifest).await?;
    Ok(report)
}

/// Restores what task `task_id` changed to its state before the task, path by path: what still
/// is as the task left it is put back (files get their bytes, moved files move back, created
/// files go to the trash, folders come back); a path changed since follows `choices` (keep mine
/// when not named); a folder the task created goes to the trash only once empty. The state just
/// before the undo is checkpointed first, as task `undo-<task_id>`, with what the undo left, so
/// [`redo_task`] can apply it. A path that cannot be restored is reported in
/// [`UndoReport::failed`] and the others are restored anyway.
pub async fn apply_undo(vault: Rc<dyn Vault>, task_id: &str, choices: &UndoChoices, now_ms: u64) -> Result<UndoReport> {
    let (folder, mut manifest) = load(&*vault, task_id).await?;
    let assessed = assess(&*vault, &manifest).await?;
    let undo_id = redo_checkpoint(task_id);
    let mut report =
        UndoReport { task_id: task_id.to_string(), undo_checkpoint: undo_id.clone(), ..Default::default() };

    // Decide every path first: what is put back, and the copies to write.
    let mut act: HashSet<VaultPath> = HashSet::new();
    let mut copies: Vec<(&Entry, VaultPath)> = Vec::new();
    let mut taken = HashSet::new();
    for a in &assessed {
        let path = &a.entry.path;
        match a.verdict {
            Verdict::Unchanged => report.unchanged.push(path.to_string()),
            Verdict::Restore => {
                act.insert(path.clone());
            }
            Verdict::Conflict => match choices.get(path.as_str()).copied().unwrap_or_default() {
                UndoChoice::Restore => {
                    act.insert(path.clone());
                }
                UndoChoice::SaveCopy if matches!(a.entry.prior, Prior::File { .. }) => {
                    let copy = copy_path(&*vault, path, task_id, &taken).await?;
                    taken.insert(copy.clone());
                    copies.push((a.entry, copy));
                }
                _ => report.kept.push(KeptPath {
                    path: path.to_string(),
                    reason: "changed since the task left it; kept as it is".into(),
                }),
            },
        }
    }

    // A path below a file that stays (kept, or in place of a folder the undo leaves alone)
    // cannot be put back: it stays as it is too.
    let blocking: Vec<&VaultPath> = assessed
        .iter()
        .filter(|a| !act.contains(&a.entry.path) && matches!(a.now, State::File { .. }))
        .map(|a| &a.entry.path)
        .collect();
    for a in &assessed {
        let path = &a.entry.path;
        if let Some(file) = blocking.iter().find(|b| path != **b && path.starts_with(b)) {
            if act.remove(path) {
                report.kept.push(KeptPath {
                    path: path.to_string(),
                    reason: format!("cannot be put back: {file}, which stays, is a file in its way"),
                });
            }
        }
    }

    let safety = CheckpointStore::new(vault.clone(), &undo_id, now_ms)?;
    for entry in &manifest.entries {
        safety.record(&entry.path).await?;
    }
    for (_, copy) in &copies {
        safety.record(copy).await?;
    }

    let mut done: HashSet<VaultPath> = HashSet::new();
    let blob_path = |name: &str| folder.join(name);
    let acting = |e: &&Assessed| act.contains(&e.entry.path);

    // Moves first: a file the task created whose bytes are those of a file it removed was
    // moved; moving it back (rather than trash + rewrite) lets the host fix links again. This
    // is only a better way to the same result, so any failure here leaves the path to the
    // general restore below.
    for a in assessed.iter().filter(acting).filter(|a| a.entry.prior == Prior::Absent) {
        if let Ok(Some(original)) = find_moved_original(&*vault, &folder, &manifest, a.entry, &act, &done).await {
            if vault.rename(&a.entry.path, &original).await.is_ok() {
                done.insert(a.entry.path.clone());
                done.insert(original.clone());
                report.restored.push(original.to_string());
            }
        }
    }

    // Then what the task created goes to the trash: files first, then folders deepest first,
    // each only once empty (what someone else put in it stays, and so does the folder).
    let mut created: Vec<&Assessed> = assessed
        .iter()
        .filter(acting)
        .filter(|a| a.entry.prior == Prior::Absent && !done.contains(&a.entry.path))
        .collect();
    crate::sort::sort_by_key(&mut created, |a| std::cmp::Reverse(a.entry.path.segments().count()));
    for a in created {
        let path = &a.entry.path;
        let step = async {
            match vault.stat(path).await? {
                None => Ok::<_, Error>(Step::AlreadySo),
                Some(stat) if stat.kind == EntryKind::Folder => {
                    let inside = contents(&*vault, path).await?;
                    if !inside.is_empty() {
                        return Ok(Step::Kept(holds_reason(&inside)));
                    }
                    vault.trash(path).await?;
                    Ok(Step::Done)
                }
                Some(_) => {
                    vault.trash(path).await?;
                    Ok(Step::Done)
                }
            }
        };
        match step.await {
            Ok(Step::Done) => report.trashed.push(path.to_string()),
            Ok(Step::AlreadySo) => report.unchanged.push(path.to_string()),
            Ok(Step::Kept(reason)) => report.kept.push(KeptPath { path: path.to_string(), reason }),
            Err(e) => report.failed.push((path.to_string(), e.to_string())),
        }
    }

    // Folders that were there come back, then files get their bytes.
    let mut folders: Vec<&Assessed> =
        assessed.iter().filter(acting).filter(|a| a.entry.prior == Prior::Folder).collect();
    crate::sort::sort_by_key(&mut folders, |a| a.entry.path.segments().count());
    for a in folders {
        let path = &a.entry.path;
        let step = async {
            match vault.stat(path).await? {
                Some(stat) if stat.kind == EntryKind::Folder => Ok::<_, Error>(false),
                other => {
                    if other.is_some() {
                        vault.trash(path).await?;
                    }
                    vault.mkdir(path).await?;
                    Ok(true)
                }
            }
        };
        match step.await {
            Ok(true) => report.recreated_folders.push(path.to_string()),
            Ok(false) => report.unchanged.push(path.to_string()),
            Err(e) => report.failed.push((path.to_string(), e.to_string())),
        }
    }
    // Copies once the folders they go into are back.
    for (entry, copy) in &copies {
        let Prior::File { blob, .. } = &entry.prior else { continue };
        let step = async {
            let bytes = vault.read_binary(&folder.join(blob)?).await?;
            write_back(&*vault, copy, &bytes).await
        };
        match step.await {
            Ok(()) => {
                report.copies.push(SavedCopy { path: entry.path.to_string(), copy: copy.to_string() });
                report.kept.push(KeptPath {
                    path: entry.path.to_string(),
                    reason: format!(
                        "changed since the task left it; kept, and the version from before the task saved as {copy}"
                    ),
                });
            }
            Err(e) => report.failed.push((entry.path.to_string(), format!("could not save the copy {copy}: {e}"))),
        }
    }

    for a in assessed.iter().filter(acting) {
        let Prior::File { blob: name, .. } = &a.entry.prior else { continue };
        let path = &a.entry.path;
        if done.contains(path) {
            continue;
        }
        match restore_file(&*vault, path, &blob_path(name)?).await {
            Ok(Step::Done) => report.restored.push(path.to_string()),
            Ok(Step::AlreadySo) => report.unchanged.push(path.to_string()),
            Ok(Step::Kept(reason)) => report.kept.push(KeptPath { path: path.to_string(), reason }),
            Err(e) => report.failed.push((path.to_string(), e.to_string())),
        }
    }

    // What the undo left, so that a redo can tell it from later changes.
    for entry in &manifest.entries {
        if let Err(e) = safety.record_created(&entry.path).await {
            report.failed.push((entry.path.to_string(), format!("redo may not see later changes here: {e}")));
        }
    }
    for (_, copy) in &copies {
        safety.record_created(copy).await?;
    }

    manifest.undone_ms = Some(now_ms);
    save_manifest(&*vault, &folder, &manifest).await?;
    // The task's run no longer stands: the recipe that counted it as a success takes it back.
    // A recipe store that cannot be read is left alone (it is never overwritten); the undo
    // stands either way.
    let _ = RecipeStore::update(&*vault, |store| store.undone(task_id, now_ms).is_some()).await;
    Ok(report)
}

/// How one path's undo went.
enum Step {
    /// Put back (trashed, or given its bytes).
    Done,
    /// Nothing to do: it already was so.
    AlreadySo,
    /// Left as it is, and why.
    Kept(String),
}

/// What is directly inside `dir` (a few names, for a message), empty when nothing is.
async fn contents(vault: &dyn Vault, dir: &VaultPath) -> Result<Vec<String>> {
    let listing = vault.list(dir).await?;
    Ok(listing.files.iter().chain(&listing.folders).take(3).map(|p| p.to_string()).collect())
}

/// The pre-task path of a file the task moved to `created.path`: a file that is gone now, had
/// exactly the bytes that are at `created.path`, and is itself being put back.
async fn find_moved_original(
    vault: &dyn Vault,
    folder: &VaultPath,
    manifest: &Manifest,
    created: &Entry,
    act: &HashSet<VaultPath>,
    done: &HashSet<VaultPath>,
) -> Result<Option<VaultPath>> {
    if !vault.stat(&created.path).await?.is_some_and(|s| s.kind == EntryKind::File) {
        return Ok(None);
    }
    let current = vault.read_binary(&created.path).await?;
    for original in &manifest.entries {
        let Prior::File { blob, size, .. } = &original.prior else { continue };
        if *size != current.len() as u64
            || !act.contains(&original.path)
            || done.contains(&original.path)
            || vault.stat(&original.path).await?.is_some()
        {
            continue;
        }
        if vault.read_binary(&folder.join(blob)?).await? == current {
            return Ok(Some(original.path.clone()));
        }
    }
    Ok(None)
}

/// Writes `bytes` at `path`: text through the host's text write, so an open editor sees it.
async fn write_back(vault: &dyn Vault, path: &VaultPath, bytes: &[u8]) -> Result<()> {
    match std::str::from_utf8(bytes) {
        Ok(text) => vault.write(path, text).await,
        Err(_) => vault.write_binary(path, bytes).await,
    }
}

/// Puts the bytes of `blob` back at `path`. A folder there goes to the trash first, but only
/// when empty.
async fn restore_file(vault: &dyn Vault, path: &VaultPath, blob: &VaultPath) -> Result<Step> {
    let original = vault.read_binary(blob).await?;
    let current = match vault.stat(path).await? {
        Some(stat) if stat.kind == EntryKind::File => Some(vault.read_binary(path).await?),
        Some(_) => {
            let inside = contents(vault, path).await?;
            if !inside.is_empty() {
                return Ok(Step::Kept(format!("a folder is there that {}", holds_reason(&inside))));
            }
            vault.trash(path).await?;
            None
        }
        None => None,
    };
    if current.as_deref() == Some(original.as_slice()) {
        return Ok(Step::AlreadySo);
    }
    write_back(vault, path, &original).await?;
    Ok(Step::Done)
}
