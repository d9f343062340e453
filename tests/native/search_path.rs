//! One search path: one rule for which files are notes, one link resolver (with Obsidian's
//! tie-breaks as ARCHITECTURE.md states them), shared by the index, the embedder, the tools and
//! the CLI.

use futures::executor::block_on;
use vault_agent::host::ManualClock;
use vault_agent::index::SharedIndex;
use vault_agent::search::{read_note, NoteRead, SearchIndex, SearchQuery};
use vault_agent::vault::{is_hidden, is_note, list_notes, MemoryVault, PathRules, Vault, VaultPath};

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

#[test]
fn one_rule_says_which_files_are_notes_and_which_the_agent_sees() {
    let vault = MemoryVault::with_notes([
        ("Folder/Visible.md", "# Visible"),
        ("Folder/.draft.md", "hidden file"),
        ("Folder/picture.png", "not Markdown"),
        (".obsidian/workspace.md", "settings"),
        (".trash/Old.md", "trashed"),
        (".obsidian-agent/memory/facts.md", "the agent's own"),
        (".hidden/Deep/Note.md", "below a hidden folder"),
        ("Private/Diary.md", "ignored by the user"),
        ("Root.md", "# Root"),
    ])
    .unwrap();
    let notes: Vec<String> = block_on(list_notes(&vault)).unwrap().iter().map(|p| p.to_string()).collect();
    assert_eq!(notes, ["Folder/Visible.md", "Private/Diary.md", "Root.md"]);

    for hidden in [".trash/Old.md", ".hidden/Deep/Note.md", "Folder/.draft.md", ".obsidian"] {
        assert!(is_hidden(&p(hidden)), "{hidden}");
        assert!(!is_note(&p(hidden)), "{hidden}");
        assert!(matches!(block_on(read_note(&vault, &p(hidden))).unwrap(), NoteRead::NotANote), "{hidden}");
    }
    assert!(!is_note(&p("Folder/picture.png")) && is_note(&p("Folder/Visible.md")));

    // The index holds exactly the notes; the agent sees them less what the user ignores.
    let index = block_on(SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    let indexed: Vec<&str> = index.notes().map(|(p, _)| p).collect();
    assert_eq!(indexed, notes);
    let rules = PathRules::from_lists("Private/\n", "");
    let seen: Vec<&String> = notes.iter().filter(|n| rules.is_visible(&p(n))).collect();
    assert_eq!(seen, ["Folder/Visible.md", "Root.md"]);
    assert!(!rules.is_visible(&p(".obsidian-agent/memory/facts.md")), "hidden, though not ignored");
}

/// Notes whose names collide, to exercise each tie-break in turn.
fn collisions() -> SearchIndex {
    SearchIndex::from_notes([
        ("Note.md", "root", 0),
        ("A/Note.md", "", 0),
        ("A/B/Note.md", "", 0),
        ("C/Note.md", "", 0),
        ("Projects/Plan.md", "", 0),
        ("Archive/Projects/Plan.md", "", 0),
        ("Archive/Old/Plan.md", "", 0),
        ("Aa/Idea.md", "", 0),
        ("Ab/Idea.md", "", 0),
        ("Archive/Old/Notes/Today.md", "[[Plan]] [[Note]]", 0),
        ("Projects/Today.md", "[[Plan]]", 0),
        ("Journal/Day.md", "[[Plan]] [[Idea]]", 0),
    ])
    .unwrap()
}

#[test]
fn links_resolve_as_obsidian_does_with_each_tie_break() {
    let index = collisions();
    let resolve = |target: &str, from: &str| index.resolve_link(target, from);
    // 1. A target that is a full path names that note, however close another one is.
    assert_eq!(resolve("Note", "A/B/Other.md").as_deref(), Some("Note.md"));
    assert_eq!(resolve("C/Note", "A/B/Other.md").as_deref(), Some("C/Note.md"));
    // 2. Otherwise a path suffix narrows the candidates to paths that end with it.
    assert_eq!(resolve("B/Note", "C/x.md").as_deref(), Some("A/B/Note.md"));
    assert_eq!(resolve("Projects/Plan", "Journal/Day.md").as_deref(), Some("Projects/Plan.md"), "full path first");
    // 3. Among files of that name, the one sharing the most folders with the linking note.
    assert_eq!(resolve("Plan", "Archive/Old/Notes/Today.md").as_deref(), Some("Archive/Old/Plan.md"));
    assert_eq!(resolve("Plan", "Archive/Projects/Sub/x.md").as_deref(), Some("Archive/Projects/Plan.md"));
    assert_eq!(resolve("Plan", "Projects/Today.md").as_deref(), Some("Projects/Plan.md"));
    // 4. Then the shortest path; 5. then the alphabetically first.
    assert_eq!(resolve("Plan", "Journal/Day.md").as_deref(), Some("Projects/Plan.md"));
    assert_eq!(resolve("Idea", "Journal/Day.md").as_deref(), Some("Aa/Idea.md"));
    // Case and `.md` do not matter; a name nobody has resolves to nothing.
    assert_eq!(resolve("PLAN.md", "Projects/Today.md").as_deref(), Some("Projects/Plan.md"));
    assert_eq!(resolve("Nowhere", "Projects/Today.md"), None);

    // Backlinks use the same resolver: each link counts for the note it resolves to only.
    assert_eq!(index.backlinks("Archive/Old/Plan.md").unwrap(), ["Archive/Old/Notes/Today.md"]);
    assert_eq!(index.backlinks("Projects/Plan.md").unwrap(), ["Journal/Day.md", "Projects/Today.md"]);
    assert!(index.backlinks("Archive/Projects/Plan.md").unwrap().is_empty());
    assert_eq!(index.backlinks("Note.md").unwrap(), ["Archive/Old/Notes/Today.md"]);
    assert_eq!(index.backlinks("Aa/Idea.md").unwrap(), ["Journal/Day.md"]);
}

#[test]
fn the_shared_index_is_built_on_demand_once() {
    let vault = MemoryVault::with_notes([("A.md", "# A\n\nsourdough"), (".trash/B.md", "sourdough")]).unwrap();
    let shared = SharedIndex::new();
    assert!(!shared.is_ready());
    block_on(shared.ensure(&vault, &ManualClock::new(0))).unwrap();
    assert_eq!(shared.read(|i| Ok(i.note_count())).unwrap(), 1);
    // Once in place it is kept: a note written since is not picked up by ensure (refresh does that).
    block_on(vault.write(&p("C.md"), "sourdough")).unwrap();
    block_on(shared.ensure(&vault, &ManualClock::new(0))).unwrap();
    assert_eq!(shared.read(|i| Ok(i.note_count())).unwrap(), 1);
    block_on(shared.refresh(&vault, &p("C.md"))).unwrap();
    assert_eq!(shared.read(|i| Ok(i.note_count())).unwrap(), 2);
}

/// The plugin's start: the saved index is loaded, then brought up to date from the host's file
/// list and dates, reading only the notes that changed while the app was closed.
#[test]
fn a_loaded_index_catches_up_with_the_vault_from_its_file_list() {
    let vault = MemoryVault::with_notes([
        ("Keep.md", "# Keep\n\nunchanged words"),
        ("Edit.md", "# Edit\n\nold words"),
        ("Gone.md", "# Gone\n\nvanishing words"),
    ])
    .unwrap();
    let clock = ManualClock::new(0);
    let mut saved = block_on(SearchIndex::build(&vault, &clock, &mut |_| {})).unwrap();
    block_on(saved.persist(&vault)).unwrap();

    // While the app is closed: one note edited, one added, one deleted, a file that is not a note.
    block_on(vault.write(&p("Edit.md"), "# Edit\n\nfresh wombat words")).unwrap();
    block_on(vault.write(&p("New.md"), "# New\n\nquokka")).unwrap();
    block_on(vault.remove(&p("Gone.md"))).unwrap();
    block_on(vault.write(&p("data.csv"), "a,b")).unwrap();
    let listing: Vec<(VaultPath, u64)> = block_on(async {
        let mut out = Vec::new();
        for path in ["Keep.md", "Edit.md", "New.md", "data.csv"] {
            out.push((p(path), vault.stat(&p(path)).await.unwrap().unwrap().mtime));
        }
        out
    });

    let shared = SharedIndex::new();
    shared.replace(block_on(SearchIndex::load(&vault)).ok().unwrap());
    assert_eq!(
        shared.read(|i| Ok(i.stale(&listing))).unwrap(),
        (vec![p("Edit.md"), p("New.md")], vec!["Gone.md".to_string()])
    );
    let mut reports = Vec::new();
    let changed = block_on(shared.catch_up(&vault, &listing, &clock, &mut |r| reports.push(r))).unwrap();
    assert_eq!(changed, 3);
    assert_eq!(reports.last().map(|r| (r.done, r.total)), Some((2, 2)), "progress counts the notes read");
    let top = |text: &str| {
        shared.read(|i| Ok(i.search(&SearchQuery::new(text))?.into_iter().map(|h| h.path).collect::<Vec<_>>())).unwrap()
    };
    assert_eq!(top("wombat"), ["Edit.md"]);
    assert_eq!(top("quokka"), ["New.md"]);
    assert!(top("vanishing").is_empty());
    assert!(shared.read(|i| Ok(i.has_unsaved_changes())).unwrap());
    // Caught up, the same list finds nothing to read.
    assert_eq!(shared.read(|i| Ok(i.stale(&listing))).unwrap(), (Vec::new(), Vec::new()));
    assert_eq!(block_on(shared.catch_up(&vault, &listing, &clock, &mut |_| {})).unwrap(), 0);
}
