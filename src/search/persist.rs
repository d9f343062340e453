//! Saving the index into the vault and loading it back.
//!
//! `.obsidian-agent/index/` holds three files, written through the vault's binary calls:
//! - `segments-<xxh3>.bin` — the main shard's tantivy files (one segment once compacted, one
//!   per part after a build in parts), packed: the magic
//!   `VAIDX\x01`, a little-endian `u32` file count, then per file a `u32` name length, the name,
//!   a `u64` data length and the data;
//! - `catalog-<xxh3>.json` — what the index keeps per note (title, tags, links, mtime, hash);
//! - `manifest.json` — the format version, the tokeniser version, a fingerprint of the schema,
//!   the note count, and each part's length and xxh3-64 checksum, which also names it.
//!
//! A save is replace-safe: the parts go under new names (their checksums), then the manifest
//! replaces the old one through [`write_atomic`], and only then are the old parts removed. So an
//! interrupted save leaves the previous manifest naming the previous, complete parts (or the new
//! manifest naming the new ones): the previous version stays loadable.
//!
//! Loading checks all of it before tantivy sees a byte: a missing, stale (other version or
//! schema) or corrupt (bad checksum, bad packing, tantivy refuses it, catalog disagrees with the
//! index) index is reported as such, and [`SearchIndex::load_or_build`] rebuilds it.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tantivy::directory::OwnedBytes;
use tantivy::{Directory, Index};
use ts_rs::TS;

use super::build_parts::PartWorkers;
use super::catalog::{Catalog, NoteEntry};
use super::index::{Progress, SearchIndex};
use super::packed_directory::PackedDirectory;
use super::schema::Fields;
use super::shard::{search_error, Shard};
use super::tokenizer::TOKENIZER_VERSION;
use crate::host::Clock;
use crate::vault::{read_atomic, write_atomic, Vault, VaultPath};
use crate::{Error, Result};

/// Bumped whenever the persisted layout, the schema or what a note's text holds changes (3: the
/// `properties` field; 4: callout markers and embedded files' names out of the body).
pub const FORMAT_VERSION: u32 = 4;
/// Where the index lives in the vault.
pub const INDEX_DIR: &str = ".obsidian-agent/index";

const MAGIC: &[u8; 6] = b"VAIDX\x01";

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    tokenizer: u32,
    schema: String,
    notes: usize,
    segments: FileSum,
    catalog: FileSum,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileSum {
    bytes: usize,
    xxh3: String,
}

impl FileSum {
    fn of(data: &[u8]) -> FileSum {
        FileSum { bytes: data.len(), xxh3: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data)) }
    }

    /// Where the part `kind` with this checksum is saved: `<kind>-<xxh3>.<extension>`. `None`
    /// when the checksum (read from a manifest) is not 16 hex digits.
    fn path(&self, kind: Part) -> Option<VaultPath> {
        let hex = self.xxh3.len() == 16 && self.xxh3.bytes().all(|b| b.is_ascii_hexdigit());
        let (stem, ext) = kind.name();
        hex.then(|| file(&format!("{stem}-{}.{ext}", self.xxh3)).ok()).flatten()
    }
}

/// The two parts a manifest names.
#[derive(Clone, Copy)]
enum Part {
    Segments,
    Catalog,
}

impl Part {
    fn name(self) -> (&'static str, &'static str) {
        match self {
            Part::Segments => ("segments", "bin"),
            Part::Catalog => ("catalog", "json"),
        }
    }
}

/// A packed index, ready to be written.
pub struct Snapshot {
    /// The index's version it packs ([`SearchIndex::saved`] records it once written).
    version: u64,
    segments: Vec<u8>,
    catalog: Vec<u8>,
    manifest: Vec<u8>,
    parts: [VaultPath; 2],
}

