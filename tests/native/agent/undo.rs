//! Checkpoints and undo: byte-identical restores over random edit sequences, the user's own
//! changes never lost (interleaved at random), folders the task created, plans, redo, and a
//! real task undone.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use proptest::prelude::*;
use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::host::Clock;
use vault_agent::pipeline::{
    apply_undo, list_checkpoints, plan_undo, redo_task, undo_task, CheckpointStore, UndoChoice, UndoChoices,
};
use vault_agent::protocol::EndReason;
use vault_agent::provider::Turn;
use vault_agent::vault::{EntryKind, MemoryVault, Vault, VaultPath};

use super::support::{block_on, p, snapshot, Harness};

/// One change a task might make, on paths drawn from a small set so changes collide.
#[derive(Debug, Clone)]
enum Op {
    Write(usize, Vec<u8>),
    Append(usize, Vec<u8>),
    Move(usize, usize),
    Trash(usize),
    Mkdir(usize),
}

const PATHS: [&str; 8] = ["a.md", "b.md", "Dir/c.md", "Dir/Sub/d.md", "New/e.md", "Dir", "New", "日本/ノート 🎉.md"];

fn op() -> impl Strategy<Value = Op> {
    let bytes = prop::collection::vec(any::<u8>(), 0..40);
    prop_oneof![
        (0..PATHS.len(), bytes.clone()).prop_map(|(i, b)| Op::Write(i, b)),
        (0..PATHS.len(), bytes).prop_map(|(i, b)| Op::Append(i, b)),
        (0..PATHS.len(), 0..PATHS.len()).prop_map(|(a, b)| Op::Move(a, b)),
        (0..PATHS.len()).prop_map(Op::Trash),
        (0..PATHS.len()).prop_map(Op::Mkdir),
    ]
}

fn initial() -> MemoryVault {
    let v =
        MemoryVault::with_notes([("a.md", "alpha\n"), ("Dir/c.md", "gamma\r\n"), ("Dir/Sub/d.md", "delta")]).unwrap();
    block_on(v.write_binary(&p("b.md"), &[0xff, 0xfe, 0x00, 0x41])).unwrap();
    v
}

/// Applies `op` as the pipeline would: record the paths it writes, change the vault, then
/// record what appeared below those paths.
/// Operations the vault refuses (a file where a folder is, a move onto an existing path) are
/// part of the test: a failed change must not confuse the undo.
async fn apply(store: &CheckpointStore, vault: &dyn Vault, op: &Op) {
    let written: Vec<usize> = match op {
        Op::Write(i, _) | Op::Append(i, _) | Op::Trash(i) | Op::Mkdir(i) => vec![*i],
        Op::Move(a, b) => vec![*a, *b],
    };
    change(store, vault, op).await;
    for i in written {
        store.record_created(&p(PATHS[i])).await.unwrap();
    }
}

async fn change(store: &CheckpointStore, vault: &dyn Vault, op: &Op) {
    match op {
        Op::Write(i, bytes) => {
            let path = p(PATHS[*i]);
            store.record(&path).await.unwrap();
            let _ = vault.write_binary(&path, bytes).await;
        }
        Op::Append(i, bytes) => {
            let path = p(PATHS[*i]);
            store.record(&path).await.unwrap();
            if let Ok(mut old) = vault.read_binary(&path).await {
                old.extend_from_slice(bytes);
                let _ = vault.write_binary(&path, &old).await;
            }
        }
        Op::Move(a, b) => {
            let (from, to) = (p(PATHS[*a]), p(PATHS[*b]));
            store.record(&from).await.unwrap();
            store.record(&to).await.unwrap();
            let _ = vault.rename(&from, &to).await;
        }
        Op::Trash(i) => {
            let path = p(PATHS[*i]);
            store.record(&path).await.unwrap();
            let _ = vault.trash(&path).await;
        }
        Op::Mkdir(i) => {
            let path = p(PATHS[*i]);
            store.record(&path).await.unwrap();
            let _ = vault.mkdir(&path).await;
        }
    }
}

