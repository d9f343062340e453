//! Replace-safe saves of the index and the vectors: damaged files are detected and rebuilt
//! without a panic, and a save interrupted at any call leaves a loadable version.

use futures::executor::block_on;
use vault_agent::embed::{Precision, SemanticIndex, VectorIndex, VECTORS_FILE};
use vault_agent::host::ManualClock;
use vault_agent::search::{LoadOutcome, LoadProblem, SearchIndex, SearchQuery, Snapshot, INDEX_DIR};
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

use crate::faulty_vault::{Fault, FaultyVault};

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

/// `count` notes, each with a word of its own (`uniqueword<i>`).
fn notes(count: usize) -> MemoryVault {
    let vault = MemoryVault::new();
    for i in 0..count {
        let text = format!("# Note {i}\n\nShared text about gardens and uniqueword{i}.\n\n#tag{}\n", i % 3);
        block_on(vault.write(&p(&format!("notes/n{i}.md")), &text)).unwrap();
    }
    vault
}

fn build(vault: &dyn Vault) -> SearchIndex {
    block_on(SearchIndex::build(vault, &ManualClock::new(0), &mut |_| {})).unwrap()
}

fn finds(index: &SearchIndex, word: &str) -> bool {
    let hits = index.search(&SearchQuery { text: word.into(), limit: 3, ..SearchQuery::default() }).unwrap();
    !hits.is_empty()
}

/// Offsets spread over `0..len` (about `n` of them, the ends included).
fn offsets(len: usize, n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = (0..len).step_by((len / n).max(1)).collect();
    out.extend([1, len.saturating_sub(1)]);
    out.retain(|&o| o < len);
    out.sort_unstable();
    out.dedup();
    out
}

/// `good` cut short at about `n` offsets, then with one byte flipped at each of them.
fn damaged_copies(good: &[u8], n: usize) -> Vec<Vec<u8>> {
    let truncated = offsets(good.len(), n).into_iter().map(|o| good[..o].to_vec());
    let flipped = offsets(good.len(), n).into_iter().map(|o| {
        let mut bytes = good.to_vec();
        bytes[o] ^= 0xff;
        bytes
    });
    truncated.chain(flipped).collect()
}

/// The saved files of `dir`, as `(path, bytes)`.
fn saved(vault: &MemoryVault, dir: &str) -> Vec<(VaultPath, Vec<u8>)> {
    let files = block_on(vault.list(&p(dir))).unwrap().files;
    files.into_iter().map(|f| (f.clone(), block_on(vault.read_binary(&f)).unwrap())).collect()
}

#[test]
fn every_truncation_and_flipped_byte_of_the_saved_index_is_detected_and_rebuilt() {
    let vault = notes(30);
    let mut index = build(&vault);
    block_on(index.persist(&vault)).unwrap();
    let files = saved(&vault, INDEX_DIR);
    assert_eq!(files.len(), 3, "manifest, segments, catalog: {:?}", files.iter().map(|f| &f.0).collect::<Vec<_>>());
    every_damage_is_detected(&vault, &files, 30);

    // Saved with changes beside the main shard and the catalog: the deltas' file, the removed
    // documents, and the catalog's changed entries.
    block_on(vault.write(&p("notes/n3.md"), "# Note 3\n\nRevised, with uniqueword3 and quokkas.\n")).unwrap();
    block_on(vault.remove(&p("notes/n5.md"))).unwrap();
    for note in ["notes/n3.md", "notes/n5.md"] {
        assert!(block_on(index.update(&vault, &p(note))).unwrap());
    }
    block_on(index.persist(&vault)).unwrap();
    let files = saved(&vault, INDEX_DIR);
    let names: Vec<&str> = files.iter().map(|f| f.0.name().unwrap()).collect();
    assert!(names.iter().any(|n| n.starts_with("deltas-")) && names.iter().any(|n| n.starts_with("changes-")));
    assert_eq!(files.len(), 5, "manifest, segments, deltas, catalog, its changes: {names:?}");
    let manifest = files.iter().find(|f| f.0.name() == Some("manifest.json")).unwrap();
    assert!(String::from_utf8_lossy(&manifest.1).contains("\"removed\""));
    every_damage_is_detected(&vault, &files, 29);
}

