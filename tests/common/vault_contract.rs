//! The contract every `Vault` implementation keeps, as one suite run against each of them:
//! `MemoryVault` and `FsVault` natively, `JsVault` over a JS host in headless Chrome.
//!
//! Each check starts from an empty vault and panics with a message naming what broke.

use vault_agent::vault::{read_atomic, temp_path, write_atomic, EntryKind, Vault, VaultPath};
use vault_agent::Error;

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap_or_else(|e| panic!("test path {raw:?}: {e}"))
}

/// Runs every check against `vault`, which must start empty.
pub async fn run_contract(vault: &dyn Vault) {
    text_round_trip_with_unusual_names(vault).await;
    binary_round_trip(vault).await;
    write_replaces_and_creates_parents(vault).await;
    missing_and_wrong_kinds(vault).await;
    listing_is_direct_children_sorted(vault).await;
    stat_reports_kind_and_size(vault).await;
    mkdir_is_idempotent(vault).await;
    rename_moves_and_never_overwrites(vault).await;
    trash_keeps_a_copy(vault).await;
    remove_deletes_recursively(vault).await;
    atomic_saves_replace_and_recover(vault).await;
    read_batch_answers_each_path(vault).await;
}

async fn text_round_trip_with_unusual_names(vault: &dyn Vault) {
    let names = [
        "plain.md",
        "Folder With Spaces/note with spaces.md",
        "日本語/ノート.md",
        "한국어 노트.md",
        "emoji 🎉/👨‍👩‍👧 family.md",
        "a.b.c.md",
        ".hidden/dot.md",
    ];
    for (i, name) in names.iter().enumerate() {
        let text = format!("# Note {i}\n\nÜnïcödé, 中文, emoji 🎉, CRLF\r\nend");
        vault.write(&p(name), &text).await.unwrap_or_else(|e| panic!("write {name}: {e}"));
        assert_eq!(vault.read(&p(name)).await.unwrap(), text, "read back {name}");
    }
    for name in names {
        vault.remove(&p(name)).await.unwrap_or_else(|e| panic!("remove {name}: {e}"));
    }
    for folder in ["Folder With Spaces", "日本語", "emoji 🎉", ".hidden"] {
        vault.remove(&p(folder)).await.unwrap_or_else(|e| panic!("remove folder {folder}: {e}"));
    }
}

async fn binary_round_trip(vault: &dyn Vault) {
    let data: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let path = p("bin/blob.bin");
    vault.write_binary(&path, &data).await.unwrap();
    assert_eq!(vault.read_binary(&path).await.unwrap(), data, "binary round trip");
    let empty = p("bin/empty.bin");
    vault.write_binary(&empty, &[]).await.unwrap();
    assert_eq!(vault.read_binary(&empty).await.unwrap(), Vec::<u8>::new());
    // Bytes that are not UTF-8 are refused by `read`, not mangled.
    vault.write_binary(&path, &[0xff, 0xfe, 0x00]).await.unwrap();
    assert!(matches!(vault.read(&path).await, Err(Error::NotText(_))), "non-UTF-8 read");
    vault.remove(&p("bin")).await.unwrap();
}

async fn write_replaces_and_creates_parents(vault: &dyn Vault) {
    let path = p("deep/er/deepest/note.md");
    vault.write(&path, "first version, longer than the second").await.unwrap();
    vault.write(&path, "second").await.unwrap();
    assert_eq!(vault.read(&path).await.unwrap(), "second", "write replaces the whole file");
    assert_eq!(vault.stat(&p("deep/er")).await.unwrap().map(|s| s.kind), Some(EntryKind::Folder));
    // A file cannot be written where a folder is, nor under a file.
    assert!(vault.write(&p("deep/er"), "x").await.is_err(), "write over a folder");
    assert!(vault.write(&p("deep/er/deepest/note.md/child.md"), "x").await.is_err(), "write under a file");
    assert_eq!(vault.read(&path).await.unwrap(), "second", "failed writes left the file intact");
    vault.remove(&p("deep")).await.unwrap();
}

async fn missing_and_wrong_kinds(vault: &dyn Vault) {
    assert!(matches!(vault.read(&p("missing.md")).await, Err(Error::NotFound(_))), "read missing");
    assert!(matches!(vault.read_binary(&p("missing.bin")).await, Err(Error::NotFound(_))), "read_binary missing");
    assert!(vault.stat(&p("missing.md")).await.unwrap().is_none(), "stat missing");
    assert!(matches!(vault.list(&p("missing")).await, Err(Error::NotFound(_))), "list missing");
    vault.mkdir(&p("folder")).await.unwrap();
    assert!(matches!(vault.read(&p("folder")).await, Err(Error::IsAFolder(_))), "read a folder");
    let err = vault.read(&p("missing.md")).await.unwrap_err().to_string();
    assert!(err.contains("missing.md"), "error names the path: {err}");
    vault.remove(&p("folder")).await.unwrap();
}