impl Snapshot {
    /// Writes the parts, then the manifest, then removes the previous save's parts. A failure
    /// at any point leaves a loadable index: the previous one, or this one.
    pub async fn write(&self, vault: &dyn Vault) -> Result<()> {
        let [segments, catalog] = &self.parts;
        write_atomic(vault, segments, &self.segments).await?;
        write_atomic(vault, catalog, &self.catalog).await?;
        write_atomic(vault, &file(MANIFEST)?, &self.manifest).await?;
        remove_old_parts(vault, &self.parts).await;
        Ok(())
    }

    /// The total size in bytes.
    pub fn len(&self) -> usize {
        self.segments.len() + self.catalog.len() + self.manifest.len()
    }

    /// Whether there is nothing to write (never, in practice: the manifest is always there).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a persisted index was not used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum LoadProblem {
    /// There is no saved index.
    Missing,
    /// It was saved by another version (format, tokeniser or schema).
    Stale(String),
    /// Its bytes are damaged or inconsistent.
    Corrupt(String),
}

impl std::fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadProblem::Missing => f.write_str("no saved index"),
            LoadProblem::Stale(why) => write!(f, "the saved index is stale: {why}"),
            LoadProblem::Corrupt(why) => write!(f, "the saved index is corrupt: {why}"),
        }
    }
}

/// What [`SearchIndex::load_or_build`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoadOutcome {
    /// The saved index was loaded.
    Loaded,
    /// The index was built from the notes, because the saved one could not be used.
    Built { reason: LoadProblem },
}

const MANIFEST: &str = "manifest.json";

fn file(name: &str) -> Result<VaultPath> {
    VaultPath::parse(&format!("{INDEX_DIR}/{name}"))
}

fn schema_fingerprint() -> String {
    let (schema, _) = Fields::schema();
    let json = serde_json::to_string(&schema).unwrap_or_default();
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(json.as_bytes()))
}

impl SearchIndex {
    /// Compacts the index and saves it to `.obsidian-agent/index/` in the vault.
    pub async fn persist(&mut self, vault: &dyn Vault) -> Result<()> {
        let snapshot = self.snapshot()?;
        snapshot.write(vault).await?;
        self.saved(&snapshot);
        Ok(())
    }

    /// Records that `snapshot` (taken from this index) is written: the index has no unsaved
    /// changes unless it changed since the snapshot was taken.
    pub fn saved(&mut self, snapshot: &Snapshot) {
        self.mark_saved(snapshot.version);
    }

