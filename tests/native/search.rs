//! Full-text search over the real sample vault (`../shared/vaults/obsidian-help`, 6,286 notes
//! in 34 languages): known-item queries, typos, phrases, filters, incremental updates,
//! persistence and corruption. The whole vault is indexed once per test binary and shared.

use std::path::PathBuf;
use std::sync::OnceLock;

use vault_agent::host::{ManualClock, SystemClock};
use vault_agent::search::{
    remote_parts_for, InProcessParts, LoadOutcome, LoadProblem, PartFuture, PartWorkers, Progress, RemotePart,
    SearchIndex, SearchQuery, ThreadParts, FORMAT_VERSION, INDEX_DIR, NOTES_PER_PART,
};
use vault_agent::vault::{FsVault, MemoryVault, Vault, VaultPath};

/// The sample vault's notes outside hidden folders.
const NOTES: usize = 6277;

fn vault_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vaults/obsidian-help")
}

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The real vault's index, and the files `persist` wrote for it.
struct Shared {
    index: SearchIndex,
    saved: Vec<(String, Vec<u8>)>,
    progress: Vec<Progress>,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        runtime().block_on(async {
            let vault = FsVault::open(vault_dir()).unwrap();
            let mut progress = Vec::new();
            let mut index = SearchIndex::build(&vault, &SystemClock, &mut |p| progress.push(p)).await.unwrap();
            let memory = MemoryVault::new();
            index.persist(&memory).await.unwrap();
            let mut saved = Vec::new();
            for path in memory.list(&p(INDEX_DIR)).await.unwrap().files {
                saved.push((path.to_string(), memory.read_binary(&path).await.unwrap()));
            }
            assert_eq!(saved.len(), 3, "the manifest, the segments and the catalog");
            Shared { index, saved, progress }
        })
    })
}

fn top(index: &SearchIndex, text: &str, n: usize) -> Vec<String> {
    let hits = index.search(&SearchQuery { text: text.into(), limit: n, ..SearchQuery::default() }).unwrap();
    hits.into_iter().map(|h| h.path).collect()
}

fn assert_in_top(index: &SearchIndex, query: &str, expected: &str, n: usize) {
    let found = top(index, query, n);
    assert!(found.iter().any(|p| p == expected), "{query:?}: expected {expected} in the top {n}, got {found:#?}");
}

#[test]
fn the_whole_vault_is_indexed_with_progress_reported() {
    let shared = shared();
    // 6,286 notes, of which 9 are in hidden folders (`.github/`, `.claude/`) and skipped.
    assert_eq!(shared.index.note_count(), NOTES);
    assert!(shared.index.notes().all(|(path, _)| !path.split('/').any(|s| s.starts_with('.'))));
    let first = shared.progress.first().unwrap();
    let last = shared.progress.last().unwrap();
    assert_eq!((first.done, first.total), (0, NOTES));
    assert_eq!((last.done, last.total), (NOTES, NOTES));
    assert!(shared.progress.len() > 3, "progress is reported between chunks");
    assert!(shared.progress.windows(2).all(|w| w[0].done <= w[1].done));
}

#[test]
fn known_item_queries_find_their_note_in_the_top_3() {
    let index = &shared().index;
    for (query, note) in [
        // English
        ("audio recorder", "en/Plugins/Audio recorder.md"),
        ("record audio lectures meetings", "en/Plugins/Audio recorder.md"),
        ("backlinks", "en/Plugins/Backlinks.md"),
        // German
        ("Rückverweise", "de/Erweiterungen/Rückverweise.md"),
        ("Tägliche Notizen", "de/Erweiterungen/Tägliche Notizen.md"),
        // Japanese
        ("オーディオレコーダー", "ja/プラグイン/オーディオレコーダー.md"),
        ("コマンドパレット", "ja/プラグイン/コマンドパレット.md"),
        // Chinese
        ("录音机", "zh/插件/录音机.md"),
        ("反向链接", "zh/插件/反向链接.md"),
    ] {
        assert_in_top(index, query, note, 3);
    }
}

#[test]
fn a_query_with_a_typo_still_finds_its_note() {
    let index = &shared().index;
    assert_in_top(index, "audio recordr", "en/Plugins/Audio recorder.md", 3);
    assert_in_top(index, "bakclinks", "en/Plugins/Backlinks.md", 3);
    assert_in_top(index, "Rückverwiese", "de/Erweiterungen/Rückverweise.md", 3);
}

/// The word being typed (the last, with no space after it) is completed from the index's
/// terms; only when nothing completes it is it corrected as a typo.
#[tokio::test(flavor = "current_thread")]
async fn a_word_being_typed_is_completed_and_only_a_word_nothing_completes_is_corrected() {
    let vault = MemoryVault::new();
    vault.write(&p("Canvas.md"), "# Canvas\n\nA board of cards and notes.").await.unwrap();
    vault.write(&p("Cane.md"), "# Cane\n\nSugar cane grows tall.").await.unwrap();
    let index = SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
    // `canv` is one letter from `cane`, but `canvas` completes it.
    assert_eq!(top(&index, "canv", 5), vec!["Canvas.md"]);
    // Nothing starts with `canvaz`: it is corrected to `canvas`.
    assert_eq!(top(&index, "canvaz", 5), vec!["Canvas.md"]);
    // A finished word (a space after it) is corrected as before.
    assert_eq!(top(&index, "cabe sugar", 5), vec!["Cane.md"]);

    // `settings` is indexed as `set`, which no completion of `settin` reaches, nor a correction
    // within one letter: a stem shorter than the typed text still finds it, whether nothing
    // completes the text (as in most English vaults) or some other word does.
    vault.write(&p("Sync.md"), "# Sync\n\nChange the sync settings here.").await.unwrap();
    let index = SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
    assert_eq!(top(&index, "settin", 5), vec!["Sync.md"]);
    vault.write(&p("Rare.md"), "# Rare\n\nA settinella, whatever that is.").await.unwrap();
    let index = SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
    let found = top(&index, "settin", 5);
    assert!(found.contains(&"Sync.md".to_string()) && found.contains(&"Rare.md".to_string()), "{found:?}");
}

