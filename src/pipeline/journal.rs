//! What the pipeline tells the keeper of a task's snapshot as a turn goes on, so that a task
//! stopped mid-turn (a closed app, a crash) resumes where it stood: after the calls that ran,
//! at the approval it was waiting for.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::CallOutcome;
use crate::protocol::ApprovalRequest;

/// The pipeline's own state that a resumed task needs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PipelineState {
    /// The next call's index (it names externalized results and approval ids).
    pub next_index: u32,
    /// The read ledger: each note the task has seen, and its hash then (16 hex digits: a u64
    /// does not survive JSON in JavaScript).
    pub seen: Vec<(String, String)>,
}

/// Told of a turn's progress by [`super::ToolExecutionPipeline::run`].
#[async_trait(?Send)]
pub trait TurnJournal {
    /// The calls of this `run` that have finished, in call order: always a prefix of the
    /// turn, never one after a call that stopped it.
    async fn calls_done(&self, done: &[CallOutcome], state: &PipelineState);
    /// A call waits for the user's approval (the request has been emitted).
    async fn awaiting_approval(&self, request: &ApprovalRequest, state: &PipelineState);
}
