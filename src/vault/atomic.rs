//! Replace-safe saves of the agent's own files (the index, the vectors, task snapshots).
//!
//! No host promises an atomic overwrite: Obsidian's adapter writes a file in place, and every
//! [`Vault::rename`] refuses an existing destination. So [`write_atomic`] writes `<path>.tmp`
//! in full, then removes the old file and renames the temporary one into its place, and
//! [`read_atomic`] reads `<path>.tmp` when `<path>` is missing. At every instant one complete
//! version can be read:
//! - until the temporary file is complete, `<path>` still holds the previous version;
//! - between the removal and the rename, `<path>.tmp` holds the new one;
//! - afterwards, `<path>` does.
//!
//! A save that finds `<path>` missing beside a `<path>.tmp` (an earlier save stopped between
//! its removal and its rename) first renames that file into place, so that overwriting the
//! temporary file never destroys the only copy.

use super::{Vault, VaultPath};
use crate::Result;

/// The suffix of the temporary file beside the one being saved.
pub const TEMP_SUFFIX: &str = ".tmp";

/// `<path>.tmp`.
pub fn temp_path(path: &VaultPath) -> Result<VaultPath> {
    VaultPath::parse(&format!("{path}{TEMP_SUFFIX}"))
}

/// Replaces (or creates) `path` with `data` so that an interruption at any point leaves either
/// the previous or the new bytes readable by [`read_atomic`]. A failure is returned as is; the
/// previous version stays readable.
pub async fn write_atomic(vault: &dyn Vault, path: &VaultPath, data: &[u8]) -> Result<()> {
    let temp = temp_path(path)?;
    finish_interrupted(vault, path, &temp).await?;
    vault.write_binary(&temp, data).await?;
    if vault.stat(path).await?.is_some() {
        vault.remove(path).await?;
    }
    vault.rename(&temp, path).await
}

/// The bytes [`write_atomic`] last saved at `path` (from `<path>.tmp` when a save stopped
/// between removing the old file and renaming the new one). `NotFound` names `path`.
pub async fn read_atomic(vault: &dyn Vault, path: &VaultPath) -> Result<Vec<u8>> {
    match vault.read_binary(path).await {
        Err(e) if e.is_not_found() => match vault.read_binary(&temp_path(path)?).await {
            Err(temp) if temp.is_not_found() => Err(e),
            other => other,
        },
        other => other,
    }
}

/// Removes `path` and its temporary file, whichever exist.
pub async fn remove_atomic(vault: &dyn Vault, path: &VaultPath) -> Result<()> {
    for p in [path.clone(), temp_path(path)?] {
        if vault.stat(&p).await?.is_some() {
            vault.remove(&p).await?;
        }
    }
    Ok(())
}

/// An earlier save stopped after removing `path`: its complete new version is `temp`. Put it in
/// place before `temp` is overwritten.
async fn finish_interrupted(vault: &dyn Vault, path: &VaultPath, temp: &VaultPath) -> Result<()> {
    if vault.stat(path).await?.is_none() && vault.stat(temp).await?.is_some() {
        vault.rename(temp, path).await?;
    }
    Ok(())
}
