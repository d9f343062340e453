//! What each tool does. The rules every call goes through (validation, approval, checkpoints)
//! live apart, in `pipeline`, so a new tool never touches the rules and a new rule never
//! touches a tool.
//!
//! Every tool that acts on one note names it with a vault-relative `path` argument.

mod append_to_file;
mod ask_followup_question;
mod attempt_completion;
mod create_folder;
mod delete_file;
mod edit_file;
mod get_frontmatter;
mod get_linked_notes;
mod hits;
mod label;
mod ledger;
mod list_files;
mod move_file;
mod new_task;
mod note_io;
mod read_file;
mod recent_notes;
mod registry;
mod remember;
mod replace_selection;
mod search_by_tag;
mod search_files;
mod semantic_search;
mod switch_mode;
mod tool;
mod update_frontmatter;
mod web_fetch;
mod web_search;
mod write_file;

use std::rc::Rc;

pub use crate::mode::ToolGroup;
pub use append_to_file::AppendToFile;
pub use ask_followup_question::AskFollowupQuestion;
pub use attempt_completion::AttemptCompletion;
pub use create_folder::CreateFolder;
pub use delete_file::DeleteFile;
pub use edit_file::{replace_exact, EditFile};
pub use get_frontmatter::GetFrontmatter;
pub use get_linked_notes::GetLinkedNotes;
pub use label::call_label;
pub use ledger::ReadLedger;
pub use list_files::ListFiles;
pub use move_file::MoveFile;
pub use new_task::{subtask_title, Delegate, NewTask, NEW_TASK};
pub(crate) use note_io::plural;
pub use read_file::ReadFile;
pub use recent_notes::RecentNotes;
pub use registry::ToolRegistry;
pub use remember::Remember;
pub use replace_selection::{ReplaceSelection, REPLACE_SELECTION};
pub use search_by_tag::SearchByTag;
pub use search_files::SearchFiles;
pub use semantic_search::SemanticSearch;
pub use switch_mode::SwitchMode;
pub use tool::{
    args_schema, Access, Control, DynTool, OutputItem, ParsedCall, PathUse, PlannedCall, Tool, ToolContext, ToolError,
    ToolKind, ToolOutput, UserTime,
};
pub use update_frontmatter::{with_frontmatter, UpdateFrontmatter};
pub use web_fetch::{
    host_of, html_to_markdown, read_page, WebFetch, WebSites, MAX_CHARS as WEB_FETCH_MAX_CHARS, UNSEEN_HTML,
};
pub use web_search::{check_web_search, WebSearch, WebSearchCheck, WebSearchConfig, BRAVE_SEARCH_URL};
pub use write_file::WriteFile;

/// The name of the tool that ends a task with its result.
pub const ATTEMPT_COMPLETION: &str = "attempt_completion";

/// Every built-in tool: reading and finding, writing, and control.
pub fn builtin_tools() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    let tools: Vec<Rc<dyn DynTool>> = vec![
        Rc::new(ReadFile),
        Rc::new(ListFiles),
        Rc::new(SearchFiles),
        Rc::new(SemanticSearch),
        Rc::new(SearchByTag),
        Rc::new(RecentNotes),
        Rc::new(GetFrontmatter),
        Rc::new(GetLinkedNotes),
        Rc::new(WriteFile),
        Rc::new(AppendToFile),
        Rc::new(EditFile),
        Rc::new(UpdateFrontmatter),
        Rc::new(CreateFolder),
        Rc::new(MoveFile),
        Rc::new(DeleteFile),
        Rc::new(AttemptCompletion),
        Rc::new(AskFollowupQuestion),
        Rc::new(Remember),
    ];
    for tool in tools {
        registry.register(tool);
    }
    registry
}