/// Every folder outside the agent's folder and the trash.
fn folders(vault: &dyn Vault) -> Vec<String> {
    block_on(async {
        let mut out = Vec::new();
        let mut pending = vec![VaultPath::root()];
        while let Some(dir) = pending.pop() {
            for f in vault.list(&dir).await.unwrap().folders {
                if f.as_str() != ".obsidian-agent" && f.as_str() != ".trash" {
                    out.push(f.to_string());
                    pending.push(f);
                }
            }
        }
        out.sort();
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn undo_restores_every_byte_after_any_sequence_of_changes(ops in prop::collection::vec(op(), 1..12)) {
        let vault: Rc<dyn Vault> = Rc::new(initial());
        let files_before = snapshot(&*vault);
        let folders_before = folders(&*vault);
        let store = CheckpointStore::new(vault.clone(), "prop", 0).unwrap();
        for op in &ops {
            block_on(apply(&store, &*vault, op));
        }
        let report = block_on(undo_task(vault.clone(), "prop", 1)).unwrap();
        prop_assert!(report.failed.is_empty(), "{:?}", report);
        prop_assert_eq!(snapshot(&*vault), files_before, "report: {:?}", report);
        prop_assert_eq!(folders(&*vault), folders_before);
    }
}

/// A step of the story: the task changes something (through its checkpoint), or the user writes
/// a file of their own, which the task's checkpoint does not see.
#[derive(Debug, Clone)]
enum Step {
    Task(Op),
    User(usize),
}

/// Paths the user writes: the task's own paths, and new notes inside folders the task may create.
const USER_PATHS: [&str; 6] = ["a.md", "Dir/c.md", "New/e.md", "New/mine.md", "Dir/Sub/mine.md", "日本/ノート 🎉.md"];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![3 => op().prop_map(Step::Task), 1 => (0..USER_PATHS.len()).prop_map(Step::User)]
}

/// A task's first change, then up to 13 steps of either kind.
fn story() -> impl Strategy<Value = Vec<Step>> {
    (op(), prop::collection::vec(step(), 0..13))
        .prop_map(|(first, rest)| std::iter::once(Step::Task(first)).chain(rest).collect())
}

/// Runs `steps`; returns, per path the user wrote, the bytes they last wrote there. The user's
/// bytes are unique (`USER<n>`), so they can be found wherever they end up.
fn play(store: &CheckpointStore, vault: &dyn Vault, steps: &[Step]) -> HashMap<String, Vec<u8>> {
    let mut user = HashMap::new();
    for (n, step) in steps.iter().enumerate() {
        match step {
            Step::Task(op) => block_on(apply(store, vault, op)),
            Step::User(i) => {
                let bytes = format!("USER{n}").into_bytes();
                if block_on(vault.write_binary(&p(USER_PATHS[*i]), &bytes)).is_ok() {
                    user.insert(USER_PATHS[*i].to_string(), bytes);
                }
            }
        }
    }
    user
}

/// Every file of the vault outside the agent's folder, the trash included.
fn everything(vault: &dyn Vault) -> BTreeMap<String, Vec<u8>> {
    block_on(async {
        let skip = |p: &VaultPath| p.as_str() == ".obsidian-agent";
        let files = vault_agent::vault::walk_files(vault, &VaultPath::root(), &skip).await.unwrap();
        let mut out = BTreeMap::new();
        for f in files {
            out.insert(f.to_string(), vault.read_binary(&f).await.unwrap());
        }
        out
    })
}

/// Whether the checkpoint `task` holds `bytes` (what it would put back).
fn kept_by(vault: &dyn Vault, task: &str, bytes: &[u8]) -> bool {
    let folder = p(&format!(".obsidian-agent/checkpoints/{task}"));
    let files = block_on(vault_agent::vault::walk_files(vault, &folder, &|_| false)).unwrap();
    files.iter().any(|f| block_on(vault.read_binary(f)).unwrap() == bytes)
}

/// The pre-task bytes the checkpoint holds for `path`, if a file was there.
fn prior_bytes(vault: &dyn Vault, task: &str, path: &str) -> Option<Vec<u8>> {
    let folder = format!(".obsidian-agent/checkpoints/{task}");
    let manifest: serde_json::Value =
        serde_json::from_str(&block_on(vault.read(&p(&format!("{folder}/manifest.json")))).unwrap()).unwrap();
    let entry = manifest["entries"].as_array().unwrap().iter().find(|e| e["path"] == path)?;
    let blob = entry["blob"].as_str()?;
    Some(block_on(vault.read_binary(&p(&format!("{folder}/{blob}")))).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    /// With the default choice (keep mine), the user's bytes are never lost: a note the user
    /// wrote last still holds their bytes after the undo, and every byte string of theirs that
    /// existed anywhere (the trash included) still does — in the vault, or in the undo's own
    /// checkpoint, which redo puts back. (The latter when the task moved a note the user had
    /// written into mid-task onto a path the undo restores: for the checkpoint, that note is
    /// what the task left there.)
    #[test]
    fn undo_keeps_the_users_own_changes_by_default(steps in story()) {
        let vault: Rc<dyn Vault> = Rc::new(initial());
        let store = CheckpointStore::new(vault.clone(), "prop", 0).unwrap();
        let user = play(&store, &*vault, &steps);
        let before_undo = everything(&*vault);
        let plan = block_on(plan_undo(&*vault, "prop")).unwrap();
        let report = block_on(undo_task(vault.clone(), "prop", 1)).unwrap();
        prop_assert!(report.failed.is_empty(), "{:?}", report);
        let after = everything(&*vault);
        for (path, bytes) in &user {
            if before_undo.get(path) == Some(bytes) {
                prop_assert_eq!(after.get(path), Some(bytes), "{} lost the user's bytes: {:?}", path, report);
            }
            if before_undo.values().any(|v| v == bytes) {
                let kept = after.values().any(|v| v == bytes) || kept_by(&*vault, &report.undo_checkpoint, bytes);
                prop_assert!(kept, "the user's {:?} are gone: {:?}", bytes, report);
            }
        }
        // The plan named every conflict the undo then kept.
        for conflict in &plan.conflicts {
            prop_assert!(report.kept.iter().any(|k| k.path == conflict.path), "{:?} {:?}", plan, report);
        }
    }

    /// Whatever the user chooses for each conflict is what happens: restore gives the pre-task
    /// bytes back, a copy keeps theirs and saves the pre-task bytes beside them, keep leaves
    /// theirs in place.
    #[test]
    fn each_conflict_follows_the_users_choice(
        steps in story(),
        picks in prop::collection::vec(0..3usize, 8),
    ) {
        let vault: Rc<dyn Vault> = Rc::new(initial());
        let store = CheckpointStore::new(vault.clone(), "prop", 0).unwrap();
        play(&store, &*vault, &steps);
        let before_undo = everything(&*vault);
        let plan = block_on(plan_undo(&*vault, "prop")).unwrap();
        let mut choices = UndoChoices::new();
        for (conflict, pick) in plan.conflicts.iter().zip(picks.iter().cycle()) {
            choices.insert(conflict.path.clone(), conflict.choices[pick % conflict.choices.len()]);
        }
        let report = block_on(apply_undo(vault.clone(), "prop", &choices, 1)).unwrap();
        prop_assert!(report.failed.is_empty(), "{:?}", report);
        let after = everything(&*vault);
        for conflict in &plan.conflicts {
            let path = &conflict.path;
            let was_file = conflict.now == "file";
            match choices[path] {
                UndoChoice::KeepMine => prop_assert_eq!(after.get(path), before_undo.get(path)),
                UndoChoice::SaveCopy => {
                    prop_assert_eq!(after.get(path), before_undo.get(path));
                    let copy = conflict.copy_path.as_ref().unwrap();
                    let prior = prior_bytes(&*vault, "prop", path);
                    prop_assert_eq!(after.get(copy), prior.as_ref(), "{:?}", report);
                }
                UndoChoice::Restore if was_file && conflict.before == "file" => {
                    let prior = prior_bytes(&*vault, "prop", path);
                    prop_assert_eq!(after.get(path), prior.as_ref(), "{:?}", report);
                }
                UndoChoice::Restore if was_file && conflict.before == "absent" => {
                    prop_assert!(!after.contains_key(path), "{:?}", report);
                    // Not lost: what was there is in the trash and in the undo's checkpoint.
                    let bytes = &before_undo[path];
                    prop_assert!(after.values().any(|v| v == bytes));
                }
                UndoChoice::Restore => {}
            }
        }
    }
}

#[test]
fn undo_keeps_what_the_user_typed_after_the_task_unless_told_otherwise() {
    let setup = || {
        let vault: Rc<dyn Vault> = Rc::new(initial());
        let store = CheckpointStore::new(vault.clone(), "20261123-101500", 0).unwrap();
        block_on(apply(&store, &*vault, &Op::Write(0, b"alpha\nthe task's line\n".to_vec())));
        block_on(vault.write(&p("a.md"), "alpha\nthe task's line\nmy own typing\n")).unwrap();
        vault
    };
    // Keep mine, the default.
    let vault = setup();
    let plan = block_on(plan_undo(&*vault, "20261123-101500")).unwrap();
    assert_eq!(plan.conflicts.len(), 1, "{plan:?}");
    assert_eq!(plan.conflicts[0].path, "a.md");
    assert_eq!(plan.conflicts[0].reason, "changed since the task left it");
    assert_eq!(plan.conflicts[0].choices, [UndoChoice::KeepMine, UndoChoice::Restore, UndoChoice::SaveCopy]);
    let report = block_on(undo_task(vault.clone(), "20261123-101500", 1)).unwrap();
    assert_eq!(block_on(vault.read(&p("a.md"))).unwrap(), "alpha\nthe task's line\nmy own typing\n");
    assert_eq!(report.kept.len(), 1);
    assert!(report.kept[0].reason.contains("changed since the task"), "{report:?}");
    assert!(report.restored.is_empty(), "{report:?}");

    // Restore, chosen.
    let vault = setup();
    let choices = UndoChoices::from([("a.md".to_string(), UndoChoice::Restore)]);
    let report = block_on(apply_undo(vault.clone(), "20261123-101500", &choices, 1)).unwrap();
    assert_eq!(block_on(vault.read(&p("a.md"))).unwrap(), "alpha\n");
    assert_eq!(report.restored, ["a.md"]);
    // The typing is not gone: the undo's own checkpoint has it, and redo brings it back.
    block_on(redo_task(vault.clone(), "20261123-101500", &UndoChoices::new(), 2)).unwrap();
    assert_eq!(block_on(vault.read(&p("a.md"))).unwrap(), "alpha\nthe task's line\nmy own typing\n");

    // A copy beside it, chosen.
    let vault = setup();
    let choices = UndoChoices::from([("a.md".to_string(), UndoChoice::SaveCopy)]);
    let report = block_on(apply_undo(vault.clone(), "20261123-101500", &choices, 1)).unwrap();
    assert_eq!(block_on(vault.read(&p("a.md"))).unwrap(), "alpha\nthe task's line\nmy own typing\n");
    assert_eq!(report.copies[0].copy, "a (before task 20261123-101500).md");
    assert_eq!(block_on(vault.read(&p("a (before task 20261123-101500).md"))).unwrap(), "alpha\n");
    // A second copy does not collide with the first.
    let vault2 = vault.clone();
    block_on(vault2.write(&p("a.md"), "typed again")).unwrap();
    let plan = block_on(plan_undo(&*vault2, "20261123-101500")).unwrap();
    assert_eq!(plan.conflicts[0].copy_path.as_deref(), Some("a (before task 20261123-101500) 2.md"));
}

#[test]
fn a_folder_the_task_created_keeps_the_users_own_notes() {
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let store = CheckpointStore::new(vault.clone(), "t", 0).unwrap();
    let summary = p("Demo/Links summary.md");
    block_on(store.record(&summary)).unwrap();
    block_on(vault.write(&summary, "# Links\n")).unwrap();
    block_on(store.record_created(&summary)).unwrap();
    assert_eq!(store.changed_paths(), [p("Demo"), summary.clone()]);
    block_on(vault.write(&p("Demo/My own note.md"), "mine\n")).unwrap();

    let plan = block_on(plan_undo(&*vault, "t")).unwrap();
    assert_eq!(plan.remove, ["Demo/Links summary.md"], "{plan:?}");
    assert_eq!(plan.kept.len(), 1, "{plan:?}");
    assert!(plan.kept[0].reason.contains("Demo/My own note.md"), "{plan:?}");

    let report = block_on(undo_task(vault.clone(), "t", 1)).unwrap();
    assert_eq!(block_on(vault.read(&p("Demo/My own note.md"))).unwrap(), "mine\n");
    assert!(block_on(vault.stat(&summary)).unwrap().is_none());
    assert_eq!(report.trashed, ["Demo/Links summary.md"]);
    assert_eq!(report.kept[0].path, "Demo");
    assert!(report.kept[0].reason.contains("did not create"), "{report:?}");

    // Once the user's note is gone too, a second undo of the same task removes the folder.
    block_on(redo_task(vault.clone(), "t", &UndoChoices::new(), 2)).unwrap();
    assert_eq!(block_on(vault.read(&summary)).unwrap(), "# Links\n");
    block_on(vault.trash(&p("Demo/My own note.md"))).unwrap();
    let report = block_on(undo_task(vault.clone(), "t", 3)).unwrap();
    assert!(report.trashed.contains(&"Demo".to_string()), "{report:?}");
    assert!(block_on(vault.stat(&p("Demo"))).unwrap().is_none());
}

#[test]
fn a_note_the_user_wrote_mid_task_then_moved_by_the_task_is_kept_by_the_undo() {
    // The task moves b.md into 日本/, the user writes over it there, the task moves it back to
    // b.md: for the checkpoint, the user's bytes at b.md are what the task left. (Found by the
    // property test above.)
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let store = CheckpointStore::new(vault.clone(), "prop", 0).unwrap();
    let steps = [
        Step::Task(Op::Move(1, 7)),
        Step::User(5),
        Step::Task(Op::Move(7, 2)),
        Step::User(5),
        Step::Task(Op::Move(7, 1)),
    ];
    play(&store, &*vault, &steps);
    let users = b"USER3".to_vec();
    assert_eq!(block_on(vault.read_binary(&p("b.md"))).unwrap(), users);
    let report = block_on(undo_task(vault.clone(), "prop", 1)).unwrap();
    assert_eq!(block_on(vault.read_binary(&p("b.md"))).unwrap(), [0xff, 0xfe, 0x00, 0x41], "b.md as before the task");
    assert!(kept_by(&*vault, &report.undo_checkpoint, &users), "{report:?}");
    // Redo puts them back.
    block_on(redo_task(vault.clone(), "prop", &UndoChoices::new(), 2)).unwrap();
    assert_eq!(block_on(vault.read_binary(&p("b.md"))).unwrap(), users);
}

#[test]
fn a_copy_of_a_note_whose_folder_became_a_file_goes_in_the_folder_above() {
    // The task edits Dir/c.md; the user then replaces the folder Dir with a file of that name.
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let store = CheckpointStore::new(vault.clone(), "t", 0).unwrap();
    let note = p("Dir/c.md");
    block_on(store.record(&note)).unwrap();
    block_on(vault.write(&note, "task's gamma\n")).unwrap();
    block_on(store.record_created(&note)).unwrap();
    block_on(vault.trash(&p("Dir"))).unwrap();
    block_on(vault.write(&p("Dir"), "the user's file\n")).unwrap();

    let plan = block_on(plan_undo(&*vault, "t")).unwrap();
    let conflict = plan.conflicts.iter().find(|c| c.path == "Dir/c.md").expect("a conflict");
    assert!(conflict.choices.contains(&UndoChoice::SaveCopy));
    assert_eq!(conflict.copy_path.as_deref(), Some("c (before task t).md"), "beside Dir, not inside the file");
    let choices = UndoChoices::from([("Dir/c.md".to_string(), UndoChoice::SaveCopy)]);
    let report = block_on(apply_undo(vault.clone(), "t", &choices, 1)).unwrap();
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(block_on(vault.read(&p("c (before task t).md"))).unwrap(), "gamma\r\n");
    assert_eq!(block_on(vault.read(&p("Dir"))).unwrap(), "the user's file\n");
}

#[test]
fn the_plan_names_the_later_task_that_changed_a_file() {
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let first = CheckpointStore::new(vault.clone(), "first", 10).unwrap();
    block_on(apply(&first, &*vault, &Op::Write(0, b"first".to_vec())));
    block_on(apply(&first, &*vault, &Op::Write(1, b"only first".to_vec())));
    let second = CheckpointStore::new(vault.clone(), "second", 20).unwrap();
    block_on(apply(&second, &*vault, &Op::Append(0, b" and second".to_vec())));
    let plan = block_on(plan_undo(&*vault, "first")).unwrap();
    assert_eq!(plan.conflicts.len(), 1, "{plan:?}");
    assert_eq!(plan.conflicts[0].path, "a.md");
    assert_eq!(plan.conflicts[0].later_tasks, ["second"]);
    assert_eq!(plan.conflicts[0].reason, "changed by a later task (second)");
    assert_eq!(plan.restore, ["b.md"]);
}

#[test]
fn redo_applies_the_task_again_and_keeps_later_changes_too() {
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let store = CheckpointStore::new(vault.clone(), "t", 0).unwrap();
    block_on(apply(&store, &*vault, &Op::Write(0, b"task".to_vec())));
    block_on(apply(&store, &*vault, &Op::Write(4, b"new".to_vec())));
    let after_task = snapshot(&*vault);
    block_on(undo_task(vault.clone(), "t", 1)).unwrap();
    assert!(block_on(list_checkpoints(&*vault)).unwrap().iter().any(|c| c.task_id == "t" && c.undone_ms.is_some()));
    // The user edits b.md after the undo; the task never touched it, so redo leaves it alone.
    block_on(vault.write(&p("b.md"), "mine")).unwrap();
    block_on(vault.write(&p("a.md"), "typed after the undo")).unwrap();
    let plan = block_on(vault_agent::pipeline::plan_undo(&*vault, "undo-t")).unwrap();
    assert_eq!(plan.conflicts.len(), 1, "{plan:?}");
    let report = block_on(redo_task(vault.clone(), "t", &UndoChoices::new(), 2)).unwrap();
    assert_eq!(block_on(vault.read(&p("a.md"))).unwrap(), "typed after the undo", "{report:?}");
    assert_eq!(block_on(vault.read(&p("New/e.md"))).unwrap(), "new");
    assert_eq!(block_on(vault.read(&p("b.md"))).unwrap(), "mine");
    assert!(block_on(list_checkpoints(&*vault)).unwrap().iter().any(|c| c.task_id == "t" && c.undone_ms.is_none()));
    // Without the later edit, redo gives back exactly what the task left.
    block_on(vault.write(&p("a.md"), "task")).unwrap();
    block_on(vault.write_binary(&p("b.md"), &after_task["b.md"])).unwrap();
    assert_eq!(snapshot(&*vault), after_task);
}

#[test]
fn undo_of_the_undo_brings_the_tasks_changes_back() {
    let vault: Rc<dyn Vault> = Rc::new(initial());
    let store = CheckpointStore::new(vault.clone(), "t", 0).unwrap();
    block_on(apply(&store, &*vault, &Op::Write(0, b"changed".to_vec())));
    block_on(apply(&store, &*vault, &Op::Move(2, 4)));
    let after_task = snapshot(&*vault);
    let report = block_on(undo_task(vault.clone(), "t", 1)).unwrap();
    assert_eq!(report.undo_checkpoint, "undo-t");
    assert_ne!(snapshot(&*vault), after_task);
    block_on(undo_task(vault.clone(), "undo-t", 2)).unwrap();
    assert_eq!(snapshot(&*vault), after_task);
}

#[test]
fn a_real_task_is_undone_with_one_call() {
    let vault = MemoryVault::with_notes([
        ("Projects/Plan.md", "# Plan\n\n- ship search\n"),
        ("Projects/Old idea.md", "# Old idea\n"),
        ("Inbox/Draft.md", "draft\n"),
    ])
    .unwrap();
    let h = Harness::new(
        vault,
        [
            Turn::tools([("read_file", json!({"path": "Projects/Plan.md"}))]),
            Turn::tools([
                (
                    "edit_file",
                    json!({"path": "Projects/Plan.md", "old_string": "- ship search", "new_string": "- ship search\n- ship undo"}),
                ),
                ("write_file", json!({"path": "Projects/Archive/Summary.md", "content": "# Summary\n"})),
                ("move_file", json!({"path": "Inbox/Draft.md", "new_path": "Projects/Draft.md"})),
                ("delete_file", json!({"path": "Projects/Old idea.md"})),
                ("create_folder", json!({"path": "Projects/Empty"})),
            ]),
            Turn::tools([("attempt_completion", json!({"result": "Reorganised."}))]),
        ],
    );
    let before = snapshot(&*h.vault);
    let report = block_on(h.task(AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }).run("reorganise"));
    assert_eq!(report.end, EndReason::Completed);
    assert_eq!(report.tool_errors, 0, "{:?}", report.steps);
    let after = snapshot(&*h.vault);
    assert!(after.contains_key("Projects/Draft.md") && !after.contains_key("Projects/Old idea.md"));

    let listed = block_on(list_checkpoints(&*h.vault)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].task_id, "t1");
    assert!(listed[0].paths.contains(&"Projects/Plan.md".to_string()));

    let undo = block_on(undo_task(h.vault.clone(), "t1", h.clock.now_ms() + 1)).unwrap();
    assert_eq!(snapshot(&*h.vault), before, "{undo:?}");
    assert!(undo.restored.contains(&"Inbox/Draft.md".to_string()), "the move was moved back: {undo:?}");
    assert!(undo.trashed.contains(&"Projects/Archive".to_string()), "{undo:?}");
    assert!(block_on(h.vault.stat(&p("Projects/Empty"))).unwrap().is_none());
    assert_eq!(block_on(h.vault.stat(&p("Projects"))).unwrap().unwrap().kind, EntryKind::Folder);
    // Nothing is lost: what the task created is in the trash, and the undo has its own checkpoint.
    assert!(block_on(h.vault.stat(&p(".trash/Projects/Archive/Summary.md"))).unwrap().is_some());
    assert_eq!(block_on(list_checkpoints(&*h.vault)).unwrap()[0].task_id, "undo-t1");
    assert!(block_on(undo_task(h.vault.clone(), "nope", 1)).unwrap_err().to_string().contains("no checkpoint"));
}

