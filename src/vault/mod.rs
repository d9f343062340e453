//! The vault: the notes the agent works on, owned by the host.
//!
//! [`Vault`] is the interface every host implements: [`MemoryVault`] for tests,
//! [`FsVault`] over a folder for the CLI, and `JsVault` (in `src/wasm/`) over the JS
//! `VaultHost` that the Obsidian plugin passes in. Paths are [`VaultPath`]s, so an
//! implementation never sees a path that escapes the vault.
//!
//! Contract shared by all implementations (and checked by one test suite run against each):
//! - `write`/`write_binary` create missing parent folders and replace the whole file; a failed
//!   write leaves the old bytes intact.
//! - `read` of a missing file is [`Error::NotFound`]; of a folder, [`Error::IsAFolder`].
//! - `list(dir)` returns the direct children of `dir`, files and folders apart, sorted.
//! - `rename` never overwrites: an existing destination is [`Error::AlreadyExists`].
//! - `trash` moves a user's file or folder to the trash: the vault's `.trash/` folder here and
//!   in the CLI; in Obsidian, wherever the user's "Deleted files" preference says (Obsidian's
//!   rules for plugins require it), which may be a permanent delete. The agent never relies on
//!   the trash to undo: a task's checkpoint keeps the bytes first. `remove` deletes, and is for
//!   the agent's own files under `.obsidian-agent/`.
//! - `mkdir` creates missing parents and succeeds if the folder already exists.
//!
//! No implementation overwrites atomically (`rename` refuses an existing destination, and
//! Obsidian's adapter writes in place), so the agent's own saved state goes through
//! [`write_atomic`] and [`read_atomic`] (see `atomic.rs`).

mod atomic;
mod glob;
mod memory;
mod notes;
mod path;
mod path_rules;
mod walk;

#[cfg(not(target_arch = "wasm32"))]
mod fs;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

pub use atomic::{read_atomic, remove_atomic, temp_path, write_atomic, TEMP_SUFFIX};
#[cfg(not(target_arch = "wasm32"))]
pub use fs::FsVault;
pub use glob::Glob;
pub use memory::MemoryVault;
pub use notes::{is_hidden, is_note, list_notes, list_notes_skipping};
pub use path::VaultPath;
pub use path_rules::{PathRules, IGNORE_FILE, PROTECT_FILE};
pub use walk::{skip_summary, walk_files, walk_vault, SkipReason, Skipped, Walk};

use crate::{Error, Result};

/// The folder that `trash` moves entries into, as Obsidian's "move to Obsidian trash" does.
pub const TRASH_FOLDER: &str = ".trash";

/// Whether a path is a file or a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Folder,
}

/// What `stat` knows about an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    pub kind: EntryKind,
    /// Size in bytes (0 for folders).
    pub size: u64,
    /// Last modification, in milliseconds since the Unix epoch.
    pub mtime: u64,
}

/// The direct children of a folder, files and folders apart, each sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    pub files: Vec<VaultPath>,
    pub folders: Vec<VaultPath>,
    /// Children left out, with why (a link outside the vault, a name no path can hold).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
}

/// The host's vault. Futures are not `Send`: JS promises are not.
#[async_trait(?Send)]
pub trait Vault {
    /// The whole file as UTF-8 text.
    async fn read(&self, path: &VaultPath) -> Result<String>;
    /// The whole file as bytes.
    async fn read_binary(&self, path: &VaultPath) -> Result<Vec<u8>>;
    /// Replaces (or creates) the file with `content`, creating missing parent folders.
    async fn write(&self, path: &VaultPath, content: &str) -> Result<()>;
    /// Replaces (or creates) the file with `data`, creating missing parent folders.
    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> Result<()>;
    /// The direct children of the folder `dir` (the root is [`VaultPath::root`]).
    async fn list(&self, dir: &VaultPath) -> Result<Listing>;
    /// The entry's kind, size and mtime, or `None` if nothing is there.
    async fn stat(&self, path: &VaultPath) -> Result<Option<Stat>>;
    /// Creates the folder and its missing parents; succeeds if it already exists.
    async fn mkdir(&self, path: &VaultPath) -> Result<()>;
    /// Moves a file or folder; fails if `to` exists. Creates `to`'s missing parents.
    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<()>;
    /// Moves a user's file or folder to the trash (see the module docs for where that is).
    async fn trash(&self, path: &VaultPath) -> Result<()>;
    /// Deletes a file or folder (recursively). Only for the agent's own files.
    async fn remove(&self, path: &VaultPath) -> Result<()>;
    /// What the folder `dir` really is, where symbolic links can make two paths one folder;
    /// `None` where they cannot. Walks use it to enter each folder once.
    async fn folder_identity(&self, _dir: &VaultPath) -> Result<Option<FolderIdentity>> {
        Ok(None)
    }
    /// Several files as text, each with its mtime (0 when `stat` cannot tell): one answer per
    /// path, in order. For hosts where every call is a round trip (a worker asking the main
    /// thread), which answer a batch in one; the default reads and stats one path at a time.
    async fn read_batch(&self, paths: &[VaultPath]) -> Vec<Result<(String, u64)>> {
        read_one_by_one(self, paths).await
    }

