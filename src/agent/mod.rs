//! The agent: [`AgentTask::run`], the loop that calls the model, runs the tools it asks for
//! through the pipeline, and feeds the results back until the task is done.

mod chat_options;
mod chat_search;
mod chat_store;
mod config;
mod conversation;
mod hooks;
mod inline_edit;
mod snapshot;
mod subtask;
mod suggest;
mod task;
mod transcript;

pub use crate::mode::Mode;
pub use chat_options::ChatOptions;
pub use chat_search::{ChatArchive, ChatMatch, ChatPassage, Speaker};
pub use chat_store::{
    delete_chat, load_chat, mark_undone, rename_chat, save_chat, ChatSummary, ChatTask, SavedChat, CHAT_FOLDER,
};
pub use config::{AgentConfig, GuardConfig};
pub use conversation::{
    Conversation, ATTACHMENTS_OPEN, ATTACHMENT_CHARS, CONTINUE_MESSAGE, FOLDER_CHARS, FOLDER_NOTES,
};
pub use hooks::{CondenseHook, EndHook, HookContext, MemoryExtraction, MemoryFlush};
pub use inline_edit::{InlineEdit, InlineEditOutcome, InlineEditReport, InlineEditRequest, CONTEXT_CHARS};
pub use snapshot::{
    discard_snapshot, list_interrupted, load_snapshot, parse_snapshot, snapshot_path, InterruptedTask, RunProgress,
    TaskSnapshot, SNAPSHOT_VERSION, TASK_FOLDER,
};
pub use suggest::{fit_suggestion, SuggestRequest, Suggester, SUGGEST_AFTER_CHARS, SUGGEST_BEFORE_CHARS};
pub use task::{new_task_id, AgentTask, TaskSetup};
pub use transcript::{
    split_request, task_transcript, transcript_turns, ChatRequest, Transcript, TranscriptStep, TranscriptTurn,
};
