//! A tool call as a person reads it.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// What the chat shows for a tool call: "Read *Internal links*", "Searched for 'internal
/// links' — 5 notes". The core writes it from the call's arguments (and, once the call is done,
/// its result), so the host renders it without knowing any tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct CallLabel {
    /// The words in order; a note part is shown by its name and opens the note.
    pub parts: Vec<LabelPart>,
    /// Every note the call named or found, in order, without repeats (each opens the note).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Calls with the same group one after another show as one card, titled by the group with
    /// `{n}` replaced by their number ("Read {n} notes"). None: the call stands alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// One piece of a [`CallLabel`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LabelPart {
    Text {
        text: String,
    },
    /// A note (`path`), shown as `name` (its file name without `.md`).
    Note {
        path: String,
        name: String,
    },
}

impl CallLabel {
    /// The label as plain text (the CLI, tests).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                LabelPart::Text { text } => text.as_str(),
                LabelPart::Note { name, .. } => name.as_str(),
            })
            .collect()
    }
}

/// How a call ended, as the user is told (the model's own text goes in the details).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    #[default]
    Done,
    /// The tool or a check refused it; the model was told why and may try otherwise.
    Failed,
    /// The repetition guard refused it.
    Blocked,
    /// The user skipped it; the task went on.
    Skipped,
    /// The user denied it; the task stopped.
    Denied,
    /// It did not run (an earlier call stopped the turn, or the task was cancelled).
    NotRun,
}
