//! Saving the index into the vault and loading it back.
//!
//! `.obsidian-agent/index/` holds these files, written through the vault's binary calls:
//! - `segments-<xxh3>.bin` — the main shard's tantivy files (one segment once compacted, one
//!   per part after a build in parts), packed: the magic
//!   `VAIDX\x01`, a little-endian `u32` file count, then per file a `u32` name length, the name,
//!   a `u64` data length and the data;
//! - `deltas-<xxh3>.bin` — when notes changed since the main shard was written: the changed
//!   notes' documents, one shard packed the same way;
//! - `catalog-<xxh3>.json` — what the index keeps per note (title, tags, links, mtime, hash), as
//!   last saved whole;
//! - `changes-<xxh3>.json` — when notes changed since: their entries now (`null` for a note
//!   removed);
//! - `manifest.json` — the format version, the tokeniser version, a fingerprint of the schema,
//!   the note count, each part's length and xxh3-64 checksum, which also names it, and the main
//!   shard's documents that newer versions replaced (`removed`, as segment and document ids).
//!
//! A save after a few changes writes the deltas, the catalog's changes and the manifest, not the
//! main shard or the catalog again: they are already saved under their checksums (a part whose
//! file is there at its size is not written twice), and a shard is not even packed again (its
//! checksum is known once it was packed or loaded). The main shard is rewritten by a compaction,
//! which a save does when the changes have grown past [`SearchIndex::compaction_due`]'s bound, or
//! the main shard is still in a build's parts; the catalog is saved whole when more notes changed
//! than that bound.
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
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tantivy::directory::OwnedBytes;
use tantivy::{Directory, DocAddress, Index};
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
/// `properties` field; 4: callout markers and embedded files' names out of the body; 5: the
/// changes since the main shard and the catalog were saved beside them).
pub const FORMAT_VERSION: u32 = 5;
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
    /// The main shard's documents no longer live, as `[segment, document]`, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    removed: Vec<[u32; 2]>,
    /// The notes indexed since the main shard was written, when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deltas: Option<FileSum>,
    /// The catalog as last saved whole.
    catalog: FileSum,
    /// The catalog's entries changed since (`null` for a note removed), when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    changes: Option<FileSum>,
}

/// A saved part's length and xxh3-64 checksum, which also names its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileSum {
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

/// The parts a manifest names.
#[derive(Clone, Copy)]
enum Part {
    Segments,
    Deltas,
    Catalog,
    Changes,
}

impl Part {
    const ALL: [Part; 4] = [Part::Segments, Part::Deltas, Part::Catalog, Part::Changes];

    fn name(self) -> (&'static str, &'static str) {
        match self {
            Part::Segments => ("segments", "bin"),
            Part::Deltas => ("deltas", "bin"),
            Part::Catalog => ("catalog", "json"),
            Part::Changes => ("changes", "json"),
        }
    }
}

/// A part of a [`Snapshot`]: its bytes, or a shard whose packed length and checksum are known,
/// packed only if its file is not there.
enum PartData {
    Bytes(Arc<Vec<u8>>),
    Shard(Index, FileSum),
}

impl PartData {
    fn len(&self) -> usize {
        match self {
            PartData::Bytes(data) => data.len(),
            PartData::Shard(_, sum) => sum.bytes,
        }
    }

    fn bytes(&self) -> Result<Arc<Vec<u8>>> {
        match self {
            PartData::Bytes(data) => Ok(data.clone()),
            PartData::Shard(index, sum) => {
                let data = pack(index)?;
                // Packing is deterministic, so this holds; were it not, the file would be
                // named by another's checksum and the save's load would find it corrupt.
                if FileSum::of(&data) != *sum {
                    return Err(Error::Invalid("an index shard packed differently than before".into()));
                }
                Ok(Arc::new(data))
            }
        }
    }
}

