//! [`Vault`] over a JS `VaultHost` object (interface in `js/host/VaultHost.ts`).

use async_trait::async_trait;
use js_sys::{Promise, Reflect, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::has_method;
use crate::protocol::BatchRead;
use crate::vault::{read_one_by_one, EntryKind, Listing, Stat, Vault, VaultPath};
use crate::{Error, Result};

#[wasm_bindgen]
extern "C" {
    /// The JS object that owns the vault. Every method returns a promise; a rejection whose
    /// error has `code` `ENOENT`, `EEXIST`, `EISDIR`, `ENOTDIR` or `EILSEQ` (text that is not UTF-8) maps to the matching
    /// [`Error`], any other rejection to [`Error::Host`] carrying its message.
    #[wasm_bindgen(typescript_type = "JsVaultHost")]
    pub type VaultHost;

    #[wasm_bindgen(method, catch)]
    fn read(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readBinary)]
    fn read_binary(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn write(this: &VaultHost, path: &str, content: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = writeBinary)]
    fn write_binary(this: &VaultHost, path: &str, data: Uint8Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn list(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn stat(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn mkdir(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn rename(this: &VaultHost, from: &str, to: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn trash(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn remove(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    /// Optional: several notes in one call, answering a `BatchRead` per path.
    #[wasm_bindgen(method, catch, js_name = readBatch)]
    fn read_batch(this: &VaultHost, paths: js_sys::Array) -> std::result::Result<Promise, JsValue>;
    /// Optional: a PDF's text, one string a page (Obsidian's PDF.js).
    #[wasm_bindgen(method, catch, js_name = pdfPages)]
    fn pdf_pages(this: &VaultHost, path: &str) -> std::result::Result<Promise, JsValue>;
    /// Optional: a web page's HTML as Markdown (Obsidian's `htmlToMarkdown`).
    #[wasm_bindgen(method, catch, js_name = htmlToMarkdown)]
    fn html_to_markdown(this: &VaultHost, html: &str) -> std::result::Result<Promise, JsValue>;
}

/// A vault whose storage is the JS host's.
pub struct JsVault {
    host: VaultHost,
}

impl JsVault {
    /// Wraps `host`.
    pub fn new(host: VaultHost) -> Self {
        JsVault { host }
    }

    /// The host object itself, for its optional calls beyond the vault's.
    pub(super) fn host(&self) -> &JsValue {
        &self.host
    }

    /// A file's bytes in the host's own buffer, not copied into the wasm memory (which never
    /// shrinks): for a model's weights, read from it a window at a time.
    pub(super) async fn read_binary_buffer(&self, path: &VaultPath) -> Result<Uint8Array> {
        let value = call("readBinary", path, self.host.read_binary(path.as_str())).await?;
        // Uint8Array::new accepts both an ArrayBuffer and a typed array.
        Ok(Uint8Array::new(&value))
    }
}

#[derive(Deserialize)]
struct JsListing {
    files: Vec<String>,
    folders: Vec<String>,
}

#[derive(Deserialize)]
struct JsStat {
    kind: EntryKind,
    #[serde(default)]
    size: f64,
    #[serde(default)]
    mtime: f64,
}

/// Awaits a host call, mapping a synchronous throw or a rejection to a core error.
async fn call(op: &str, path: &VaultPath, promise: std::result::Result<Promise, JsValue>) -> Result<JsValue> {
    let promise = promise.map_err(|e| host_error(op, path, &e))?;
    JsFuture::from(promise).await.map_err(|e| host_error(op, path, &e))
}

fn host_error(op: &str, path: &VaultPath, value: &JsValue) -> Error {
    let code = Reflect::get(value, &JsValue::from_str("code")).ok().and_then(|c| c.as_string());
    coded_error(op, path, code.as_deref(), || js_message(value))
}

/// The core error for a host's error `code`, else a host error with the message.
fn coded_error(op: &str, path: &VaultPath, code: Option<&str>, message: impl FnOnce() -> String) -> Error {
    match code {
        Some("ENOENT") => return Error::NotFound(path.to_string()),
        Some("EEXIST") => return Error::AlreadyExists(path.to_string()),
        Some("EISDIR") => return Error::IsAFolder(path.to_string()),
        Some("ENOTDIR") => return Error::NotAFolder(path.to_string()),
        Some("EILSEQ") => return Error::NotText(path.to_string()),
        _ => {}
    }
    Error::Host { op: format!("{op} {path}"), message: message() }
}

/// The message of a JS error value, whatever was thrown.
pub(crate) fn js_message(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    if let Some(text) = value.as_string() {
        return text;
    }
    js_sys::JSON::stringify(value).ok().and_then(|s| s.as_string()).unwrap_or_else(|| format!("{value:?}"))
}

/// A host's time in ms since the epoch (a JS number) as the core's: `as` saturates, so a
/// negative time or NaN (a host that does not know) is 0, "unknown".
fn millis(ms: f64) -> u64 {
    ms as u64
}

fn host_value<T: for<'de> Deserialize<'de>>(op: &str, path: &VaultPath, value: JsValue) -> Result<T> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| Error::Host { op: format!("{op} {path}"), message: format!("unexpected answer from host: {e}") })
}

/// One note of a `readBatch` answer: bytes are copied out of their `Uint8Array` and decoded here
/// (the host leaves decoding to the core, off the UI thread); text and failures go through serde.
fn batch_read(path: &VaultPath, answer: JsValue) -> Result<(String, u64)> {
    let field = |name: &str| Reflect::get(&answer, &JsValue::from_str(name)).ok();
    if let Some(bytes) = field("bytes").and_then(|b| b.dyn_into::<Uint8Array>().ok()) {
        let mtime = field("mtime").and_then(|m| m.as_f64()).unwrap_or(0.0);
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| Error::NotText(path.to_string()))?;
        return Ok((text, millis(mtime)));
    }
    match host_value::<BatchRead>("readBatch", path, answer)? {
        BatchRead::Text { text, mtime } => Ok((text, millis(mtime))),
        BatchRead::Failed { error, code } => Err(coded_error("read", path, code.as_deref(), || error)),
        BatchRead::Bytes { .. } => Err(Error::Host {
            op: format!("readBatch {path}"),
            message: "unexpected answer from host: bytes that are not a Uint8Array".into(),
        }),
    }
}

fn parse_paths(raw: Vec<String>) -> Vec<VaultPath> {
    // Entries no VaultPath can name (hosts may allow names we refuse) cannot be addressed.
    let mut paths: Vec<VaultPath> = raw.iter().filter_map(|p| VaultPath::parse(p).ok()).collect();
    crate::sort::sort(&mut paths);
    paths
}

#[async_trait(?Send)]
impl Vault for JsVault {
    async fn read(&self, path: &VaultPath) -> Result<String> {
        let value = call("read", path, self.host.read(path.as_str())).await?;
        value
            .as_string()
            .ok_or_else(|| Error::Host { op: format!("read {path}"), message: "host returned a non-string".into() })
    }

    async fn read_binary(&self, path: &VaultPath) -> Result<Vec<u8>> {
        Ok(self.read_binary_buffer(path).await?.to_vec())
    }

    async fn write(&self, path: &VaultPath, content: &str) -> Result<()> {
        call("write", path, self.host.write(path.as_str(), content)).await.map(drop)
    }

    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> Result<()> {
        let array = Uint8Array::from(data);
        call("writeBinary", path, self.host.write_binary(path.as_str(), array)).await.map(drop)
    }

    async fn list(&self, dir: &VaultPath) -> Result<Listing> {
        let value = call("list", dir, self.host.list(dir.as_str())).await?;
        let listing: JsListing = host_value("list", dir, value)?;
        Ok(Listing { files: parse_paths(listing.files), folders: parse_paths(listing.folders), skipped: Vec::new() })
    }

    async fn stat(&self, path: &VaultPath) -> Result<Option<Stat>> {
        let value = call("stat", path, self.host.stat(path.as_str())).await?;
        if value.is_null() || value.is_undefined() {
            return Ok(None);
        }
        let stat: JsStat = host_value("stat", path, value)?;
        Ok(Some(Stat { kind: stat.kind, size: stat.size as u64, mtime: millis(stat.mtime) }))
    }

    async fn mkdir(&self, path: &VaultPath) -> Result<()> {
        call("mkdir", path, self.host.mkdir(path.as_str())).await.map(drop)
    }

    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> Result<()> {
        match call("rename", from, self.host.rename(from.as_str(), to.as_str())).await {
            Err(Error::AlreadyExists(_)) => Err(Error::AlreadyExists(to.to_string())),
            other => other.map(drop),
        }
    }

    async fn trash(&self, path: &VaultPath) -> Result<()> {
        call("trash", path, self.host.trash(path.as_str())).await.map(drop)
    }

    async fn remove(&self, path: &VaultPath) -> Result<()> {
        call("remove", path, self.host.remove(path.as_str())).await.map(drop)
    }

    async fn pdf_pages(&self, path: &VaultPath) -> Result<Vec<String>> {
        if !has_method(&self.host, "pdfPages") {
            return Err(Error::Invalid(format!("{path}: this host cannot read PDFs")));
        }
        let value = call("pdfPages", path, self.host.pdf_pages(path.as_str())).await?;
        host_value("pdfPages", path, value)
    }

    async fn html_to_markdown(&self, html: &str) -> Result<String> {
        if !has_method(&self.host, "htmlToMarkdown") {
            return crate::tools::html_to_markdown(html);
        }
        let failed = |e: JsValue| Error::Host { op: "htmlToMarkdown".into(), message: js_message(&e) };
        let value = JsFuture::from(self.host.html_to_markdown(html).map_err(failed)?).await.map_err(failed)?;
        value.as_string().ok_or_else(|| Error::Host {
            op: "htmlToMarkdown".into(),
            message: "unexpected answer from host: not a string".into(),
        })
    }

    async fn read_batch(&self, paths: &[VaultPath]) -> Vec<Result<(String, u64)>> {
        // A host without `readBatch` (a test's) is read one path at a time.
        let Some(first) = paths.first().filter(|_| has_method(&self.host, "readBatch")) else {
            return read_one_by_one(self, paths).await;
        };
        let array: js_sys::Array = paths.iter().map(|p| JsValue::from_str(p.as_str())).collect();
        let answers = match call("readBatch", first, self.host.read_batch(array)).await {
            Ok(value) => value.dyn_into::<js_sys::Array>().ok(),
            Err(_) => None,
        };
        match answers {
            Some(answers) if answers.length() as usize == paths.len() => {
                paths.iter().zip(answers.iter()).map(|(path, answer)| batch_read(path, answer)).collect()
            }
            // The batch as a whole failed: each note is read on its own, so one bad note costs
            // only itself.
            _ => read_one_by_one(self, paths).await,
        }
    }
}
