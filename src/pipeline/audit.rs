//! Stage 8: the audit log, one JSON line per tool call.

use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use super::LOG_FOLDER;
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// Arguments longer than this (as JSON) are cut in the log.
const MAX_INPUT_CHARS: usize = 2_000;

/// How a call ended, for the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    /// The tool ran and reported an error, or a stage refused the call.
    Error,
    Skipped,
    Denied,
    Fatal,
}

/// One logged call.
#[derive(Debug, Clone, Serialize)]
pub struct AuditEntry {
    pub ts_ms: u64,
    pub task_id: String,
    pub index: u32,
    pub call_id: String,
    pub tool: String,
    pub input: Value,
    /// `auto`, or the user's decision.
    pub approval: String,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub result_chars: usize,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub externalized: Option<String>,
}

/// The task's log at `.obsidian-agent/logs/<taskId>.jsonl`. The vault has no append, so the
/// file is rewritten with every entry; a task's log is small.
pub struct AuditLog {
    vault: Rc<dyn Vault>,
    path: VaultPath,
    lines: RefCell<String>,
}

impl AuditLog {
    /// The log of task `task_id`.
    pub fn new(vault: Rc<dyn Vault>, task_id: &str) -> Result<Self> {
        let path = VaultPath::parse(LOG_FOLDER)?.join(&format!("{task_id}.jsonl"))?;
        Ok(AuditLog { vault, path, lines: RefCell::new(String::new()) })
    }

    /// The log file's path.
    pub fn path(&self) -> &VaultPath {
        &self.path
    }

    /// Appends `entry` and saves the log.
    pub async fn record(&self, mut entry: AuditEntry) -> Result<()> {
        let input = entry.input.to_string();
        if input.len() > MAX_INPUT_CHARS {
            let cut: String = input.chars().take(MAX_INPUT_CHARS).collect();
            entry.input = Value::String(format!("{cut}…"));
        }
        let line = serde_json::to_string(&entry).map_err(|e| Error::Invalid(format!("audit entry: {e}")))?;
        let text = {
            let mut lines = self.lines.borrow_mut();
            lines.push_str(&line);
            lines.push('\n');
            lines.clone()
        };
        self.vault.write(&self.path, &text).await
    }
}
