//! A vault over a folder on disk, for the native CLI.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use async_trait::async_trait;

use super::{
    decode_text, trash_destination, EntryKind, FolderIdentity, Listing, SkipReason, Skipped, Stat, Vault, VaultPath,
};
use crate::{Error, Result};

/// A vault rooted at a folder. Every path is resolved under the root, and a path that
/// reaches outside it through a symbolic link is refused; listings leave such links out (and
/// say so in [`Listing::skipped`], with names no vault path can hold).
///
/// Writes go to a temporary file beside the target and are renamed over it, so a failed
/// write leaves the old bytes intact.
pub struct FsVault {
    root: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl FsVault {
    /// A vault over the existing folder `root`.
    pub fn open(root: impl AsRef<Path>) -> Result<Self> {
        let shown = root.as_ref().display().to_string();
        let root = fs::canonicalize(root.as_ref()).map_err(|e| io_error("open vault", &shown, e))?;
        if !root.is_dir() {
            return Err(Error::NotAFolder(shown));
        }
        Ok(FsVault { root })
    }

    /// The vault's folder on disk.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The on-disk location of `path`, refused if an existing part of it leads outside the
    /// root (a symbolic link to elsewhere).
    fn resolve(&self, path: &VaultPath) -> Result<PathBuf> {
        let mut full = self.root.clone();
        full.extend(path.segments());
        // Canonicalise the deepest part that exists: a link anywhere on the way is followed.
        let mut probe = full.as_path();
        loop {
            match fs::symlink_metadata(probe) {
                Ok(_) => break,
                Err(_) => match probe.parent() {
                    Some(parent) => probe = parent,
                    None => break,
                },
            }
        }
        if let Ok(real) = fs::canonicalize(probe) {
            if !real.starts_with(&self.root) {
                return Err(Error::Invalid(format!("{path} resolves outside the vault through a symbolic link")));
            }
        }
        Ok(full)
    }

    fn ensure_parent(&self, path: &VaultPath, full: &Path) -> Result<()> {
        if let Some(parent) = full.parent() {
            for ancestor in path.ancestors() {
                let dir = self.resolve(&ancestor)?;
                if dir.is_file() {
                    return Err(Error::NotAFolder(ancestor.to_string()));
                }
            }
            fs::create_dir_all(parent).map_err(|e| io_error("create folder", path, e))?;
        }
        Ok(())
    }

    fn write_atomic(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        let full = self.resolve(path)?;
        if full.is_dir() {
            return Err(Error::IsAFolder(path.to_string()));
        }
        self.ensure_parent(path, &full)?;
        let name = path.name().unwrap_or("file");
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = full.with_file_name(format!(".{name}.{}-{n}.vault-agent-tmp", std::process::id()));
        let result = (|| -> io::Result<()> {
            let mut file = fs::File::create(&temp)?;
            file.write_all(data)?;
            file.sync_all()?;
            fs::rename(&temp, &full)
        })();
        if let Err(e) = result {
            let _ = fs::remove_file(&temp);
            return Err(io_error("write", path, e));
        }
        Ok(())
    }
}

fn io_error(op: &'static str, path: &dyn std::fmt::Display, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound(path.to_string()),
        io::ErrorKind::AlreadyExists => Error::AlreadyExists(path.to_string()),
        _ => Error::Io { op, path: path.to_string(), message: e.to_string() },
    }
}

fn mtime_ms(meta: &fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64).unwrap_or(0)
}

#[async_trait(?Send)]
impl Vault for FsVault {
    async fn read(&self, path: &VaultPath) -> Result<String> {
        decode_text(path, self.read_binary(path).await?)
    }

    async fn read_binary(&self, path: &VaultPath) -> Result<Vec<u8>> {
        let full = self.resolve(path)?;
        if full.is_dir() {
            return Err(Error::IsAFolder(path.to_string()));
        }
        fs::read(&full).map_err(|e| io_error("read", path, e))
    }

