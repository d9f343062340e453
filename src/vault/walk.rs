//! Recursive listing on top of [`Vault::list`], which a hostile vault cannot break: what cannot
//! or must not be read is skipped with a reason, and no folder is entered twice.

use std::collections::{HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::{Vault, VaultPath};
use crate::Result;

/// An entry a listing or an index left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The entry's vault path (for a name no path can hold, its name made readable).
    pub path: String,
    #[serde(flatten)]
    pub reason: SkipReason,
}

/// Why an entry was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum SkipReason {
    /// A symbolic link that leads outside the vault.
    OutsideVault,
    /// A folder listed already under another path: a symbolic link loop, or a second link to
    /// the same folder.
    Loop,
    /// Not UTF-8 text.
    NotText,
    /// A name no vault path can hold (not UTF-8, or refused by the path rules).
    BadName,
    /// It could not be read: the error.
    Unreadable(String),
}

impl SkipReason {
    /// The reason in a few words, the same for every entry skipped for it (for counting).
    pub fn label(&self) -> &'static str {
        match self {
            SkipReason::OutsideVault => "symbolic link outside the vault",
            SkipReason::Loop => "folder already listed through another path (a symbolic link)",
            SkipReason::NotText => "not UTF-8 text",
            SkipReason::BadName => "name not usable as a vault path",
            SkipReason::Unreadable(_) => "unreadable",
        }
    }
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            SkipReason::Unreadable(e) => write!(f, "{}: unreadable ({e})", self.path),
            reason => write!(f, "{}: {}", self.path, reason.label()),
        }
    }
}

/// `N skipped: 2 not UTF-8 text, 1 symbolic link outside the vault` — empty when nothing was.
pub fn skip_summary(skipped: &[Skipped]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in skipped {
        match counts.iter_mut().find(|(label, _)| *label == s.reason.label()) {
            Some((_, n)) => *n += 1,
            None => counts.push((s.reason.label(), 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(label, n)| format!("{n} {label}")).collect();
    format!("{} skipped: {}", skipped.len(), parts.join(", "))
}

/// Every file under `dir`, in sorted order, and what was skipped on the way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    pub files: Vec<VaultPath>,
    pub skipped: Vec<Skipped>,
}

/// Every file under `dir`, depth first, in sorted order. Folders for which `skip` returns
/// true are not entered (the agent skips `.obsidian/`, `.trash/` and its own folder).
/// Entries that cannot be read are left out; [`walk_vault`] says which.
pub async fn walk_files(
    vault: &dyn Vault,
    dir: &VaultPath,
    skip: &dyn Fn(&VaultPath) -> bool,
) -> Result<Vec<VaultPath>> {
    Ok(walk_vault(vault, dir, skip).await?.files)
}

/// [`walk_files`] with what it skipped: entries the vault's listing refused (a link outside the
/// vault, an unusable name), folders that could not be listed, and folders already entered
/// under another path ([`Vault::folder_identity`]), so a symbolic link loop is never followed
/// and a link to a folder inside the vault is followed once. Real folders are entered before
/// links, so a folder's files keep their own paths. Only a failure to list `dir` itself is an
/// error.
pub async fn walk_vault(vault: &dyn Vault, dir: &VaultPath, skip: &dyn Fn(&VaultPath) -> bool) -> Result<Walk> {
    let mut walk = Walk::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut pending = vec![dir.clone()];
    // Folders that are symbolic links, entered once every real folder has been.
    let mut links: VecDeque<VaultPath> = VecDeque::new();
    loop {
        let (folder, deferred) = match pending.pop() {
            Some(folder) => (folder, false),
            None => match links.pop_front() {
                Some(folder) => (folder, true),
                None => break,
            },
        };
        let top = &folder == dir;
        match vault.folder_identity(&folder).await {
            Ok(Some(identity)) => {
                if identity.through_link && !deferred && !top {
                    links.push_back(folder);
                    continue;
                }
                if !seen.insert(identity.id) {
                    walk.skipped.push(Skipped { path: folder.to_string(), reason: SkipReason::Loop });
                    continue;
                }
            }
            Ok(None) => {}
            Err(e) if !top => {
                walk.skipped.push(Skipped { path: folder.to_string(), reason: SkipReason::Unreadable(e.to_string()) });
                continue;
            }
            Err(_) => {} // the listing below says what is wrong with the top folder
        }
        let listing = match vault.list(&folder).await {
            Ok(listing) => listing,
            Err(e) if !top => {
                walk.skipped.push(Skipped { path: folder.to_string(), reason: SkipReason::Unreadable(e.to_string()) });
                continue;
            }
            Err(e) => return Err(e),
        };
        walk.files.extend(listing.files);
        walk.skipped.extend(listing.skipped);
        // Reverse so that popping visits folders in sorted order.
        pending.extend(listing.folders.into_iter().filter(|f| !skip(f)).rev());
    }
    crate::sort::sort(&mut walk.files);
    Ok(walk)
}
