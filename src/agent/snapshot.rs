//! Task snapshots: a running task's state, saved after every step and at every approval wait,
//! so that a task stopped by a restart (a closed app, a crash) can be resumed where it stood,
//! or discarded.
//!
//! One file per task, `.obsidian-agent/tasks/<taskId>.json`, written with
//! [`write_atomic`] (a temporary file, then a rename), so an interrupted save leaves the
//! previous snapshot loadable. A task that ends removes its snapshot: a snapshot on disk is a
//! task that did not finish.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::AgentConfig;
use crate::host::AgentHost;
use crate::pipeline::{CallOutcome, CallStatus, PipelineState, ToolCall, TurnJournal};
use crate::protocol::{AgentEvent, ApprovalRequest, ContentBlock, Message, StepReport, ToolCallReport, Usage};
use crate::vault::{read_atomic, remove_atomic, write_atomic, Vault, VaultPath, TEMP_SUFFIX};
use crate::{Error, Result};

/// Where snapshots live.
pub const TASK_FOLDER: &str = ".obsidian-agent/tasks";
/// The snapshot format this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// A task as it stood at its last step or approval wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSnapshot {
    /// [`SNAPSHOT_VERSION`] when written; another version is refused on load.
    pub version: u32,
    /// Also the id of the task's checkpoint, audit log and temporary folder.
    pub task_id: String,
    /// The saved chat the task belongs to, when the host told it.
    #[serde(default)]
    pub chat_id: Option<String>,
    /// The user's request that started the task.
    pub request: String,
    /// The task's configuration; its `mode` is the mode the task was in, its `autoApprove`
    /// carries "always allow" answers.
    pub config: AgentConfig,
    /// The history, up to and including the current turn's model answer.
    pub history: Vec<Message>,
    pub progress: RunProgress,
    /// The turn whose tool calls were running, if any.
    #[serde(default)]
    pub pending: Option<PendingTurn>,
    /// The approval the task was waiting for.
    #[serde(default)]
    pub approval: Option<ApprovalRequest>,
    #[serde(default)]
    pub pipeline: PipelineState,
    pub updated_ms: u64,
}

/// A run's counters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RunProgress {
    pub started_ms: u64,
    pub steps: Vec<StepReport>,
    /// The steps' model calls, and the sub-tasks' (`new_task`).
    pub usage: Usage,
    /// The context machinery's model calls (summaries, memory flush).
    pub overhead: Usage,
    /// Failing steps in a row.
    pub mistakes: u32,
    /// Steps in a row with blocked repeats.
    pub blocked_streak: u32,
    /// Tool calls run so far (the budget's count).
    pub tool_calls: u32,
    pub condensations: u32,
    /// The condensing threshold in effect (an overflow raises it).
    pub threshold: u32,
}

/// The tool calls of a turn, and those that had finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingTurn {
    /// The calls the pipeline runs, in call order.
    pub calls: Vec<ToolCall>,
    /// A prefix of `calls`, finished.
    #[serde(default)]
    pub done: Vec<DoneCall>,
    /// Calls past the step's or the task's budget: answered "not run", with the reason.
    #[serde(default)]
    pub refused: Vec<DoneCall>,
    /// The pipeline's index of the first call (the calls' indexes name their externalized
    /// results and approval requests, so a resumed turn numbers them as before).
    #[serde(default)]
    pub first_index: u32,
    /// How many of `done` were finished before this run of the turn (a resumed one).
    #[serde(skip)]
    pub prior: usize,
}

/// A finished call of a pending turn: what the model is told, and its metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoneCall {
    pub call_id: String,
    pub tool: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub media: Vec<ContentBlock>,
    pub is_error: bool,
    pub report: ToolCallReport,
}

impl DoneCall {
    pub(crate) fn of(outcome: &CallOutcome) -> Self {
        DoneCall {
            call_id: outcome.call_id.clone(),
            tool: outcome.tool.clone(),
            content: outcome.content.clone(),
            media: outcome.media.clone(),
            is_error: outcome.is_error,
            report: outcome.report.clone(),
        }
    }

    /// The outcome again, for the loop (its status only says whether it failed).
    pub(crate) fn outcome(&self) -> CallOutcome {
        CallOutcome {
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            content: self.content.clone(),
            media: self.media.clone(),
            is_error: self.is_error,
            status: if self.is_error { CallStatus::Failed } else { CallStatus::Ok },
            control: None,
            report: self.report.clone(),
        }
    }
}

/// A line of the list of interrupted tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InterruptedTask {
    pub task_id: String,
    #[serde(default)]
    pub chat_id: Option<String>,
    /// The request's first line.
    pub title: String,
    pub updated_ms: u64,
    pub steps: usize,
    /// What the task was waiting for approval of (the request's summary).
    #[serde(default)]
    pub waiting_for: Option<String>,
    /// Why it cannot be resumed (another version, a damaged file); it can still be discarded.
    #[serde(default)]
    pub problem: Option<String>,
}

/// Where the snapshot of `task_id` is saved.
pub fn snapshot_path(task_id: &str) -> Result<VaultPath> {
    if task_id.is_empty() || task_id.contains('/') {
        return Err(Error::Invalid(format!("{task_id:?} is not a task id")));
    }
    VaultPath::parse(TASK_FOLDER)?.join(&format!("{task_id}.json"))
}

/// The snapshot of `task_id`. One written by another version, or damaged, is refused with an
/// error that says so.
pub async fn load_snapshot(vault: &dyn Vault, task_id: &str) -> Result<TaskSnapshot> {
    let bytes = read_atomic(vault, &snapshot_path(task_id)?).await?;
    parse_snapshot(task_id, &bytes)
}

