//! The vault contract against `MemoryVault` and `FsVault`, and the sandbox of `FsVault`.

use proptest::prelude::*;
use vault_agent::vault::{FsVault, MemoryVault, Vault, VaultPath};

use crate::vault_contract::run_contract;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

#[test]
fn memory_vault_keeps_the_contract() {
    block_on(run_contract(&MemoryVault::new()));
}

#[test]
fn fs_vault_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    block_on(run_contract(&FsVault::open(dir.path()).unwrap()));
}

#[test]
fn fs_vault_refuses_a_symlink_that_leads_outside() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    let vault = FsVault::open(dir.path()).unwrap();
    let err = block_on(vault.read(&VaultPath::parse("link/secret.md").unwrap())).unwrap_err();
    assert!(err.to_string().contains("outside the vault"), "{err}");
    let err = block_on(vault.write(&VaultPath::parse("link/new.md").unwrap(), "x")).unwrap_err();
    assert!(err.to_string().contains("outside the vault"), "{err}");
    assert!(!outside.path().join("new.md").exists(), "nothing was written outside");
}

#[test]
fn fs_vault_write_is_atomic_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let vault = FsVault::open(dir.path()).unwrap();
    let path = VaultPath::parse("n.md").unwrap();
    block_on(vault.write(&path, "old")).unwrap();
    // Make the folder read-only: the new write fails, and the old bytes must survive.
    let mut perms = std::fs::metadata(dir.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(dir.path(), perms.clone()).unwrap();
    let result = block_on(vault.write(&path, "new"));
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(dir.path(), perms).unwrap();
    // Root may write anyway; either way the file holds one whole version.
    let now = std::fs::read_to_string(dir.path().join("n.md")).unwrap();
    match result {
        Ok(()) => assert_eq!(now, "new"),
        Err(_) => assert_eq!(now, "old", "a failed write left the old bytes"),
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temp files left: {leftovers:?}");
}

#[test]
fn the_cli_lists_notes_of_a_real_vault() {
    let vault = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vaults/obsidian-help");
    if !vault.is_dir() {
        panic!("the sample vault is missing at {}", vault.display());
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(["notes", "--vault"])
        .arg(&vault)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let notes = String::from_utf8_lossy(&output.stdout);
    let count = notes.lines().count();
    assert!(count > 6000, "expected the sample vault's ~6,286 notes, got {count}");
    assert!(notes.lines().all(|l| l.ends_with(".md") && !l.starts_with('/')));
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof!["[a-zA-Z0-9 ._~%-]{1,12}", Just("..".to_string()), Just(".".to_string()), "[\\PC]{1,6}",]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever string is offered, an accepted path resolves inside the vault root.
    #[test]
    fn accepted_paths_never_leave_the_root(segments in prop::collection::vec(segment(), 1..5), sep in "[/\\\\]") {
        let raw = segments.join(&sep);
        if let Ok(path) = VaultPath::parse(&raw) {
            let root = std::path::Path::new("/vault-root");
            let mut full = root.to_path_buf();
            full.extend(path.segments());
            let mut depth = 0i32;
            for c in full.strip_prefix(root).unwrap().components() {
                match c {
                    std::path::Component::Normal(_) => depth += 1,
                    other => prop_assert!(false, "component {other:?} in {raw:?}"),
                }
            }
            prop_assert!(depth >= 1);
        }
    }
}
