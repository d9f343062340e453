//! A full build in parts, on several cores: the notes are read once, here, and handed out a
//! batch at a time to parts built elsewhere (the plugin's index workers) beside the part built
//! here; the finished parts become the segments of the index's main shard, searchable at once
//! and saved as they are (the compaction of the save after a change folds them into one).
//!
//! [`IndexPart`] is what a part's worker runs; [`PartWorkers`] is how a host lends such workers
//! ([`RemotePart`] each). A host without them builds every note here, as before.

use std::collections::BTreeMap;

use tantivy::directory::OwnedBytes;
use tantivy::{SingleSegmentIndexWriter, TantivyDocument};

use super::catalog::NoteEntry;
use super::note::parse_note;
use super::persist::{pack, unpack};
use super::schema::Fields;
use super::shard::{self, search_error, Shard, BUILD_MEMORY};
use crate::{Error, Result};

/// A vault smaller than this many notes per part is not worth splitting: a worker's start
/// (instantiating the core's wasm) costs about what indexing this many notes does.
pub const NOTES_PER_PART: usize = 1500;
/// At most this many parts built elsewhere.
pub const MAX_REMOTE_PARTS: usize = 3;

/// One part of an index being built: notes in, a shard out.
pub struct IndexPart {
    fields: Fields,
    writer: SingleSegmentIndexWriter<TantivyDocument>,
    catalog: BTreeMap<String, NoteEntry>,
}

/// A finished part, packed to cross to another worker: its tantivy files (as a saved index
/// packs them) and its notes' catalog entries (JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedPart {
    pub segments: Vec<u8>,
    pub catalog: Vec<u8>,
}

impl IndexPart {
    /// An empty part.
    pub fn new() -> Result<IndexPart> {
        let (schema, fields) = Fields::schema();
        let writer = shard::writer(&schema, BUILD_MEMORY)?;
        Ok(IndexPart { fields, writer, catalog: BTreeMap::new() })
    }

    /// Indexes one note.
    pub fn add(&mut self, path: &str, text: &str, mtime: u64) -> Result<()> {
        let note = parse_note(path, text);
        self.writer.add_document(self.fields.document(&note, mtime)).map_err(search_error)?;
        self.catalog.insert(path.to_string(), NoteEntry::new(&note, mtime));
        Ok(())
    }

    /// Ends the part here: its shard and its notes' entries.
    pub(crate) fn finish_here(self) -> Result<(Shard, BTreeMap<String, NoteEntry>)> {
        Ok((Shard::open(self.writer.finalize().map_err(search_error)?)?, self.catalog))
    }

    /// Ends the part to send it to the index's owner.
    pub fn finish(self) -> Result<PackedPart> {
        let (shard, catalog) = self.finish_here()?;
        let segments = pack(&shard.index)?;
        let catalog = serde_json::to_vec(&catalog).map_err(|e| Error::Invalid(format!("a part's catalog: {e}")))?;
        Ok(PackedPart { segments, catalog })
    }
}

impl PackedPart {
    /// Opens a part sent by [`IndexPart::finish`]: its shard over the bytes themselves, and
    /// its notes' entries. Fails on bytes that are not such a part.
    pub(crate) fn open(self) -> Result<(Shard, BTreeMap<String, NoteEntry>)> {
        let index = unpack(OwnedBytes::new(self.segments))?;
        let (schema, _) = Fields::schema();
        if index.schema() != schema {
            return Err(Error::Invalid("an index part was built with another schema".into()));
        }
        let catalog: BTreeMap<String, NoteEntry> = serde_json::from_slice(&self.catalog)
            .map_err(|e| Error::Invalid(format!("an index part's catalog: {e}")))?;
        let shard = Shard::open(index)?;
        if !shard.lists_exactly(catalog.keys().map(String::as_str)) {
            return Err(Error::Invalid("an index part's catalog and shard list different notes".into()));
        }
        Ok((shard, catalog))
    }
}

/// A part being built elsewhere.
#[async_trait::async_trait(?Send)]
pub trait RemotePart {
    /// Hands notes (`path, text, mtime`) to the part, which indexes them in this order. Sent at
    /// once, not awaited: a failure shows in [`RemotePart::finish`].
    fn add(&self, notes: &[(&str, &str, u64)]);
    /// Asks the part to end, at once (so parts elsewhere finish while this one does); the
    /// future resolves with it. The part is closed afterwards.
    fn finish(&self) -> PartFuture<'_>;
}

