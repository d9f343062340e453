//! Hooks the loop runs at fixed points: before condensing (the last moment to save what is
//! worth keeping beyond the task, before older messages are removed) and after a task that
//! completed.

use async_trait::async_trait;

use crate::cancel::CancelToken;
use crate::host::Clock;
use crate::memory::{ask_for_memories, MemoryKind, MemoryStore};
use crate::protocol::{Message, ModelRequest, Usage};
use crate::provider::ModelProvider;
use crate::vault::Vault;
use crate::{Error, Result};

/// What a hook may use.
pub struct HookContext<'a> {
    pub task_id: &'a str,
    /// The messages the hook is about: before condensing, those about to be summarised and
    /// removed; after a task, its whole conversation.
    pub messages: &'a [Message],
    /// The request the task would send now (its model, tools and limits).
    pub request: &'a ModelRequest,
    pub provider: &'a dyn ModelProvider,
    pub vault: &'a dyn Vault,
    pub clock: &'a dyn Clock,
    pub cancel: &'a CancelToken,
}

/// Runs before a condensing summary replaces older messages.
#[async_trait(?Send)]
pub trait CondenseHook {
    /// Saves what must outlive the messages about to go. An error is reported as a warning;
    /// condensing goes on.
    async fn before_condense(&self, ctx: &HookContext<'_>) -> Result<()>;
}

/// The pre-compaction memory flush: one model call (tools disabled) lists the durable facts in
/// the messages about to be condensed — the user's preferences, the vault's conventions,
/// decisions — and they are added to the memory store ([`crate::memory`]), which later tasks'
/// prompts draw on.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryFlush;

#[async_trait(?Send)]
impl CondenseHook for MemoryFlush {
    async fn before_condense(&self, ctx: &HookContext<'_>) -> Result<()> {
        let situation = "Part of this conversation is about to be removed to save context. Before it goes:";
        let (memories, _) = ask_for_memories(ctx.provider, ctx.request, ctx.messages, situation, ctx.cancel)
            .await
            .map_err(Error::Provider)?;
        remember_all(ctx.vault, ctx.clock, ctx.task_id, &memories).await
    }
}

/// Runs after a task that completed (answered or called `attempt_completion`), before its
/// report is made.
#[async_trait(?Send)]
pub trait EndHook {
    /// Returns what its model calls used (counted in the task's usage). An error is reported
    /// as a warning; the task's result stands.
    async fn after_completion(&self, ctx: &HookContext<'_>) -> Result<Usage>;
}

/// The end-of-task extraction (`AgentConfig::memory_extraction`): one short model call over
/// the finished conversation saves its durable facts and preferences to memory.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryExtraction;

#[async_trait(?Send)]
impl EndHook for MemoryExtraction {
    async fn after_completion(&self, ctx: &HookContext<'_>) -> Result<Usage> {
        let situation = "The task is done.";
        let request = ModelRequest { max_tokens: ctx.request.max_tokens.min(EXTRACTION_TOKENS), ..ctx.request.clone() };
        let (memories, usage) = ask_for_memories(ctx.provider, &request, ctx.messages, situation, ctx.cancel)
            .await
            .map_err(Error::Provider)?;
        remember_all(ctx.vault, ctx.clock, ctx.task_id, &memories).await?;
        Ok(usage)
    }
}

/// The extraction's answer is a short list.
const EXTRACTION_TOKENS: u32 = 1_024;

/// Adds `memories` to the store in one write (none: nothing is written).
async fn remember_all(
    vault: &dyn Vault,
    clock: &dyn Clock,
    task_id: &str,
    memories: &[(MemoryKind, String)],
) -> Result<()> {
    if memories.is_empty() {
        return Ok(());
    }
    MemoryStore::update(vault, |store| {
        for (kind, text) in memories {
            // A line too long for memory is dropped; the others are kept.
            let _ = store.add(*kind, text, clock.now_ms(), Some(task_id));
        }
        Ok(())
    })
    .await
}
