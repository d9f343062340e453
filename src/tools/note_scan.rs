//! Finding notes without the index: what the search tools fall back to while the vault's index
//! is not built (the first seconds after start-up, or a host that keeps none).

use super::{ToolContext, ToolError};
use crate::search::is_hidden;
use crate::vault::{walk_files, VaultPath};

/// Every visible Markdown note (hidden and ignored folders skipped), sorted.
pub async fn visible_notes(ctx: &ToolContext<'_>) -> Result<Vec<VaultPath>, ToolError> {
    let skip = |p: &VaultPath| is_hidden(p) || ctx.rules.is_ignored(p);
    let files = walk_files(ctx.vault, &VaultPath::root(), &skip).await?;
    Ok(files.into_iter().filter(|p| p.extension() == Some("md") && !ctx.rules.is_ignored(p)).collect())
}

/// The note a link `target` (as written: `Name`, `Folder/Name`, `Name.md`) points to among
/// `notes`: an exact path first, else the shortest path whose end matches, as Obsidian does.
pub fn resolve_by_name<'a>(notes: &'a [VaultPath], target: &str) -> Option<&'a VaultPath> {
    let target = target.trim().trim_start_matches('/');
    let with_md = if target.to_lowercase().ends_with(".md") { target.to_string() } else { format!("{target}.md") };
    let wanted = with_md.to_lowercase();
    if let Some(exact) = notes.iter().find(|p| p.as_str().to_lowercase() == wanted) {
        return Some(exact);
    }
    let suffix = format!("/{wanted}");
    notes.iter().filter(|p| p.as_str().to_lowercase().ends_with(&suffix)).min_by_key(|p| p.as_str().len())
}