#[test]
fn a_phrase_and_the_same_words_as_a_bag_give_different_results() {
    let index = &shared().index;
    let phrase = top(index, "\"open a new tab\"", 50);
    let bag = top(index, "open a new tab", 50);
    assert!(!phrase.is_empty());
    assert_ne!(phrase, bag);
    assert!(bag.len() > phrase.len(), "every note with the phrase has the words, not the other way round");
    // Every phrase hit really contains the phrase (case-insensitively).
    for path in &phrase {
        let text = std::fs::read_to_string(vault_dir().join(path)).unwrap().to_lowercase();
        assert!(text.contains("open a new tab"), "{path}");
    }
}

#[test]
fn folder_tag_and_path_filters_restrict_the_results() {
    let index = &shared().index;
    let in_de = index
        .search(&SearchQuery {
            text: "Obsidian".into(),
            limit: 50,
            folder: Some("de".into()),
            ..SearchQuery::default()
        })
        .unwrap();
    assert!(!in_de.is_empty());
    assert!(in_de.iter().all(|h| h.path.starts_with("de/")), "{in_de:#?}");

    let tagged = index
        .search(&SearchQuery { text: "sync".into(), limit: 50, tags: vec!["desktop".into()], ..SearchQuery::default() })
        .unwrap();
    assert!(!tagged.is_empty());
    for hit in &tagged {
        let tags = &index.note(&hit.path).unwrap().tags;
        assert!(tags.iter().any(|t| t.eq_ignore_ascii_case("desktop")), "{}: {tags:?}", hit.path);
    }
    let untagged = top(index, "sync", 200);
    assert!(untagged.len() > tagged.len());

    // The same filters in the query language.
    let inline = top(index, "folder:de/Erweiterungen Rückverweise", 10);
    assert_eq!(inline.first().map(String::as_str), Some("de/Erweiterungen/Rückverweise.md"));
    let by_path = top(index, "path:zh/插件/ 录音", 10);
    assert!(!by_path.is_empty() && by_path.iter().all(|p| p.starts_with("zh/插件/")), "{by_path:?}");

    // Tag listing covers every note with the tag.
    let desktop = index.notes_with_tag("#Desktop").unwrap();
    assert!(desktop.len() >= 90, "{}", desktop.len());
}

#[test]
fn hits_carry_titles_snippets_with_highlights_and_headings() {
    let index = &shared().index;
    let hits = index.search(&SearchQuery::new("microphone")).unwrap();
    let hit = hits.iter().find(|h| h.path == "en/Plugins/Audio recorder.md").expect("the recorder note");
    assert_eq!(hit.title, "Audio recorder");
    assert!(hit.snippet.to_lowercase().contains("**microphone**"), "{}", hit.snippet);
    assert!(hit.score > 0.0);
}

#[test]
fn backlinks_resolve_links_by_name_as_obsidian_does() {
    let index = &shared().index;
    let backlinks = index.backlinks("en/Plugins/Backlinks.md").unwrap();
    assert!(backlinks.contains(&"en/Plugins/Core plugins.md".to_string()), "{backlinks:#?}");
    assert!(backlinks.contains(&"en/User interface/Sidebar.md".to_string()), "{backlinks:#?}");
    // `[[Backlinks]]` in a translation resolves to that language's own note of the name.
    for other in ["de/", "es/", "fr/", "it/", "ja/", "zh/"] {
        assert!(!backlinks.iter().any(|p| p.starts_with(other)), "{backlinks:#?}");
    }
    assert_eq!(index.resolve_link("Backlinks", "en/Home.md").as_deref(), Some("en/Plugins/Backlinks.md"));
    assert_eq!(
        index.resolve_link("Plugins/Backlinks.md", "Release notes/v1.0.md").as_deref(),
        Some("en/Plugins/Backlinks.md")
    );
}

#[test]
fn malformed_queries_never_fail() {
    let index = &shared().index;
    for q in ["\"unclosed", "((a OR", "-", "OR OR", "tag:", ":", "\"\"", "a) b(", "*", "NOT", "-(x)", "🎉", "#"] {
        index.search(&SearchQuery::new(q)).unwrap();
    }
}

/// A vault holding the real vault's saved index (and no notes), loaded: the cheap way to get a
/// private, mutable copy of the full index.
async fn loaded_copy() -> (MemoryVault, SearchIndex) {
    let vault = MemoryVault::new();
    for (path, bytes) in &shared().saved {
        vault.write_binary(&p(path), bytes).await.unwrap();
    }
    let index = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    (vault, index)
}

#[tokio::test(flavor = "current_thread")]
async fn the_saved_index_loads_and_answers_like_the_built_one() {
    let (_, loaded) = loaded_copy().await;
    assert_eq!(loaded.note_count(), NOTES);
    assert_eq!(top(&loaded, "录音机", 3), top(&shared().index, "录音机", 3));
    assert_eq!(top(&loaded, "daily notes template", 5), top(&shared().index, "daily notes template", 5));
}