/// A packed index, ready to be written.
pub struct Snapshot {
    /// The index's version it packs ([`SearchIndex::saved`] records it once written).
    version: u64,
    /// Each part's path (named by its checksum) and bytes.
    parts: Vec<(VaultPath, PartData)>,
    manifest: Vec<u8>,
    /// The catalog it saves whole, when it does (the index keeps it as its base once written).
    catalog_base: Option<Arc<Vec<u8>>>,
}

impl Snapshot {
    /// Writes the parts not saved yet, then the manifest, then removes the previous save's
    /// parts. A failure at any point leaves a loadable index: the previous one, or this one.
    /// Returns the bytes written.
    pub async fn write(&self, vault: &dyn Vault) -> Result<usize> {
        let mut written = 0;
        for (path, data) in &self.parts {
            // A part is named by its checksum and written whole (`write_atomic`), so a file of
            // that name and size holds these bytes: the main shard, unchanged since the last
            // save, is not written again (nor packed).
            if vault.stat(path).await?.is_some_and(|s| s.size == data.len() as u64) {
                continue;
            }
            let data = data.bytes()?;
            write_atomic(vault, path, &data).await?;
            written += data.len();
        }
        write_atomic(vault, &file(MANIFEST)?, &self.manifest).await?;
        let keep: Vec<VaultPath> = self.parts.iter().map(|(path, _)| path.clone()).collect();
        remove_old_parts(vault, &keep).await;
        Ok(written + self.manifest.len())
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
    /// Saves the index to `.obsidian-agent/index/` in the vault (see [`SearchIndex::snapshot`]).
    /// Returns the bytes written.
    pub async fn persist(&mut self, vault: &dyn Vault) -> Result<usize> {
        let snapshot = self.snapshot()?;
        let written = snapshot.write(vault).await?;
        self.saved(&snapshot);
        Ok(written)
    }

    /// Records that `snapshot` (taken from this index) is written: the index has no unsaved
    /// changes unless it changed since the snapshot was taken.
    pub fn saved(&mut self, snapshot: &Snapshot) {
        self.mark_saved(snapshot.version);
        if let Some(base) = &snapshot.catalog_base {
            // The changes the snapshot's catalog holds are in the base now; later ones are not.
            self.catalog_base = Some(base.clone());
            self.catalog_changed.retain(|_, version| *version > snapshot.version);
        }
    }

    /// Packs the index for saving: compacted when [`SearchIndex::compaction_due`], else the main
    /// shard as it is with the changes since beside it (the deltas folded into one). Split from
    /// writing so that a host can keep searching while the bytes are written.
    pub fn snapshot(&mut self) -> Result<Snapshot> {
        if self.compaction_due() {
            self.compact()?;
        } else {
            self.fold_deltas()?;
        }
        let (segments, main) = shard_part(&mut self.main)?;
        let deltas = self.deltas.first_mut().map(shard_part).transpose()?;
        let mut removed: Vec<[u32; 2]> = self.main.dead.iter().map(|a| [a.segment_ord, a.doc_id]).collect();
        crate::sort::sort(&mut removed);
        let json = |e| Error::Invalid(format!("catalog: {e}"));
        // The catalog is saved whole when there is no base yet, or more notes changed since
        // than a save keeps beside it; else the entries changed since, beside the base.
        let rebase = match &self.catalog_base {
            Some(_) => self.catalog_changed.len() > self.changes_bound(),
            None => true,
        };
        let (catalog, changes) = match &self.catalog_base {
            Some(base) if !rebase => {
                let changed: BTreeMap<&String, Option<&NoteEntry>> =
                    self.catalog_changed.keys().map(|path| (path, self.catalog.get(path))).collect();
                let changes = (!changed.is_empty()).then(|| serde_json::to_vec(&changed)).transpose().map_err(json)?;
                (base.clone(), changes)
            }
            _ => {
                let notes: BTreeMap<&String, &NoteEntry> = self.catalog.notes().iter().collect();
                (Arc::new(serde_json::to_vec(&notes).map_err(json)?), None)
            }
        };
        let manifest = Manifest {
            format: FORMAT_VERSION,
            tokenizer: TOKENIZER_VERSION,
            schema: schema_fingerprint(),
            notes: self.note_count(),
            segments,
            removed,
            deltas: deltas.as_ref().map(|(sum, _)| sum.clone()),
            catalog: FileSum::of(&catalog),
            changes: changes.as_deref().map(FileSum::of),
        };
        let part =
            |sum: &FileSum, kind| sum.path(kind).ok_or_else(|| Error::Invalid("manifest: a bad checksum".into()));
        let mut parts = vec![(part(&manifest.segments, Part::Segments)?, main)];
        if let Some((sum, deltas)) = deltas {
            parts.push((part(&sum, Part::Deltas)?, deltas));
        }
        parts.push((part(&manifest.catalog, Part::Catalog)?, PartData::Bytes(catalog.clone())));
        if let (Some(sum), Some(changes)) = (&manifest.changes, changes) {
            parts.push((part(sum, Part::Changes)?, PartData::Bytes(Arc::new(changes))));
        }
        let manifest = serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Invalid(format!("manifest: {e}")))?;
        let catalog_base = rebase.then_some(catalog);
        Ok(Snapshot { version: self.version(), parts, manifest, catalog_base })
    }

