//! Small vault helpers the note tools share.

use similar::TextDiff;

use super::{ToolContext, ToolError};
use crate::protocol::ChangePreview;
use crate::vault::{EntryKind, VaultPath};

/// The note's text, or `None` when nothing is there. A folder is an error for the model.
pub async fn read_existing(ctx: &ToolContext<'_>, path: &VaultPath) -> Result<Option<String>, ToolError> {
    match ctx.vault.stat(path).await? {
        None => Ok(None),
        Some(stat) if stat.kind == EntryKind::Folder => {
            Err(ToolError::model(format!("{path} is a folder, not a note")))
        }
        Some(_) => Ok(Some(ctx.vault.read(path).await?)),
    }
}

/// The note's text as [`read_existing`] gives it, refused when the note changed since this task
/// last read or wrote it (so the agent never replaces text it has not seen).
pub async fn read_unchanged(ctx: &ToolContext<'_>, path: &VaultPath) -> Result<Option<String>, ToolError> {
    let old = read_existing(ctx, path).await?;
    if let Some(old) = &old {
        ctx.ledger.check_unchanged(path, old.as_bytes())?;
    }
    Ok(old)
}

/// Writes `content` to `path`, whose text was `old` (`None`: a new note), and records it as
/// seen, so the agent can edit it again.
///
/// A failed write leaves no partial note: a host that wrote part of the note before failing
/// (Obsidian's adapter writes in place; a full disk) gets `old` written back, and a partial new
/// note goes to the trash. Best effort: should that fail too, the task's checkpoint still holds
/// the old bytes for undo.
pub async fn write_note(
    ctx: &ToolContext<'_>,
    path: &VaultPath,
    old: Option<&str>,
    content: &str,
) -> Result<(), ToolError> {
    if let Err(e) = ctx.vault.write(path, content).await {
        let now = ctx.vault.read_binary(path).await.ok();
        match (old, now) {
            (Some(old), Some(now)) if now != old.as_bytes() => {
                let _ = ctx.vault.write(path, old).await;
            }
            (None, Some(_)) => {
                let _ = ctx.vault.trash(path).await;
            }
            _ => {}
        }
        return Err(e.into());
    }
    ctx.ledger.record(path, content.as_bytes());
    Ok(())
}

/// The approval preview of replacing `old` (absent: a new note) with `new` at `path`.
pub fn write_preview(path: &VaultPath, old: Option<&str>, new: &str) -> ChangePreview {
    let before = old.unwrap_or("");
    let name = path.as_str();
    let diff = TextDiff::from_lines(before, new)
        .unified_diff()
        .context_radius(3)
        .header(if old.is_some() { name } else { "/dev/null" }, name)
        .to_string();
    ChangePreview::Write { path: name.to_string(), old: old.map(str::to_string), new: new.to_string(), diff }
}

/// A count with its noun, singular or plural.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The number of lines in `text`.
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.lines().count()
    }
}
