//! Modes: which tools a task may use, and the role the model plays.

use serde::{Deserialize, Serialize};

use crate::tools::{Tool, ToolGroup};

/// A mode: a name, the role text the model gets, and the tool groups it grants. The mode's
/// tools are the only ones sent to the model and the only ones the pipeline allows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mode {
    pub slug: String,
    pub name: String,
    pub role: String,
    pub groups: Vec<ToolGroup>,
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
            groups: vec![ToolGroup::Read, ToolGroup::Search, ToolGroup::Edit, ToolGroup::Agent, ToolGroup::Mcp],
        }
    }

    /// The built-in mode called `slug`.
    pub fn builtin(slug: &str) -> Option<Self> {
        match slug {
            "ask" => Some(Mode::ask()),
            "agent" => Some(Mode::agent()),
            _ => None,
        }
    }

    /// Whether this mode grants `tool`.
    pub fn allows(&self, tool: &dyn Tool) -> bool {
        self.groups.contains(&tool.group())
    }
}
