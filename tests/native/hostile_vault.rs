//! A hostile vault on disk, built by the test in a temporary folder: symbolic link loops and
//! links out of the vault, a 50 MB note, a 60-level folder, bytes that are not UTF-8, malformed
//! YAML, an empty note, CRLF, a BOM, odd names. Every entry is indexed or skipped with a
//! reason; the index never fails and nothing panics. Then the CLI: its index summary, and a
//! closed pipe.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};

use vault_agent::host::ManualClock;
use vault_agent::search::{SearchIndex, SearchQuery};
use vault_agent::vault::{walk_vault, FsVault, SkipReason, VaultPath};

const BIG_BYTES: usize = 50 * 1024 * 1024;

/// The vault, and a folder beside it that links point out to.
fn hostile_vault() -> (tempfile::TempDir, tempfile::TempDir) {
    let vault = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let v = vault.path();
    let write = |rel: &str, bytes: &[u8]| {
        let path = v.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    std::fs::write(outside.path().join("secret.md"), "outsideword secret").unwrap();
    std::fs::create_dir(outside.path().join("dir")).unwrap();
    std::fs::write(outside.path().join("dir/far.md"), "outsideword far").unwrap();

    write("Notes/plain.md", b"# Plain\n\nplainword\n");
    symlink("..", v.join("Notes/loop")).unwrap();
    symlink(v.join("Notes"), v.join("Alias")).unwrap();
    symlink(outside.path().join("secret.md"), v.join("passwd.md")).unwrap();
    symlink(outside.path().join("dir"), v.join("Far")).unwrap();
    symlink(v.join("missing.md"), v.join("dangling.md")).unwrap();

    let mut big = String::with_capacity(BIG_BYTES + 64);
    let mut i = 0usize;
    while big.len() < BIG_BYTES {
        big.push_str(&format!("line {i} lorem ipsum dolor sit amet\n"));
        i += 1;
    }
    big.push_str("bigneedleword\n");
    write("big.md", big.as_bytes());

    let deep: Vec<String> = (0..60).map(|i| format!("d{i}")).collect();
    write(&format!("{}/deep.md", deep.join("/")), b"deepword at the bottom\n");

    write("invalid.md", &[b'o', b'k', 0xff, 0xfe, 0xc3, 0x28]);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<u8> = (0..4096)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    write("random.md", &random);
    write("yaml.md", b"---\ntitle: [unclosed\n  - : :\n---\nyamlword body\n");
    write("empty.md", b"");
    write("crlf.md", b"# CRLF\r\n\r\ncrlfword here\r\n");
    write("bom.md", "\u{feff}# BOM\n\nbomword\n".as_bytes());
    write("Ünïcödé ノート 🎉.md", "unicodeword\n".as_bytes());
    write("Cafe\u{301} zero\u{200b}width.md", "nfdword\n".as_bytes());
    write("evil \u{202e}dm.txt.md", b"bidiword\n");
    write("a:b.md", b"colonword\n");
    let bad_name = v.join(OsStr::from_bytes(b"bad \xff name.md"));
    std::fs::write(bad_name, "badnameword\n").unwrap();
    (vault, outside)
}

fn reasons(skipped: &[vault_agent::vault::Skipped]) -> BTreeMap<String, SkipReason> {
    skipped.iter().map(|s| (s.path.clone(), s.reason.clone())).collect()
}

#[tokio::test(flavor = "current_thread")]
async fn every_hostile_entry_is_indexed_or_skipped_with_a_reason() {
    let (dir, _outside) = hostile_vault();
    let vault = FsVault::open(dir.path()).unwrap();

    // The walk: loops and links out are skipped, the link inside is followed once.
    let walk = walk_vault(&vault, &VaultPath::root(), &|_| false).await.unwrap();
    let skipped = reasons(&walk.skipped);
    assert_eq!(skipped.get("passwd.md"), Some(&SkipReason::OutsideVault), "{skipped:?}");
    assert_eq!(skipped.get("Far"), Some(&SkipReason::OutsideVault), "{skipped:?}");
    assert_eq!(skipped.get("Notes/loop"), Some(&SkipReason::Loop), "{skipped:?}");
    assert_eq!(skipped.get("Alias"), Some(&SkipReason::Loop), "real folders first: {skipped:?}");
    assert!(matches!(skipped.get("dangling.md"), Some(SkipReason::Unreadable(_))), "{skipped:?}");
    assert_eq!(skipped.get("a:b.md"), Some(&SkipReason::BadName), "{skipped:?}");
    assert_eq!(skipped.get("bad \u{fffd} name.md"), Some(&SkipReason::BadName), "{skipped:?}");
    assert_eq!(skipped.get("evil \u{202e}dm.txt.md"), Some(&SkipReason::BadName), "{skipped:?}");
    let plain: Vec<&str> = walk.files.iter().map(|f| f.as_str()).filter(|f| f.ends_with("plain.md")).collect();
    assert_eq!(plain, ["Notes/plain.md"], "each folder's files once, under their own path");

    // The index: built, every note in it or skipped with a reason.
    let clock = ManualClock::new(0);
    let index = SearchIndex::build(&vault, &clock, &mut |_| {}).await.unwrap();
    let skipped = reasons(index.skipped());
    assert_eq!(skipped.get("invalid.md"), Some(&SkipReason::NotText), "{skipped:?}");
    assert_eq!(skipped.get("random.md"), Some(&SkipReason::NotText), "{skipped:?}");
    for note in [
        "Notes/plain.md",
        "big.md",
        "yaml.md",
        "empty.md",
        "crlf.md",
        "bom.md",
        "Ünïcödé ノート 🎉.md",
        "Cafe\u{301} zero\u{200b}width.md",
    ] {
        assert!(index.note(note).is_some(), "{note} is indexed");
    }
    let deep = (0..60).map(|i| format!("d{i}")).collect::<Vec<_>>().join("/") + "/deep.md";
    assert!(index.note(&deep).is_some(), "the 60-level note is indexed");
    let listed = walk.files.iter().filter(|f| f.extension() == Some("md")).count();
    assert_eq!(index.note_count() + 2, listed, "every listed note is indexed but the two that are not text");
    let find = |word: &str| {
        let query = SearchQuery { text: word.into(), limit: 3, ..SearchQuery::default() };
        index.search(&query).unwrap().into_iter().map(|h| h.path).collect::<Vec<_>>()
    };
    assert_eq!(find("bigneedleword"), ["big.md"]);
    assert_eq!(find("crlfword"), ["crlf.md"]);
    assert_eq!(find("bomword"), ["bom.md"]);
    assert_eq!(find("yamlword"), ["yaml.md"]);
    assert_eq!(find("deepword"), [deep.as_str()]);
    assert!(find("outsideword").is_empty(), "nothing from outside the vault");
    assert_eq!(index.note("bom.md").unwrap().title, "BOM");

    // Sync over the same vault skips the same entries and changes nothing.
    let mut index = index;
    assert_eq!(index.sync(&vault, &clock, &mut |_| {}).await.unwrap(), 0);
    assert_eq!(reasons(index.skipped()).get("random.md"), Some(&SkipReason::NotText));
}

fn vault_agent(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vault-agent")).args(args).stdin(Stdio::null()).output().unwrap()
}

#[test]
fn the_cli_index_counts_what_it_skipped_and_search_survives_a_closed_pipe() {
    let (dir, _outside) = hostile_vault();
    let path = dir.path().to_str().unwrap();
    let output = vault_agent(&["index", "--vault", path]);
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("skipped:"), "{stdout}");
    assert!(stdout.contains("2 not UTF-8 text"), "{stdout}");
    assert!(stdout.contains("2 symbolic link outside the vault"), "{stdout}");
    assert!(stdout.contains("2 folder already listed"), "{stdout}");
    assert!(stderr.contains("skipped passwd.md: symbolic link outside the vault"), "{stderr}");
    assert!(stderr.contains("skipped random.md: not UTF-8 text"), "{stderr}");

    // `search … | head -1`: the reader goes away after one line.
    many_matches(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
        .args(["search", "--vault", path, "--limit", "200", "sharedword"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the pipe closes before anything is printed
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
    assert!(output.status.success(), "{stderr}");
}

fn many_matches(vault: &Path) {
    std::fs::create_dir_all(vault.join("Many")).unwrap();
    for i in 0..150 {
        std::fs::write(vault.join(format!("Many/n{i}.md")), format!("sharedword {i}\n")).unwrap();
    }
}
