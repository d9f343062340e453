//! One tantivy index in memory — the main index or a small delta — with the paths of its
//! documents and the set of its documents that newer versions have replaced.
//!
//! Everything here avoids threads, so it runs in the browser: shards are written by
//! `single_segment_index_writer` over a `RamDirectory` (the docstore compressed on the calling
//! thread), merged by `merge_filtered_segments`, and read with a manual reload policy, no
//! warmers and tantivy's single-thread search executor.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use tantivy::directory::{Directory, OwnedBytes, RamDirectory};
use tantivy::fastfield::{write_alive_bitset, AliveBitSet};
use tantivy::indexer::merge_filtered_segments;
use tantivy::schema::Schema;
use tantivy::tokenizer::TokenizerManager;
use tantivy::IndexMeta;
use tantivy::{
    BitSet, DocAddress, Index, IndexSettings, ReloadPolicy, Searcher, SingleSegmentIndexWriter, TantivyDocument,
};

use super::packed_directory::PackedDirectory;
use super::persist::{segment_file_names, FileSum, META};
use super::tokenizer::{vault_analyzer, TOKENIZER_NAME};
use crate::{Error, Result};

/// The hash-table budget for a full build; one-note deltas need far less.
pub(crate) const BUILD_MEMORY: usize = 48 << 20;
pub(crate) const DELTA_MEMORY: usize = 1 << 20;

pub(crate) fn search_error(e: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("search index: {e}"))
}

/// Settings every shard shares (merges require equal settings).
pub(crate) fn settings() -> IndexSettings {
    IndexSettings { docstore_compress_dedicated_thread: false, ..IndexSettings::default() }
}

pub(crate) fn tokenizers() -> TokenizerManager {
    let manager = TokenizerManager::default();
    manager.register(TOKENIZER_NAME, vault_analyzer());
    manager
}

/// A writer for a new shard, in memory, that never spawns a thread.
pub(crate) fn writer(schema: &Schema, memory: usize) -> Result<SingleSegmentIndexWriter<TantivyDocument>> {
    Index::builder()
        .schema(schema.clone())
        .settings(settings())
        .tokenizers(tokenizers())
        .single_segment_index_writer(RamDirectory::create(), memory)
        .map_err(search_error)
}

/// An opened shard.
pub(crate) struct Shard {
    pub index: Index,
    pub searcher: Searcher,
    /// The path of each document, by segment and document id.
    pub paths: Vec<Vec<String>>,
    /// Documents replaced or removed since the shard was written.
    pub dead: HashSet<DocAddress>,
    /// The length and checksum of the shard packed for saving, once known (packed, or read
    /// from a save). Its files never change, so neither do they: a save that finds the shard
    /// already written need not pack it again.
    pub packed: Option<FileSum>,
}

impl Shard {
    /// Opens `index` for searching and reads its documents' paths from the `path` fast field.
    pub(crate) fn open(mut index: Index) -> Result<Shard> {
        index.set_tokenizers(tokenizers());
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(search_error)?;
        let searcher = reader.searcher();
        let mut paths = Vec::new();
        for segment in searcher.segment_readers() {
            let column = segment
                .fast_fields()
                .str("path")
                .map_err(search_error)?
                .ok_or_else(|| search_error("the path column is missing"))?;
            let mut segment_paths = Vec::with_capacity(segment.max_doc() as usize);
            let mut text = String::new();
            for doc in 0..segment.max_doc() {
                text.clear();
                if let Some(ord) = column.ords().first(doc) {
                    column.ord_to_str(ord, &mut text).map_err(search_error)?;
                }
                segment_paths.push(text.clone());
            }
            paths.push(segment_paths);
        }
        Ok(Shard { index, searcher, paths, dead: HashSet::new(), packed: None })
    }

    /// Every live document and its path.
    pub(crate) fn live(&self) -> impl Iterator<Item = (DocAddress, &str)> + '_ {
        self.paths.iter().enumerate().flat_map(move |(segment, paths)| {
            paths.iter().enumerate().filter_map(move |(doc, path)| {
                let addr = DocAddress::new(segment as u32, doc as u32);
                (!self.dead.contains(&addr)).then_some((addr, path.as_str()))
            })
        })
    }

    pub(crate) fn path(&self, addr: DocAddress) -> Option<&str> {
        self.paths.get(addr.segment_ord as usize)?.get(addr.doc_id as usize).map(String::as_str)
    }

    /// Whether the shard's live documents are exactly the notes `paths`, given in sorted order
    /// (a catalog's keys): what a saved index or a part sent back must hold.
    pub(crate) fn lists_exactly<'a>(&self, paths: impl Iterator<Item = &'a str>) -> bool {
        let mut live: Vec<&str> = self.live().map(|(_, p)| p).collect();
        live.sort_unstable();
        live.into_iter().eq(paths)
    }

    pub(crate) fn num_docs(&self) -> usize {
        self.paths.iter().map(Vec::len).sum()
    }

    /// The documents not replaced or removed.
    pub(crate) fn live_docs(&self) -> usize {
        self.num_docs() - self.dead.len()
    }
}