    /// The text of the PDF at `path`, one string a page. The default reads it with lopdf
    /// (native builds); the plugin's host reads it with Obsidian's own PDF.js, which keeps a
    /// PDF parser out of the wasm. A file that is not a readable PDF is an error.
    async fn pdf_pages(&self, path: &VaultPath) -> Result<Vec<String>> {
        crate::media::read_pdf_pages(self, path).await
    }

    /// A web page's HTML as Markdown, without what a reader does not see (scripts, styles,
    /// forms). The default converts it with htmd (native builds); the plugin's host converts it
    /// with Obsidian's own `htmlToMarkdown`, which keeps an HTML parser out of the wasm.
    async fn html_to_markdown(&self, html: &str) -> Result<String> {
        crate::tools::html_to_markdown(html)
    }
}

/// [`Vault::read_batch`] as `read` and `stat` one path at a time.
pub(crate) async fn read_one_by_one<V: Vault + ?Sized>(vault: &V, paths: &[VaultPath]) -> Vec<Result<(String, u64)>> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        out.push(match vault.read(path).await {
            Ok(text) => Ok((text, vault.stat(path).await.ok().flatten().map_or(0, |s| s.mtime))),
            Err(e) => Err(e),
        });
    }
    out
}

/// Which folder a path reaches, where symbolic links can make two paths one folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderIdentity {
    /// The same for every path that reaches the folder (its canonical location on disk).
    pub id: String,
    /// The path is itself a symbolic link (a walk enters real folders first).
    pub through_link: bool,
}

/// Decodes file bytes as text, naming the path if they are not UTF-8.
pub(crate) fn decode_text(path: &VaultPath, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| Error::NotText(path.to_string()))
}

/// Where `trash` puts `path`: `.trash/<path>`, with ` 1`, ` 2`… before the extension when that
/// name is taken, so trashing twice never overwrites the first copy. When a folder on that way
/// is taken by a file (a note trashed earlier had the name of this folder), the entry goes
/// straight into `.trash/` under its own name instead.
pub(crate) async fn trash_destination(vault: &dyn Vault, path: &VaultPath) -> Result<VaultPath> {
    let trash = VaultPath::parse(TRASH_FOLDER)?;
    let mut base = trash.join(path.as_str())?;
    for ancestor in base.ancestors() {
        if vault.stat(&ancestor).await?.is_some_and(|s| s.kind == EntryKind::File) {
            base = trash.join(path.name().unwrap_or("entry"))?;
            break;
        }
    }
    if vault.stat(&base).await?.is_none() {
        return Ok(base);
    }
    let parent = base.parent().unwrap_or_else(VaultPath::root);
    let (stem, ext) = match (base.stem(), base.extension()) {
        (Some(stem), Some(ext)) => (stem.to_string(), format!(".{ext}")),
        _ => (base.name().unwrap_or("entry").to_string(), String::new()),
    };
    for n in 1.. {
        let candidate = parent.join(&format!("{stem} {n}{ext}"))?;
        if vault.stat(&candidate).await?.is_none() {
            return Ok(candidate);
        }
    }
    unreachable!("an unbounded counter always finds a free name")
}