async fn listing_is_direct_children_sorted(vault: &dyn Vault) {
    for name in ["L/b.md", "L/a.md", "L/sub/c.md", "L/sub/deeper/d.md", "L/Z folder/e.md", "top.md"] {
        vault.write(&p(name), name).await.unwrap();
    }
    let listing = vault.list(&p("L")).await.unwrap();
    let files: Vec<&str> = listing.files.iter().map(|f| f.as_str()).collect();
    let folders: Vec<&str> = listing.folders.iter().map(|f| f.as_str()).collect();
    assert_eq!(files, vec!["L/a.md", "L/b.md"], "files are direct children, sorted");
    assert_eq!(folders, vec!["L/Z folder", "L/sub"], "folders are direct children, sorted");
    let root = vault.list(&VaultPath::root()).await.unwrap();
    assert!(root.files.iter().any(|f| f.as_str() == "top.md"), "root lists top-level files");
    assert!(root.folders.iter().any(|f| f.as_str() == "L"), "root lists top-level folders");
    vault.remove(&p("L")).await.unwrap();
    vault.remove(&p("top.md")).await.unwrap();
}

async fn stat_reports_kind_and_size(vault: &dyn Vault) {
    vault.write(&p("s/size.md"), "12345").await.unwrap();
    let stat = vault.stat(&p("s/size.md")).await.unwrap().expect("exists");
    assert_eq!(stat.kind, EntryKind::File);
    assert_eq!(stat.size, 5);
    assert!(stat.mtime > 0, "mtime is set");
    let folder = vault.stat(&p("s")).await.unwrap().expect("folder exists");
    assert_eq!(folder.kind, EntryKind::Folder);
    vault.remove(&p("s")).await.unwrap();
}

async fn mkdir_is_idempotent(vault: &dyn Vault) {
    vault.mkdir(&p("m/n/o")).await.unwrap();
    vault.mkdir(&p("m/n/o")).await.unwrap();
    assert_eq!(vault.stat(&p("m/n")).await.unwrap().map(|s| s.kind), Some(EntryKind::Folder));
    vault.write(&p("m/file.md"), "x").await.unwrap();
    assert!(vault.mkdir(&p("m/file.md")).await.is_err(), "mkdir over a file");
    vault.remove(&p("m")).await.unwrap();
}

async fn rename_moves_and_never_overwrites(vault: &dyn Vault) {
    vault.write(&p("r/a.md"), "A").await.unwrap();
    vault.write(&p("r/b.md"), "B").await.unwrap();
    vault.rename(&p("r/a.md"), &p("r/moved/a2.md")).await.unwrap();
    assert!(vault.stat(&p("r/a.md")).await.unwrap().is_none(), "source is gone");
    assert_eq!(vault.read(&p("r/moved/a2.md")).await.unwrap(), "A");
    let clash = vault.rename(&p("r/moved/a2.md"), &p("r/b.md")).await;
    assert!(matches!(clash, Err(Error::AlreadyExists(_))), "rename onto an existing file: {clash:?}");
    assert_eq!(vault.read(&p("r/b.md")).await.unwrap(), "B", "the destination was not overwritten");
    assert!(matches!(vault.rename(&p("r/none.md"), &p("r/x.md")).await, Err(Error::NotFound(_))));
    // Folders move with their contents.
    vault.rename(&p("r/moved"), &p("r2/renamed")).await.unwrap();
    assert_eq!(vault.read(&p("r2/renamed/a2.md")).await.unwrap(), "A");
    assert!(vault.stat(&p("r/moved")).await.unwrap().is_none());
    vault.remove(&p("r")).await.unwrap();
    vault.remove(&p("r2")).await.unwrap();
}

