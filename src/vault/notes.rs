//! Which files are the vault's notes: the one rule every lister uses — the full-text index, the
//! embedding job, the agent's listing and search tools, the CLI and the plugin's note count.
//!
//! A note is a Markdown file (`.md`) that is not hidden. Hidden is any file or folder whose
//! name starts with `.` and everything below it: Obsidian's settings (`.obsidian/`), its trash
//! (`.trash/`), `.git/`, the agent's own `.obsidian-agent/`. What the agent may see is further
//! narrowed by the user's ignore list ([`PathRules::is_visible`](super::PathRules::is_visible)).

use super::{walk_vault, Skipped, Vault, VaultPath};
use crate::Result;

/// Whether `path` is hidden: its name, or a folder's above it, starts with `.`.
pub fn is_hidden(path: &VaultPath) -> bool {
    path.as_str().split('/').any(|segment| segment.starts_with('.'))
}

/// Whether `path` is a note: a Markdown file outside hidden folders.
pub fn is_note(path: &VaultPath) -> bool {
    path.extension() == Some("md") && !is_hidden(path)
}

/// The vault's notes, sorted; hidden folders are not entered.
pub async fn list_notes(vault: &dyn Vault) -> Result<Vec<VaultPath>> {
    Ok(list_notes_skipping(vault).await?.0)
}

/// [`list_notes`], and the entries the walk left out, with why (see [`walk_vault`]).
pub async fn list_notes_skipping(vault: &dyn Vault) -> Result<(Vec<VaultPath>, Vec<Skipped>)> {
    let walk = walk_vault(vault, &VaultPath::root(), &is_hidden).await?;
    Ok((walk.files.into_iter().filter(is_note).collect(), walk.skipped))
}
