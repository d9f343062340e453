//! Which sub-task a request comes from (`new_task`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A sub-task as the user is shown it: an approval or a question it asks carries this, so the
/// host can say who is asking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SubtaskInfo {
    /// The sub-task's own id (`<parentId>.<callIndex>`, nested for deeper ones).
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// The mode it runs in.
    pub mode: String,
    /// How deep it is nested: 1 for a task the user's task started.
    pub depth: u32,
    /// What it was asked to do, in one line.
    pub title: String,
}