    /// Compacts the index and packs it for saving. Split from writing so that a host can keep
    /// searching while the bytes are written.
    pub fn snapshot(&mut self) -> Result<Snapshot> {
        self.compact()?;
        let segments = pack(&self.main.index)?;
        let notes: BTreeMap<&String, &NoteEntry> = self.catalog.notes().iter().collect();
        let catalog = serde_json::to_vec(&notes).map_err(|e| Error::Invalid(format!("catalog: {e}")))?;
        let manifest = Manifest {
            format: FORMAT_VERSION,
            tokenizer: TOKENIZER_VERSION,
            schema: schema_fingerprint(),
            notes: self.note_count(),
            segments: FileSum::of(&segments),
            catalog: FileSum::of(&catalog),
        };
        let part =
            |sum: &FileSum, kind| sum.path(kind).ok_or_else(|| Error::Invalid("manifest: a bad checksum".into()));
        let parts = [part(&manifest.segments, Part::Segments)?, part(&manifest.catalog, Part::Catalog)?];
        let manifest = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Invalid(format!("manifest: {e}")))?;
        Ok(Snapshot { version: self.version(), segments, catalog, manifest, parts })
    }

    /// Loads the saved index. `Err(Ok(problem))` when there is none or it cannot be used;
    /// `Err(Err(e))` when the vault itself failed.
    pub async fn load(vault: &dyn Vault) -> std::result::Result<SearchIndex, std::result::Result<LoadProblem, Error>> {
        let read = |path: VaultPath| async move {
            match read_atomic(vault, &path).await {
                Ok(bytes) => Ok(bytes),
                Err(Error::NotFound(_)) => Err(Ok(LoadProblem::Missing)),
                Err(e) => Err(Err(e)),
            }
        };
        let corrupt = |why: String| Err(Ok(LoadProblem::Corrupt(why)));
        let manifest = read(file(MANIFEST).map_err(Err)?).await?;
        let manifest: Manifest = match serde_json::from_slice(&manifest) {
            Ok(m) => m,
            Err(e) => return corrupt(format!("manifest.json: {e}")),
        };
        if manifest.format != FORMAT_VERSION {
            return Err(Ok(LoadProblem::Stale(format!(
                "format {} (this version reads {FORMAT_VERSION})",
                manifest.format
            ))));
        }
        if manifest.tokenizer != TOKENIZER_VERSION {
            return Err(Ok(LoadProblem::Stale(format!("tokeniser {} (now {TOKENIZER_VERSION})", manifest.tokenizer))));
        }
        if manifest.schema != schema_fingerprint() {
            return Err(Ok(LoadProblem::Stale("the schema changed".into())));
        }
        let (Some(segments_path), Some(catalog_path)) =
            (manifest.segments.path(Part::Segments), manifest.catalog.path(Part::Catalog))
        else {
            return corrupt("manifest.json: a bad checksum".into());
        };
        let name = |path: &VaultPath| path.name().unwrap_or_default().to_string();
        let segments_name = name(&segments_path);
        let segments = read(segments_path).await.map_err(|e| e.map(|p| missing_part(p, &segments_name)))?;
        if FileSum::of(&segments) != manifest.segments {
            return corrupt(format!("{segments_name} does not match its checksum"));
        }
        let catalog_name = name(&catalog_path);
        let catalog = read(catalog_path).await.map_err(|e| e.map(|p| missing_part(p, &catalog_name)))?;
        if FileSum::of(&catalog) != manifest.catalog {
            return corrupt(format!("{catalog_name} does not match its checksum"));
        }
        let notes: BTreeMap<String, NoteEntry> = match serde_json::from_slice(&catalog) {
            Ok(n) => n,
            Err(e) => return corrupt(format!("catalog.json: {e}")),
        };
        let index = match unpack(OwnedBytes::new(segments)) {
            Ok(index) => index,
            Err(e) => return corrupt(e.to_string()),
        };
        let (schema, fields) = Fields::schema();
        if index.schema() != schema {
            return Err(Ok(LoadProblem::Stale("the schema changed".into())));
        }
        let main = match Shard::open(index) {
            Ok(shard) => shard,
            Err(e) => return corrupt(e.to_string()),
        };
        if notes.len() != manifest.notes || !main.lists_exactly(notes.keys().map(String::as_str)) {
            return corrupt("the catalog and the index list different notes".into());
        }
        let mut index = SearchIndex::assemble(schema, fields, main, Catalog::from_notes(notes));
        index.mark_saved(index.version());
        Ok(index)
    }

    /// Loads the saved index, or — when there is none, or it is stale or corrupt — builds it
    /// from the notes (the caller may then [`SearchIndex::persist`] it). Never fails because of
    /// what was saved; only a failing vault fails it.
    pub async fn load_or_build(
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(SearchIndex, LoadOutcome)> {
        SearchIndex::load_or_build_in_parts(vault, clock, progress, None).await
    }

    /// [`SearchIndex::load_or_build`], a build made in parts by `workers`
    /// ([`SearchIndex::build_in_parts`]).
    pub async fn load_or_build_in_parts(
        vault: &dyn Vault,
        clock: &dyn Clock,
        progress: &mut dyn FnMut(Progress),
        workers: Option<&dyn PartWorkers>,
    ) -> Result<(SearchIndex, LoadOutcome)> {
        let reason = match SearchIndex::load(vault).await {
            Ok(index) => return Ok((index, LoadOutcome::Loaded)),
            Err(Ok(problem)) => problem,
            // A host that cannot read the saved index may still read the notes.
            Err(Err(e)) => LoadProblem::Corrupt(e.to_string()),
        };
        let index = SearchIndex::build_in_parts(vault, clock, progress, workers).await?;
        Ok((index, LoadOutcome::Built { reason }))
    }
}

