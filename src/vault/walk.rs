//! Recursive listing on top of [`Vault::list`].

use super::{Vault, VaultPath};
use crate::Result;

/// Every file under `dir`, depth first, in sorted order. Folders for which `skip` returns
/// true are not entered (the agent skips `.obsidian/`, `.trash/` and its own folder).
pub async fn walk_files(
    vault: &dyn Vault,
    dir: &VaultPath,
    skip: &dyn Fn(&VaultPath) -> bool,
) -> Result<Vec<VaultPath>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.clone()];
    while let Some(folder) = pending.pop() {
        let listing = vault.list(&folder).await?;
        files.extend(listing.files);
        // Reverse so that popping visits folders in sorted order.
        pending.extend(listing.folders.into_iter().filter(|f| !skip(f)).rev());
    }
    files.sort();
    Ok(files)
}