/// Each of `files` damaged in turn (truncated, bytes flipped) is found out at load, and the index
/// built again from the vault's `notes` notes.
fn every_damage_is_detected(vault: &MemoryVault, files: &[(VaultPath, Vec<u8>)], notes: usize) {
    let clock = ManualClock::new(0);
    let mut cases = 0;
    for (path, good) in files {
        for damaged in damaged_copies(good, 40) {
            block_on(vault.write_binary(path, &damaged)).unwrap();
            let (index, outcome) = block_on(SearchIndex::load_or_build(vault, &clock, &mut |_| {})).unwrap();
            assert!(
                matches!(outcome, LoadOutcome::Built { reason: LoadProblem::Corrupt(_) }),
                "{path} damaged to {} bytes: {outcome:?}",
                damaged.len()
            );
            assert_eq!(index.note_count(), notes);
            assert!(finds(&index, "uniqueword17"), "the rebuilt index answers");
            cases += 1;
        }
        block_on(vault.write_binary(path, good)).unwrap();
    }
    assert!(cases > 200, "{cases} damaged files tried");
    let (_, outcome) = block_on(SearchIndex::load_or_build(vault, &clock, &mut |_| {})).unwrap();
    assert_eq!(outcome, LoadOutcome::Loaded, "the repaired files load again");
}

fn vectors(notes: usize) -> VectorIndex {
    let mut index = VectorIndex::new("test-embedder", 8, Precision::F32);
    for i in 0..notes {
        let chunks = (0..3).map(|c| (Some(format!("Heading {c}")), (0..8).map(|d| ((i + c + d) % 5) as f32).collect()));
        index.insert(&format!("n{i}.md"), &format!("hash{i}"), i as u64, chunks.collect()).unwrap();
    }
    index
}

#[test]
fn every_truncation_and_flipped_byte_of_the_saved_vectors_is_ignored() {
    let vault = MemoryVault::new();
    block_on(vectors(12).save(&vault)).unwrap();
    let path = p(VECTORS_FILE);
    let good = block_on(vault.read_binary(&path)).unwrap();
    assert_eq!(block_on(VectorIndex::load(&vault)).unwrap().map(|v| v.note_count()), Some(12));
    for damaged in damaged_copies(&good, 200) {
        block_on(vault.write_binary(&path, &damaged)).unwrap();
        let loaded = block_on(VectorIndex::load(&vault)).unwrap();
        assert!(loaded.is_none(), "damaged to {} bytes, still loaded", damaged.len());
    }
}

/// How many changing calls a clean `save` makes, over a vault holding the previous version.
fn calls_of(save: &dyn Fn(&FaultyVault), previous: &dyn Fn(&FaultyVault)) -> usize {
    let vault = FaultyVault::new(MemoryVault::new());
    previous(&vault);
    let before = vault.changes();
    save(&vault);
    vault.changes() - before
}

/// Saves the previous version, then the next one with `fault` injected at each of its calls in
/// turn; after each, a restarted process must load one of the two versions (`check` says which
/// it found). Returns how many interruptions were tried.
fn interrupt_everywhere(
    previous: &dyn Fn(&FaultyVault),
    next: &dyn Fn(&FaultyVault) -> vault_agent::Result<()>,
    check: &dyn Fn(&FaultyVault) -> &'static str,
) -> usize {
    let calls = calls_of(&|v| next(v).unwrap(), previous);
    assert!(calls >= 3, "a save makes several calls ({calls})");
    let mut tried = 0;
    for fault in [Fault::Abort, Fault::Eio, Fault::DiskFull] {
        for at in 0..calls {
            let vault = FaultyVault::new(MemoryVault::new());
            previous(&vault);
            vault.fail_at(at, fault);
            let result = next(&vault);
            assert_eq!(vault.injected().len(), 1, "{fault:?} at call {at}");
            vault.restart();
            let found = check(&vault);
            if result.is_ok() {
                assert_eq!(found, "next", "{fault:?} at call {at}: the save reported success");
            }
            // The next save, without faults, completes whatever state was left.
            next(&vault).unwrap();
            assert_eq!(check(&vault), "next");
            tried += 1;
        }
    }
    tried
}

/// [`interrupt_everywhere`] for two index saves.
fn interrupt_index_saves(old: &Snapshot, new: &Snapshot, check: &dyn Fn(&FaultyVault) -> &'static str) -> usize {
    interrupt_everywhere(
        &|v| {
            block_on(old.write(v)).unwrap();
        },
        &|v| block_on(new.write(v)).map(drop),
        check,
    )
}

fn snapshot_of(vault: &MemoryVault) -> Snapshot {
    build(vault).snapshot().unwrap()
}

