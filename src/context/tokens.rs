//! How many input tokens a request will cost, before sending it.
//!
//! The estimate is deliberately simple: a character count divided by four, plus a fixed
//! amount per image. It is anchored to the truth whenever there is some: after a call, the
//! provider reports how many input tokens the request really had, and the next estimate is
//! that count plus the estimate of only the messages added since.

use crate::protocol::{ContentBlock, Message, ModelRequest, Usage};

/// Characters per token in the plain estimate.
pub const CHARS_PER_TOKEN: u64 = 4;

/// Tokens charged per image: what Anthropic bills for an image at its largest default size
/// (about 1.15 megapixels / 750), which OpenAI's high-detail tiling is close to.
pub const IMAGE_TOKENS: u64 = 1_600;

/// Tokens for `text`: its characters (not bytes) over four, rounded up.
pub fn estimate_text(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(CHARS_PER_TOKEN)
}

/// Tokens for one content block. Tool calls count their name and arguments as JSON.
pub fn estimate_block(block: &ContentBlock) -> u64 {
    match block {
        ContentBlock::Text { text } => estimate_text(text),
        ContentBlock::Image { .. } => IMAGE_TOKENS,
        // Providers count a PDF page as its text plus an image of it; a page is about 3 KB of
        // base64 in a text PDF. Over-counting keeps the window safe.
        ContentBlock::Document { data, .. } => (data.len() as u64 / 3_000 + 1) * (IMAGE_TOKENS + 500),
        ContentBlock::ToolUse { name, input, .. } => estimate_text(name) + estimate_text(&input.to_string()),
        ContentBlock::ToolResult { content, .. } => estimate_text(content),
        ContentBlock::Thinking { thinking, .. } => estimate_text(thinking),
        ContentBlock::RedactedThinking { data } => estimate_text(data),
        ContentBlock::ReasoningDetails { details } => estimate_text(&details.to_string()),
    }
}

/// Tokens for one message.
pub fn estimate_message(message: &Message) -> u64 {
    message.content.iter().map(estimate_block).sum()
}

/// Tokens for a whole request: system prompt, tool specs and messages, from scratch.
pub fn estimate_request(request: &ModelRequest) -> u64 {
    let system: u64 = request.system.iter().map(|p| estimate_text(&p.text)).sum();
    let tools: u64 = request
        .tools
        .iter()
        .map(|t| estimate_text(&t.name) + estimate_text(&t.description) + estimate_text(&t.input_schema.to_string()))
        .sum();
    system + tools + request.messages.iter().map(estimate_message).sum::<u64>()
}

/// The estimate of the request prefix that a provider counted exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    /// How many messages the counted request had.
    message_count: usize,
    /// Our own estimate of the counted request's system, tools and messages: if the prefix
    /// changes (condensing replaced it, the tools changed), the anchor no longer applies.
    prefix_estimate: u64,
    /// What the provider reported as input, cached or not.
    reported: u64,
}

/// The running estimate for one conversation: plain until a provider reported a count, then
/// anchored to the latest report.
#[derive(Debug, Clone, Default)]
pub struct TokenEstimator {
    anchor: Option<Anchor>,
}

impl TokenEstimator {
    /// An estimator with nothing reported yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records what the provider reported for `request`: its input usage (cached tokens
    /// included). Usage with no input count is ignored.
    pub fn record(&mut self, request: &ModelRequest, usage: &Usage) {
        let reported = usage.total_input();
        if reported == 0 {
            return;
        }
        self.anchor = Some(Anchor {
            message_count: request.messages.len(),
            prefix_estimate: estimate_request(request),
            reported,
        });
    }

    /// The input tokens `request` will cost: the last reported count plus the estimate of the
    /// messages added since, when `request` still starts with the request that was counted;
    /// the plain estimate otherwise.
    pub fn estimate(&self, request: &ModelRequest) -> u64 {
        let Some(anchor) = self.anchor else { return estimate_request(request) };
        if request.messages.len() < anchor.message_count {
            return estimate_request(request);
        }
        let (prefix, added) = request.messages.split_at(anchor.message_count);
        let prefix_request = ModelRequest { messages: prefix.to_vec(), ..request.clone() };
        if estimate_request(&prefix_request) != anchor.prefix_estimate {
            return estimate_request(request);
        }
        anchor.reported + added.iter().map(estimate_message).sum::<u64>()
    }

    /// Forgets the last report.
    pub fn reset(&mut self) {
        self.anchor = None;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::{SystemPart, ToolSpec};

    fn request(messages: Vec<Message>) -> ModelRequest {
        ModelRequest {
            system: vec![SystemPart { text: "x".repeat(400), cache_breakpoint: true }],
            messages,
            tools: vec![ToolSpec { name: "read".into(), description: "Reads.".into(), input_schema: json!({}) }],
            max_tokens: 1000,
            thinking_budget: None,
            temperature: None,
            tool_choice: Default::default(),
            model: None,
        }
    }

    #[test]
    fn characters_over_four_rounded_up() {
        assert_eq!(estimate_text(""), 0);
        assert_eq!(estimate_text("abcd"), 1);
        assert_eq!(estimate_text("abcde"), 2);
        // Characters, not bytes: four CJK characters are one token in this estimate.
        assert_eq!(estimate_text("日本語で"), 1);
    }

    #[test]
    fn images_cost_a_fixed_penalty() {
        let message = Message {
            role: crate::protocol::Role::User,
            content: vec![
                ContentBlock::text("look at this"),
                ContentBlock::Image { media_type: "image/png".into(), data: "A".repeat(400_000) },
            ],
        };
        assert_eq!(estimate_message(&message), 3 + IMAGE_TOKENS);
    }

    #[test]
    fn a_request_counts_system_tools_and_messages() {
        let r = request(vec![Message::user("a".repeat(40))]);
        // 100 system + tool (1 + 2 + 1) + 10.
        assert_eq!(estimate_request(&r), 100 + 4 + 10);
    }

    #[test]
    fn the_estimate_is_anchored_to_the_last_reported_count() {
        let mut estimator = TokenEstimator::new();
        let first = request(vec![Message::user("a".repeat(40))]);
        assert_eq!(estimator.estimate(&first), 114);
        estimator.record(&first, &Usage { input_tokens: 50, cache_read_tokens: 250, ..Default::default() });
        assert_eq!(estimator.estimate(&first), 300, "the reported count replaces the guess");

        let mut next = first.clone();
        next.messages.push(Message::assistant("b".repeat(80)));
        next.messages.push(Message::user("c".repeat(8)));
        assert_eq!(estimator.estimate(&next), 300 + 20 + 2);
    }

    #[test]
    fn a_changed_prefix_drops_the_anchor() {
        let mut estimator = TokenEstimator::new();
        let first = request(vec![Message::user("a".repeat(40)), Message::assistant("b".repeat(40))]);
        estimator.record(&first, &Usage { input_tokens: 999, ..Default::default() });
        // Condensing replaced the history with one summary.
        let condensed = request(vec![Message::user("summary".repeat(4)), Message::assistant("ok")]);
        assert_eq!(estimator.estimate(&condensed), estimate_request(&condensed));
        let shorter = request(vec![Message::user("a".repeat(40))]);
        assert_eq!(estimator.estimate(&shorter), estimate_request(&shorter));
        estimator.reset();
        assert_eq!(estimator.estimate(&first), estimate_request(&first));
    }
}