/// A file the manifest names is gone: the save was damaged.
fn missing_part(problem: LoadProblem, name: &str) -> LoadProblem {
    match problem {
        LoadProblem::Missing => LoadProblem::Corrupt(format!("{name} is missing")),
        other => other,
    }
}

/// Removes the parts (and their temporary files) of earlier saves — including the fixed-name
/// `segments.bin` and `catalog.json` of format 1 — keeping `keep`. Best effort: the new index is
/// already saved, and a part left behind is removed by the next save.
async fn remove_old_parts(vault: &dyn Vault, keep: &[VaultPath]) {
    let Ok(dir) = VaultPath::parse(INDEX_DIR) else { return };
    let Ok(listing) = vault.list(&dir).await else { return };
    for path in listing.files {
        let name = path.name().unwrap_or_default();
        let part = [Part::Segments, Part::Catalog].iter().any(|kind| {
            let (stem, ext) = kind.name();
            name.strip_prefix(stem).is_some_and(|rest| rest.starts_with(['-', '.']) && rest.contains(ext))
        });
        if part && !keep.contains(&path) {
            let _ = vault.remove(&path).await;
        }
    }
}

/// The files of an index, packed into one buffer: `meta.json`, then its segments' files, read
/// one at a time (a save does not hold a second copy of the whole index besides the buffer).
pub(crate) fn pack(index: &Index) -> Result<Vec<u8>> {
    let mut files = vec![PathBuf::from(META)];
    files.extend(segment_file_names(index)?);
    let directory = index.directory();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(files.len() as u32).to_le_bytes());
    for path in files {
        let data = directory.atomic_read(&path).map_err(search_error)?;
        let name = path.to_string_lossy();
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&data);
    }
    Ok(out)
}

/// The file tantivy lists an index's segments in.
pub(crate) const META: &str = "meta.json";

/// The files of an index's segments, sorted by name. Only those that exist: tantivy lists the
/// files a segment may have. Read them with the directory's `atomic_read`, which gives a file
/// whole (its open handles leave tantivy's footer out).
pub(crate) fn segment_file_names(index: &Index) -> Result<Vec<PathBuf>> {
    let mut names: Vec<PathBuf> = index.load_metas().map_err(search_error)?.list_segment_files().into_iter().collect();
    crate::sort::sort(&mut names);
    let directory = index.directory();
    let mut present = Vec::with_capacity(names.len());
    for path in names {
        if directory.exists(&path).map_err(search_error)? {
            present.push(path);
        }
    }
    Ok(present)
}

/// The index packed by [`pack`], opened over `data` itself: each file a slice of it.
pub(crate) fn unpack(data: OwnedBytes) -> Result<Index> {
    let bad = |why: &str| Error::Invalid(format!("segments.bin: {why}"));
    let rest = data.as_slice().strip_prefix(MAGIC.as_slice()).ok_or_else(|| bad("not a packed index"))?;
    let mut reader = Reader(rest);
    let count = reader.u32().ok_or_else(|| bad("truncated"))?;
    let mut files = HashMap::new();
    while !reader.0.is_empty() {
        let name_len = reader.u32().ok_or_else(|| bad("truncated"))? as usize;
        let name = reader.take(name_len).ok_or_else(|| bad("truncated"))?;
        let name = std::str::from_utf8(name).map_err(|_| bad("a file name is not UTF-8"))?;
        if name.contains('/') || name.contains('\\') || name.starts_with("..") {
            return Err(bad("a file name leaves the index"));
        }
        let len = reader.u64().ok_or_else(|| bad("truncated"))?;
        let len = usize::try_from(len).map_err(|_| bad("a file is too large"))?;
        let bytes = reader.take(len).ok_or_else(|| bad("truncated"))?;
        let start = data.len() - reader.0.len() - bytes.len();
        files.insert(PathBuf::from(name), data.slice(start..start + len));
    }
    if files.is_empty() || files.len() != count as usize {
        return Err(bad("the file count does not match"));
    }
    Index::open(PackedDirectory::new(files)).map_err(search_error)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes)
    }
}
