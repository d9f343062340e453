//! Tasks that survive a restart: snapshots after every step and at every approval wait, resume
//! (at the approval), discard, suspend, refused versions; and retention of what tasks leave.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::{select, Either, FutureExt};
use serde_json::json;
use vault_agent::agent::{
    discard_snapshot, list_interrupted, load_chat, load_snapshot, snapshot_path, task_transcript, AgentConfig,
    Conversation, TranscriptStep, TASK_FOLDER,
};
use vault_agent::host::{AgentHost, ChannelHost};
use vault_agent::pipeline::{prune_tasks, undo_task, RetentionPolicy};
use vault_agent::protocol::{AgentEvent, ApprovalDecision, EndReason, ToolOutcome};
use vault_agent::provider::{ScriptedProvider, Turn};
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

use super::support::{block_on, p};

type Slot = Rc<RefCell<Option<Rc<ChannelHost>>>>;

/// A host like the plugin's: approvals wait for `respond`. With `approve`, every approval is
/// answered at once; the events are recorded.
fn host(approve: bool) -> (Rc<ChannelHost>, Rc<RefCell<Vec<AgentEvent>>>) {
    let events = Rc::new(RefCell::new(Vec::new()));
    let slot: Slot = Rc::default();
    let (seen, me) = (events.clone(), slot.clone());
    let host = Rc::new(ChannelHost::new(move |event| {
        seen.borrow_mut().push(event.clone());
        if let (true, AgentEvent::ApprovalRequired { request }) = (approve, event) {
            if let Some(host) = &*me.borrow() {
                host.respond(&request.id, ApprovalDecision::Approve);
            }
        }
    }));
    *slot.borrow_mut() = Some(host.clone());
    (host, events)
}

fn chat(provider: ScriptedProvider, vault: &Rc<MemoryVault>, host: Rc<ChannelHost>) -> Conversation {
    let clock = Rc::new(vault_agent::host::ManualClock::new(1_795_392_000_000));
    Conversation::new(
        AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() },
        Rc::new(provider),
        vault.clone(),
        clock,
        host as Rc<dyn AgentHost>,
    )
    .saved_in_vault(Some("chat-1".into()))
}

fn read(vault: &MemoryVault, path: &str) -> Option<String> {
    block_on(vault.read(&p(path))).ok()
}

