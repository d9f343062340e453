//! Full-text search over the vault, in wasm and natively.
//!
//! - [`parse_note`] reads one note: title, frontmatter, tags, headings, links, callouts,
//!   plain-text chunks split at headings, and a content hash. It stands alone: the agent's
//!   tools use it directly.
//! - [`SearchIndex`] indexes every note with tantivy (BM25 with field boosts, phrases, typo
//!   and prefix matching, folder/tag/path filters, snippets), updates one note at a time,
//!   answers backlinks and tag lookups, and persists to `.obsidian-agent/index/`.
//! - [`SearchIndex::related`] ranks the notes related to one note (links, tags, text), for
//!   the sidebar.
//!
//! ```
//! use vault_agent::search::{SearchIndex, SearchQuery};
//!
//! let index = SearchIndex::from_notes([
//!     ("Recipes/Bread.md", "# Sourdough bread\n\nFeed the starter. #baking", 0),
//!     ("Travel/Kyoto.md", "# 京都\n\n清水寺に行きました。", 0),
//! ])?;
//! let hits = index.search(&SearchQuery::new("sourdogh"))?; // a typo
//! assert_eq!(hits[0].path, "Recipes/Bread.md");
//! assert_eq!(index.search(&SearchQuery::new("清水寺"))?[0].path, "Travel/Kyoto.md");
//! assert_eq!(index.notes_with_tag("baking")?, vec!["Recipes/Bread.md".to_string()]);
//! # Ok::<(), vault_agent::Error>(())
//! ```
//!
//! ## Query language
//! `word word` (all words; if no note has all of them, any), `"exact phrase"`, `a OR b`,
//! `-word`/`NOT word`, parentheses, `#tag` or `tag:a/b` (nested tags included),
//! `folder:Some/Folder`, `path:prefix`, and `title:` `alias:` `heading:` `body:` to restrict
//! words to one field. A word the index lacks matches with typos; the last word typed also
//! matches as a prefix. Every string is a valid query: unbalanced quotes and parentheses are
//! read leniently.
//!
//! ## Snippets
//! [`SearchHit::snippet`] is one line of plain text with matched words wrapped in `**…**`.

mod build_parts;
mod catalog;
mod coordination;
mod frontmatter;
mod index;
mod language;
mod note;
mod packed_directory;
mod persist;
mod query;
mod related;
mod schema;
mod shard;
mod snippet;
mod tokenizer;

#[cfg(not(target_arch = "wasm32"))]
pub use build_parts::ThreadParts;
pub use build_parts::{
    remote_parts_for, InProcessParts, IndexPart, PackedPart, PartFuture, PartWorkers, RemotePart, MAX_REMOTE_PARTS,
    NOTES_PER_PART,
};
pub use catalog::NoteEntry;
pub use frontmatter::Frontmatter;
pub use index::{read_note, NoteRead, Progress, SearchHit, SearchIndex, SearchQuery, MAX_DELTA_SHARDS};
pub(crate) use index::{Pacer, READ_BATCH};
pub use language::{
    folder_language, rank_in_language, script_of, LanguagePreference, Script, Window, OTHER_LANGUAGE_FACTOR,
};
pub use note::{content_hash, parse_note, Callout, Chunk, Heading, Link, ParsedNote};
pub use persist::{LoadOutcome, LoadProblem, Snapshot, FORMAT_VERSION, INDEX_DIR};
pub use query::query_terms;
pub use related::RelatedNote;
pub use tokenizer::{tokens, vault_analyzer, TOKENIZER_VERSION};