#[tokio::test(flavor = "current_thread")]
async fn an_update_is_visible_to_the_next_query_and_a_deleted_note_disappears() {
    let (vault, mut index) = loaded_copy().await;
    let recorder = "en/Plugins/Audio recorder.md";

    // Create.
    vault.write(&p("en/Inbox/Zyzzyva.md"), "# Zyzzyva plan\n\nThe quokkafest budget. #inbox/ideas").await.unwrap();
    assert!(index.update(&vault, &p("en/Inbox/Zyzzyva.md")).await.unwrap());
    assert_eq!(top(&index, "quokkafest", 3), vec!["en/Inbox/Zyzzyva.md"]);
    assert_eq!(index.notes_with_tag("inbox").unwrap(), vec!["en/Inbox/Zyzzyva.md"]);

    // Modify a real note: the new words are found, the removed ones no longer are.
    let original = std::fs::read_to_string(vault_dir().join(recorder)).unwrap();
    let modified = original.replace("microphone", "dictaphone");
    vault.write(&p(recorder), &modified).await.unwrap();
    assert!(index.update(&vault, &p(recorder)).await.unwrap());
    assert!(top(&index, "dictaphone", 5).contains(&recorder.to_string()));
    assert!(!top(&index, "microphone", 50).contains(&recorder.to_string()));
    assert_eq!(index.note_count(), NOTES + 1);

    // Rename.
    vault.rename(&p("en/Inbox/Zyzzyva.md"), &p("en/Inbox/Plans.md")).await.unwrap();
    index.rename(&vault, &p("en/Inbox/Zyzzyva.md"), &p("en/Inbox/Plans.md")).await.unwrap();
    assert_eq!(top(&index, "quokkafest", 3), vec!["en/Inbox/Plans.md"]);

    // Delete: a vanished note is removed by update, or directly.
    vault.remove(&p("en/Inbox/Plans.md")).await.unwrap();
    assert!(index.update(&vault, &p("en/Inbox/Plans.md")).await.unwrap());
    assert!(top(&index, "quokkafest", 3).is_empty());
    assert!(index.remove("en/Plugins/Backlinks.md"));
    assert!(!top(&index, "backlinks", 20).contains(&"en/Plugins/Backlinks.md".to_string()));
    assert_eq!(index.note_count(), NOTES - 1);

    // Many updates merge deltas; compaction folds them in and keeps the answers.
    for i in 0..20 {
        let path = p(&format!("en/Inbox/n{i}.md"));
        vault.write(&path, &format!("# Note {i}\n\nplatypusword{i}")).await.unwrap();
        index.update(&vault, &path).await.unwrap();
    }
    assert!(index.delta_count() <= vault_agent::search::MAX_DELTA_SHARDS);
    assert_eq!(top(&index, "platypusword7", 3), vec!["en/Inbox/n7.md"]);
    index.compact().unwrap();
    assert_eq!(index.delta_count(), 0);
    assert_eq!(top(&index, "platypusword7", 3), vec!["en/Inbox/n7.md"]);
    assert!(top(&index, "dictaphone", 5).contains(&recorder.to_string()));
    assert!(!top(&index, "backlinks", 20).contains(&"en/Plugins/Backlinks.md".to_string()));
    assert_eq!(index.note_count(), NOTES + 19);
}

/// The real vault's English notes, in memory.
async fn english_vault() -> MemoryVault {
    let vault = MemoryVault::new();
    let root = vault_dir();
    let mut stack = vec![root.join("en")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(&root).unwrap().to_string_lossy().to_string();
                vault.write(&p(&rel), &std::fs::read_to_string(&path).unwrap()).await.unwrap();
            }
        }
    }
    vault
}

