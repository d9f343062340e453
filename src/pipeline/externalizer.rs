//! Stage 7: the ResultExternalizer keeps large results out of the history.

use std::rc::Rc;

use super::TMP_FOLDER;
use crate::tools::ToolOutput;
use crate::vault::{read_atomic, EntryKind, Vault, VaultPath};
use crate::Result;

/// Results longer than this (in characters) are written to a file.
pub const DEFAULT_THRESHOLD: usize = 2_000;
/// Where task snapshots live (`agent::TASK_FOLDER`; the pipeline sits below the agent).
const TASK_SNAPSHOT_FOLDER: &str = ".obsidian-agent/tasks";
/// Orphaned task folders older than this are removed at start-up.
pub const ORPHAN_AGE_MS: u64 = 60 * 60 * 1000;
/// How many entries of a large result the compact reference lists.
const TOP_ENTRIES: usize = 5;

/// Writes a result over the threshold to `.obsidian-agent/tmp/<taskId>/<tool>-<callIndex>.md`
/// (names are deterministic, with no timestamps) and gives the history a compact reference
/// instead: what was found, the top entries with their scores, and the path, which `read_file`
/// can open with offset/limit.
pub struct ResultExternalizer {
    vault: Rc<dyn Vault>,
    folder: VaultPath,
    threshold: usize,
}

/// A result that was written to a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Externalized {
    pub path: VaultPath,
    /// What the history gets instead of the result.
    pub reference: String,
}

impl ResultExternalizer {
    /// An externalizer for the task `task_id`.
    pub fn new(vault: Rc<dyn Vault>, task_id: &str, threshold: usize) -> Result<Self> {
        let folder = VaultPath::parse(TMP_FOLDER)?.join(task_id)?;
        Ok(ResultExternalizer { vault, folder, threshold })
    }

    /// The task's folder of externalized results.
    pub fn folder(&self) -> &VaultPath {
        &self.folder
    }

    /// Where the result of call `index` of `tool` goes.
    pub fn path_for(&self, tool: &str, index: u32) -> Result<VaultPath> {
        self.folder.join(&format!("{tool}-{index}.md"))
    }

    /// Writes `output` to its file when it is over the threshold; `None` when it is small
    /// enough to stay in the history.
    pub async fn externalize(&self, tool: &str, index: u32, output: &ToolOutput) -> Result<Option<Externalized>> {
        let chars = output.content.chars().count();
        if chars <= self.threshold {
            return Ok(None);
        }
        let path = self.path_for(tool, index)?;
        self.vault.write(&path, &output.content).await?;
        let reference = reference(tool, &path, output, chars);
        Ok(Some(Externalized { path, reference }))
    }

    /// Removes the task's folder (when its chat is closed).
    pub async fn cleanup(&self) -> Result<()> {
        match self.vault.remove(&self.folder).await {
            Err(e) if !e.is_not_found() => Err(e),
            _ => Ok(()),
        }
    }
}

fn reference(tool: &str, path: &VaultPath, output: &ToolOutput, chars: usize) -> String {
    let lines = output.content.lines().count();
    let mut text =
        format!("[{tool} returned {chars} characters ({lines} lines); the full result is saved in {path}]\n");
    if let Some(summary) = &output.summary {
        text.push_str(&format!("Summary: {summary}\n"));
    }
    if output.items.is_empty() {
        text.push_str("Beginning:\n");
        let mut shown = 0;
        for line in output.content.lines().take(10) {
            if shown + line.len() > 600 {
                break;
            }
            shown += line.len();
            text.push_str(line);
            text.push('\n');
        }
    } else {
        text.push_str(&format!("Top {} of {} entries:\n", output.items.len().min(TOP_ENTRIES), output.items.len()));
        for item in output.items.iter().take(TOP_ENTRIES) {
            match item.score {
                Some(score) => text.push_str(&format!("- {} (score {score:.2})\n", item.label)),
                None => text.push_str(&format!("- {}\n", item.label)),
            }
        }
    }
    text.push_str(&format!("Read the rest with read_file on {path} (use offset and limit for a window of lines)."));
    text
}

/// Removes task folders under `.obsidian-agent/tmp/` whose newest file is older than
/// `max_age_ms` (chats that were never closed: a crash, a closed app) — not those of an
/// interrupted task, which may be resumed. Returns the folders removed.
pub async fn sweep_orphans(vault: &dyn Vault, now_ms: u64, max_age_ms: u64) -> Result<Vec<VaultPath>> {
    let tmp = VaultPath::parse(TMP_FOLDER)?;
    let listing = match vault.list(&tmp).await {
        Ok(listing) => listing,
        Err(e) if e.is_not_found() => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut removed = Vec::new();
    for folder in listing.folders {
        // An interrupted task's results are still referenced by its snapshot's history.
        let snapshot = folder.name().map(|id| VaultPath::parse(&format!("{TASK_SNAPSHOT_FOLDER}/{id}.json")));
        if let Some(Ok(snapshot)) = snapshot {
            if read_atomic(vault, &snapshot).await.is_ok() {
                continue;
            }
        }
        let newest = newest_mtime(vault, &folder).await?;
        if now_ms.saturating_sub(newest) > max_age_ms {
            vault.remove(&folder).await?;
            removed.push(folder);
        }
    }
    Ok(removed)
}

/// The newest modification time of the folder or anything below it.
async fn newest_mtime(vault: &dyn Vault, folder: &VaultPath) -> Result<u64> {
    let mut newest = vault.stat(folder).await?.map_or(0, |s| s.mtime);
    let mut pending = vec![folder.clone()];
    while let Some(dir) = pending.pop() {
        let listing = vault.list(&dir).await?;
        for file in &listing.files {
            if let Some(stat) = vault.stat(file).await? {
                if stat.kind == EntryKind::File {
                    newest = newest.max(stat.mtime);
                }
            }
        }
        pending.extend(listing.folders);
    }
    Ok(newest)
}
