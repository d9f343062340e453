//! `remember`: saves a fact about the user or their vault, or a preference, to the agent's
//! memory ([`crate::memory`]), for later tasks.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::guard::Secrets;
use crate::memory::{MemoryKind, MemoryStore};
use crate::protocol::ApprovalCategory;

pub struct Remember;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// `fact`: about the user or how their vault is organised; `preference`: how the user
    /// wants things done.
    kind: MemoryKind,
    /// One short, self-contained sentence that will still make sense in an unrelated task.
    #[schemars(length(min = 1, max = 500))]
    text: String,
}

#[async_trait(?Send)]
impl Tool for Remember {
    const NAME: &'static str = "remember";
    // It changes the agent's memory, not a note: it runs alone, with nothing to checkpoint.
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Agent;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Save a durable fact about the user or their vault, or a preference of theirs, to your memory; \
         later tasks whose requests it bears on see it in their prompt. Only what will matter beyond this \
         task, never secrets."
    }

    fn category(&self) -> ApprovalCategory {
        ApprovalCategory::Memory
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        if args.text.trim().is_empty() {
            return Err(ToolError::model("remember needs the text to save"));
        }
        // Refused before the approval: the user is never asked to store a key.
        if let Some(kind) = Secrets::find(&args.text) {
            return Err(ToolError::model(format!(
                "that looks like a secret ({kind}…); memory never keeps secrets. Remember where it is kept instead."
            )));
        }
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let mut store = MemoryStore::load(ctx.vault).await?;
        let before = store.entries().len();
        let id = store.add(args.kind, &args.text, ctx.clock.now_ms(), Some(ctx.task_id))?;
        if store.entries().len() == before {
            return Ok(ToolOutput::text(format!("Already remembered (memory {id}).")));
        }
        store.save(ctx.vault).await?;
        Ok(ToolOutput::text(format!("Remembered as a {} (memory {id}).", args.kind.as_str())))
    }
}
