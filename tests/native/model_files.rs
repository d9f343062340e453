//! Where the local models come from: the static model's address derived from `package.json`
//! alone, a mirror in its place, and a file the user already has placed after the same check as
//! a download.

use std::path::Path;

use vault_agent::embed::{
    is_installed, load_static_model, minilm_spec, place_model_bytes, static_model_spec, PluginRelease, MODELS_DIR,
    STATIC_MODEL_FILE,
};
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

use crate::semantic_support::static_model_bytes;

fn repo_file(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

fn release(repository: &str, version: &str) -> PluginRelease {
    PluginRelease { repository: repository.into(), version: version.into() }
}

#[test]
fn the_static_model_is_downloaded_from_the_release_that_package_json_names() {
    let package: serde_json::Value = serde_json::from_str(&repo_file("package.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&repo_file("manifest.json")).unwrap();
    // Obsidian installs a release by the manifest's version: the two must agree for the URL to exist.
    assert_eq!(package["version"], manifest["version"], "package.json and manifest.json versions differ");
    let version = package["version"].as_str().unwrap();
    let url = package["repository"]["url"].as_str().unwrap();
    let repo = url.trim_end_matches(".git").strip_prefix("https://github.com/").unwrap();

    let ours = PluginRelease::from_package_json(&repo_file("package.json")).unwrap();
    assert_eq!(ours, release(url, version));
    let base = static_model_spec().download_base(None, Some(&ours)).unwrap();
    assert_eq!(base, format!("https://github.com/{repo}/releases/download/{version}"));
    // A mirror replaces it; MiniLM keeps its own source unless a mirror is given.
    assert_eq!(
        static_model_spec().download_base(Some(" http://mirror.local/models/ "), Some(&ours)).unwrap(),
        "http://mirror.local/models"
    );
    assert!(minilm_spec().download_base(Some(""), Some(&ours)).unwrap().starts_with("https://huggingface.co/"));
}

#[test]
fn the_repository_is_read_in_every_form_npm_accepts_and_anything_else_is_refused() {
    let want = "https://github.com/acme/vault-agent/releases/download/1.2.3";
    for repo in [
        "https://github.com/acme/vault-agent",
        "https://github.com/acme/vault-agent.git",
        "git+https://github.com/acme/vault-agent.git",
        "git@github.com:acme/vault-agent.git",
        "github:acme/vault-agent",
        "acme/vault-agent",
    ] {
        assert_eq!(release(repo, "1.2.3").download_base().unwrap(), want, "{repo}");
    }
    let object =
        r#"{"name": "x", "version": "1.2.3", "repository": {"type": "git", "url": "github:acme/vault-agent"}}"#;
    assert_eq!(PluginRelease::from_package_json(object).unwrap().download_base().unwrap(), want);
    let plain = r#"{"version": "1.2.3", "repository": "acme/vault-agent"}"#;
    assert_eq!(PluginRelease::from_package_json(plain).unwrap().download_base().unwrap(), want);

    for repo in ["https://gitlab.com/acme/vault-agent", "acme", "acme/vault/agent", "acme/../x", ""] {
        let error = release(repo, "1.2.3").download_base().unwrap_err().to_string();
        assert!(error.contains("not a GitHub repository"), "{repo}: {error}");
    }
    assert!(release("acme/x", "").download_base().unwrap_err().to_string().contains("not a release version"));
    assert!(PluginRelease::from_package_json(r#"{"version": "1"}"#).unwrap_err().to_string().contains("repository"));
    // Without a release or a mirror, the static model has no address, and says what to do.
    let error = static_model_spec().download_base(None, None).unwrap_err().to_string();
    assert!(error.contains("mirror URL or load the file"), "{error}");
}

#[test]
fn a_model_file_the_user_picks_is_installed_only_when_it_is_the_pinned_file() {
    futures::executor::block_on(async {
        let vault = MemoryVault::new();
        let spec = static_model_spec();
        let good = static_model_bytes();
        let target = VaultPath::parse(&format!("{MODELS_DIR}/{}/{STATIC_MODEL_FILE}", spec.name)).unwrap();

        // A damaged copy (one byte changed) and some other file: refused, naming what was expected.
        let mut damaged = good.clone();
        damaged[1000] ^= 1;
        for (bytes, name) in [(damaged, "static-minilm-l6-v2-256.vam"), (b"not a model".to_vec(), "notes.zip")] {
            let error = place_model_bytes(&vault, &spec, &bytes, name).await.unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("invalid input: {name} is not a file of static-minilm-l6-v2-256")),
                "{error}"
            );
            assert!(error.contains(&format!("got {} bytes", bytes.len())), "{error}");
            assert!(error.contains(vault_agent::embed::STATIC_MODEL_SHA256), "{error}");
            assert!(error.ends_with("not installed"), "{error}");
            assert!(vault.stat(&target).await.unwrap().is_none(), "nothing is written");
        }
        assert!(!is_installed(&vault, &spec).await.unwrap());

        // The right file, whatever it is called, lands where a download would have put it.
        assert_eq!(
            place_model_bytes(&vault, &spec, &good, "Downloads/model (1).vam").await.unwrap(),
            STATIC_MODEL_FILE
        );
        assert_eq!(vault.read_binary(&target).await.unwrap(), good);
        assert!(is_installed(&vault, &spec).await.unwrap());
        assert_eq!(load_static_model(&vault).await.unwrap().dimensions(), 256);
    });
}

#[test]
fn the_release_workflow_builds_with_build_sh_and_attaches_the_install_and_the_model() {
    let workflow: serde_yaml_ng::Value = serde_yaml_ng::from_str(&repo_file(".github/workflows/release.yml")).unwrap();
    let steps = workflow["jobs"]["release"]["steps"].as_sequence().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(runs.iter().any(|r| r.contains("bash scripts/build.sh --no-demo")), "built by the project's own script");
    assert!(runs.iter().any(|r| r.contains("rustup target add wasm32-unknown-unknown")));
    assert!(runs.iter().any(|r| r.contains("npm ci")));
    assert_eq!(workflow["env"]["MODEL"].as_str(), Some(vault_agent::embed::STATIC_MODEL_REPO_PATH));

    // It attaches what build.sh puts in dist/vault-agent/ (the whole install), and the model.
    let build = repo_file("scripts/build.sh");
    let copied = build.lines().find_map(|l| l.trim().strip_prefix("cp ")?.strip_suffix(" dist/vault-agent/")).unwrap();
    let publish = runs.iter().find(|r| r.contains("gh release create")).unwrap();
    for file in copied.split_whitespace() {
        assert!(publish.contains(&format!("dist/vault-agent/{file}")), "{file} is not attached");
    }
    assert!(publish.contains("\"$MODEL\"") && publish.contains("\"$QUERY_MAP\""));
    assert_eq!(workflow["env"]["QUERY_MAP"].as_str(), Some("models/minilm-queries-256.vaqm"));
    // The wasm-pack pin is setup.sh's.
    let setup = repo_file("scripts/setup.sh");
    let pinned = workflow["env"]["WASM_PACK_VERSION"].as_str().unwrap();
    assert!(setup.contains(&format!("WASM_PACK_VERSION={pinned}\n")), "wasm-pack {pinned} is not setup.sh's");
}

#[test]
fn minilm_reading_the_searches_needs_minilm_and_the_query_map_and_each_file_lands_in_its_models_folder() {
    use vault_agent::embed::{
        load_static_with_minilm_queries, local_model_specs, place_model_bytes_among, query_map_spec,
    };
    futures::executor::block_on(async {
        let vault = MemoryVault::new();
        let specs = local_model_specs("minilm-queries").unwrap();
        assert_eq!(specs, vec![minilm_spec(), query_map_spec()]);
        assert!(local_model_specs("bert").unwrap_err().to_string().contains("static, minilm or minilm-queries"));

        // Each picked file goes where its own model keeps it; a stranger is refused, naming all four.
        let map = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm-queries-256.vaqm")).unwrap();
        let error = place_model_bytes_among(&vault, &specs, b"a text file", "notes.txt").await.unwrap_err().to_string();
        assert!(error.contains("notes.txt is not a file of all-MiniLM-L6-v2 or static-minilm-l6-v2-256"), "{error}");
        for name in ["model.safetensors", "vocab.txt", "config.json", "minilm-queries-256.vaqm"] {
            assert!(error.contains(name), "{error}");
        }
        assert_eq!(place_model_bytes_among(&vault, &specs, &map, "map.vaqm").await.unwrap(), "minilm-queries-256.vaqm");
        let placed =
            VaultPath::parse(&format!("{MODELS_DIR}/static-minilm-l6-v2-256/minilm-queries-256.vaqm")).unwrap();
        assert_eq!(vault.read_binary(&placed).await.unwrap(), map);
        place_model_bytes(&vault, &static_model_spec(), &static_model_bytes(), "model.vam").await.unwrap();

        // Without MiniLM it cannot be set up, and says which file is missing.
        let error = load_static_with_minilm_queries(&vault).await.err().unwrap().to_string();
        assert!(error.contains("all-MiniLM-L6-v2/model.safetensors"), "{error}");
        let dir = crate::semantic_support::minilm_dir();
        for name in ["model.safetensors", "vocab.txt", "config.json"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            assert_eq!(place_model_bytes_among(&vault, &specs, &bytes, name).await.unwrap(), name);
        }
        for spec in &specs {
            assert!(is_installed(&vault, spec).await.unwrap(), "{}", spec.name);
        }
        // Set up, it is the static model as far as the vectors go.
        let embedder = load_static_with_minilm_queries(&vault).await.unwrap();
        let alone = load_static_model(&vault).await.unwrap();
        assert_eq!((embedder.id(), embedder.dimensions()), (alone.id(), 256));
        let note = ["Record audio notes with the microphone."];
        assert_eq!(embedder.embed(&note).await.unwrap(), alone.embed(&note).await.unwrap());
        assert_ne!(embedder.embed_query(note[0]).await.unwrap(), alone.embed_query(note[0]).await.unwrap());
    });
}
