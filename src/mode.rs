//! Modes: which tools a task may use, the role the model plays, and optionally which model.
//! The prompt and the tools both read them; they depend on nothing else in the crate.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The groups a mode grants tools by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolGroup {
    /// Reading notes and their metadata.
    Read,
    /// Finding notes.
    Search,
    /// Changing notes and folders.
    Edit,
    /// Steering the task: completion, questions, modes.
    Agent,
    /// Tools from MCP servers.
    Mcp,
    /// Reading the web.
    Web,
}

/// A mode: a name, the role text the model gets, the tool groups it grants, and optionally a
/// model of its own. The mode's tools are the only ones sent to the model and the only ones
/// the pipeline allows. Users define their own in the plugin's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Mode {
    pub slug: String,
    pub name: String,
    pub role: String,
    pub groups: Vec<ToolGroup>,
    /// A model id to use in this mode instead of the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl Mode {
    /// Read-only: the agent reads and searches, and answers.
    pub fn ask() -> Self {
        Mode {
            slug: "ask".into(),
            name: "Ask".into(),
            role: "You answer questions about the user's notes. You read and search the vault but never change it."
                .into(),
            groups: vec![ToolGroup::Read, ToolGroup::Search, ToolGroup::Agent],
            model: None,
        }
    }

    /// Every tool: the agent reads, searches and edits notes.
    pub fn agent() -> Self {
        Mode {
            slug: "agent".into(),
            name: "Agent".into(),
            role: "You are an assistant working inside the user's Obsidian vault. You find, read, write and \
                   reorganise notes to do what the user asks."
                .into(),
            groups: vec![
                ToolGroup::Read,
                ToolGroup::Search,
                ToolGroup::Edit,
                ToolGroup::Agent,
                ToolGroup::Mcp,
                ToolGroup::Web,
            ],
            model: None,
        }
    }

    /// The built-in modes.
    pub fn builtin() -> Vec<Mode> {
        vec![Mode::ask(), Mode::agent()]
    }

    /// The mode called `slug`: one of the user's `custom` modes, else a built-in one.
    pub fn find(slug: &str, custom: &[Mode]) -> Option<Mode> {
        custom.iter().find(|m| m.slug == slug).cloned().or_else(|| Mode::builtin().into_iter().find(|m| m.slug == slug))
    }

    /// Every mode a task can switch to: the user's, then the built-in ones they do not replace.
    pub fn all(custom: &[Mode]) -> Vec<Mode> {
        let mut all = custom.to_vec();
        all.extend(Mode::builtin().into_iter().filter(|b| !custom.iter().any(|c| c.slug == b.slug)));
        all
    }

    /// Whether this mode grants the tools of `group`.
    pub fn grants(&self, group: ToolGroup) -> bool {
        self.groups.contains(&group)
    }
}
