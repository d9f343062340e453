//! Saved chats: each conversation as one JSON file in `.obsidian-agent/chats/`, so the chat
//! history travels with the vault (sync, backups) and a chat can be continued later.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::transcript::{is_request, split_request, transcript_turns, Transcript};
use crate::host::utc_datetime;
use crate::pipeline::release_results;
use crate::protocol::{ContentBlock, Message, Role, RunReport};
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// Where saved chats live.
pub const CHAT_FOLDER: &str = ".obsidian-agent/chats";

/// The longest title, in characters.
const TITLE_CHARS: usize = 60;

/// A conversation as saved: its history (what the model sees when it continues) and the tasks
/// it ran (for their reports and undo buttons).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SavedChat {
    /// Empty for a chat not saved yet: [`save_chat`] gives it one.
    #[serde(default)]
    pub id: String,
    /// Empty: the first line of the first message.
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub created_ms: u64,
    #[serde(default)]
    pub updated_ms: u64,
    /// The mode the chat ran in last.
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tasks: Vec<ChatTask>,
}

/// A task a chat ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatTask {
    /// Where the task's request is in [`SavedChat::messages`].
    pub message_index: usize,
    pub report: RunReport,
    /// Whether the user undid it.
    #[serde(default)]
    pub undone: bool,
}

/// A line of the chat history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    pub id: String,
    pub title: String,
    pub updated_ms: u64,
    /// How many requests the user made in it (tool results and the model's turns not counted).
    pub requests: usize,
}

/// Saves `chat` (replacing an earlier save with the same id) and returns its id. A chat
/// without an id gets one from `now_ms` (`YYYYMMDD-HHMMSS`, `-2`… when taken); an empty title
/// becomes the first line of its first message; `updated_ms` becomes `now_ms`.
pub async fn save_chat(vault: &dyn Vault, mut chat: SavedChat, now_ms: u64) -> Result<SavedChat> {
    if chat.id.is_empty() {
        chat.id = new_chat_id(vault, now_ms).await?;
        chat.created_ms = now_ms;
    }
    if chat.title.trim().is_empty() {
        chat.title = title_of(&chat.messages);
    }
    chat.updated_ms = now_ms;
    let json = serde_json::to_string(&chat).map_err(|e| Error::Invalid(format!("chat {}: {e}", chat.id)))?;
    vault.write(&chat_path(&chat.id)?, &json).await?;
    Ok(chat)
}

impl SavedChat {
    /// Replaces the chat's messages. A title the chat took from its first request (not one the
    /// user gave it) follows that request when it was edited.
    pub fn set_messages(&mut self, messages: Vec<Message>) {
        if self.title == title_of(&self.messages) {
            self.title = String::new();
        }
        self.messages = messages;
    }
}

/// The saved chat `id`.
pub async fn load_chat(vault: &dyn Vault, id: &str) -> Result<SavedChat> {
    let text = vault.read(&chat_path(id)?).await?;
    serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("saved chat {id} is damaged: {e}")))
}

/// Every saved chat, whole, most recently updated first; a damaged file is left out, not an
/// error. (The history lists them through [`super::ChatArchive`].)
pub(super) async fn load_all_chats(vault: &dyn Vault) -> Result<Vec<SavedChat>> {
    let folder = VaultPath::parse(CHAT_FOLDER)?;
    if vault.stat(&folder).await?.is_none() {
        return Ok(Vec::new());
    }
    let mut chats = Vec::new();
    for file in vault.list(&folder).await?.files {
        let Some(id) = file.name().and_then(|n| n.strip_suffix(".json")) else { continue };
        if let Ok(chat) = load_chat(vault, id).await {
            chats.push(chat);
        }
    }
    crate::sort::sort_by(&mut chats, |a, b| b.updated_ms.cmp(&a.updated_ms).then_with(|| b.id.cmp(&a.id)));
    Ok(chats)
}

/// Gives the saved chat `id` the title `title` (empty: its first request's first line);
/// returns the title it has now.
pub async fn rename_chat(vault: &dyn Vault, id: &str, title: &str, now_ms: u64) -> Result<String> {
    let mut chat = load_chat(vault, id).await?;
    chat.title = title.trim().to_string();
    Ok(save_chat(vault, chat, now_ms).await?.title)
}

/// Marks the task `task_id` of the saved chat `id` as undone (or redone), for its footer.
pub async fn mark_undone(vault: &dyn Vault, id: &str, task_id: &str, undone: bool, now_ms: u64) -> Result<()> {
    let mut chat = load_chat(vault, id).await?;
    let task = chat.tasks.iter_mut().find(|t| t.report.task_id == task_id);
    let task = task.ok_or_else(|| Error::NotFound(format!("task {task_id} in chat {id}")))?;
    task.undone = undone;
    save_chat(vault, chat, now_ms).await.map(drop)
}