#[test]
fn a_write_that_failed_is_not_reported_as_a_change() {
    let vault = MemoryVault::with_notes([("Plan.md", "- item\n- item\n")]).unwrap();
    let h = Harness::new(
        vault,
        [
            Turn::tools([("read_file", json!({"path": "Plan.md"}))]),
            // `- item` occurs twice: the edit fails and changes nothing.
            Turn::tools([("edit_file", json!({"path": "Plan.md", "old_string": "- item", "new_string": "- done"}))]),
            Turn::text("I could not make that edit."),
        ],
    );
    let report = block_on(h.task(AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }).run("edit"));
    assert_eq!(report.tool_errors, 1, "{:?}", report.steps);
    assert!(report.changed_paths.is_empty(), "{:?}", report.changed_paths);
    assert!(block_on(list_checkpoints(&*h.vault)).unwrap().iter().all(|c| c.paths.is_empty()));
}

#[test]
fn an_approved_edit_then_the_users_typing_survives_undo() {
    let vault = MemoryVault::with_notes([("Plan.md", "# Plan\n- ship search\n")]).unwrap();
    let h = Harness::new(
        vault,
        [
            Turn::tools([("read_file", json!({"path": "Plan.md"}))]),
            Turn::tools([(
                "edit_file",
                json!({"path": "Plan.md", "old_string": "- ship search", "new_string": "- ship search\n- ship undo"}),
            )]),
            Turn::text("Done."),
        ],
    );
    let report = block_on(h.task(AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }).run("plan"));
    assert_eq!(report.changed_paths, ["Plan.md"]);
    let typed = "# Plan\n- ship search\n- ship undo\n- my own line\n";
    block_on(h.vault.write(&p("Plan.md"), typed)).unwrap();
    let undo = block_on(undo_task(h.vault.clone(), "t1", h.clock.now_ms() + 1)).unwrap();
    assert_eq!(block_on(h.vault.read(&p("Plan.md"))).unwrap(), typed, "{undo:?}");
    assert_eq!(undo.kept[0].path, "Plan.md");
}
