//! What the agent last saw of each note, so a write never silently replaces a user's edit.

use std::cell::RefCell;
use std::collections::HashMap;

use super::ToolError;
use crate::hash::content_hash;
use crate::vault::VaultPath;

/// The hash of each note's content as the agent last read or wrote it in this task.
///
/// A tool that replaces or edits a note first checks the note's current bytes against this
/// record: if the user changed the note since the agent read it (or the agent never read it),
/// the write is refused and the model is told to read the note again.
#[derive(Debug, Default)]
pub struct ReadLedger {
    seen: RefCell<HashMap<VaultPath, u64>>,
}

impl ReadLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the agent has seen (read or written) `content` at `path`.
    pub fn record(&self, path: &VaultPath, content: &[u8]) {
        self.seen.borrow_mut().insert(path.clone(), content_hash(content));
    }

    /// Every note seen and its hash, for a task's snapshot.
    pub fn entries(&self) -> Vec<(String, u64)> {
        let mut entries: Vec<_> = self.seen.borrow().iter().map(|(p, h)| (p.to_string(), *h)).collect();
        crate::sort::sort(&mut entries);
        entries
    }

    /// Takes up `entries` from a snapshot (a resumed task has seen what it saw before the
    /// restart); a path that no longer parses is left out.
    pub fn restore(&self, entries: &[(String, u64)]) {
        let mut seen = self.seen.borrow_mut();
        for (path, hash) in entries {
            if let Ok(path) = VaultPath::parse(path) {
                seen.insert(path, *hash);
            }
        }
    }

    /// Forgets `path` (it was moved or trashed).
    pub fn forget(&self, path: &VaultPath) {
        self.seen.borrow_mut().remove(path);
    }

    /// Whether the agent has seen `path` in this task.
    pub fn has_seen(&self, path: &VaultPath) -> bool {
        self.seen.borrow().contains_key(path)
    }

    /// `Ok` if `current` is what the agent last saw at `path`; otherwise an error telling
    /// the model to read the note again.
    pub fn check_unchanged(&self, path: &VaultPath, current: &[u8]) -> Result<(), ToolError> {
        match self.seen.borrow().get(path) {
            None => Err(ToolError::model(format!(
                "{path} already exists and you have not read it in this task. Read it with read_file first, \
                 so your change starts from its current content."
            ))),
            Some(&hash) if hash != content_hash(current) => Err(conflict(path)),
            Some(_) => Ok(()),
        }
    }
}

/// The error for a note that changed under the agent: nothing was written, and the model
/// starts again from the current text.
pub fn conflict(path: &VaultPath) -> ToolError {
    ToolError::model(format!(
        "Conflict: {path} changed since you last read it (the user or another program edited it). \
         Nothing was written. Read it again with read_file and redo your change on the current content."
    ))
}
