//! The per-turn trim: a cheap way to fit a request, without a model call. The oldest tool
//! results are shortened to a stub; the calls and results stay paired, so nothing is orphaned.

use super::tokens::estimate_text;
use crate::protocol::{ContentBlock, Message};

/// Results at most this long are left alone.
const STUB_CHARS: usize = 300;

/// Shortens the oldest tool results of `messages` (outside the last `keep_recent` messages)
/// until `tokens` — the request's estimate, kept up to date here — is at most `budget`. A
/// shortened result keeps its first lines and says how much was cut and how to get it back.
/// Returns how many results were shortened.
pub fn trim_tool_results(messages: &mut [Message], tokens: &mut u64, budget: u64, keep_recent: usize) -> usize {
    let limit = messages.len().saturating_sub(keep_recent);
    let mut trimmed = 0;
    for message in &mut messages[..limit] {
        for block in &mut message.content {
            if *tokens <= budget {
                return trimmed;
            }
            let ContentBlock::ToolResult { content, .. } = block else { continue };
            let chars = content.chars().count();
            if chars <= STUB_CHARS {
                continue;
            }
            let kept: String = content.chars().take(STUB_CHARS / 2).collect();
            let stub = format!(
                "{kept}…\n[trimmed to save context: {} more characters; call the tool again if you need them]",
                chars - STUB_CHARS / 2
            );
            *tokens = tokens.saturating_sub(estimate_text(content)).saturating_add(estimate_text(&stub));
            *content = stub;
            trimmed += 1;
        }
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::tokens::estimate_message;
    use crate::protocol::Role;

    fn result(i: usize, len: usize) -> Message {
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: format!("c{i}"),
                content: "x".repeat(len),
                is_error: false,
            }],
        }
    }

    #[test]
    fn the_oldest_results_are_shortened_first_and_only_as_far_as_needed() {
        let mut messages: Vec<Message> = (0..4).map(|i| result(i, 4_000)).collect();
        let mut tokens: u64 = messages.iter().map(estimate_message).sum();
        let budget = tokens - 1_500;
        let n = trim_tool_results(&mut messages, &mut tokens, budget, 1);
        assert_eq!(n, 2, "two results of ~1000 tokens each are enough");
        assert!(tokens <= budget);
        assert_eq!(tokens, messages.iter().map(estimate_message).sum::<u64>(), "the running estimate stays true");
        let len = |m: &Message| match &m.content[0] {
            ContentBlock::ToolResult { content, .. } => content.len(),
            _ => 0,
        };
        assert!(len(&messages[0]) < 400 && len(&messages[1]) < 400);
        assert_eq!(len(&messages[2]), 4_000);
    }

    #[test]
    fn recent_messages_and_short_results_are_never_touched() {
        let mut messages = vec![result(0, 100), result(1, 10_000)];
        let mut tokens = 10_000;
        assert_eq!(trim_tool_results(&mut messages, &mut tokens, 0, 1), 0);
        assert_eq!(tokens, 10_000);
    }
}