/// Reads a snapshot's bytes (the loader's parser, pure).
pub fn parse_snapshot(task_id: &str, bytes: &[u8]) -> Result<TaskSnapshot> {
    let damaged = |e: String| Error::Invalid(format!("the snapshot of task {task_id} is damaged: {e}"));
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| damaged(e.to_string()))?;
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(SNAPSHOT_VERSION) => {}
        Some(v) => {
            return Err(Error::Invalid(format!(
                "the snapshot of task {task_id} was saved by another version of Vault Agent (format {v}; this \
                 one reads format {SNAPSHOT_VERSION}), so it cannot be resumed; discard it"
            )))
        }
        None => return Err(damaged("it has no format version".into())),
    }
    serde_json::from_value(value).map_err(|e| damaged(e.to_string()))
}

/// Every task that did not finish, most recently saved first. A snapshot that cannot be
/// resumed is listed with its problem.
pub async fn list_interrupted(vault: &dyn Vault) -> Result<Vec<InterruptedTask>> {
    let folder = VaultPath::parse(TASK_FOLDER)?;
    if vault.stat(&folder).await?.is_none() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<String> = vault
        .list(&folder)
        .await?
        .files
        .iter()
        .filter_map(|f| f.name())
        .filter_map(|n| n.strip_suffix(TEMP_SUFFIX).unwrap_or(n).strip_suffix(".json").map(str::to_string))
        .collect();
    crate::sort::sort(&mut ids);
    ids.dedup();
    let mut tasks = Vec::new();
    for id in ids {
        let task = match load_snapshot(vault, &id).await {
            Ok(s) => InterruptedTask {
                title: s
                    .request
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
                    .chars()
                    .take(80)
                    .collect(),
                task_id: s.task_id,
                chat_id: s.chat_id,
                updated_ms: s.updated_ms,
                steps: s.progress.steps.len(),
                waiting_for: s.approval.map(|a| a.summary),
                problem: None,
            },
            Err(e) => InterruptedTask {
                task_id: id.clone(),
                chat_id: None,
                title: String::new(),
                updated_ms: 0,
                steps: 0,
                waiting_for: None,
                problem: Some(e.to_string()),
            },
        };
        tasks.push(task);
    }
    crate::sort::sort_by(&mut tasks, |a, b| b.updated_ms.cmp(&a.updated_ms).then_with(|| b.task_id.cmp(&a.task_id)));
    Ok(tasks)
}

/// Removes the snapshot of `task_id` (the task finished, or the user discarded it). Its
/// checkpoint stays: what it changed can still be undone.
pub async fn discard_snapshot(vault: &dyn Vault, task_id: &str) -> Result<()> {
    remove_atomic(vault, &snapshot_path(task_id)?).await
}

/// Keeps a running task's snapshot: the task updates it after every step, the pipeline (as
/// its [`TurnJournal`]) after every batch of calls and at every approval wait. Saves are one
/// at a time; a failed save is reported once as a warning and the task goes on.
pub(crate) struct SnapshotWriter {
    vault: Rc<dyn Vault>,
    host: Rc<dyn AgentHost>,
    path: VaultPath,
    state: RefCell<TaskSnapshot>,
    now: Box<dyn Fn() -> u64>,
    saving: futures::lock::Mutex<()>,
    warned: Cell<bool>,
}

impl SnapshotWriter {
    pub fn new(
        vault: Rc<dyn Vault>,
        host: Rc<dyn AgentHost>,
        snapshot: TaskSnapshot,
        now: Box<dyn Fn() -> u64>,
    ) -> Result<Self> {
        Ok(SnapshotWriter {
            path: snapshot_path(&snapshot.task_id)?,
            vault,
            host,
            state: RefCell::new(snapshot),
            now,
            saving: futures::lock::Mutex::new(()),
            warned: Cell::new(false),
        })
    }

    /// Changes the state (nothing is written until [`SnapshotWriter::save`]).
    pub fn update(&self, change: impl FnOnce(&mut TaskSnapshot)) {
        change(&mut self.state.borrow_mut());
    }

    /// Writes the state as it is now.
    pub async fn save(&self) {
        let _one_at_a_time = self.saving.lock().await;
        let json = {
            let mut state = self.state.borrow_mut();
            state.updated_ms = (self.now)();
            serde_json::to_vec(&*state)
        };
        let result = match json {
            Ok(json) => write_atomic(&*self.vault, &self.path, &json).await,
            Err(e) => Err(Error::Invalid(format!("task snapshot: {e}"))),
        };
        if let Err(e) = result {
            if !self.warned.replace(true) {
                self.host.emit(&AgentEvent::Warning {
                    message: format!("could not save the task's snapshot (it cannot be resumed after a restart): {e}"),
                });
            }
        }
    }

    /// Removes the snapshot: the task ended.
    pub async fn discard(&self) {
        let _one_at_a_time = self.saving.lock().await;
        if let Err(e) = remove_atomic(&*self.vault, &self.path).await {
            self.host.emit(&AgentEvent::Warning { message: format!("could not remove the task's snapshot: {e}") });
        }
    }
}

#[async_trait(?Send)]
impl TurnJournal for SnapshotWriter {
    async fn calls_done(&self, done: &[CallOutcome], state: &PipelineState) {
        self.update(|s| {
            if let Some(pending) = &mut s.pending {
                pending.done.truncate(pending.prior);
                pending.done.extend(done.iter().map(DoneCall::of));
            }
            s.approval = None;
            // The call numbering stays the turn's own (`PendingTurn::first_index`).
            s.pipeline.seen = state.seen.clone();
        });
        self.save().await;
    }

    async fn awaiting_approval(&self, request: &ApprovalRequest, state: &PipelineState) {
        self.update(|s| {
            s.approval = Some(request.clone());
            s.pipeline.seen = state.seen.clone();
        });
        self.save().await;
    }
}