async fn trash_keeps_a_copy(vault: &dyn Vault) {
    vault.write(&p("t/note.md"), "first").await.unwrap();
    vault.trash(&p("t/note.md")).await.unwrap();
    assert!(vault.stat(&p("t/note.md")).await.unwrap().is_none(), "trashed file is gone");
    assert_eq!(vault.read(&p(".trash/t/note.md")).await.unwrap(), "first", "a copy is in .trash");
    // Trashing a second file of the same name keeps both.
    vault.write(&p("t/note.md"), "second").await.unwrap();
    vault.trash(&p("t/note.md")).await.unwrap();
    assert_eq!(vault.read(&p(".trash/t/note.md")).await.unwrap(), "first");
    let trashed = vault.list(&p(".trash/t")).await.unwrap();
    assert_eq!(trashed.files.len(), 2, "both trashed copies are kept: {trashed:?}");
    assert!(matches!(vault.trash(&p("t/none.md")).await, Err(Error::NotFound(_))));

    // A folder named like a file already in the trash still goes to the trash.
    vault.write(&p("clash"), "a note without extension").await.unwrap();
    vault.trash(&p("clash")).await.unwrap();
    vault.write(&p("clash/inner.md"), "inner").await.unwrap();
    vault.trash(&p("clash")).await.unwrap_or_else(|e| panic!("trash a folder over a trashed file: {e}"));
    assert!(vault.stat(&p("clash")).await.unwrap().is_none());
    vault.write(&p("clash/deeper/x.md"), "x").await.unwrap();
    vault.trash(&p("clash/deeper/x.md")).await.unwrap_or_else(|e| panic!("trash below a trashed file's name: {e}"));
    assert!(vault.stat(&p("clash/deeper/x.md")).await.unwrap().is_none());
    vault.remove(&p("clash")).await.unwrap();
    vault.remove(&p(".trash")).await.unwrap();
    vault.remove(&p("t")).await.unwrap();
}

async fn remove_deletes_recursively(vault: &dyn Vault) {
    vault.write(&p(".obsidian-agent/tmp/task/a.md"), "a").await.unwrap();
    vault.write(&p(".obsidian-agent/tmp/task/b/c.md"), "c").await.unwrap();
    vault.remove(&p(".obsidian-agent/tmp/task")).await.unwrap();
    assert!(vault.stat(&p(".obsidian-agent/tmp/task")).await.unwrap().is_none());
    assert!(vault.stat(&p(".obsidian-agent/tmp")).await.unwrap().is_some(), "the parent stays");
    assert!(matches!(vault.remove(&p("nothing")).await, Err(Error::NotFound(_))));
    vault.remove(&p(".obsidian-agent")).await.unwrap();
    let root = vault.list(&VaultPath::root()).await.unwrap();
    assert!(root.files.is_empty() && root.folders.is_empty(), "the suite leaves the vault empty: {root:?}");
}

/// `write_atomic` over this host: it replaces an existing file (which `rename` alone refuses),
/// leaves no temporary file, and a save stopped between removing the old file and renaming the
/// new one is still read, then finished by the next save.
async fn atomic_saves_replace_and_recover(vault: &dyn Vault) {
    let path = p(".obsidian-agent/index/state.bin");
    let temp = temp_path(&path).unwrap();
    write_atomic(vault, &path, b"first").await.unwrap();
    write_atomic(vault, &path, b"second").await.unwrap_or_else(|e| panic!("atomic save over a file: {e}"));
    assert_eq!(vault.read_binary(&path).await.unwrap(), b"second");
    assert!(vault.stat(&temp).await.unwrap().is_none(), "no temporary file is left");

    // Stopped after the removal: only the complete temporary file is there.
    vault.remove(&path).await.unwrap();
    vault.write_binary(&temp, b"third").await.unwrap();
    assert_eq!(read_atomic(vault, &path).await.unwrap(), b"third");
    write_atomic(vault, &path, b"fourth").await.unwrap();
    assert_eq!(read_atomic(vault, &path).await.unwrap(), b"fourth");
    assert!(vault.stat(&temp).await.unwrap().is_none());
    vault.remove(&p(".obsidian-agent")).await.unwrap();
    assert!(matches!(read_atomic(vault, &path).await, Err(Error::NotFound(_))));
}

async fn read_batch_answers_each_path(vault: &dyn Vault) {
    vault.write(&p("batch/a.md"), "alpha").await.unwrap();
    vault.write(&p("batch/b.md"), "beta ✓").await.unwrap();
    let paths = [p("batch/a.md"), p("batch/missing.md"), p("batch"), p("batch/b.md")];
    let answers = vault.read_batch(&paths).await;
    assert_eq!(answers.len(), paths.len(), "one answer per path");
    let mtime = vault.stat(&p("batch/a.md")).await.unwrap().unwrap().mtime;
    assert_eq!(answers[0].as_ref().unwrap(), &("alpha".to_string(), mtime), "text and mtime");
    assert!(matches!(answers[1], Err(Error::NotFound(_))), "a missing note: {:?}", answers[1]);
    assert!(matches!(answers[2], Err(Error::IsAFolder(_))), "a folder: {:?}", answers[2]);
    assert_eq!(answers[3].as_ref().unwrap().0, "beta ✓", "in order");
    assert!(vault.read_batch(&[]).await.is_empty(), "nothing asked, nothing answered");
    vault.remove(&p("batch")).await.unwrap();
}
