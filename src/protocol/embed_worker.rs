//! The messages between the core (in its worker) and the workers it runs MiniLM in
//! (`js/core/embedWorkers.ts`): each embedding worker is started once with the core's wasm and
//! the model's files, then answers batches of texts with their vectors. Like the main thread's
//! protocol (`worker.rs`), JS speaks them through `js/generated/protocol.ts`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// What the core asks of its host to run MiniLM in workers (`VaultHost.embedWorkers`): `count`
/// workers, each loading the model from the vault's files. The answer is one `EmbedWorker`
/// handle per worker, all started, or a rejection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EmbedWorkersRequest {
    /// The vault paths of `model.safetensors`, `vocab.txt` and `config.json`.
    pub weights: String,
    pub vocab: String,
    pub config: String,
    /// Inputs are cut at this many tokens.
    pub max_tokens: u32,
    pub count: u32,
}

/// The core → an embedding worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum ToEmbedWorker {
    /// Instantiates the core's wasm and loads MiniLM from its files; answered by
    /// [`FromEmbedWorker::Ready`] or [`FromEmbedWorker::Failed`]. First, and once.
    Start {
        #[ts(type = "WebAssembly.Module | Uint8Array")]
        wasm: Value,
        /// `model.safetensors`.
        #[ts(type = "ArrayBuffer")]
        weights: Value,
        vocab: String,
        config: String,
        max_tokens: u32,
    },
    /// Embeds `texts`; answered by [`FromEmbedWorker::Vectors`] with the same `id`.
    Embed { id: u32, texts: Vec<String> },
}

/// An embedding worker → the core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum FromEmbedWorker {
    /// The model is loaded: its id (vectors of one id compare), dimensions and batch size.
    Ready { model: String, dimensions: u32, batch_size: u32 },
    /// The vectors of [`ToEmbedWorker::Embed`] `id`: one unit vector per text, back to back.
    Vectors {
        id: u32,
        #[ts(type = "Float32Array")]
        data: Value,
    },
    /// Starting failed (`id` absent) or embedding batch `id` did.
    Failed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        id: Option<u32>,
        message: String,
    },
}
