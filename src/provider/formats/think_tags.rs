//! Reasoning a model writes into its answer between `<think>` and `</think>`, read as thinking.
//!
//! Open reasoning models (DeepSeek R1 and its distillations, Qwen 3, QwQ) think in their
//! answer's text. A server that knows the model splits it off (`reasoning_content`); one that
//! does not — an older Ollama, vLLM without a reasoning parser, some proxies — streams it as
//! content, where the chat would show the tags and the reasoning as the answer, and the history
//! would send it back with every later request. [`ThinkTags`] reads a `<think>` block at the
//! very start of a message's content (after white space) as thinking; anything else, and
//! everything after the block, is the answer as it came. Tags split across chunks are held back
//! until they can be told apart from text.

use crate::protocol::StreamEvent;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// Where in a message's content the stream is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Nothing but white space yet, or the start of an opening tag.
    #[default]
    Start,
    /// Inside the block.
    Thinking,
    /// Just after the block: the white space before the answer is dropped.
    AfterThinking,
    /// The answer (or content that never opened a block).
    Answer,
}

/// Splits one message's streamed content into thinking and answer (see the module docs).
#[derive(Debug, Default)]
pub struct ThinkTags {
    place: Place,
    /// Content not yet sent: white space or part of a tag at the start, or what could be the
    /// start of the closing tag inside the block.
    held: String,
}

impl ThinkTags {
    /// The events for `text`, the next piece of the content.
    pub fn push(&mut self, text: &str, out: &mut Vec<StreamEvent>) {
        match self.place {
            Place::Answer => answer(text, out),
            Place::Start => {
                self.held.push_str(text);
                let trimmed = self.held.trim_start();
                if let Some(rest) = trimmed.strip_prefix(OPEN) {
                    let rest = rest.to_string();
                    self.held.clear();
                    self.place = Place::Thinking;
                    self.push(&rest, out);
                } else if !OPEN.starts_with(trimmed) {
                    self.place = Place::Answer;
                    answer(&std::mem::take(&mut self.held), out);
                }
            }
            Place::Thinking => {
                self.held.push_str(text);
                if let Some(end) = self.held.find(CLOSE) {
                    thinking(&self.held[..end], out);
                    let rest = self.held[end + CLOSE.len()..].to_string();
                    self.held.clear();
                    self.place = Place::AfterThinking;
                    self.push(&rest, out);
                } else {
                    // Keep back what could be the closing tag's beginning.
                    let keep = (1..CLOSE.len()).rev().find(|n| self.held.ends_with(&CLOSE[..*n])).unwrap_or(0);
                    let cut = self.held.len() - keep;
                    thinking(&self.held[..cut], out);
                    self.held.drain(..cut);
                }
            }
            Place::AfterThinking => {
                let rest = text.trim_start();
                if !rest.is_empty() {
                    self.place = Place::Answer;
                    answer(rest, out);
                }
            }
        }
    }

    /// What is still held back, once the content has ended (or a tool call begins): text that
    /// only looked like the start of a tag, or thinking cut off before its closing tag.
    /// Content that follows (after a tool call) is answer.
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        let held = std::mem::take(&mut self.held);
        match self.place {
            Place::Start => answer(&held, out),
            Place::Thinking => thinking(&held, out),
            Place::AfterThinking | Place::Answer => {}
        }
        if self.place != Place::Start || !held.is_empty() {
            self.place = Place::Answer;
        }
    }
}

fn answer(text: &str, out: &mut Vec<StreamEvent>) {
    if !text.is_empty() {
        out.push(StreamEvent::TextDelta { text: text.to_string() });
    }
}

fn thinking(text: &str, out: &mut Vec<StreamEvent>) {
    if !text.is_empty() {
        out.push(StreamEvent::ThinkingDelta { text: text.to_string() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events for `content` streamed `size` bytes at a time (on character boundaries),
    /// joined by kind: (thinking, answer).
    fn split(content: &str, size: usize) -> (String, String) {
        let mut tags = ThinkTags::default();
        let mut out = Vec::new();
        let mut piece = String::new();
        for c in content.chars() {
            piece.push(c);
            if piece.len() >= size {
                tags.push(&std::mem::take(&mut piece), &mut out);
            }
        }
        tags.push(&piece, &mut out);
        tags.finish(&mut out);
        let (mut thought, mut said) = (String::new(), String::new());
        for event in out {
            match event {
                StreamEvent::ThinkingDelta { text } => thought.push_str(&text),
                StreamEvent::TextDelta { text } => said.push_str(&text),
                other => panic!("{other:?}"),
            }
        }
        (thought, said)
    }

    #[test]
    fn a_think_block_at_the_start_is_thinking_however_the_tags_are_cut() {
        let content = "\n<think>\nThe user wants cats. Search first.\n</think>\n\nHere are your notes on cats.";
        for size in 1..=content.len() {
            assert_eq!(
                split(content, size),
                ("\nThe user wants cats. Search first.\n".to_string(), "Here are your notes on cats.".to_string()),
                "{size} bytes a piece"
            );
        }
    }

    #[test]
    fn anything_else_is_the_answer_as_it_came() {
        for content in [
            "Plain answer.",
            "  An answer that mentions <think> later.",
            "<thinking>is not the tag</thinking>",
            "<th",
            "\n\n",
            "",
            "Résumé: 日本語のノート",
        ] {
            for size in 1..=content.len().max(1) {
                assert_eq!(split(content, size), (String::new(), content.to_string()), "{content:?}, {size}");
            }
        }
    }

    #[test]
    fn thinking_cut_off_before_its_closing_tag_is_still_thinking() {
        assert_eq!(split("<think>Half a thought </thi", 3), ("Half a thought </thi".to_string(), String::new()));
        assert_eq!(split("<think>思考中</think>答え", 2), ("思考中".to_string(), "答え".to_string()));
    }
}
