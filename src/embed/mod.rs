//! Semantic search: embedders, the vector index, and hybrid ranking with the full-text index.
//!
//! - [`Embedder`] turns texts into unit vectors. Three implementations: [`StaticEmbedder`] (a
//!   model2vec-style table distilled from all-MiniLM-L6-v2: fast enough for wasm), [`MiniLm`]
//!   (the transformer itself, in plain Rust), and [`ApiEmbedder`] (any OpenAI-compatible
//!   `/embeddings` endpoint).

mod distill;
mod kernels;
mod minilm;
mod static_model;
mod wordpiece;

use async_trait::async_trait;

pub use distill::{distill, DistillOptions};
pub use kernels::{dot, dot_i8, normalize, quantize_i8};
pub use minilm::{BertConfig, MiniLm, MINILM_FILES};
pub use static_model::{StaticEmbedder, StaticHeader};
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
}

/// Where the distilled static model sits in this repository (tests and benchmarks copy it into
/// a vault's `.obsidian-agent/models/`).
pub const STATIC_MODEL_REPO_PATH: &str = "models/static-minilm-l6-v2-256.vam";