/// The saved index's part whose name starts with `prefix` (parts are named by their checksums).
async fn saved_part(vault: &MemoryVault, prefix: &str) -> VaultPath {
    let files = vault.list(&p(INDEX_DIR)).await.unwrap().files;
    files.into_iter().find(|f| f.name().unwrap().starts_with(prefix)).unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn a_corrupted_saved_index_is_rebuilt_without_a_crash() {
    let vault = english_vault().await;
    let clock = ManualClock::new(0);
    let (mut index, outcome) = SearchIndex::load_or_build(&vault, &clock, &mut |_| {}).await.unwrap();
    assert_eq!(outcome, LoadOutcome::Built { reason: LoadProblem::Missing });
    index.persist(&vault).await.unwrap();
    let (_, outcome) = SearchIndex::load_or_build(&vault, &clock, &mut |_| {}).await.unwrap();
    assert_eq!(outcome, LoadOutcome::Loaded);

    let segments = saved_part(&vault, "segments-").await;
    let good = vault.read_binary(&segments).await.unwrap();
    let damages: Vec<Vec<u8>> = vec![
        good[..good.len() / 2].to_vec(),
        good.iter().enumerate().map(|(i, b)| if i % 97 == 0 { !b } else { *b }).collect(),
        Vec::new(),
    ];
    for damaged in damages {
        vault.write_binary(&segments, &damaged).await.unwrap();
        let (index, outcome) = SearchIndex::load_or_build(&vault, &clock, &mut |_| {}).await.unwrap();
        assert!(matches!(outcome, LoadOutcome::Built { reason: LoadProblem::Corrupt(_) }), "{outcome:?}");
        assert_in_top(&index, "audio recorder", "en/Plugins/Audio recorder.md", 3);
    }

    // A manifest that is not JSON, and one from another format version.
    let manifest = p(&format!("{INDEX_DIR}/manifest.json"));
    vault.write_binary(&manifest, b"{ not json").await.unwrap();
    let (_, outcome) = SearchIndex::load_or_build(&vault, &clock, &mut |_| {}).await.unwrap();
    assert!(matches!(outcome, LoadOutcome::Built { reason: LoadProblem::Corrupt(_) }), "{outcome:?}");
    index.persist(&vault).await.unwrap();
    let text = String::from_utf8(vault.read_binary(&manifest).await.unwrap()).unwrap();
    let current = format!("\"format\": {FORMAT_VERSION}");
    assert!(text.contains(&current), "{text}");
    vault.write(&manifest, &text.replace(&current, "\"format\": 999")).await.unwrap();
    let (_, outcome) = SearchIndex::load_or_build(&vault, &clock, &mut |_| {}).await.unwrap();
    assert!(matches!(outcome, LoadOutcome::Built { reason: LoadProblem::Stale(_) }), "{outcome:?}");
}

/// A plugin saves its index when it unloads, and Obsidian closes often: an index saves only what
/// no save has written, so a quiet session writes nothing.
#[tokio::test(flavor = "current_thread")]
async fn an_index_knows_whether_it_holds_changes_no_save_has_written() {
    let vault = MemoryVault::new();
    let mut index =
        SearchIndex::from_notes([("a.md", "# A\n\nalpha words", 1), ("b.md", "# B\n\nbeta words", 1)]).unwrap();
    assert!(index.has_unsaved_changes(), "a new index is not saved");
    index.persist(&vault).await.unwrap();
    assert!(!index.has_unsaved_changes());

    // Loaded, it is what was saved.
    let mut loaded = SearchIndex::load(&vault).await.ok().unwrap();
    assert!(!loaded.has_unsaved_changes());
    // The same text at the same date changes nothing; at a new date, the catalog's date changes.
    assert!(!loaded.index_note("a.md", "# A\n\nalpha words", 1).unwrap());
    assert!(!loaded.has_unsaved_changes());
    assert!(!loaded.index_note("a.md", "# A\n\nalpha words", 2).unwrap());
    assert!(loaded.has_unsaved_changes(), "a re-dated note is saved, or every start reads it again");
    loaded.persist(&vault).await.unwrap();
    assert!(!loaded.has_unsaved_changes());
    assert!(!loaded.remove("missing.md"));
    assert!(!loaded.has_unsaved_changes());
    assert!(loaded.remove("b.md"));
    assert!(loaded.has_unsaved_changes());

    // A change made while a save was being written stays unsaved.
    let snapshot = loaded.snapshot().unwrap();
    assert!(loaded.index_note("c.md", "# C\n\ngamma", 3).unwrap());
    snapshot.write(&vault).await.unwrap();
    loaded.saved(&snapshot);
    assert!(loaded.has_unsaved_changes());
    let snapshot = loaded.snapshot().unwrap();
    snapshot.write(&vault).await.unwrap();
    loaded.saved(&snapshot);
    assert!(!loaded.has_unsaved_changes());

    // So does an index built anew while an older one's save was being written.
    let mut rebuilt = SearchIndex::from_notes([("a.md", "# A\n\nalpha words", 1)]).unwrap();
    rebuilt.saved(&snapshot);
    assert!(rebuilt.has_unsaved_changes());
}

/// A save after a few edits writes what changed — the new notes' documents, which of the main
/// shard's are replaced, and the catalog's changed entries — beside the main shard and the
/// catalog already saved, which it does not write again; a saved index loads with those changes
/// and answers as the index that saved it. Past its bound of changes, a save compacts and writes
/// a new main shard and a whole catalog.
#[tokio::test(flavor = "current_thread")]
async fn a_save_after_a_few_edits_writes_the_changes_and_not_the_whole_index() {
    let vault = english_vault().await;
    let clock = ManualClock::new(0);
    let mut index = SearchIndex::build(&vault, &clock, &mut |_| {}).await.unwrap();
    let whole = index.persist(&vault).await.unwrap();
    let main = saved_part(&vault, "segments-").await;
    let main_bytes = vault.read_binary(&main).await.unwrap();
    let catalog = saved_part(&vault, "catalog-").await;

    // Two notes changed, one added, one removed.
    vault.write(&p("en/Plugins/Canvas.md"), "# Canvas\n\nA board of cards, now about wombatboards.").await.unwrap();
    vault.write(&p("en/Plugins/Backlinks.md"), "# Backlinks\n\nLinks that point here, rewritten.").await.unwrap();
    vault.write(&p("en/Inbox/New idea.md"), "# New idea\n\nquokkafest planning, see [[Canvas]].").await.unwrap();
    vault.remove(&p("en/Plugins/Audio recorder.md")).await.unwrap();
    for note in
        ["en/Plugins/Canvas.md", "en/Plugins/Backlinks.md", "en/Inbox/New idea.md", "en/Plugins/Audio recorder.md"]
    {
        assert!(index.update(&vault, &p(note)).await.unwrap(), "{note}");
    }
    // And one note re-dated, its text the same: the catalog's date changes.
    let text = vault.read(&p("en/Plugins/Graph view.md")).await.unwrap();
    assert!(!index.index_note("en/Plugins/Graph view.md", &text, 777).unwrap());
    assert!(!index.compaction_due(), "4 changes are within the bound of {}", index.changes_bound());
    let written = index.persist(&vault).await.unwrap();
    assert!(written < whole / 50, "{written} bytes written after five changes, {whole} for the whole index");
    assert_eq!(saved_part(&vault, "segments-").await, main, "the main shard is not written again");
    assert_eq!(vault.read_binary(&main).await.unwrap(), main_bytes);
    assert_eq!(saved_part(&vault, "catalog-").await, catalog, "nor the catalog: its changes beside it");
    saved_part(&vault, "changes-").await;
    assert_eq!(index.delta_count(), 1, "the deltas folded into one, as saved");

    let mut loaded = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    assert_eq!(
        (loaded.note_count(), loaded.delta_count(), loaded.has_unsaved_changes()),
        (index.note_count(), 1, false)
    );
    assert_same_answers(&loaded, &index);
    for text in ["wombatboards", "quokkafest", "audio recorder", "rewritten", "canvas", "backlinks"] {
        assert_eq!(scored(&loaded, text), scored(&index, text), "{text:?}");
    }
    assert_eq!(top(&loaded, "wombatboards", 3), vec!["en/Plugins/Canvas.md"]);
    assert_eq!(loaded.note("en/Plugins/Graph view.md").unwrap().mtime, 777);
    assert!(loaded.note("en/Plugins/Audio recorder.md").is_none());
    assert_eq!(loaded.note("en/Inbox/New idea.md"), index.note("en/Inbox/New idea.md"));
    assert!(!top(&loaded, "audio recorder", 20).contains(&"en/Plugins/Audio recorder.md".to_string()));
    assert_eq!(loaded.backlinks("en/Plugins/Canvas.md").unwrap(), index.backlinks("en/Plugins/Canvas.md").unwrap());
    assert!(loaded.backlinks("en/Plugins/Canvas.md").unwrap().contains(&"en/Inbox/New idea.md".to_string()));
    // Loaded and unchanged, it saves nothing.
    assert!(!loaded.has_unsaved_changes());

    // Past the bound, the save compacts: a new main shard, no deltas, the old files gone.
    let bound = loaded.changes_bound();
    for i in 0..=bound {
        assert!(loaded.index_note(&format!("en/Inbox/n{i}.md"), &format!("# N{i}\n\nplatypusword{i}"), 1).unwrap());
    }
    assert!(loaded.compaction_due());
    loaded.persist(&vault).await.unwrap();
    assert_eq!((loaded.delta_count(), loaded.needs_compaction()), (0, false));
    let files: Vec<String> =
        vault.list(&p(INDEX_DIR)).await.unwrap().files.iter().map(|f| f.name().unwrap().to_string()).collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(
        !files.contains(&main.name().unwrap().to_string()) && !files.contains(&catalog.name().unwrap().to_string())
    );
    assert!(!files.iter().any(|f| f.starts_with("deltas-") || f.starts_with("changes-")));
    let mut compacted = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    assert_eq!((compacted.note_count(), compacted.delta_count()), (index.note_count() + bound + 1, 0));
    assert_same_answers(&compacted, &loaded);
    assert_eq!(top(&compacted, &format!("platypusword{bound}"), 3), vec![format!("en/Inbox/n{bound}.md")]);

    // Past the bound of catalog entries alone (notes re-dated, their text the same), the save
    // writes a whole catalog, and the main shard stays as saved.
    let main = saved_part(&vault, "segments-").await;
    let catalog = saved_part(&vault, "catalog-").await;
    for i in 0..=bound {
        assert!(!compacted.index_note(&format!("en/Inbox/n{i}.md"), &format!("# N{i}\n\nplatypusword{i}"), 2).unwrap());
    }
    assert!(!compacted.compaction_due());
    compacted.persist(&vault).await.unwrap();
    assert_eq!(saved_part(&vault, "segments-").await, main);
    assert_ne!(saved_part(&vault, "catalog-").await, catalog);
    assert_eq!(vault.list(&p(INDEX_DIR)).await.unwrap().files.len(), 3);
    let redated = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    assert_eq!(redated.note(&format!("en/Inbox/n{bound}.md")).unwrap().mtime, 2);
}

/// A manifest whose list of replaced documents names one the main shard does not hold is
/// corrupt, and so is a save whose deltas' file is gone: the index is built again.
#[tokio::test(flavor = "current_thread")]
async fn a_save_of_changes_with_a_bad_removal_or_a_missing_deltas_file_is_rebuilt() {
    let vault = MemoryVault::new();
    for i in 0..20 {
        vault.write(&p(&format!("n{i}.md")), &format!("# N{i}\n\nword{i} and shared words")).await.unwrap();
    }
    let clock = ManualClock::new(0);
    let mut index = SearchIndex::build(&vault, &clock, &mut |_| {}).await.unwrap();
    index.persist(&vault).await.unwrap();
    vault.write(&p("n3.md"), "# N3\n\nword3 changed").await.unwrap();
    assert!(index.update(&vault, &p("n3.md")).await.unwrap());
    index.persist(&vault).await.unwrap();
    let manifest = p(&format!("{INDEX_DIR}/manifest.json"));
    let good = String::from_utf8(vault.read_binary(&manifest).await.unwrap()).unwrap();
    assert!(good.contains("\"removed\""), "{good}");

    async fn rebuilt(vault: &MemoryVault) {
        let (index, outcome) = SearchIndex::load_or_build(vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
        assert!(matches!(outcome, LoadOutcome::Built { reason: LoadProblem::Corrupt(_) }), "{outcome:?}");
        assert_eq!(top(&index, "changed", 3), vec!["n3.md"]);
    }
    // The replaced document at another place (the catalog and the live documents disagree), or
    // past the end of its segment.
    let mut json: serde_json::Value = serde_json::from_str(&good).unwrap();
    let doc = json["removed"][0][1].as_u64().unwrap();
    for other in [(doc + 1) % 20, 99] {
        json["removed"][0][1] = other.into();
        vault.write(&manifest, &json.to_string()).await.unwrap();
        rebuilt(&vault).await;
    }
    // The deltas' file is gone.
    vault.write(&manifest, &good).await.unwrap();
    let deltas = saved_part(&vault, "deltas-").await;
    vault.remove(&deltas).await.unwrap();
    rebuilt(&vault).await;
}

/// A loaded index's save of its changes does not pack its main shard again, only names it; if
/// that shard's file went missing meanwhile, the save writes it again, the same bytes.
#[tokio::test(flavor = "current_thread")]
async fn a_save_after_a_load_rewrites_the_main_shard_only_when_its_file_is_gone() {
    let vault = MemoryVault::new();
    for i in 0..20 {
        vault.write(&p(&format!("n{i}.md")), &format!("# N{i}\n\nword{i} and shared words")).await.unwrap();
    }
    let clock = ManualClock::new(0);
    let mut index = SearchIndex::build(&vault, &clock, &mut |_| {}).await.unwrap();
    let whole = index.persist(&vault).await.unwrap();
    let main = saved_part(&vault, "segments-").await;
    let main_bytes = vault.read_binary(&main).await.unwrap();

    let mut loaded = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    vault.write(&p("n3.md"), "# N3\n\nword3 changed").await.unwrap();
    assert!(loaded.update(&vault, &p("n3.md")).await.unwrap());
    let changes = loaded.persist(&vault).await.unwrap();
    assert!(changes < main_bytes.len(), "{changes} bytes written of {whole}");
    assert_eq!(vault.read_binary(&main).await.unwrap(), main_bytes);

    vault.remove(&main).await.unwrap();
    vault.write(&p("n4.md"), "# N4\n\nword4 changed").await.unwrap();
    assert!(loaded.update(&vault, &p("n4.md")).await.unwrap());
    let again = loaded.persist(&vault).await.unwrap();
    assert!(again > main_bytes.len(), "{again} bytes written: the main shard again");
    assert_eq!(vault.read_binary(&main).await.unwrap(), main_bytes, "the same name, the same bytes");
    let reloaded = SearchIndex::load(&vault).await.map_err(|e| format!("{e:?}")).unwrap();
    assert_eq!(top(&reloaded, "changed", 3), top(&loaded, "changed", 3));
    assert_eq!(top(&reloaded, "word4", 3), vec!["n4.md"]);
}

#[tokio::test(flavor = "current_thread")]
async fn building_yields_to_the_host_and_sync_catches_up_with_the_vault() {
    let vault = english_vault().await;
    vault.write(&p(".obsidian/workspace.md"), "hidden settings zorblax").await.unwrap();
    vault.write(&p(".trash/old.md"), "trashed zorblax").await.unwrap();
    let clock = ManualClock::new(0);
    let mut reports = Vec::new();
    let mut index = SearchIndex::build(&vault, &clock, &mut |p| reports.push(p)).await.unwrap();
    assert_eq!(index.note_count(), 173);
    assert!(top(&index, "zorblax", 5).is_empty(), "hidden folders are skipped");
    assert_eq!(reports.last(), Some(&Progress { done: 173, total: 173 }));

    vault.write(&p("en/New.md"), "# New\n\nwombatword").await.unwrap();
    vault.remove(&p("en/Plugins/Canvas.md")).await.unwrap();
    let changed = index.sync(&vault, &clock, &mut |_| {}).await.unwrap();
    assert_eq!(changed, 2);
    assert_eq!(top(&index, "wombatword", 3), vec!["en/New.md"]);
    assert!(index.note("en/Plugins/Canvas.md").is_none());
    // A second sync finds nothing to do.
    assert_eq!(index.sync(&vault, &clock, &mut |_| {}).await.unwrap(), 0);
}

/// Obsidian's own search finds a property's value; so does ours, except for the properties that
/// are settings (CSS classes, publish options), not the note's words.
#[tokio::test(flavor = "current_thread")]
async fn a_property_value_is_found_by_its_words() {
    let vault = english_vault().await;
    let note = "---\nauthor: Daniel Kahneman\nsources: [Thinking Fast and Slow, Noise]\n\
                description: Two systems of judgement.\ncssclasses: quokkawide\n---\n# Reading notes\n\nSlow thinking.";
    vault.write(&p("en/Books/Reading.md"), note).await.unwrap();
    let index = SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
    assert_eq!(top(&index, "kahneman", 3), vec!["en/Books/Reading.md"]);
    assert_eq!(top(&index, "\"fast and slow\"", 3), vec!["en/Books/Reading.md"]);
    assert_eq!(top(&index, "judgement", 3), vec!["en/Books/Reading.md"]);
    assert!(top(&index, "quokkawide", 3).is_empty());
}

#[test]
fn an_english_reader_gets_the_english_note_before_its_translations() {
    let index = &shared().index;
    let english = |text: &str| SearchQuery { text: text.into(), language: Some("en".into()), ..SearchQuery::default() };
    // "canvas" is the title of the canvas note in several translations too.
    let hits = index.search(&english("canvas")).unwrap();
    assert_eq!(hits[0].path, "en/Plugins/Canvas.md", "{:#?}", hits.iter().map(|h| &h.path).collect::<Vec<_>>());
    // The query's own words say English, whatever the user's setting.
    let question = SearchQuery { language: Some("pt-BR".into()), ..english("how do I use the canvas") };
    assert_eq!(index.search(&question).unwrap()[0].path, "en/Plugins/Canvas.md");
    // A Portuguese reader's bare word: a Portuguese note first (`pt/` or `pt-br/`).
    let portuguese = SearchQuery { language: Some("pt".into()), ..english("canvas") };
    assert!(index.search(&portuguese).unwrap()[0].path.starts_with("pt"));
    // A query in another script finds the notes written in it, whatever the user's language.
    assert_eq!(index.search(&english("白板")).unwrap()[0].path, "zh/插件/白板.md");
    assert_eq!(index.search(&english("Холст")).unwrap()[0].path, "ru/Плагины/Холст.md");
}

/// How many hits are asked for does not change which come first, even where each English note
/// has twenty translations that score above it until other languages are pushed down: "how do I
/// publish a site" first ranked 50 candidates that held four English notes and 46 translations,
/// so the English "Publish your content" (fifth of all) was missing from a page of ten.
#[test]
fn a_page_of_hits_is_the_head_of_a_longer_one_however_many_translations_outscore_it() {
    let index = &shared().index;
    let ask = |text: &str, limit: usize| {
        let request = SearchQuery { text: text.into(), language: Some("en".into()), limit, ..SearchQuery::default() };
        index.search(&request).unwrap().into_iter().map(|h| h.path).collect::<Vec<String>>()
    };
    for text in ["how do I publish a site", "canvas", "sync settings", "internal links", "publish"] {
        let long = ask(text, 200);
        for limit in [5, 10, 30] {
            assert_eq!(ask(text, limit), long[..limit.min(long.len())], "{text:?}, {limit} hits");
        }
    }
    let page = ask("how do I publish a site", 10);
    assert!(page[..7].iter().all(|p| p.starts_with("en/")), "{page:#?}");
    assert!(page.contains(&"en/Obsidian Publish/Publish your content.md".to_string()), "{page:#?}");
}

#[test]
fn a_question_in_plain_words_finds_its_note_in_the_top_3() {
    let index = &shared().index;
    for (question, note) in [
        ("how do I embed a YouTube video or a web page in a note", "en/Editing and formatting/Embed web pages.md"),
        ("how do I turn on two factor authentication for my account?", "en/Obsidian/2-factor authentication.md"),
        ("how do I change the language of the app interface?", "en/User interface/Language settings.md"),
    ] {
        let request = SearchQuery { text: question.into(), language: Some("en".into()), ..SearchQuery::default() };
        let hits = index.search(&request).unwrap();
        let top: Vec<&str> = hits.iter().take(3).map(|h| h.path.as_str()).collect();
        assert!(top.contains(&note), "{question:?}: {top:#?}");
    }
}

/// Found by fuzzing (tests/fuzz.rs, `query`): excluding a phrase that matches no note tripped an
/// assertion in tantivy's phrase scorer. Exclusions still exclude exactly what they name.
#[tokio::test(flavor = "current_thread")]
async fn excluded_phrases_exclude_exactly_their_matches_and_never_panic() {
    let vault = MemoryVault::with_notes([
        ("a.md", "A garden note about seeds."),
        ("b.md", "A garden note without them."),
        ("c.md", "Seeds for the garden."),
    ])
    .unwrap();
    let index = SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {}).await.unwrap();
    let found = |text: &str| {
        let mut paths = top(&index, text, 10);
        paths.sort();
        paths
    };
    assert_eq!(found("\"garden note\" -seeds~2"), ["a.md", "b.md"], "a phrase matching nothing excludes nothing");
    assert_eq!(found("\"garden note\" AND NOT \"seeds 1\""), ["a.md", "b.md"]);
    assert_eq!(found("\"garden note\" -seeds"), ["b.md"]);
    assert_eq!(found("garden -\"note about\""), ["b.md", "c.md"]);
    assert_eq!(found("-\"garden note\""), ["c.md"]);
}

/// tantivy's `regex` is the `regex-lite` stand-in (crates/regex-via-lite): a facet with a slash
/// in one of its steps still prints escaped, and reads back as the same facet.
#[test]
fn tantivys_regex_stand_in_escapes_a_facets_slashes() {
    let facet = tantivy::schema::Facet::from_text(r"/notes\/drafts/2026").expect("a valid facet");
    assert_eq!(facet.to_string(), r"/notes\/drafts/2026");
    assert_eq!(tantivy::schema::Facet::from_text(&facet.to_string()).expect("reads back"), facet);
}

/// A query crosses into the core in camelCase (the plugin's one case) and still reads the
/// snake_case names callers wrote before.
#[test]
fn a_search_query_reads_camel_case_and_the_older_snake_case_names() {
    let camel: SearchQuery =
        serde_json::from_str(r#"{"text": "sync", "pathPrefix": "en/", "snippetLimit": 3}"#).expect("camelCase");
    let snake: SearchQuery =
        serde_json::from_str(r#"{"text": "sync", "path_prefix": "en/", "snippet_limit": 3}"#).expect("snake_case");
    assert_eq!(camel, snake);
    assert_eq!(camel.path_prefix.as_deref(), Some("en/"));
    assert_eq!(camel.snippet_limit, Some(3));
    assert_eq!(camel.limit, 10, "what is left out keeps its default");
}

/// A part built elsewhere that fails when it is finished (a worker that died).
struct FailingParts;

struct FailingPart;

#[async_trait::async_trait(?Send)]
impl RemotePart for FailingPart {
    fn add(&self, _notes: &[(&str, &str, u64)]) {}

    fn finish(&self) -> PartFuture<'_> {
        Box::pin(async { Err(vault_agent::Error::Invalid("the worker ended".into())) })
    }
}

#[async_trait::async_trait(?Send)]
impl PartWorkers for FailingParts {
    async fn start(&self, count: usize) -> vault_agent::Result<Vec<Box<dyn RemotePart>>> {
        Ok((0..count).map(|_| Box::new(FailingPart) as Box<dyn RemotePart>).collect())
    }
}

/// The hits of `text` as `path → score`, for comparing two indexes of the same notes.
fn scored(index: &SearchIndex, text: &str) -> Vec<(String, f32)> {
    let query = SearchQuery { text: text.into(), limit: 8, snippets: false, ..SearchQuery::default() };
    index.search(&query).unwrap().into_iter().map(|h| (h.path, h.score)).collect()
}

fn assert_same_answers(a: &SearchIndex, b: &SearchIndex) {
    for text in
        ["canvas", "daily notes template", "how do I publish a site", "录音机", "graph vew", "\"internal links\""]
    {
        let (x, y) = (scored(a, text), scored(b, text));
        assert_eq!(x.len(), y.len(), "{text:?}: {x:?} vs {y:?}");
        let close = |s: f32, t: f32| (s - t).abs() <= 1e-4 * s.abs().max(1.0);
        assert!(x.iter().zip(&y).all(|((_, s), (_, t))| close(*s, *t)), "{text:?}: {x:?} vs {y:?}");
        // Notes of equal score may come in either order, and the last score's ties may be
        // cut differently: the notes above it are the same.
        let last = x.last().map_or(0.0, |h| h.1);
        let above = |hits: &[(String, f32)]| {
            let mut paths: Vec<String> =
                hits.iter().filter(|(_, s)| !close(*s, last)).map(|(p, _)| p.clone()).collect();
            paths.sort();
            paths
        };
        assert_eq!(above(&x), above(&y), "{text:?}");
    }
}

#[test]
fn a_build_in_parts_answers_as_one_built_here_before_and_after_its_compaction() {
    let base = &shared().index;
    runtime().block_on(async {
        let vault = FsVault::open(vault_dir()).unwrap();
        let parts = remote_parts_for(NOTES);
        assert!(parts >= 2, "the sample vault is split: {parts} parts elsewhere");
        let mut progress = Vec::new();
        let mut index =
            SearchIndex::build_in_parts(&vault, &SystemClock, &mut |p| progress.push(p), Some(&InProcessParts))
                .await
                .unwrap();
        assert_eq!(index.note_count(), NOTES);
        assert_eq!(index.built_in_parts(), parts + 1);
        assert_eq!(
            (index.delta_count(), index.main_segments(), index.needs_compaction()),
            (0, parts + 1, false),
            "each part is a segment of the main shard, as it was built"
        );
        assert_eq!(progress.last(), Some(&Progress { done: NOTES, total: NOTES }));
        assert_same_answers(&index, base);
        assert_eq!(index.backlinks("en/Plugins/Canvas.md").unwrap(), base.backlinks("en/Plugins/Canvas.md").unwrap());

        // The first save writes the parts as they are, and they load as they were.
        let memory = MemoryVault::new();
        index.persist(&memory).await.unwrap();
        assert_eq!(index.main_segments(), parts + 1, "no merge before the first save");
        let mut loaded = SearchIndex::load(&memory).await.map_err(|e| format!("{e:?}")).unwrap();
        assert_eq!((loaded.note_count(), loaded.main_segments()), (NOTES, parts + 1));
        assert_same_answers(&loaded, base);

        // The save after a change folds them into one segment: the notes that rank first for
        // "canvas", removed, are gone from every answer, and the rest answer as before.
        let mut base = SearchIndex::load(&memory).await.map_err(|e| format!("{e:?}")).unwrap();
        let gone: Vec<String> = top(&loaded, "canvas", 8);
        for path in &gone {
            assert!(loaded.remove(path));
            assert!(base.remove(path));
        }
        base.compact().unwrap();
        loaded.persist(&memory).await.unwrap();
        assert_eq!((loaded.main_segments(), loaded.delta_count()), (1, 0));
        let reloaded = SearchIndex::load(&memory).await.map_err(|e| format!("{e:?}")).unwrap();
        assert_eq!((reloaded.note_count(), reloaded.main_segments()), (NOTES - gone.len(), 1));
        assert!(top(&reloaded, "canvas", 30).iter().all(|p| !gone.contains(p)));
        assert_same_answers(&reloaded, &base);
    });
}

#[test]
fn a_part_that_fails_elsewhere_leaves_every_note_indexed_here() {
    let base = &shared().index;
    runtime().block_on(async {
        let vault = FsVault::open(vault_dir()).unwrap();
        let index = SearchIndex::build_in_parts(&vault, &SystemClock, &mut |_| {}, Some(&FailingParts)).await.unwrap();
        assert_eq!(index.note_count(), NOTES);
        assert_eq!((index.delta_count(), index.built_in_parts()), (0, 1), "built here, in one shard");
        assert_same_answers(&index, base);
    });
}

/// Parts elsewhere that send back damaged bytes: `cut` segments, or a catalog of other notes.
struct DamagedParts {
    cut: bool,
}

struct DamagedPart(InProcessPart, bool);

type InProcessPart = Box<dyn RemotePart>;

#[async_trait::async_trait(?Send)]
impl RemotePart for DamagedPart {
    fn add(&self, notes: &[(&str, &str, u64)]) {
        self.0.add(notes);
    }

    fn finish(&self) -> PartFuture<'_> {
        let (asked, cut) = (self.0.finish(), self.1);
        Box::pin(async move {
            let mut part = asked.await?;
            if cut {
                part.segments.truncate(part.segments.len() / 2);
            } else {
                part.catalog = br#"{"c.md":{"title":"C","tags":[],"links":[],"mtime":0,"hash":""}}"#.to_vec();
            }
            Ok(part)
        })
    }
}

#[async_trait::async_trait(?Send)]
impl PartWorkers for DamagedParts {
    async fn start(&self, count: usize) -> vault_agent::Result<Vec<Box<dyn RemotePart>>> {
        let parts = InProcessParts.start(count).await?;
        Ok(parts.into_iter().map(|p| Box::new(DamagedPart(p, self.cut)) as Box<dyn RemotePart>).collect())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_part_sent_back_damaged_is_not_used_and_parts_build_on_threads_too() {
    let vault = MemoryVault::new();
    let notes = 2 * NOTES_PER_PART + 10;
    for i in 0..notes {
        vault.write(&p(&format!("n/{i}.md")), &format!("# Note {i}\n\nWord{i} and [[{}]].", i / 2)).await.unwrap();
    }
    assert_eq!(remote_parts_for(notes), 1);
    for cut in [true, false] {
        let parts = DamagedParts { cut };
        let index = SearchIndex::build_in_parts(&vault, &SystemClock, &mut |_| {}, Some(&parts)).await.unwrap();
        assert_eq!(index.note_count(), notes);
        assert_eq!((index.delta_count(), index.built_in_parts()), (0, 1), "cut {cut}: built here");
        assert_eq!(top(&index, "word2999", 1), vec!["n/2999.md".to_string()]);
    }
    let index = SearchIndex::build_in_parts(&vault, &SystemClock, &mut |_| {}, Some(&InProcessParts)).await.unwrap();
    assert_eq!((index.note_count(), index.main_segments(), index.built_in_parts()), (notes, 2, 2));
    assert_eq!(top(&index, "word2999", 1), vec!["n/2999.md".to_string()]);

    // The CLI's parts: threads, as many as the machine has cores to spare.
    let spare = std::thread::available_parallelism().map_or(1, |n| n.get()) - 1;
    let index = SearchIndex::build_in_parts(&vault, &SystemClock, &mut |_| {}, Some(&ThreadParts)).await.unwrap();
    assert_eq!((index.note_count(), index.built_in_parts()), (notes, 1 + spare.min(1)));
    assert_eq!(top(&index, "word2999", 1), vec!["n/2999.md".to_string()]);
    assert_eq!(top(&index, "word64", 1), vec!["n/64.md".to_string()], "a note of the second batch");
}
