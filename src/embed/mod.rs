//! Semantic search: embedders, the vector index, and hybrid ranking with the full-text index.
//!
//! - [`Embedder`] turns texts into unit vectors. Three implementations: [`StaticEmbedder`] (a
//!   model2vec-style table distilled from all-MiniLM-L6-v2: fast enough for wasm), [`MiniLm`]
//!   (the transformer itself, in plain Rust), and [`ApiEmbedder`] (any OpenAI-compatible
//!   `/embeddings` endpoint); and [`MiniLmQueries`], the static model's notes with MiniLM's
//!   queries read into their space.

mod api;
mod chunk;
mod distill;
mod embedder_choice;
mod fit;
mod hybrid;
mod kernels;
mod minilm;
mod model_files;
mod parallel;
mod query_map;
mod semantic;
mod sign_sketch;
mod static_model;
mod vector_index;
mod wordpiece;

use async_trait::async_trait;

pub use api::{ApiEmbedder, ApiEmbedderConfig, API_BATCH};
pub use chunk::{embed_chunks, EmbedChunk, MAX_CHUNK_CHARS};
pub use distill::{distill, DistillOptions, DistillProgress};
pub use embedder_choice::{EmbedderOptions, EmbedderSet, InstallOptions, MINILM_DEFAULT_TOKENS};
pub use fit::{featurize, prose_passages, sentences, FitOptions, FitReport, Passage};
pub(crate) use hybrid::{add_meaning_snippets, add_meaning_snippets_from_index};
pub use hybrid::{
    fuse, hybrid_rank, meaning_snippet, Fused, Fusion, HybridHit, HybridQuery, SearchMode, Signals, CANDIDATES,
    MEANING_SNIPPET_CHARS,
};
pub use kernels::{dot, dot_i8, normalize, quantize_i8};
pub use minilm::{BertConfig, MiniLm, ReadAt, MINILM_FILES};
pub use model_files::{
    install_model, is_installed, load_minilm, load_static_model, load_static_with_minilm_queries, local_model_specs,
    minilm_spec, model_file_error, place_model_bytes, place_model_bytes_among, place_model_file, query_map_spec,
    static_model_spec, verify_model_file, with_minilm_queries, ModelFile, ModelSpec, PluginRelease, MODELS_DIR,
    QUERY_MAP_BYTES, QUERY_MAP_FILE, QUERY_MAP_SHA256, QUERY_TOKENS, STATIC_MODEL_BYTES, STATIC_MODEL_FILE,
    STATIC_MODEL_SHA256,
};
pub use parallel::ParallelEmbedder;
pub use query_map::{MiniLmQueries, QueryMap, QueryMapHeader};
pub use semantic::{relevance_floor, EmbedReport, EmbedStatus, SemanticIndex, SAVE_EVERY_MS, SAVE_SHARE};
pub use static_model::{StaticEmbedder, StaticHeader};
pub use vector_index::{
    Near, Nearest, NoteVectors, Precision, VectorHit, VectorIndex, RESCORED, SKETCHED_ABOVE, VECTORS_FILE,
    VECTORS_FORMAT,
};
pub use wordpiece::WordPiece;

use crate::Result;

/// Turns texts into vectors of [`Embedder::dimensions`] floats, each of unit length, so a dot
/// product is the cosine similarity. Vectors from different ids are not comparable: the id is
/// stored with every vector index, and a change of id means re-embedding.
#[async_trait(?Send)]
pub trait Embedder {
    /// Names the model and everything that changes its vectors (e.g. `minilm-l6-v2@256`).
    fn id(&self) -> &str;
    fn dimensions(&self) -> usize;
    /// How many texts one [`Embedder::embed`] call should carry.
    fn batch_size(&self) -> usize {
        16
    }
    /// One unit vector per text, in order.
    async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// The vector a search compares with the notes' vectors: by default the text's own, but an
    /// embedder may read queries with another model ([`MiniLmQueries`]).
    async fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed(&[text]).await?.pop().unwrap_or_default())
    }
}

/// Where the distilled static model sits in this repository (tests and benchmarks copy it into
/// a vault's `.obsidian-agent/models/`).
pub const STATIC_MODEL_REPO_PATH: &str = "models/static-minilm-l6-v2-256.vam";

/// The SHA-256 of `bytes`, as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
