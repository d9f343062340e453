//! Asking the model what in a conversation is worth remembering: one call, tools off, whose
//! answer lists facts and preferences one a line.

use super::MemoryKind;
use crate::cancel::CancelToken;
use crate::protocol::{Message, ModelRequest, ProviderError, Usage};
use crate::provider::{complete, ModelProvider};

/// The system line of a memory call (tests and reports tell these calls apart by it).
const SYSTEM: &str = "You keep an AI agent's long-term memory of a user's Obsidian vault.";
/// What the model answers when there is nothing worth keeping.
const NOTHING: &str = "NONE";

/// Asks the model, over `messages`, for what is worth remembering; `situation` says why now.
/// The call uses `base`'s model and limits, with tools disabled. Returns the memories and the
/// call's usage.
pub async fn ask_for_memories(
    provider: &dyn ModelProvider,
    base: &ModelRequest,
    messages: &[Message],
    situation: &str,
    cancel: &CancelToken,
) -> Result<(Vec<(MemoryKind, String)>, Usage), ProviderError> {
    let ask = format!(
        "{situation} List the facts in this conversation worth remembering in later, unrelated tasks — how the \
         user's vault is organised, facts about the user, decisions they made — and the user's preferences about \
         how things are done. One a line, each starting with \"- \"; start a preference's line with \
         \"- Preference: \". Not the task's own progress, nothing already obvious from the notes. If there is \
         nothing like that, answer {NOTHING}."
    );
    let request = base.answer_about(SYSTEM, crate::context::sanitize(messages), ask);
    let answer = complete(provider, &request, cancel).await?;
    Ok((parse_memories(&answer.message.text()), answer.usage))
}

/// The memories in a memory call's answer: its `- ` lines, `- Preference: …` ones as
/// preferences, the rest as facts.
pub fn parse_memories(answer: &str) -> Vec<(MemoryKind, String)> {
    answer
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(|text| match strip_label(text, "preference:") {
            Some(rest) => (MemoryKind::Preference, rest.to_string()),
            None => (MemoryKind::Fact, strip_label(text, "fact:").unwrap_or(text).to_string()),
        })
        .filter(|(_, text)| !text.is_empty())
        .collect()
}

/// `text` after `label` (matched ignoring ASCII case), trimmed.
fn strip_label<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    let head = text.get(..label.len())?;
    head.eq_ignore_ascii_case(label).then(|| text[label.len()..].trim())
}
