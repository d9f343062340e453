//! How the plugin chooses an embedder and installs a local model: the options its settings
//! send (`SearchEngine.setEmbedder`, `SearchEngine.installModel`) and what setting one up gave.
//! They live here, not in the binding, so their TypeScript is generated with the rest of the
//! boundary's (`js/generated/protocol.ts`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::api::ApiEmbedderConfig;
use super::model_files::PluginRelease;
use super::vector_index::Precision;

/// Which embedder to use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EmbedderOptions {
    /// The static model in `.obsidian-agent/models/` (fast; the default).
    Static {
        #[serde(default)]
        #[ts(optional)]
        precision: Option<Precision>,
        /// Queries read by MiniLM into the static model's space (`MiniLmQueries`): the notes keep
        /// the static model's vectors, searches by meaning find more. Needs MiniLM and the query
        /// map installed (`installModel({model: "minilm-queries"})`).
        #[serde(default, rename = "minilmQueries")]
        #[ts(optional)]
        minilm_queries: Option<bool>,
    },
    /// all-MiniLM-L6-v2 in `.obsidian-agent/models/` (slower, more precise): in `workers`
    /// workers of its own where the host can start them, else in the core's thread.
    Minilm {
        /// Tokens of a chunk the model reads (default 256).
        #[serde(default, rename = "maxTokens")]
        #[ts(optional)]
        max_tokens: Option<usize>,
        #[serde(default)]
        #[ts(optional)]
        precision: Option<Precision>,
        /// Workers of its own (0, the default: in the core's thread).
        #[serde(default)]
        #[ts(optional)]
        workers: Option<u32>,
    },
    /// An OpenAI-compatible `/embeddings` API.
    Api {
        #[serde(flatten)]
        config: ApiEmbedderConfig,
        #[serde(default)]
        #[ts(optional)]
        precision: Option<Precision>,
    },
}

/// Tokens of a chunk MiniLM reads when the options do not say.
pub const MINILM_DEFAULT_TOKENS: usize = 256;

/// The embedder `setEmbedder` set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct EmbedderSet {
    /// The model's id (vectors saved by another are dropped).
    pub id: String,
    pub dimensions: usize,
    /// MiniLM workers running (0: in the core's thread).
    pub workers: usize,
    /// Why MiniLM's workers could not start, when it fell back to the core's thread.
    pub workers_failed: Option<String>,
}

/// `installModel`'s options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct InstallOptions {
    /// `"static"`, `"minilm"` or `"minilm-queries"` (MiniLM and the map that reads its query
    /// vectors into the static model's space).
    pub model: String,
    /// A mirror: replaces the model's source.
    #[serde(default)]
    #[ts(optional)]
    pub base_url: Option<String>,
    /// The plugin's `package.json` `{repository, version}`: where the static model is published.
    #[serde(default)]
    #[ts(optional)]
    pub release: Option<PluginRelease>,
}
