//! Checkpoints and undo: byte-identical restores over random edit sequences, and a real task
//! undone.

use std::rc::Rc;

use proptest::prelude::*;
use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::host::Clock;
use vault_agent::pipeline::{list_checkpoints, undo_task, CheckpointStore};
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