/// A part being finished elsewhere.
pub type PartFuture<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<PackedPart>> + 'a>>;

/// Workers a host lends to build parts of an index.
#[async_trait::async_trait(?Send)]
pub trait PartWorkers {
    /// Starts up to `count` parts (a host may start fewer, or none). Fails when none can start.
    async fn start(&self, count: usize) -> Result<Vec<Box<dyn RemotePart>>>;
}

/// How many parts to build elsewhere for a vault of `notes` notes.
pub fn remote_parts_for(notes: usize) -> usize {
    (notes / NOTES_PER_PART).saturating_sub(1).min(MAX_REMOTE_PARTS)
}

/// Notes handed to a part, owned: `path, text, mtime`.
type OwnedNotes = Vec<(String, String, u64)>;

fn owned(notes: &[(&str, &str, u64)]) -> OwnedNotes {
    notes.iter().map(|&(p, t, m)| (p.to_string(), t.to_string(), m)).collect()
}

/// Workers in this process, for tests and benches: each part is built when it is finished,
/// from the notes it was handed.
#[derive(Default)]
pub struct InProcessParts;

struct InProcessPart(std::cell::RefCell<OwnedNotes>);

#[async_trait::async_trait(?Send)]
impl RemotePart for InProcessPart {
    fn add(&self, notes: &[(&str, &str, u64)]) {
        self.0.borrow_mut().extend(owned(notes));
    }

    fn finish(&self) -> PartFuture<'_> {
        let notes = self.0.take();
        Box::pin(async move {
            let mut part = IndexPart::new()?;
            for (path, text, mtime) in notes {
                part.add(&path, &text, mtime)?;
            }
            part.finish()
        })
    }
}

#[async_trait::async_trait(?Send)]
impl PartWorkers for InProcessParts {
    async fn start(&self, count: usize) -> Result<Vec<Box<dyn RemotePart>>> {
        Ok((0..count).map(|_| Box::new(InProcessPart(Default::default())) as Box<dyn RemotePart>).collect())
    }
}

/// Parts built on threads of this process (the CLI): one per part, up to the machine's
/// parallelism less the calling thread.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
pub struct ThreadParts;

#[cfg(not(target_arch = "wasm32"))]
struct ThreadPart {
    notes: std::cell::RefCell<Option<std::sync::mpsc::Sender<OwnedNotes>>>,
    thread: std::cell::RefCell<Option<std::thread::JoinHandle<Result<PackedPart>>>>,
}

#[cfg(not(target_arch = "wasm32"))]
#[async_trait::async_trait(?Send)]
impl RemotePart for ThreadPart {
    fn add(&self, notes: &[(&str, &str, u64)]) {
        if let Some(sender) = &*self.notes.borrow() {
            // A thread that ended early says why at `finish`.
            let _ = sender.send(owned(notes));
        }
    }

    fn finish(&self) -> PartFuture<'_> {
        // The thread's last batch: it finishes the part as soon as it has indexed it.
        drop(self.notes.take());
        let thread = self.thread.take();
        Box::pin(async move {
            let thread = thread.ok_or_else(|| Error::Invalid("the part is finished".into()))?;
            thread.join().map_err(|_| Error::Invalid("an index part's thread panicked".into()))?
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[async_trait::async_trait(?Send)]
impl PartWorkers for ThreadParts {
    async fn start(&self, count: usize) -> Result<Vec<Box<dyn RemotePart>>> {
        let spare = std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1);
        let mut parts: Vec<Box<dyn RemotePart>> = Vec::new();
        for _ in 0..count.min(spare) {
            let (sender, receiver) = std::sync::mpsc::channel::<OwnedNotes>();
            let thread = std::thread::Builder::new()
                .name("vault-agent-index".into())
                .spawn(move || {
                    let mut part = IndexPart::new()?;
                    for batch in receiver {
                        for (path, text, mtime) in batch {
                            part.add(&path, &text, mtime)?;
                        }
                    }
                    part.finish()
                })
                .map_err(|e| Error::Invalid(format!("an index thread could not start: {e}")))?;
            parts.push(Box::new(ThreadPart {
                notes: std::cell::RefCell::new(Some(sender)),
                thread: std::cell::RefCell::new(Some(thread)),
            }));
        }
        Ok(parts)
    }
}