#[test]
fn an_index_save_interrupted_at_any_call_leaves_a_loadable_index() {
    let (old, new) = (snapshot_of(&notes(10)), snapshot_of(&notes(11)));
    let check = |vault: &FaultyVault| match block_on(SearchIndex::load(vault)) {
        Ok(index) if index.note_count() == 10 => "previous",
        Ok(index) if index.note_count() == 11 && finds(&index, "uniqueword10") => "next",
        Ok(index) => panic!("an index of {} notes", index.note_count()),
        Err(problem) => panic!("no loadable index: {problem:?} (injected {:?})", vault.injected()),
    };
    let tried = interrupt_index_saves(&old, &new, &check);
    assert!(tried >= 9, "{tried}");

    // Nothing is left behind by the last clean save: the manifest and its two parts.
    let vault = FaultyVault::new(MemoryVault::new());
    block_on(old.write(&vault)).unwrap();
    vault.fail_at(1, Fault::DiskFull);
    block_on(new.write(&vault)).unwrap_err();
    vault.restart();
    block_on(new.write(&vault)).unwrap();
    assert_eq!(saved(vault.inner(), INDEX_DIR).len(), 3);
}

/// A save that writes only the changes beside the main shard (a note added, one changed, one
/// removed) is as safe to interrupt as a whole one.
#[test]
fn a_save_of_the_changes_alone_interrupted_at_any_call_leaves_a_loadable_index() {
    let vault = notes(10);
    let mut index = build(&vault);
    let old = index.snapshot().unwrap();
    block_on(vault.write(&p("notes/n10.md"), "# Note 10\n\nuniqueword10 arrives.\n")).unwrap();
    block_on(vault.write(&p("notes/n2.md"), "# Note 2\n\nuniqueword2, rewritten.\n")).unwrap();
    block_on(vault.remove(&p("notes/n4.md"))).unwrap();
    for note in ["notes/n10.md", "notes/n2.md", "notes/n4.md"] {
        assert!(block_on(index.update(&vault, &p(note))).unwrap());
    }
    let new = index.snapshot().unwrap();
    assert!(!index.compaction_due() && index.delta_count() == 1, "saved as changes beside the main shard");
    let check = |vault: &FaultyVault| match block_on(SearchIndex::load(vault)) {
        Ok(index) if index.note_count() == 10 && finds(&index, "uniqueword4") => "previous",
        Ok(index) if index.note_count() == 10 && finds(&index, "uniqueword10") && !finds(&index, "uniqueword4") => {
            assert!(finds(&index, "rewritten"));
            "next"
        }
        Ok(index) => panic!("an index of {} notes", index.note_count()),
        Err(problem) => panic!("no loadable index: {problem:?} (injected {:?})", vault.injected()),
    };
    let tried = interrupt_index_saves(&old, &new, &check);
    assert!(tried >= 6, "{tried}");
}

/// Saves four notes' vectors with `save(vault, 4)`, then five with a fault at each of its calls
/// in turn: a restarted process loads the four or the five.
fn interrupt_vector_saves(save: &dyn Fn(&FaultyVault, usize) -> vault_agent::Result<usize>) {
    let check = |vault: &FaultyVault| match block_on(VectorIndex::load(vault)).unwrap().map(|v| v.note_count()) {
        Some(4) => "previous",
        Some(5) => "next",
        other => panic!("no loadable vectors: {other:?} (injected {:?})", vault.injected()),
    };
    let tried = interrupt_everywhere(
        &|v| {
            save(v, 4).unwrap();
        },
        &|v| save(v, 5).map(drop),
        &check,
    );
    assert!(tried >= 9, "{tried}");
}

#[test]
fn a_vectors_save_interrupted_at_any_call_leaves_loadable_vectors() {
    interrupt_vector_saves(&|vault, notes| block_on(vectors(notes).save(vault)));
}

/// The embedding job saves through `SemanticIndex::save`: the same guarantee.
#[test]
fn the_embedding_jobs_save_interrupted_at_any_call_leaves_loadable_vectors() {
    interrupt_vector_saves(&|vault, notes| {
        let semantic = SemanticIndex::new();
        semantic.replace(vectors(notes));
        block_on(semantic.save(vault))
    });
}

#[test]
fn the_faulty_vault_keeps_the_vault_contract_when_no_fault_is_due() {
    block_on(crate::vault_contract::run_contract(&FaultyVault::new(MemoryVault::new())));
}

#[test]
fn random_faults_follow_the_seed() {
    let run = |seed| {
        let vault = FaultyVault::new(MemoryVault::new());
        vault.fail_randomly(seed, 4, Fault::Eio);
        let results: Vec<bool> = (0..64).map(|i| block_on(vault.write(&p(&format!("f{i}.md")), "x")).is_ok()).collect();
        (results, vault.injected().len())
    };
    let (a, failures) = run(7);
    assert_eq!(a, run(7).0, "the same seed, the same schedule");
    assert_ne!(a, run(8).0);
    assert!((4..=32).contains(&failures), "about one in four: {failures}");
}
