//! Interrupted tasks and what tasks leave behind, from JS: `VaultCore` methods.

use wasm_bindgen::prelude::*;

use super::{from_js, js_error, to_js, JsClock, VaultCore};
use crate::agent::{discard_snapshot, list_interrupted, task_transcript};
use crate::host::Clock;
use crate::pipeline::{prune_tasks, release_results, RetentionPolicy};

#[wasm_bindgen]
impl VaultCore {
    /// The tasks that did not finish (the app closed, a crash), most recent first:
    /// `[{taskId, chatId?, title, updatedMs, steps, waitingFor?, problem?}]`. One with a
    /// `problem` (another version, a damaged file) can only be discarded.
    #[wasm_bindgen(js_name = interruptedTasks, unchecked_return_type = "Protocol.InterruptedTask[]")]
    pub async fn interrupted_tasks(&self) -> Result<JsValue, JsValue> {
        to_js(&list_interrupted(&*self.vault).await.map_err(js_error)?)
    }

    /// The chat of the interrupted task `taskId` as it stood when the task stopped (a
    /// `Transcript` whose last turn is the task's, without a task yet), to show it before
    /// resuming the task with `Chat.resume` in a chat made with its `chatId`.
    #[wasm_bindgen(js_name = taskTranscript, unchecked_return_type = "Protocol.Transcript")]
    pub async fn task_transcript(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<JsValue, JsValue> {
        to_js(&task_transcript(&*self.vault, &task_id).await.map_err(js_error)?)
    }

    /// Forgets the interrupted task `taskId` (what it changed stays undoable).
    #[wasm_bindgen(js_name = discardTask)]
    pub async fn discard_task(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<(), JsValue> {
        discard_snapshot(&*self.vault, &task_id).await.map_err(js_error)
    }

    /// Removes the externalized results of `taskIds`: their chat was closed.
    #[wasm_bindgen(js_name = releaseResults)]
    pub async fn release_results(
        &self,
        #[wasm_bindgen(js_name = taskIds)] task_ids: Vec<String>,
    ) -> Result<(), JsValue> {
        release_results(&*self.vault, &task_ids).await.map_err(js_error)
    }

    /// Prunes checkpoints and audit logs past `policy` (`{maxAgeDays, maxTasks}`; defaults 30
    /// and 200), never those of `keep` (the open chat's tasks) nor of interrupted tasks.
    /// Resolves with the pruned task ids.
    #[wasm_bindgen(js_name = pruneTasks, unchecked_return_type = "string[]")]
    pub async fn prune_tasks(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Partial<Protocol.RetentionPolicy> | null | undefined")] policy: JsValue,
        keep: Vec<String>,
    ) -> Result<JsValue, JsValue> {
        let policy: RetentionPolicy =
            if policy.is_undefined() || policy.is_null() { RetentionPolicy::default() } else { from_js(policy)? };
        let mut keep = keep;
        keep.extend(list_interrupted(&*self.vault).await.map_err(js_error)?.into_iter().map(|t| t.task_id));
        let pruned = prune_tasks(&*self.vault, JsClock.now_ms(), policy, &keep).await.map_err(js_error)?;
        to_js(&pruned)
    }
}