/// Merges shards into one, leaving out their dead documents.
pub(crate) fn merge(shards: &[&Shard]) -> Result<Shard> {
    let mut segments = Vec::new();
    let mut filters = Vec::new();
    for shard in shards {
        let shard_segments = shard.index.searchable_segments().map_err(search_error)?;
        for (ord, segment) in shard_segments.into_iter().enumerate() {
            let max_doc = segment.meta().max_doc();
            let dead: Vec<u32> =
                shard.dead.iter().filter(|a| a.segment_ord as usize == ord).map(|a| a.doc_id).collect();
            filters.push(if dead.is_empty() { None } else { Some(alive_bitset(max_doc, &dead)?) });
            segments.push(segment);
        }
    }
    let index =
        merge_filtered_segments(&segments, settings(), filters, RamDirectory::create()).map_err(search_error)?;
    Shard::open(index)
}

/// Joins shards into one as they are: every segment kept (nothing is rewritten), listed
/// together in one `meta.json`. Scores are as over one index (tantivy sums the statistics over
/// a searcher's segments). For parts just built: a shard with dead documents is refused (its
/// deletions live only here, not in its files).
pub(crate) fn join(mut shards: Vec<Shard>) -> Result<Shard> {
    if shards.len() == 1 {
        if let Some(shard) = shards.pop() {
            return Ok(shard);
        }
    }
    if shards.iter().any(|shard| !shard.dead.is_empty()) {
        return Err(Error::Invalid("search index: a shard with removed notes cannot be joined".into()));
    }
    let mut meta: Option<IndexMeta> = None;
    let mut files = HashMap::new();
    for shard in &shards {
        let metas = shard.index.load_metas().map_err(search_error)?;
        match &mut meta {
            None => meta = Some(metas),
            Some(meta) => meta.segments.extend(metas.segments),
        }
        for path in segment_file_names(&shard.index)? {
            let data = shard.index.directory().atomic_read(&path).map_err(search_error)?;
            if files.insert(path, OwnedBytes::new(data)).is_some() {
                return Err(search_error("two shards share a segment"));
            }
        }
    }
    let meta = meta.ok_or_else(|| search_error("no shard to join"))?;
    let mut json = serde_json::to_vec_pretty(&meta).map_err(search_error)?;
    json.push(b'\n');
    files.insert(PathBuf::from(META), OwnedBytes::new(json));
    Shard::open(Index::open(PackedDirectory::new(files)).map_err(search_error)?)
}

fn alive_bitset(max_doc: u32, dead: &[u32]) -> Result<AliveBitSet> {
    let mut bits = BitSet::with_max_value_and_full(max_doc);
    for &doc in dead {
        bits.remove(doc);
    }
    let mut bytes = Vec::new();
    write_alive_bitset(&bits, &mut bytes).map_err(search_error)?;
    Ok(AliveBitSet::open(OwnedBytes::new(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::build_parts::IndexPart;
    use crate::search::persist::{pack, unpack};

    fn part(notes: &[&str]) -> Shard {
        let mut part = IndexPart::new().unwrap();
        for path in notes {
            part.add(path, &format!("# {path}\n\nshared words and {path}"), 1).unwrap();
        }
        part.finish_here().unwrap().0
    }

    #[test]
    fn joined_shards_keep_each_segment_and_every_document() {
        let joined = join(vec![part(&["a.md", "b.md"]), part(&["c.md"]), part(&["d.md", "e.md"])]).unwrap();
        assert_eq!(joined.paths.len(), 3, "a segment per shard, none merged");
        assert!(joined.lists_exactly(["a.md", "b.md", "c.md", "d.md", "e.md"].into_iter()));
        assert_eq!(joined.searcher.num_docs(), 5);
        // It packs and opens again as a saved index does.
        let again = Shard::open(unpack(OwnedBytes::new(pack(&joined.index).unwrap())).unwrap()).unwrap();
        assert!(again.lists_exactly(["a.md", "b.md", "c.md", "d.md", "e.md"].into_iter()));
    }

    #[test]
    fn a_shard_with_removed_documents_is_not_joined() {
        let mut removed = part(&["a.md", "b.md"]);
        removed.dead.insert(DocAddress::new(0, 1));
        assert!(join(vec![removed, part(&["c.md"])]).is_err());
    }
}
