//! The messages between the core (in its worker) and the workers it builds parts of a large
//! vault's index in (`js/core/indexWorkers.ts`): each index worker is started once with the
//! core's wasm, is handed notes a batch at a time, and sends its part back when asked
//! ([`crate::search::IndexPart`]). JS speaks them through `js/generated/protocol.ts`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The core → an index worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum ToIndexWorker {
    /// Instantiates the core's wasm and an empty part; answered by [`FromIndexWorker::Ready`]
    /// or [`FromIndexWorker::Failed`]. First, and once.
    Start {
        #[ts(type = "WebAssembly.Module | Uint8Array")]
        wasm: Value,
    },
    /// Notes to index, in this order: `paths[i]`'s text is `texts[i]`, modified at `mtimes[i]`
    /// (ms since the epoch). Not answered: a failure is kept for [`ToIndexWorker::Finish`].
    Add { paths: Vec<String>, texts: Vec<String>, mtimes: Vec<f64> },
    /// Ends the part; answered by [`FromIndexWorker::Part`] or [`FromIndexWorker::Failed`].
    Finish,
}

/// An index worker → the core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum FromIndexWorker {
    /// The worker is started and takes notes.
    Ready,
    /// The finished part (`crate::search::PackedPart`): its packed tantivy files and its notes'
    /// catalog entries as JSON.
    Part {
        #[ts(type = "Uint8Array")]
        segments: Value,
        #[ts(type = "Uint8Array")]
        catalog: Value,
    },
    /// Starting, or a batch of notes, failed: the part cannot be used.
    Failed { message: String },
}