/// Deletes the saved chat `id` (the agent's own file: removed, not trashed), and its tasks'
/// externalized results, which nothing points to any more.
pub async fn delete_chat(vault: &dyn Vault, id: &str) -> Result<()> {
    if let Ok(chat) = load_chat(vault, id).await {
        release_results(vault, &chat.task_ids()).await?;
    }
    vault.remove(&chat_path(id)?).await
}

impl SavedChat {
    /// The chat's line in the history list.
    pub fn summary(&self) -> ChatSummary {
        ChatSummary {
            id: self.id.clone(),
            title: self.title.clone(),
            updated_ms: self.updated_ms,
            requests: self.messages.iter().filter(|m| is_request(m)).count(),
        }
    }

    /// The chat turn by turn, as the chat view shows it.
    pub fn transcript(&self) -> Transcript {
        Transcript {
            chat_id: self.id.clone(),
            title: self.title.clone(),
            turns: transcript_turns(&self.messages, &self.tasks),
        }
    }

    /// The ids of the tasks the chat ran.
    pub fn task_ids(&self) -> Vec<String> {
        self.tasks.iter().map(|t| t.report.task_id.clone()).collect()
    }

    /// The chat as a note: its title, then each request (without its attached notes, which are
    /// named instead) and the answer, with the tool calls as the chat shows them ("Read
    /// *Bread*") — not the text written for the model.
    pub fn to_markdown(&self) -> String {
        let labels: std::collections::HashMap<&str, String> = self
            .tasks
            .iter()
            .flat_map(|t| t.report.steps.iter().flat_map(|s| s.tool_calls.iter()))
            .filter_map(|c| c.label.as_ref().map(|l| (c.call_id.as_str(), l.text())))
            .collect();
        let mut out = format!("# {}\n", self.title);
        for message in &self.messages {
            if is_request(message) {
                let text = message.text();
                let (request, attached) = split_request(&text);
                out.push_str("\n## You\n\n");
                out.push_str(request.trim());
                out.push('\n');
                if !attached.is_empty() {
                    out.push('\n');
                }
                for path in attached {
                    out.push_str(&format!("- Attached: [[{}]]\n", path.trim_end_matches(".md")));
                }
                out.push_str("\n## Vault Agent\n");
                continue;
            }
            if message.role != Role::Assistant {
                continue;
            }
            for block in &message.content {
                match block {
                    ContentBlock::Text { text } if !text.trim().is_empty() => {
                        out.push('\n');
                        out.push_str(text.trim());
                        out.push('\n');
                    }
                    ContentBlock::ToolUse { id, name, .. } => {
                        let label = labels.get(id.as_str()).cloned().unwrap_or_else(|| format!("Used {name}"));
                        out.push_str(&format!("\n> {label}\n"));
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

fn chat_path(id: &str) -> Result<VaultPath> {
    if id.is_empty() || id.contains('/') {
        return Err(Error::Invalid(format!("{id:?} is not a chat id")));
    }
    VaultPath::parse(CHAT_FOLDER)?.join(&format!("{id}.json"))
}

async fn new_chat_id(vault: &dyn Vault, now_ms: u64) -> Result<String> {
    let (y, mo, d, h, mi, s) = utc_datetime(now_ms);
    let base = format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}");
    let mut n = 1u32;
    loop {
        let id = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        if vault.stat(&chat_path(&id)?).await?.is_none() {
            return Ok(id);
        }
        n += 1;
    }
}

/// The first line of the first user message, without attached notes, cut to [`TITLE_CHARS`].
fn title_of(messages: &[Message]) -> String {
    let first = messages.iter().map(Message::text).find(|t| !t.trim().is_empty()).unwrap_or_default();
    let (request, _) = split_request(&first);
    let line = request.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("New chat");
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;

    use super::*;
    use crate::vault::MemoryVault;

    fn chat(text: &str) -> SavedChat {
        SavedChat {
            id: String::new(),
            title: String::new(),
            created_ms: 0,
            updated_ms: 0,
            mode: "agent".into(),
            messages: vec![Message::user(text), Message::assistant("Done.")],
            tasks: vec![],
        }
    }

    #[test]
    fn a_saved_chat_loads_back_with_an_id_and_a_title() {
        let vault = MemoryVault::new();
        let saved = block_on(save_chat(&vault, chat("Merge my baking notes\nplease"), 1_700_000_000_000)).unwrap();
        assert_eq!(saved.id, "20231114-221320");
        assert_eq!(saved.title, "Merge my baking notes");
        assert_eq!(block_on(load_chat(&vault, &saved.id)).unwrap(), saved);
    }

    #[test]
    fn chats_list_newest_first_and_ids_do_not_collide() {
        let vault = MemoryVault::new();
        let a = block_on(save_chat(&vault, chat("first"), 1_000)).unwrap();
        let b = block_on(save_chat(&vault, chat("second"), 1_000)).unwrap();
        assert_ne!(a.id, b.id);
        let again = block_on(save_chat(&vault, a.clone(), 5_000)).unwrap();
        assert_eq!(again.id, a.id);
        let list: Vec<ChatSummary> = block_on(load_all_chats(&vault)).unwrap().iter().map(SavedChat::summary).collect();
        assert_eq!(list.iter().map(|c| c.title.as_str()).collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(list[0].requests, 1, "the answer is not a request");
        block_on(delete_chat(&vault, &a.id)).unwrap();
        assert_eq!(block_on(load_all_chats(&vault)).unwrap().len(), 1);
    }

    #[test]
    fn titles_leave_out_attached_notes_and_long_lines() {
        let long = "x".repeat(100);
        assert_eq!(title_of(&[Message::user(long)]).chars().count(), TITLE_CHARS + 1);
        let attached = format!("Summarise\n\n{}\n<note path=\"a.md\">…", super::super::ATTACHMENTS_OPEN);
        assert_eq!(title_of(&[Message::user(attached)]), "Summarise");
        assert_eq!(title_of(&[]), "New chat");
    }

    #[test]
    fn bad_ids_and_damaged_files_are_refused() {
        let vault = MemoryVault::new();
        assert!(block_on(load_chat(&vault, "../x")).is_err());
        block_on(vault.write(&VaultPath::parse(".obsidian-agent/chats/bad.json").unwrap(), "{")).unwrap();
        assert!(block_on(load_chat(&vault, "bad")).is_err());
        assert!(block_on(load_all_chats(&vault)).unwrap().is_empty());
    }

    #[test]
    fn a_chat_exports_as_a_note_with_requests_answers_and_calls_in_words() {
        use crate::protocol::{CallLabel, LabelPart, StepReport, ToolCallReport};
        let attached = format!(
            "Summarise\n\n{}\n<note path=\"Cooking/Bread.md\">\nx\n</note>\n</attached_notes>",
            super::super::ATTACHMENTS_OPEN
        );
        let label = CallLabel {
            parts: vec![
                LabelPart::Text { text: "Read ".into() },
                LabelPart::Note { path: "Cooking/Pizza.md".into(), name: "Pizza".into() },
            ],
            ..CallLabel::default()
        };
        let mut report: RunReport = serde_json::from_value(serde_json::json!({
            "task_id": "t1", "end": {"reason": "answered"}, "steps": [], "usage": {"input_tokens": 0, "output_tokens": 0,
            "cache_read_tokens": 0, "cache_write_tokens": 0}, "duration_ms": 0, "tool_calls": 1, "tool_errors": 0,
            "changed_paths": []
        }))
        .unwrap();
        let step: StepReport = serde_json::from_value(serde_json::json!({
            "step": 1, "model_latency_ms": 0, "usage": {"input_tokens": 0, "output_tokens": 0,
            "cache_read_tokens": 0, "cache_write_tokens": 0}, "tool_calls": []
        }))
        .unwrap();
        report.steps.push(step);
        report.steps[0].tool_calls.push(ToolCallReport {
            call_id: "c1".into(),
            tool: "read_file".into(),
            index: 0,
            latency_ms: 0,
            result_chars: 0,
            error: None,
            externalized: None,
            label: Some(label),
            outcome: Default::default(),
            subtask: None,
        });
        let chat = SavedChat {
            title: "Summarise".into(),
            messages: vec![
                Message::user(&attached),
                Message {
                    role: Role::Assistant,
                    content: vec![
                        ContentBlock::text("Reading."),
                        ContentBlock::ToolUse {
                            id: "c1".into(),
                            name: "read_file".into(),
                            input: serde_json::json!({}),
                            signature: None,
                        },
                    ],
                },
                Message {
                    role: Role::User,
                    content: vec![ContentBlock::ToolResult {
                        tool_use_id: "c1".into(),
                        content: "for the model".into(),
                        is_error: false,
                    }],
                },
                Message { role: Role::Assistant, content: vec![ContentBlock::text("Bread: bake hot.")] },
            ],
            tasks: vec![ChatTask { message_index: 0, report, undone: false }],
            ..chat("")
        };
        assert_eq!(
            chat.to_markdown(),
            "# Summarise\n\n## You\n\nSummarise\n\n- Attached: [[Cooking/Bread]]\n\n## Vault Agent\n\nReading.\n\n> Read Pizza\n\nBread: bake hot.\n"
        );
    }
}