    /// Loads the saved index. `Err(Ok(problem))` when there is none or it cannot be used;
    /// `Err(Err(e))` when the vault itself failed.
    pub async fn load(vault: &dyn Vault) -> std::result::Result<SearchIndex, std::result::Result<LoadProblem, Error>> {
        let corrupt = |why: String| Err(Ok(LoadProblem::Corrupt(why)));
        let manifest = read_saved(vault, &file(MANIFEST).map_err(Err)?).await?;
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
        let segments = read_part(vault, &manifest.segments, Part::Segments).await?;
        let deltas = match &manifest.deltas {
            Some(sum) => Some(read_part(vault, sum, Part::Deltas).await?),
            None => None,
        };
        let catalog = read_part(vault, &manifest.catalog, Part::Catalog).await?;
        let mut notes: BTreeMap<String, NoteEntry> = match serde_json::from_slice(&catalog) {
            Ok(n) => n,
            Err(e) => return corrupt(format!("catalog.json: {e}")),
        };
        let mut changed = Vec::new();
        if let Some(sum) = &manifest.changes {
            let changes = read_part(vault, sum, Part::Changes).await?;
            let changes: BTreeMap<String, Option<NoteEntry>> = match serde_json::from_slice(&changes) {
                Ok(c) => c,
                Err(e) => return corrupt(format!("the catalog's changes: {e}")),
            };
            for (path, entry) in changes {
                match entry {
                    Some(entry) => notes.insert(path.clone(), entry),
                    None => notes.remove(&path),
                };
                changed.push(path);
            }
        }
        let (schema, fields) = Fields::schema();
        let mut shards = Vec::new();
        for data in std::iter::once(segments).chain(deltas) {
            let index = match unpack(OwnedBytes::new(data)) {
                Ok(index) => index,
                Err(e) => return corrupt(e.to_string()),
            };
            if index.schema() != schema {
                return Err(Ok(LoadProblem::Stale("the schema changed".into())));
            }
            match Shard::open(index) {
                Ok(shard) => shards.push(shard),
                Err(e) => return corrupt(e.to_string()),
            }
        }
        // What packing each shard gives is what was read.
        for (shard, sum) in shards.iter_mut().zip(std::iter::once(&manifest.segments).chain(&manifest.deltas)) {
            shard.packed = Some(sum.clone());
        }
        let mut main = shards.remove(0);
        for &[segment, doc] in &manifest.removed {
            let addr = DocAddress::new(segment, doc);
            if main.path(addr).is_none() || !main.dead.insert(addr) {
                return corrupt(format!("manifest.json: no document {segment}/{doc} to remove"));
            }
        }
        let mut live: Vec<&str> = main.live().chain(shards.iter().flat_map(Shard::live)).map(|(_, p)| p).collect();
        crate::sort::sort(&mut live);
        if notes.len() != manifest.notes || !live.into_iter().eq(notes.keys().map(String::as_str)) {
            return corrupt("the catalog and the index list different notes".into());
        }
        let mut index = SearchIndex::assemble(schema, fields, main, shards, Catalog::from_notes(notes));
        let version = index.version();
        index.mark_saved(version);
        index.catalog_base = Some(Arc::new(catalog));
        index.catalog_changed = changed.into_iter().map(|path| (path, version)).collect();
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

/// `shard` as a part of a save, and its checksum: packed the first time, after that named by the
/// checksum it keeps ([`Shard::packed`]) and packed again only if its file is gone.
fn shard_part(shard: &mut Shard) -> Result<(FileSum, PartData)> {
    if let Some(sum) = &shard.packed {
        return Ok((sum.clone(), PartData::Shard(shard.index.clone(), sum.clone())));
    }
    let data = pack(&shard.index)?;
    let sum = FileSum::of(&data);
    shard.packed = Some(sum.clone());
    Ok((sum, PartData::Bytes(Arc::new(data))))
}

/// Reads a file of the saved index: `Err(Ok(Missing))` when there is none.
async fn read_saved(
    vault: &dyn Vault,
    path: &VaultPath,
) -> std::result::Result<Vec<u8>, std::result::Result<LoadProblem, Error>> {
    match read_atomic(vault, path).await {
        Ok(bytes) => Ok(bytes),
        Err(Error::NotFound(_)) => Err(Ok(LoadProblem::Missing)),
        Err(e) => Err(Err(e)),
    }
}

/// Reads the part `kind` the manifest describes by `sum`, and checks it against the checksum.
async fn read_part(
    vault: &dyn Vault,
    sum: &FileSum,
    kind: Part,
) -> std::result::Result<Vec<u8>, std::result::Result<LoadProblem, Error>> {
    let corrupt = |why: String| Err(Ok(LoadProblem::Corrupt(why)));
    let Some(path) = sum.path(kind) else { return corrupt("manifest.json: a bad checksum".into()) };
    let name = path.name().unwrap_or_default().to_string();
    let data = read_saved(vault, &path).await.map_err(|e| e.map(|p| missing_part(p, &name)))?;
    if FileSum::of(&data) != *sum {
        return corrupt(format!("{name} does not match its checksum"));
    }
    Ok(data)
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
        let part = Part::ALL.iter().any(|kind| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemoryVault;

    fn is_packed_again(snapshot: &Snapshot) -> bool {
        matches!(snapshot.parts[0].1, PartData::Bytes(_))
    }

    /// The main shard is packed once per shard: a save after a change, of a built index saved
    /// before or of a loaded one, knows its checksum and leaves it unpacked.
    #[test]
    fn a_main_shard_is_packed_once() {
        futures::executor::block_on(packed_once());
    }

    async fn packed_once() {
        let notes: Vec<(String, String)> =
            (0..30).map(|i| (format!("n{i}.md"), format!("# N{i}\n\nword{i} and shared words"))).collect();
        let mut index = SearchIndex::from_notes(notes.iter().map(|(p, t)| (p.as_str(), t.as_str(), 1))).unwrap();
        let first = index.snapshot().unwrap();
        assert!(is_packed_again(&first), "a new shard is packed");
        let vault = MemoryVault::new();
        first.write(&vault).await.unwrap();
        index.saved(&first);

        assert!(index.index_note("n3.md", "# N3\n\nword3 changed", 2).unwrap());
        let second = index.snapshot().unwrap();
        assert!(!is_packed_again(&second), "the built shard's checksum is known");
        assert_eq!(second.parts[0].0, first.parts[0].0);

        let mut loaded = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
        assert!(loaded.index_note("n4.md", "# N4\n\nword4 changed", 2).unwrap());
        let third = loaded.snapshot().unwrap();
        assert!(!is_packed_again(&third), "the loaded shard's checksum is the manifest's");
        assert_eq!(third.parts[0].0, first.parts[0].0);

        // Compacted, the main shard is a new one: packed again.
        loaded.compact().unwrap();
        assert!(is_packed_again(&loaded.snapshot().unwrap()));
    }
}
