//! Condensing: one model call summarises the older part of the history in a fixed structure,
//! and that summary replaces it as one message. The most recent turns stay as they are, and a
//! tool call is never separated from its result.

use serde_json::Value;

use super::sanitize::sanitize;
use super::tokens::estimate_message;
use crate::protocol::{ContentBlock, Message, ModelRequest, Role};

/// The sections every summary has, in order.
pub const SUMMARY_SECTIONS: [&str; 5] = ["User goal", "What was done", "Current state", "Pending", "Key context"];

/// The first line of a condensed history's summary message.
pub const SUMMARY_MARKER: &str = "[Condensed history: the earlier conversation, summarised to save context]";

/// At least this many of the latest messages are kept as they are.
const MIN_KEPT: usize = 4;

/// Where to cut `messages` so that `messages[cut..]` stays and `messages[..cut]` is
/// summarised: the kept part holds at least the last `MIN_KEPT` messages and about
/// `keep_tokens`, and starts with an assistant message (so no tool result is cut from its call,
/// and the summary — a user message — keeps the roles alternating). `None` when there is too
/// little before that to be worth a summary.
pub fn split_point(messages: &[Message], keep_tokens: u64) -> Option<usize> {
    let mut cut = messages.len().saturating_sub(MIN_KEPT);
    let mut kept: u64 = messages[cut..].iter().map(estimate_message).sum();
    while cut > 0 && kept + estimate_message(&messages[cut - 1]) <= keep_tokens {
        cut -= 1;
        kept += estimate_message(&messages[cut]);
    }
    while cut > 0 && messages[cut].role != Role::Assistant {
        cut -= 1;
    }
    // Summarising one message (the request alone) gains nothing.
    (cut >= 2).then_some(cut)
}

/// The request that asks the model for the summary of `older`: the task's own tools stay
/// defined (the history holds calls) but are disabled.
pub fn summary_request(base: &ModelRequest, older: &[Message]) -> ModelRequest {
    base.answer_about(
        "You summarise an AI agent's work on a user's Obsidian vault so that the agent can continue from the \
         summary alone.",
        sanitize(older),
        summary_instruction(),
    )
}

fn summary_instruction() -> String {
    let sections: Vec<String> = SUMMARY_SECTIONS.iter().map(|s| format!("## {s}")).collect();
    format!(
        "The conversation above is about to be replaced by your summary, to save context. Write the summary \
         now, for yourself, so you can finish the task from it alone. Use exactly these Markdown sections, in \
         this order:\n{}\nBe specific: vault paths, note titles, numbers, decisions, what the user asked for in \
         their words. Under Pending, list what is left to do. Do not call tools.",
        sections.join("\n")
    )
}

/// The condensed history: one user message with the summary and the ledger of tool calls
/// already made, then the kept messages.
pub fn condensed(summary: &str, ledger: &str, kept: &[Message]) -> Vec<Message> {
    let mut text = format!("{SUMMARY_MARKER}\n\n{}", summary.trim());
    if !ledger.is_empty() {
        text.push_str(&format!(
            "\n\n## Tool-call ledger\nCalls already made and how they ended. Do not repeat them; use what they \
             found.\n{ledger}"
        ));
    }
    let mut out = vec![Message::user(text)];
    out.extend_from_slice(kept);
    out
}

/// One line per tool call in `messages`: the tool, its arguments (shortened) and how it ended.
/// Made from the history itself, so it is exact whatever the model's summary says.
pub fn tool_ledger(messages: &[Message]) -> String {
    let mut lines = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        for (id, name, input) in message.tool_uses() {
            let outcome = messages.get(i + 1).and_then(|next| {
                next.content.iter().find_map(|b| match b {
                    ContentBlock::ToolResult { tool_use_id, content, is_error } if tool_use_id == id => {
                        Some((*is_error, content.lines().next().unwrap_or("").to_string()))
                    }
                    _ => None,
                })
            });
            let outcome = match outcome {
                Some((false, first)) => format!("ok: {}", shorten(&first, 100)),
                Some((true, first)) => format!("failed: {}", shorten(&first, 100)),
                None => "no result".to_string(),
            };
            lines.push(format!("- {name} {} → {outcome}", shorten(&arguments(input), 160)));
        }
    }
    lines.join("\n")
}

fn arguments(input: &Value) -> String {
    match input {
        Value::Object(map) if map.is_empty() => "{}".into(),
        other => other.to_string(),
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

#[cfg(test)]
#[path = "condense_tests.rs"]
mod tests;
