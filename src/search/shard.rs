//! One tantivy index in memory — the main index or a small delta — with the paths of its
//! documents and the set of its documents that newer versions have replaced.
//!
//! Everything here avoids threads, so it runs in the browser: shards are written by
//! `single_segment_index_writer` over a `RamDirectory` (the docstore compressed on the calling
//! thread), merged by `merge_filtered_segments`, and read with a manual reload policy, no
//! warmers and tantivy's single-thread search executor.

use std::collections::HashSet;

use tantivy::directory::{OwnedBytes, RamDirectory};
use tantivy::fastfield::{write_alive_bitset, AliveBitSet};
use tantivy::indexer::merge_filtered_segments;
use tantivy::schema::Schema;
use tantivy::tokenizer::TokenizerManager;
use tantivy::{
    BitSet, DocAddress, Index, IndexSettings, ReloadPolicy, Searcher, SingleSegmentIndexWriter, TantivyDocument,
};

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
        Ok(Shard { index, searcher, paths, dead: HashSet::new() })
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

fn alive_bitset(max_doc: u32, dead: &[u32]) -> Result<AliveBitSet> {
    let mut bits = BitSet::with_max_value_and_full(max_doc);
    for &doc in dead {
        bits.remove(doc);
    }
    let mut bytes = Vec::new();
    write_alive_bitset(&bits, &mut bytes).map_err(search_error)?;
    Ok(AliveBitSet::open(OwnedBytes::new(bytes)))
}
