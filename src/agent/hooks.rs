//! Hooks the loop runs at fixed points. The one there is now runs before condensing: the last
//! moment to save what is worth keeping beyond the task, before older messages are removed.

use async_trait::async_trait;

use crate::cancel::CancelToken;
use crate::host::{utc_datetime, Clock};
use crate::prompt::MEMORY_FILE;
use crate::protocol::{ContentBlock, Message, ModelRequest, Role, SystemPart, ToolChoice};
use crate::provider::{complete, ModelProvider};
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// What a hook may use.
pub struct HookContext<'a> {
    pub task_id: &'a str,
    /// The messages about to be summarised and removed.
    pub older: &'a [Message],
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
/// decisions — and they are appended to `.obsidian-agent/memory/facts.md`, which later tasks'
/// prompts include.
#[derive(Debug, Default, Clone, Copy)]
pub struct MemoryFlush;

/// What the model answers when there is nothing worth keeping.
const NOTHING: &str = "NONE";

#[async_trait(?Send)]
impl CondenseHook for MemoryFlush {
    async fn before_condense(&self, ctx: &HookContext<'_>) -> Result<()> {
        let mut messages = crate::context::sanitize(ctx.older);
        let ask = ContentBlock::text(format!(
            "Part of this conversation is about to be removed to save context. Before it goes: list the facts \
             in it worth remembering in later, unrelated tasks — the user's preferences, how their vault is \
             organised, decisions they made. One fact per line, each starting with \"- \". Not the task's own \
             progress. If there is nothing like that, answer {NOTHING}."
        ));
        match messages.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(ask),
            _ => messages.push(Message { role: Role::User, content: vec![ask] }),
        }
        let request = ModelRequest {
            system: vec![SystemPart {
                text: "You keep an AI agent's long-term memory of a user's Obsidian vault.".into(),
                cache_breakpoint: false,
            }],
            messages,
            tool_choice: ToolChoice::None,
            thinking_budget: None,
            ..ctx.request.clone()
        };
        let answer = complete(ctx.provider, &request, ctx.cancel).await.map_err(Error::Provider)?;
        let text = answer.message.text();
        let facts: Vec<&str> = text.lines().map(str::trim).filter(|l| l.starts_with("- ")).collect();
        if facts.is_empty() {
            return Ok(());
        }
        let path = VaultPath::parse(MEMORY_FILE)?;
        let mut memory = match ctx.vault.read(&path).await {
            Ok(text) => text,
            Err(e) if e.is_not_found() => String::from("# Memory\n\nFacts the agent saved for later tasks.\n"),
            Err(e) => return Err(e),
        };
        let (y, mo, d, ..) = utc_datetime(ctx.clock.now_ms());
        if !memory.ends_with('\n') {
            memory.push('\n');
        }
        memory.push_str(&format!("\n## {y:04}-{mo:02}-{d:02} (task {})\n{}\n", ctx.task_id, facts.join("\n")));
        ctx.vault.write(&path, &memory).await
    }
}
