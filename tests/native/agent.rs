//! The agent loop, the pipeline and undo, over a scripted model and in-memory vaults.

#[path = "agent/support.rs"]
pub(crate) mod support;

#[path = "agent/run.rs"]
mod run;

#[path = "agent/pipeline.rs"]
mod pipeline;

#[path = "agent/undo.rs"]
mod undo;

#[path = "agent/inline_edit.rs"]
mod inline_edit;

#[path = "agent/suggest.rs"]
mod suggest;

#[path = "agent/spending.rs"]
mod spending;

#[path = "agent/conversation.rs"]
mod conversation;

#[path = "agent/saved_chat.rs"]
mod saved_chat;

#[path = "agent/limits.rs"]
mod limits;

#[path = "agent/resume.rs"]
pub(crate) mod resume;

#[path = "agent/search_tools.rs"]
mod search_tools;

#[path = "agent/context.rs"]
mod context;

#[path = "agent/semantic_tool.rs"]
mod semantic_tool;

#[path = "agent/shown.rs"]
mod shown;

#[path = "agent/web_fetch.rs"]
mod web_fetch;

#[path = "agent/web_search.rs"]
mod web_search;

#[path = "agent/subtask.rs"]
mod subtask;

#[path = "agent/memory.rs"]
mod memory;

#[path = "agent/recipes.rs"]
mod recipes;

#[path = "agent/media.rs"]
mod media;
