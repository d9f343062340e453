//! The system prompt, assembled from named sections in three parts: the core (what the agent
//! is and how it works — never changes), the context (the vault, the user's rules, custom
//! instructions and memory, the mode and its tools, skills — changes between tasks or with a
//! mode switch), and the volatile part (date and time, the active note — changes every
//! request). The first two end with cache breakpoints, so a provider with prompt caching reads
//! them from its cache; the volatile part comes last so it never breaks the cache.
//!
//! [`SystemPrompt`] keeps the assembled core and context and rebuilds them only when one of
//! their inputs changes.

mod instructions;
mod moment_format;
mod periodic_notes;
mod sections;

use std::cell::{Cell, RefCell};

pub use instructions::{Rule, Skill, VaultInstructions, RULES_FOLDER, SKILLS_FOLDER};
pub use moment_format::MomentLocale;
pub use periodic_notes::{NoteSeries, NotesPlugin, Period, PeriodicNotes, CONFIG_DIR};
pub use sections::Section;

use crate::hash::content_hash;
use crate::mode::Mode;
use crate::protocol::{SystemPart, ToolSpec};

/// What the prompt says about the vault.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(default, rename_all = "camelCase")]
pub struct VaultInfo {
    pub name: String,
    pub note_count: Option<usize>,
    /// The note open in the editor, if any.
    pub active_note: Option<String>,
    /// Obsidian's settings folder (`app.vault.configDir`); none: `.obsidian`.
    pub config_dir: Option<String>,
    /// The app's language for dates (`moment.locale()`: `en`, `de`…); none: English.
    pub locale: Option<String>,
}

/// Everything the prompt is made of.
#[derive(Debug, Clone, Copy)]
pub struct PromptInputs<'a> {
    pub mode: &'a Mode,
    /// The tools the mode offers, as sent to the model.
    pub tools: &'a [ToolSpec],
    pub vault: &'a VaultInfo,
    pub instructions: &'a VaultInstructions,
    pub custom_instructions: &'a str,
    /// This task's own security lines (the canary, the data markers' rule); empty: none.
    pub task_security: &'a str,
    pub now_ms: u64,
    /// The user's time zone: minutes ahead of UTC.
    pub utc_offset_minutes: i32,
}

impl PromptInputs<'_> {
    /// Every section, in prompt order.
    pub fn sections(&self) -> Vec<Section> {
        let mut all = sections::core();
        all.extend(self.context());
        all.extend(sections::volatile(self.vault, self.instructions, self.now_ms, self.utc_offset_minutes));
        all
    }

    fn context(&self) -> Vec<Section> {
        let mut sections =
            sections::context(self.mode, self.tools, self.vault, self.instructions, self.custom_instructions);
        if !self.task_security.trim().is_empty() {
            sections.push(sections::Section {
                name: "task_security",
                text: format!(
                    "## This task's security
{}",
                    self.task_security.trim()
                ),
            });
        }
        sections
    }

    /// A hash of everything the cached parts depend on (not the time, not the active note).
    fn fingerprint(&self) -> u64 {
        let key = serde_json::json!({
            "mode": self.mode,
            "tools": self.tools,
            "vault": [&self.vault.name, &self.vault.note_count],
            "instructions": self.instructions,
            "custom": self.custom_instructions,
            "security": self.task_security,
        });
        content_hash(key.to_string().as_bytes())
    }
}

/// The assembled system prompt, cached between requests.
#[derive(Debug, Default)]
pub struct SystemPrompt {
    cached: RefCell<Option<(u64, Vec<SystemPart>)>>,
    builds: Cell<u32>,
}

impl SystemPrompt {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The prompt for `inputs`: the cached core and context when their inputs are unchanged
    /// (the same bytes as before), then the volatile part.
    pub fn assemble(&self, inputs: &PromptInputs<'_>) -> Vec<SystemPart> {
        let key = inputs.fingerprint();
        let stale = self.cached.borrow().as_ref().is_none_or(|(k, _)| *k != key);
        if stale {
            let join = |sections: Vec<Section>| sections.into_iter().map(|s| s.text).collect::<Vec<_>>().join("\n\n");
            let parts = vec![
                SystemPart { text: join(sections::core()), cache_breakpoint: true },
                SystemPart { text: join(inputs.context()), cache_breakpoint: true },
            ];
            *self.cached.borrow_mut() = Some((key, parts));
            self.builds.set(self.builds.get() + 1);
        }
        let mut parts = self.cached.borrow().as_ref().map(|(_, p)| p.clone()).unwrap_or_default();
        let volatile: Vec<String> =
            sections::volatile(inputs.vault, inputs.instructions, inputs.now_ms, inputs.utc_offset_minutes)
                .into_iter()
                .map(|s| s.text)
                .collect();
        parts.push(SystemPart { text: volatile.join("\n\n"), cache_breakpoint: false });
        parts
    }

    /// How many times the cached parts were built (once, plus once per change of input).
    pub fn builds(&self) -> u32 {
        self.builds.get()
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
