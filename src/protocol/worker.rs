//! The messages between the plugin's main thread and the core it runs in a Web Worker (or, where
//! no worker can be made, in the same thread through the same client): calls into the core and
//! their replies, callbacks out of it, and the core's calls back to the host — the vault, and
//! the HTTP requests only the main thread can make. JS speaks them through
//! `js/generated/protocol.ts`, generated from these types (`tests/native/generated_ts.rs`).
//!
//! Messages travel by structured clone, so values may hold bytes (`Uint8Array`) as well as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Main thread → core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToCore {
    /// Instantiates the core from its WebAssembly (the packed text of `js/wasmBytes.ts`, or a
    /// compiled module); the reply's value is the core's version. First, and once.
    Start {
        id: u32,
        #[ts(type = "string | WebAssembly.Module")]
        wasm: Value,
    },
    /// Calls `method` on the object `target` (0: the core's module; other numbers come from a
    /// [`Reply::Handle`]) with `args`. The arguments at `callbacks` are functions that stay on
    /// the main thread and are called through [`FromCore::Callback`].
    Call {
        id: u32,
        target: u32,
        method: String,
        #[ts(type = "unknown[]")]
        args: Vec<Value>,
        callbacks: Vec<CallbackArg>,
    },
    /// The object `target` is not called again: the core frees it.
    Release { target: u32 },
    /// The host's answer to [`FromCore::Host`] `id`.
    HostReply { id: u32, reply: Reply },
}

/// A function argument of a [`ToCore::Call`]: the argument at `index` is the main thread's
/// callback `callback`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CallbackArg {
    pub index: u32,
    pub callback: u32,
}

/// Core → main thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromCore {
    /// The answer to [`ToCore::Start`] or [`ToCore::Call`] `id`.
    Reply { id: u32, reply: Reply },
    /// Calls the main thread's callback `callback` (progress, agent events) with `args`; its
    /// result is not awaited.
    Callback {
        callback: u32,
        #[ts(type = "unknown[]")]
        args: Vec<Value>,
    },
    /// The core asks the host; answered by [`ToCore::HostReply`] with the same `id`.
    Host { id: u32, call: HostCall },
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Reply {
    /// It returned `value` (`undefined` for nothing).
    Value {
        #[ts(type = "unknown")]
        value: Value,
    },
    /// It returned an object that stays in the core (a search engine, a chat), called later as
    /// `target` `handle`.
    Handle { handle: u32 },
    /// It threw. `code` is a vault error's (`ENOENT`, `EEXIST`, `EISDIR`, `ENOTDIR`, `EILSEQ`),
    /// so the core maps a host's refusal as it would in the same thread.
    Error {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        code: Option<String>,
    },
}

/// A call the core makes to the main thread: the `VaultHost` methods (`js/host/VaultHost.ts`)
/// and the `request` transport, by name (`op`), with their arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum HostCall {
    Read {
        path: String,
    },
    ReadBinary {
        path: String,
    },
    /// Several notes at once; the reply is one [`BatchRead`] per path.
    ReadBatch {
        paths: Vec<String>,
    },
    /// A PDF's text, one string a page (read on the main thread, with Obsidian's PDF.js).
    PdfPages {
        path: String,
    },
    /// A web page's HTML as Markdown (converted on the main thread, with Obsidian's
    /// `htmlToMarkdown`: a worker has no DOM).
    HtmlToMarkdown {
        html: String,
    },
    Write {
        path: String,
        content: String,
    },
    WriteBinary {
        path: String,
        #[ts(type = "Uint8Array")]
        data: Vec<u8>,
    },
    List {
        path: String,
    },
    Stat {
        path: String,
    },
    Mkdir {
        path: String,
    },
    Rename {
        from: String,
        to: String,
    },
    Trash {
        path: String,
    },
    Remove {
        path: String,
    },
    /// An HTTP request through the main thread's transport without CORS (Obsidian's
    /// `requestUrl`); the reply is the whole response.
    Request {
        request: HttpRequest,
    },
    /// Starts a child process (desktop only: an MCP server that is a command); the reply is
    /// its id.
    ProcessStart {
        command: String,
        args: Vec<String>,
        env: std::collections::BTreeMap<String, String>,
    },
    /// Writes a line to the process's stdin.
    ProcessSend {
        id: u32,
        line: String,
    },
    /// The next line of the process's stdout; `null` once it ended.
    ProcessRead {
        id: u32,
    },
    /// Ends the process.
    ProcessClose {
        id: u32,
    },
}

/// A request as `JsRequestClient` sends it (`src/wasm/request_client.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: std::collections::BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Uint8Array")]
    pub body: Option<Vec<u8>>,
}

/// The whole answer to an [`HttpRequest`] (the reply to [`HostCall::Request`]): an error status
/// is an answer, not a rejection. The binding reads it field by field (`JsRequestClient`), so
/// the body may be any of the three shapes a JS transport has at hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct HttpAnswer {
    pub status: u16,
    pub headers: std::collections::BTreeMap<String, String>,
    #[ts(type = "ArrayBuffer | Uint8Array | string")]
    pub body: Value,
}

/// One note of a `readBatch`: its text, or its bytes for the core to decode (UTF-8; not text
/// is `EILSEQ`), with its mtime (ms since the epoch, 0 when unknown); or why it could not be
/// read (`code` as in [`Reply::Error`]). The plugin's host sends bytes: a string decoded on the
/// UI thread for each note was garbage its collector paused for (BENCHMARKS.md, gen50k).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(untagged)]
pub enum BatchRead {
    Text {
        text: String,
        mtime: f64,
    },
    Bytes {
        /// A `Uint8Array` in JS (read from it directly by the binding, not through serde).
        #[ts(type = "Uint8Array")]
        bytes: Value,
        mtime: f64,
    },
    Failed {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        code: Option<String>,
    },
}
