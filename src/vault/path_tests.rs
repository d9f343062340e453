use super::*;

/// Paths that escape the vault or could mean another file on some host. Every one is refused.
const HOSTILE: &[&str] = &[
    "",
    "..",
    "../secret.md",
    "../../etc/passwd",
    "notes/../../outside.md",
    "notes/..",
    "a/b/../../..",
    ".",
    "./note.md",
    "notes/./note.md",
    "/etc/passwd",
    "/",
    "//server/share/file.md",
    "C:\\Windows\\system.ini",
    "C:/Windows/system.ini",
    "c:note.md",
    "D:",
    "\\\\server\\share",
    "notes\\..\\..\\secret.md",
    "..\\secret.md",
    "notes/file.md:hidden-stream",
    "file:///etc/passwd",
    "https://example.com/x.md",
    "note\0.md",
    "notes/\0/x.md",
    "note\n.md",
    "note\r.md",
    "tab\there.md",
    "esc\u{1b}[31m.md",
    "c1\u{85}control.md",
    "del\u{7f}.md",
    "notes//note.md",
    "notes/",
    "notes/note.md/",
    "~",
    "~/.ssh/id_rsa",
    "...",
    "notes/.../x.md",
    "trailing-dot.",
    "folder./note.md",
    "trailing-space ",
    "space /note.md",
    "%2e%2e/secret.md",
    "notes/%2E%2E/x.md",
    "a%2fb.md",
    "a%5cb.md",
    "\u{FF0E}\u{FF0E}/secret.md",
    "notes\u{FF0F}..\u{FF0F}x.md",
    "a\u{2215}b.md",
    "a\u{2044}b.md",
    "\u{2025}/x.md",
    "evil\u{202E}dm.exe",
    "\u{FEFF}note.md",
    "a\u{2066}b.md",
    "CON",
    "con.md",
    "notes/NUL.txt",
    "aux",
    "COM1.md",
    "lpt9",
];

/// Unusual but ordinary names. Every one is accepted as it is.
const VALID: &[&str] = &[
    "note.md",
    "Notes/My note.md",
    "a/b/c/d/e/f.md",
    "name with  two spaces.md",
    " leading space.md",
    "a.b.c.md",
    "v1.2.3 release notes.md",
    "..foo.md",
    "foo..bar.md",
    ".hidden/config.json",
    ".obsidian-agent/tmp/task-1/search_files-0.md",
    "日本語/ノート.md",
    "中文/笔记.md",
    "한국어 노트.md",
    "Ünïcödé façade.md",
    "Ελληνικά.md",
    "עברית.md",
    "emoji 🎉.md",
    "👨‍👩‍👧 family.md",
    "(brackets) [x] {y}.md",
    "100%.md",
    "It's a note.md",
    "a&b=c+d.md",
    "#tag-like.md",
    "~draft.md",
    "notes~/x.md",
    "console.md",
    "COM0.md",
    "com10.md",
    "Attachments/image.png",
    "no-extension",
    "a",
];

#[test]
fn hostile_corpus_is_large_enough() {
    assert!(HOSTILE.len() >= 40, "the acceptance asks for at least 40 hostile paths");
}

#[test]
fn every_hostile_path_is_refused_with_its_name_in_the_error() {
    for raw in HOSTILE {
        match VaultPath::parse(raw) {
            Ok(p) => panic!("accepted hostile path {raw:?} as {p:?}"),
            Err(Error::InvalidPath { path, .. }) => assert_eq!(&path, raw),
            Err(other) => panic!("wrong error for {raw:?}: {other}"),
        }
        let message = VaultPath::parse(raw).unwrap_err().to_string();
        assert!(message.contains(&format!("{raw:?}")), "message {message:?} does not name {raw:?}");
    }
}

#[test]
fn every_valid_name_is_accepted_unchanged() {
    for raw in VALID {
        let p = VaultPath::parse(raw).unwrap_or_else(|e| panic!("refused {raw:?}: {e}"));
        assert_eq!(p.as_str(), *raw);
    }
}

#[test]
fn errors_explain_the_rule() {
    let e = VaultPath::parse("../x.md").unwrap_err().to_string();
    assert!(e.contains("may not leave the vault"), "{e}");
    let e = VaultPath::parse("C:/x.md").unwrap_err().to_string();
    assert!(e.contains("':' is not allowed"), "{e}");
}

#[test]
fn parts_of_a_path() {
    let p = VaultPath::parse("Notes/Sub/my.note.md").unwrap();
    assert_eq!(p.name(), Some("my.note.md"));
    assert_eq!(p.stem(), Some("my.note"));
    assert_eq!(p.extension(), Some("md"));
    assert_eq!(p.parent().unwrap().as_str(), "Notes/Sub");
    assert_eq!(p.ancestors().iter().map(|a| a.as_str()).collect::<Vec<_>>(), vec!["Notes", "Notes/Sub"]);
    assert_eq!(VaultPath::parse("top.md").unwrap().parent(), Some(VaultPath::root()));
    assert_eq!(VaultPath::root().parent(), None);
    assert_eq!(VaultPath::parse(".hidden").unwrap().extension(), None);
}

#[test]
fn join_checks_the_tail() {
    let dir = VaultPath::parse("Notes").unwrap();
    assert_eq!(dir.join("a.md").unwrap().as_str(), "Notes/a.md");
    assert_eq!(VaultPath::root().join("a.md").unwrap().as_str(), "a.md");
    assert!(dir.join("../a.md").is_err());
    assert!(dir.join("/a.md").is_err());
}

#[test]
fn starts_with_respects_segment_boundaries() {
    let a = VaultPath::parse("Notes/a.md").unwrap();
    assert!(a.starts_with(&VaultPath::parse("Notes").unwrap()));
    assert!(a.starts_with(&VaultPath::root()));
    assert!(!a.starts_with(&VaultPath::parse("Not").unwrap()));
    assert!(!VaultPath::parse("Notes2/a.md").unwrap().starts_with(&VaultPath::parse("Notes").unwrap()));
}

#[test]
fn rebase_moves_a_subtree() {
    let from = VaultPath::parse("Old").unwrap();
    let to = VaultPath::parse("New/Place").unwrap();
    let p = VaultPath::parse("Old/x/y.md").unwrap();
    assert_eq!(p.rebase(&from, &to).unwrap().as_str(), "New/Place/x/y.md");
    assert_eq!(from.rebase(&from, &to).unwrap(), to);
    assert!(VaultPath::parse("Other/y.md").unwrap().rebase(&from, &to).is_none());
}

#[test]
fn serde_round_trip_checks_on_the_way_in() {
    let p = VaultPath::parse("日本語/ノート.md").unwrap();
    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(serde_json::from_str::<VaultPath>(&json).unwrap(), p);
    assert!(serde_json::from_str::<VaultPath>("\"../x\"").is_err());
}
