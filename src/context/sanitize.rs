//! History sanitising: what reaches a provider is a well-formed conversation.

use std::collections::HashSet;

use crate::media::MediaSupport;
use crate::protocol::{ContentBlock, Message, Role};

/// What a tool call without a result gets, so the provider accepts the history.
pub const MISSING_RESULT: &str = "No result: the call was interrupted before it finished.";

/// `messages` made safe to send: every tool call is answered by a result in the next message
/// (a missing one is added as an error), every tool result answers a call in the message before
/// it (an orphan is dropped), empty messages are dropped, consecutive messages of one role are
/// merged, and the conversation starts with the user. The history itself is never changed;
/// this works on the copy a request carries.
pub fn sanitize(messages: &[Message]) -> Vec<Message> {
    // Merge same-role neighbours and drop empty messages first, so that "the next message" is
    // well defined.
    let mut merged: Vec<Message> = Vec::with_capacity(messages.len());
    for message in messages.iter().filter(|m| !m.content.is_empty()) {
        match merged.last_mut() {
            Some(last) if last.role == message.role => last.content.extend(message.content.iter().cloned()),
            _ => merged.push(message.clone()),
        }
    }

    let mut out: Vec<Message> = Vec::with_capacity(merged.len());
    for (i, message) in merged.iter().enumerate() {
        match message.role {
            Role::Assistant => {
                out.push(message.clone());
                let calls: Vec<&str> = message.tool_uses().map(|(id, _, _)| id).collect();
                if calls.is_empty() {
                    continue;
                }
                let answered: HashSet<&str> = merged
                    .get(i + 1)
                    .filter(|next| next.role == Role::User)
                    .map(|next| result_ids(next).collect())
                    .unwrap_or_default();
                let missing: Vec<ContentBlock> = calls
                    .iter()
                    .filter(|id| !answered.contains(**id))
                    .map(|id| ContentBlock::ToolResult {
                        tool_use_id: id.to_string(),
                        content: MISSING_RESULT.into(),
                        is_error: true,
                    })
                    .collect();
                if !missing.is_empty() {
                    // Results go first in the user message; the next message's own blocks
                    // (its results and text) follow when it is merged below.
                    out.push(Message { role: Role::User, content: missing });
                }
            }
            Role::User => {
                let called: HashSet<&str> = i
                    .checked_sub(1)
                    .and_then(|j| merged.get(j))
                    .filter(|prev| prev.role == Role::Assistant)
                    .map(|prev| prev.tool_uses().map(|(id, _, _)| id).collect())
                    .unwrap_or_default();
                let content: Vec<ContentBlock> = message
                    .content
                    .iter()
                    .filter(|b| match b {
                        ContentBlock::ToolResult { tool_use_id, .. } => called.contains(tool_use_id.as_str()),
                        _ => true,
                    })
                    .cloned()
                    .collect();
                if content.is_empty() {
                    continue;
                }
                match out.last_mut() {
                    Some(last) if last.role == Role::User => last.content.extend(content),
                    _ => out.push(Message { role: Role::User, content }),
                }
            }
        }
    }
    // A conversation starts with the user; an assistant message can only lead if everything
    // before it was dropped, so it goes too.
    while out.first().is_some_and(|m| m.role == Role::Assistant) {
        out.remove(0);
    }
    // Within a user message, tool results come before text (Anthropic requires it).
    for message in out.iter_mut().filter(|m| m.role == Role::User) {
        crate::sort::sort_by_key(&mut message.content, |b| !matches!(b, ContentBlock::ToolResult { .. }));
    }
    out
}

fn result_ids(message: &Message) -> impl Iterator<Item = &str> {
    message.content.iter().filter_map(|b| match b {
        ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
        _ => None,
    })
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;

/// What stands in for an image or a document the model cannot take.
pub const UNSEEN_MEDIA: &str = "[An image or document was here; this model cannot take it.]";

/// Replaces, in `messages`, the images and documents a model that takes only what `media`
/// says would refuse, with a line saying so: a chat may have begun with another model.
pub fn drop_unseen_media(messages: &mut [Message], media: MediaSupport) {
    for message in messages {
        for block in &mut message.content {
            let unseen = match block {
                ContentBlock::Image { .. } => !media.images,
                ContentBlock::Document { .. } => !media.documents,
                _ => false,
            };
            if unseen {
                *block = ContentBlock::text(UNSEEN_MEDIA);
            }
        }
    }
}