/// Runs `task` until an approval is requested, then drops it: the app went away mid-wait.
fn crash_at_approval<F: std::future::Future>(task: F, events: &Rc<RefCell<Vec<AgentEvent>>>) {
    let asked = Rc::new(Cell::new(false));
    let waiting = {
        let (asked, events) = (asked.clone(), events.clone());
        futures::future::poll_fn(move |cx| {
            if events.borrow().iter().any(|e| matches!(e, AgentEvent::ApprovalRequired { .. })) {
                asked.set(true);
                return std::task::Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        })
    };
    futures::pin_mut!(task, waiting);
    match block_on(select(task, waiting)) {
        Either::Left(_) => panic!("the task ended before asking for approval"),
        Either::Right(_) => assert!(asked.get()),
    }
}

/// Leaves the vault at `dir` with a task interrupted while waiting to write `path` (for the
/// CLI's `resume`).
pub(crate) fn interrupt_at_approval(dir: &std::path::Path, path: &str) {
    let vault = Rc::new(vault_agent::vault::FsVault::open(dir).unwrap());
    let (host, events) = host(false);
    let provider =
        ScriptedProvider::new([Turn::tools([("write_file", json!({"path": path, "content": "# Summary\n"}))])]);
    let clock = Rc::new(vault_agent::host::ManualClock::new(1_795_392_000_000));
    let chat = Conversation::new(AgentConfig::default(), Rc::new(provider), vault, clock, host as Rc<dyn AgentHost>);
    crash_at_approval(chat.send("Write a summary note"), &events);
}

fn writing_task() -> ScriptedProvider {
    ScriptedProvider::new([
        Turn::tools([("list_files", json!({"path": ""}))]),
        Turn::tools([("write_file", json!({"path": "Notes/Summary.md", "content": "# Summary\n"}))]),
    ])
}

#[test]
fn a_task_waiting_for_approval_resumes_at_that_approval_after_a_restart() {
    let vault = Rc::new(MemoryVault::with_notes([("Home.md", "# Home\n")]).unwrap());
    let (first_host, first_events) = host(false);
    let first = chat(writing_task(), &vault, first_host);
    crash_at_approval(first.send("Write a summary note"), &first_events);
    assert_eq!(read(&vault, "Notes/Summary.md"), None, "nothing written before the approval");

    // After the restart: the task is found, waiting for that approval.
    let interrupted = block_on(list_interrupted(&*vault)).unwrap();
    assert_eq!(interrupted.len(), 1);
    let task = &interrupted[0];
    assert_eq!(task.chat_id.as_deref(), Some("chat-1"));
    assert_eq!(task.title, "Write a summary note");
    assert_eq!(task.steps, 2);
    assert_eq!(task.waiting_for.as_deref(), Some("Write Notes/Summary.md"));
    let snapshot = block_on(load_snapshot(&*vault, &task.task_id)).unwrap();
    let asked_before = first_events.borrow().iter().find_map(|e| match e {
        AgentEvent::ApprovalRequired { request } => Some(request.clone()),
        _ => None,
    });
    assert_eq!(snapshot.approval, asked_before, "the approval request is in the snapshot");
    // The chat view shows the task as it stood: its request, the call done, the one waiting.
    let shown = block_on(task_transcript(&*vault, &task.task_id)).unwrap();
    assert_eq!((shown.chat_id.as_str(), shown.title.as_str()), ("chat-1", "Write a summary note"));
    let [turn] = &shown.turns[..] else { panic!("{:?}", shown.turns) };
    assert_eq!(turn.request.as_ref().map(|r| r.text.as_str()), Some("Write a summary note"));
    assert!(turn.tasks.is_empty() && turn.interrupted, "no report yet");
    let outcomes: Vec<_> = turn
        .steps
        .iter()
        .filter_map(|s| match s {
            TranscriptStep::Tool { name, outcome, .. } => Some((name.as_str(), *outcome)),
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, [("list_files", Some(ToolOutcome::Done)), ("write_file", None)]);

    let (second_host, second_events) = host(true);
    let provider = ScriptedProvider::new([Turn::text("I wrote Notes/Summary.md.")]);
    let second = chat(provider, &vault, second_host);
    let report = block_on(second.resume(&snapshot)).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(report.task_id, task.task_id, "the same task, checkpoint and log");
    assert_eq!(report.steps.len(), 3, "the two steps before the restart count");
    assert_eq!(read(&vault, "Notes/Summary.md").as_deref(), Some("# Summary\n"));
    let asked_again = second_events.borrow().iter().find_map(|e| match e {
        AgentEvent::ApprovalRequired { request } => Some(request.clone()),
        _ => None,
    });
    assert_eq!(asked_again, asked_before, "the same approval request, emitted again");
    assert!(block_on(list_interrupted(&*vault)).unwrap().is_empty(), "a finished task leaves no snapshot");
    assert!(second.history().len() >= 5, "the chat took up the task's history");
    let saved = block_on(load_chat(&*vault, "chat-1")).unwrap();
    assert_eq!(saved.messages, second.history(), "the resumed task's chat is saved");
    assert_eq!(
        saved.tasks.iter().map(|t| (t.message_index, t.report.task_id.as_str())).collect::<Vec<_>>(),
        [(0, task.task_id.as_str())]
    );
    // The checkpoint spans the restart: undo removes the note.
    let undo = block_on(undo_task(vault.clone(), &task.task_id, 0)).unwrap();
    assert!(undo.failed.is_empty(), "{undo:?}");
    assert_eq!(read(&vault, "Notes/Summary.md"), None);
}

#[test]
fn a_snapshot_is_saved_after_every_step_and_removed_at_the_end() {
    let vault = Rc::new(MemoryVault::with_notes([("Home.md", "# Home\n")]).unwrap());
    let seen_steps = Rc::new(RefCell::new(Vec::new()));
    let (steps, v) = (seen_steps.clone(), vault.clone());
    let host = Rc::new(ChannelHost::new(move |event| {
        if let AgentEvent::StepStarted { step } = event {
            let path = VaultPath::parse(&format!("{TASK_FOLDER}/20261123-000000.json")).unwrap();
            let saved = v.read(&path).now_or_never().unwrap().ok();
            let saved_steps = saved
                .map(|text| serde_json::from_str::<serde_json::Value>(&text).unwrap())
                .map(|json| json["progress"]["steps"].as_array().unwrap().len());
            steps.borrow_mut().push((*step, saved_steps));
        }
    }));
    let provider =
        ScriptedProvider::new([Turn::tools([("read_file", json!({"path": "Home.md"}))]), Turn::text("Home is empty.")]);
    let report = block_on(chat(provider, &vault, host).send("What is in Home?")).unwrap();
    assert_eq!(report.task_id, "20261123-000000");
    assert_eq!(*seen_steps.borrow(), vec![(1, None), (2, Some(1))], "saved after step 1, before step 2");
    assert!(block_on(vault.stat(&snapshot_path(&report.task_id).unwrap())).unwrap().is_none());
}

#[test]
fn a_tool_that_no_longer_exists_becomes_a_result_for_the_model() {
    let vault = Rc::new(MemoryVault::with_notes([("Home.md", "# Home\n")]).unwrap());
    let (first_host, first_events) = host(false);
    crash_at_approval(chat(writing_task(), &vault, first_host).send("Write a summary"), &first_events);
    let id = block_on(list_interrupted(&*vault)).unwrap()[0].task_id.clone();
    let mut snapshot = block_on(load_snapshot(&*vault, &id)).unwrap();
    snapshot.pending.as_mut().unwrap().calls[0].name = "old_plugin_tool".into();

    let (second_host, second_events) = host(true);
    let provider = ScriptedProvider::new([Turn::text("That tool is gone; nothing was written.")]);
    let second = chat(provider, &vault, second_host);
    let report = block_on(second.resume(&snapshot)).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    let warned = second_events
        .borrow()
        .iter()
        .any(|e| matches!(e, AgentEvent::Warning { message } if message.contains("old_plugin_tool no longer exists")));
    assert!(warned);
    assert_eq!(read(&vault, "Notes/Summary.md"), None);
    let history = second.history();
    let results = history
        .iter()
        .rev()
        .find(|m| m.content.iter().any(|b| matches!(b, vault_agent::protocol::ContentBlock::ToolResult { .. })))
        .unwrap();
    assert!(format!("{results:?}").contains("Unknown tool \\\"old_plugin_tool\\\""), "{results:?}");
}

#[test]
fn suspending_keeps_the_snapshot_and_stopping_discards_it() {
    let vault = Rc::new(MemoryVault::with_notes([("Home.md", "# Home\n")]).unwrap());
    for suspend in [true, false] {
        let events: Rc<RefCell<Vec<AgentEvent>>> = Rc::default();
        let slot: Rc<RefCell<Option<Rc<Conversation>>>> = Rc::default();
        let (seen, me) = (events.clone(), slot.clone());
        let host = Rc::new(ChannelHost::new(move |event| {
            seen.borrow_mut().push(event.clone());
            if let (AgentEvent::ApprovalRequired { .. }, Some(chat)) = (event, &*me.borrow()) {
                if suspend {
                    chat.suspend()
                } else {
                    chat.cancel()
                }
            }
        }));
        let conversation = Rc::new(chat(writing_task(), &vault, host));
        *slot.borrow_mut() = Some(conversation.clone());
        let report = block_on(conversation.send("Write a summary")).unwrap();
        assert_eq!(report.end, EndReason::Cancelled);
        let left = block_on(list_interrupted(&*vault)).unwrap();
        assert_eq!(left.len(), usize::from(suspend), "suspend={suspend}");
        for task in left {
            block_on(discard_snapshot(&*vault, &task.task_id)).unwrap();
        }
        slot.borrow_mut().take();
    }
    assert!(block_on(list_interrupted(&*vault)).unwrap().is_empty());
}

#[test]
fn snapshots_of_another_version_or_damaged_are_refused_clearly_and_a_tmp_copy_loads() {
    let vault = MemoryVault::new();
    block_on(vault.write(&p(".obsidian-agent/tasks/future.json"), r#"{"version": 99, "taskId": "future"}"#)).unwrap();
    block_on(vault.write(&p(".obsidian-agent/tasks/broken.json"), "{\"version\": 1, \"task")).unwrap();
    let error = block_on(load_snapshot(&vault, "future")).unwrap_err().to_string();
    assert!(error.contains("saved by another version") && error.contains("format 99"), "{error}");
    let error = block_on(load_snapshot(&vault, "broken")).unwrap_err().to_string();
    assert!(error.contains("damaged"), "{error}");
    let listed = block_on(list_interrupted(&vault)).unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|t| t.problem.is_some()), "listed, so they can be discarded");
    assert!(block_on(load_snapshot(&vault, "../x")).is_err());

    // A save stopped between removing the old file and the rename: the new one is read.
    let real = Rc::new(MemoryVault::with_notes([("Home.md", "# Home\n")]).unwrap());
    let (h, events) = host(false);
    crash_at_approval(chat(writing_task(), &real, h).send("Write a summary"), &events);
    let id = block_on(list_interrupted(&*real)).unwrap()[0].task_id.clone();
    let path = snapshot_path(&id).unwrap();
    let bytes = block_on(real.read_binary(&path)).unwrap();
    block_on(real.remove(&path)).unwrap();
    block_on(real.write_binary(&p(&format!("{path}.tmp")), &bytes)).unwrap();
    assert_eq!(block_on(list_interrupted(&*real)).unwrap().len(), 1);
    assert!(block_on(load_snapshot(&*real, &id)).is_ok());
}

#[test]
fn checkpoints_and_logs_are_pruned_by_age_and_count_but_not_kept_tasks() {
    let vault = MemoryVault::new();
    let day = 24 * 60 * 60 * 1000;
    let now = 100 * day;
    for (id, age) in [("old", 40), ("older", 50), ("recent", 1), ("open-chat", 60)] {
        vault.set_now(now - age * day);
        block_on(vault.write(&p(&format!(".obsidian-agent/checkpoints/{id}/manifest.json")), "{}")).unwrap();
        block_on(vault.write(&p(&format!(".obsidian-agent/logs/{id}.jsonl")), "{}\n")).unwrap();
    }
    vault.set_now(now - 70 * day);
    block_on(vault.write(&p(".obsidian-agent/logs/log-only.jsonl"), "{}\n")).unwrap();
    let pruned = block_on(prune_tasks(&vault, now, RetentionPolicy::default(), &["open-chat".into()])).unwrap();
    assert_eq!(pruned, vec!["log-only", "old", "older"]);
    for id in ["old", "older"] {
        assert!(block_on(vault.stat(&p(&format!(".obsidian-agent/checkpoints/{id}")))).unwrap().is_none());
        assert!(block_on(vault.stat(&p(&format!(".obsidian-agent/logs/{id}.jsonl")))).unwrap().is_none());
    }
    for id in ["recent", "open-chat"] {
        assert!(block_on(vault.stat(&p(&format!(".obsidian-agent/checkpoints/{id}")))).unwrap().is_some());
    }
    let by_count = block_on(prune_tasks(&vault, now, RetentionPolicy { max_age_days: 0, max_tasks: 1 }, &[])).unwrap();
    assert_eq!(by_count, vec!["open-chat"], "only the newest task is kept");
}