    async fn write(&self, path: &VaultPath, content: &str) -> Result<()> {
        self.write_atomic(path, content.as_bytes())
    }

    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        self.write_atomic(path, data)
    }

    async fn list(&self, dir: &VaultPath) -> Result<Listing> {
        let full = self.resolve(dir)?;
        if full.is_file() {
            return Err(Error::NotAFolder(dir.to_string()));
        }
        let mut listing = Listing::default();
        for entry in fs::read_dir(&full).map_err(|e| io_error("list", dir, e))? {
            let entry = entry.map_err(|e| io_error("list", dir, e))?;
            let raw = entry.file_name();
            let shown = || {
                let name = raw.to_string_lossy();
                if dir.is_root() {
                    name.into_owned()
                } else {
                    format!("{dir}/{name}")
                }
            };
            let skip = |reason| Skipped { path: shown(), reason };
            let Some(name) = raw.to_str() else {
                listing.skipped.push(skip(SkipReason::BadName)); // not UTF-8: no VaultPath can name it
                continue;
            };
            if name.ends_with(".vault-agent-tmp") {
                continue; // a write in progress
            }
            // Names a VaultPath refuses (e.g. with ':' on Linux) cannot be addressed.
            let Ok(child) = dir.join(name) else {
                listing.skipped.push(skip(SkipReason::BadName));
                continue;
            };
            let kind = match entry.file_type() {
                Ok(kind) => kind,
                Err(e) => {
                    listing.skipped.push(skip(SkipReason::Unreadable(e.to_string())));
                    continue;
                }
            };
            let is_dir = if kind.is_symlink() {
                // A link is listed as what it leads to, if that is inside the vault.
                match fs::canonicalize(full.join(name)) {
                    Ok(real) if !real.starts_with(&self.root) => {
                        listing.skipped.push(skip(SkipReason::OutsideVault));
                        continue;
                    }
                    Ok(real) => real.is_dir(),
                    Err(e) => {
                        listing.skipped.push(skip(SkipReason::Unreadable(format!("symbolic link: {e}"))));
                        continue;
                    }
                }
            } else {
                kind.is_dir()
            };
            if is_dir {
                listing.folders.push(child);
            } else {
                listing.files.push(child);
            }
        }
        listing.files.sort();
        listing.folders.sort();
        Ok(listing)
    }

    async fn stat(&self, path: &VaultPath) -> Result<Option<Stat>> {
        let full = self.resolve(path)?;
        match fs::metadata(&full) {
            Ok(meta) if meta.is_dir() => Ok(Some(Stat { kind: EntryKind::Folder, size: 0, mtime: mtime_ms(&meta) })),
            Ok(meta) => Ok(Some(Stat { kind: EntryKind::File, size: meta.len(), mtime: mtime_ms(&meta) })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error("stat", path, e)),
        }
    }

    async fn mkdir(&self, path: &VaultPath) -> Result<()> {
        let full = self.resolve(path)?;
        if full.is_file() {
            return Err(Error::NotAFolder(path.to_string()));
        }
        self.ensure_parent(path, &full)?;
        fs::create_dir_all(&full).map_err(|e| io_error("create folder", path, e))
    }

    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<()> {
        let source = self.resolve(from)?;
        let target = self.resolve(to)?;
        if from.is_root() || fs::symlink_metadata(&source).is_err() {
            return Err(Error::NotFound(from.to_string()));
        }
        if fs::symlink_metadata(&target).is_ok() {
            return Err(Error::AlreadyExists(to.to_string()));
        }
        if to.starts_with(from) {
            return Err(Error::Invalid(format!("cannot move {from} into itself ({to})")));
        }
        self.ensure_parent(to, &target)?;
        fs::rename(&source, &target).map_err(|e| io_error("rename", from, e))
    }

    async fn trash(&self, path: &VaultPath) -> Result<()> {
        if path.is_root() || self.stat(path).await?.is_none() {
            return Err(Error::NotFound(path.to_string()));
        }
        let destination = trash_destination(self, path).await?;
        self.rename(path, &destination).await
    }

    async fn remove(&self, path: &VaultPath) -> Result<()> {
        let full = self.resolve(path)?;
        if path.is_root() {
            return Err(Error::Invalid("refusing to remove the vault root".into()));
        }
        let meta = fs::symlink_metadata(&full).map_err(|e| io_error("remove", path, e))?;
        if meta.is_dir() { fs::remove_dir_all(&full) } else { fs::remove_file(&full) }
            .map_err(|e| io_error("remove", path, e))
    }

    async fn folder_identity(&self, dir: &VaultPath) -> Result<Option<FolderIdentity>> {
        let full = self.resolve(dir)?;
        let real = fs::canonicalize(&full).map_err(|e| io_error("list", dir, e))?;
        let through_link = fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink());
        Ok(Some(FolderIdentity { id: real.to_string_lossy().into_owned(), through_link }))
    }
}
