//! Fault injection through real tasks (RELIABILITY.md has one row per case): a vault that fails
//! ([`FaultyVault`]) and providers that fail on the wire (the real Anthropic provider over a
//! scripted HTTP client). Every case checks the same three things:
//! - no user byte is lost: what the task did not finish is as it was, and undo brings back
//!   every note the task touched;
//! - no note is partial: each note holds either its bytes from before or the whole new text;
//! - the run ends with a clear reason in its report (never a panic).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::FutureExt;
use serde_json::json;
use vault_agent::agent::{AgentConfig, AgentTask, TaskSetup};
use vault_agent::pipeline::{apply_undo, plan_undo, UndoChoice, UndoChoices};
use vault_agent::prompt::VaultInfo;
use vault_agent::protocol::{ApprovalDecision, ChangePreview, EndReason, ErrorKind, RunReport};
use vault_agent::provider::{ModelProvider, Turn};
use vault_agent::vault::{MemoryVault, Vault};

use crate::agent::support::{block_on, last_user_text, p, snapshot, Harness};
use crate::faulty_vault::{Fault, FaultyVault};
use crate::provider_support::{anthropic, make, FakeHttp, Reply};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

const ALPHA: &str = "# Alpha\n\nStatus: draft.\n\nThe user's own paragraph, which must survive.\n";
const BETA: &str = "# Beta\n\nStatus: draft.\n";
const KEEP: &str = "# Keep\n\nNo task touches this.\n";
const SUMMARY: &str = "# Summary\n\n- [[Alpha]]: done\n- [[Beta]]: done\n";

fn user_notes() -> MemoryVault {
    MemoryVault::with_notes([("Projects/Alpha.md", ALPHA), ("Projects/Beta.md", BETA), ("Inbox/Keep.md", KEEP)])
        .unwrap()
}

/// A task that changes three notes: two edits and a new note, each approved.
fn multi_file_script() -> Vec<Turn> {
    let edit = |path: &str| {
        ("edit_file", json!({"path": path, "old_string": "Status: draft.", "new_string": "Status: done."}))
    };
    vec![
        Turn::tools([
            ("read_file", json!({"path": "Projects/Alpha.md"})),
            ("read_file", json!({"path": "Projects/Beta.md"})),
        ]),
        Turn::tools([edit("Projects/Alpha.md")]),
        Turn::tools([edit("Projects/Beta.md")]),
        Turn::tools([("write_file", json!({"path": "Projects/Summary.md", "content": SUMMARY}))]),
        Turn::tools([("attempt_completion", json!({"result": "Both projects are done; see [[Summary]]."}))]),
    ]
}

/// The versions a note may have after the task: before, or the whole new text (`None`: the
/// note does not exist).
fn allowed(path: &str) -> Vec<Option<&'static str>> {
    match path {
        "Projects/Alpha.md" => {
            vec![Some(ALPHA), Some("# Alpha\n\nStatus: done.\n\nThe user's own paragraph, which must survive.\n")]
        }
        "Projects/Beta.md" => vec![Some(BETA), Some("# Beta\n\nStatus: done.\n")],
        "Projects/Summary.md" => vec![None, Some(SUMMARY)],
        "Inbox/Keep.md" => vec![Some(KEEP)],
        other => panic!("the task left an unexpected note {other}"),
    }
}

/// No partial note: every user note is one of its allowed versions.
fn assert_no_partial_notes(vault: &dyn Vault, case: &str) {
    let notes = snapshot(vault);
    for path in ["Projects/Alpha.md", "Projects/Beta.md", "Projects/Summary.md", "Inbox/Keep.md"] {
        let now = notes.get(path).map(|b| String::from_utf8(b.clone()).unwrap());
        assert!(allowed(path).contains(&now.as_deref()), "{case}: {path} is partial or wrong: {now:?}");
    }
    for path in notes.keys() {
        allowed(path);
    }
}

/// No lost byte: undoing the task (on a healthy vault) brings back every note as it was.
///
/// Where a fault hit the save that records what the task left at a path, undo cannot tell the
/// task's bytes from someone else's, so it offers that path as a conflict (kept by default)
/// instead of overwriting it. Nobody edits the notes in these cases, so the user's answer is
/// "restore" for each: with it, every pre-task byte must come back.
fn assert_undo_restores_everything(vault: Rc<dyn Vault>, before: &BTreeMap<String, Vec<u8>>, case: &str) {
    let choices: UndoChoices = match block_on(plan_undo(&*vault, "t1")) {
        Ok(plan) => plan.conflicts.iter().map(|c| (c.path.clone(), UndoChoice::Restore)).collect(),
        Err(_) => UndoChoices::new(),
    };
    match block_on(apply_undo(vault.clone(), "t1", &choices, 1_795_392_100_000)) {
        Ok(report) => assert!(report.failed.is_empty(), "{case}: undo failed for {:?}", report.failed),
        // No checkpoint, or the first save of it failed: then the task changed nothing (a write
        // never runs before its checkpoint is saved). Undo says so; the notes are as before.
        Err(e) => assert!(e.is_not_found() || e.to_string().contains("corrupt checkpoint"), "{case}: undo: {e}"),
    }
    assert_eq!(&snapshot(&*vault), before, "{case}: undo restores every user byte");
}

/// A clear end: a named reason, and a failure says what failed.
fn assert_clear_end(report: &RunReport, case: &str) {
    match &report.end {
        // A vault that keeps failing makes every tool call fail: the mistake limit ends it.
        EndReason::Completed | EndReason::Answered | EndReason::MistakeLimit => {}
        EndReason::Failed { message, .. } => assert!(!message.trim().is_empty(), "{case}: a failure with no message"),
        other => panic!("{case}: unexpected end {other:?}"),
    }
}

/// Runs the multi-file task over `vault`, then checks the three promises. Returns the report.
fn run_multi_file_task(vault: Rc<FaultyVault>, case: &str) -> RunReport {
    let before = snapshot(vault.inner());
    let h = Harness { vault: vault.clone(), ..Harness::new(MemoryVault::new(), multi_file_script()) };
    let report = block_on(h.task(config()).run("Mark both projects done and write a summary"));
    vault.restart();
    let case = &format!("{case} (injected: {:?})", vault.injected());
    assert_clear_end(&report, case);
    assert_no_partial_notes(&*vault, case);
    // A task whose vault calls failed reported it (to the model, as tool errors) or ended on
    // it: a success with no error means every change landed.
    if !vault.injected().is_empty() && report.end.is_success() && report.tool_errors == 0 {
        let notes = snapshot(&*vault);
        let landed = ["Projects/Alpha.md", "Projects/Beta.md", "Projects/Summary.md"]
            .iter()
            .all(|p| notes.get(*p).map(|b| b.as_slice()) == allowed(p)[1].map(str::as_bytes));
        assert!(landed, "{case}: a fault went unreported");
    }
    assert_undo_restores_everything(vault, &before, case);
    report
}

/// How many changing vault calls the clean task makes.
fn clean_run_changes() -> usize {
    let vault = Rc::new(FaultyVault::new(user_notes()));
    let report = run_multi_file_task(vault.clone(), "clean run");
    assert_eq!(report.end, EndReason::Completed);
    assert_eq!(report.changed_paths.len(), 3, "{:?}", report.changed_paths);
    vault.changes()
}

/// The multi-file task with `fault` at each of its changing calls in turn.
fn fault_at_every_call(fault: Fault) {
    let calls = clean_run_changes();
    assert!(calls >= 6, "checkpoints and notes: {calls} changing calls");
    for at in 0..calls {
        let vault = Rc::new(FaultyVault::new(user_notes()));
        vault.fail_at(at, fault);
        run_multi_file_task(vault.clone(), &format!("{fault:?} at call {at}"));
    }
}

#[test]
fn eio_at_every_write_or_rename_of_a_multi_file_task_loses_nothing() {
    fault_at_every_call(Fault::Eio);
}

#[test]
fn eio_at_random_points_of_a_multi_file_task_loses_nothing() {
    for seed in 1..=24 {
        let vault = Rc::new(FaultyVault::new(user_notes()));
        vault.fail_randomly(seed, 4, Fault::Eio);
        run_multi_file_task(vault.clone(), &format!("random EIO, seed {seed}"));
    }
}

#[test]
fn a_full_disk_at_every_write_of_a_multi_file_task_loses_nothing() {
    fault_at_every_call(Fault::DiskFull);
}

#[test]
fn an_abort_at_every_point_of_a_multi_file_task_leaves_every_note_whole_and_undoable() {
    fault_at_every_call(Fault::Abort);
}

#[test]
fn a_user_edit_while_the_approval_waits_wins_and_the_model_is_told() {
    let h = Harness::new(
        user_notes(),
        [
            Turn::tools([("read_file", json!({"path": "Projects/Alpha.md"}))]),
            Turn::tools([(
                "edit_file",
                json!({"path": "Projects/Alpha.md", "old_string": "Status: draft.", "new_string": "Status: done."}),
            )]),
            Turn::text("The note changed while I waited; I left it as you wrote it."),
        ],
    );
    // The approval dialog is open; the user types into the note, then clicks Approve.
    let typed = "# Alpha\n\nStatus: draft.\n\nThe user's own paragraph, which must survive.\n\nTyped while the dialog was open.\n";
    let vault = h.vault.clone();
    h.host.deciding(move |_| {
        vault.write(&p("Projects/Alpha.md"), typed).now_or_never().unwrap().unwrap();
        ApprovalDecision::Approve
    });
    let report = block_on(h.task(config()).run("Mark Alpha done"));
    assert_eq!(block_on(h.vault.read(&p("Projects/Alpha.md"))).unwrap(), typed, "the user's edit wins");
    let told = last_user_text(&h.provider.requests()[2]);
    assert!(told.contains("Conflict: Projects/Alpha.md changed since you last read it"), "{told}");
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(report.tool_errors, 1);
}

#[test]
fn what_the_approval_shows_is_what_is_written() {
    let h = Harness::new(
        user_notes(),
        [
            Turn::tools([("append_to_file", json!({"path": "Projects/Beta.md", "content": "- [ ] ship"}))]),
            Turn::text("Added."),
        ],
    );
    let shown = Rc::new(RefCell::new(None));
    let seen = shown.clone();
    h.host.deciding(move |request| {
        *seen.borrow_mut() = request.preview.clone();
        ApprovalDecision::Approve
    });
    block_on(h.task(config()).run("Add a task to Beta"));
    let Some(ChangePreview::Write { new, .. }) = shown.borrow().clone() else { panic!("a write preview") };
    assert_eq!(block_on(h.vault.read(&p("Projects/Beta.md"))).unwrap(), new);
    assert_eq!(new, format!("{BETA}- [ ] ship"));
}

#[test]
fn an_append_approved_after_the_user_edited_the_note_writes_nothing() {
    // The approval showed the append to the old text; appending to the new text instead would
    // write what the user never saw.
    let h = Harness::new(
        user_notes(),
        [
            Turn::tools([("append_to_file", json!({"path": "Projects/Beta.md", "content": "- [ ] ship"}))]),
            Turn::text("Beta changed while I waited; I left it."),
        ],
    );
    let typed = format!("{BETA}Typed while the dialog was open.\n");
    let (vault, edit) = (h.vault.clone(), typed.clone());
    h.host.deciding(move |_| {
        vault.write(&p("Projects/Beta.md"), &edit).now_or_never().unwrap().unwrap();
        ApprovalDecision::Approve
    });
    let report = block_on(h.task(config()).run("Add a task to Beta"));
    assert_eq!(block_on(h.vault.read(&p("Projects/Beta.md"))).unwrap(), typed);
    assert!(last_user_text(&h.provider.requests()[1]).contains("Conflict: Projects/Beta.md changed"));
    assert_eq!(report.tool_errors, 1);
}

// ---- provider faults ----------------------------------------------------------------------------

fn sse(events: &[(&str, serde_json::Value)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

fn message_start() -> (&'static str, serde_json::Value) {
    let usage = json!({"input_tokens": 10, "output_tokens": 1});
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
        "content": [], "model": "claude-test", "stop_reason": null, "usage": usage}}),
    )
}

fn text_start() -> (&'static str, serde_json::Value) {
    (
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    )
}

fn text_delta(text: &str) -> (&'static str, serde_json::Value) {
    (
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    )
}

/// A whole text answer.
fn text_answer(text: &str) -> String {
    sse(&[
        message_start(),
        text_start(),
        text_delta(text),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

/// Runs a one-line task over the real Anthropic provider answering with `replies`; checks that
/// the vault is untouched and returns the report and how many requests were made.
fn run_over_wire(replies: Vec<Reply>) -> (RunReport, usize) {
    let http = FakeHttp::new(replies);
    let (provider, _) = make(anthropic(), &http);
    let provider: Rc<dyn ModelProvider> = Rc::from(provider);
    let h = Harness::new(user_notes(), []);
    let before = snapshot(&*h.vault);
    let task = block_on(AgentTask::new(TaskSetup {
        config: config(),
        provider,
        vault: h.vault.clone(),
        clock: h.clock.clone(),
        host: h.host.clone(),
        cancel: h.cancel.clone(),
        tools: None,
        web: None,
        modes: Vec::new(),
        vault_info: VaultInfo { name: "Test".into(), note_count: None, active_note: None, ..VaultInfo::default() },
        search: vault_agent::index::SharedIndex::new(),
        condense_hook: None,
        end_hook: None,
        history: Vec::new(),
        task_id: Some("t1".into()),
    }));
    let report = block_on(task.unwrap().run("Rewrite Projects/Alpha.md"));
    assert_eq!(snapshot(&*h.vault), before, "a provider fault changes no note");
    assert_clear_end(&report, "provider fault");
    (report, http.requests().len())
}

fn failed_kind(report: &RunReport) -> (Option<ErrorKind>, String) {
    match &report.end {
        EndReason::Failed { kind, message } => (*kind, message.clone()),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_connection_dropped_mid_tool_call_json_runs_no_tool_and_ends_as_a_network_failure() {
    let partial = sse(&[
        message_start(),
        text_start(),
        text_delta("Rewriting it now."),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"Projects/Alpha.md\", \"content\": \"# Alp"}}),
        ),
    ]);
    let (report, requests) = run_over_wire(vec![Reply::SseThenDrop { body: partial }]);
    assert_eq!(requests, 1, "output was shown: no retry");
    assert_eq!(report.tool_calls, 0, "half a tool call never runs");
    let (kind, message) = failed_kind(&report);
    assert_eq!(kind, Some(ErrorKind::Network), "{message}");
    assert!(message.contains("connection reset"), "{message}");
}

#[test]
fn malformed_sse_lines_are_skipped_and_the_answer_arrives() {
    let good = text_answer("Alpha is already fine.");
    let mut noisy =
        String::from(": a keep-alive comment\n\ndata: {not json at all\n\nevent: unknown_event\ndata: {}\n\n");
    for block in good.split_inclusive("\n\n") {
        noisy.push_str(block);
        noisy.push_str(
            "data: \u{1}\u{7f}garbage\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nline without a colon\n\n",
        );
    }
    let (report, _) = run_over_wire(vec![Reply::sse_chunked(&noisy, 7)]);
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(report.final_text.as_deref(), Some("Alpha is already fine."));
}

#[test]
fn a_server_error_after_partial_text_ends_the_task_with_that_error() {
    let body = sse(&[
        message_start(),
        text_start(),
        text_delta("Let me look at"),
        ("error", json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}})),
    ]);
    let (report, requests) = run_over_wire(vec![Reply::sse(&body)]);
    assert_eq!(requests, 1, "text was shown: the call is not repeated");
    let (kind, message) = failed_kind(&report);
    assert_eq!(kind, Some(ErrorKind::Overloaded), "{message}");
    assert!(message.contains("Internal server error"), "{message}");
}

#[test]
fn a_stall_before_output_is_retried_and_a_stall_after_output_ends_as_a_network_failure() {
    // The server sends the stream's start, then nothing. The idle timeout (60 s by default,
    // on the task's manual clock) treats it as a dropped connection: retried while nothing was
    // shown, the end of the task once text was.
    let answer = text_answer("Nothing needed changing.");
    let start = sse(&[message_start()]);
    let (report, requests) = run_over_wire(vec![Reply::SseThenHang { body: start }, Reply::sse(&answer)]);
    assert_eq!(requests, 2, "the stalled attempt is sent again");
    assert!(matches!(report.end, EndReason::Answered), "{:?}", report.end);

    let partial = sse(&[message_start(), text_start(), text_delta("Let me look at")]);
    let (report, requests) = run_over_wire(vec![Reply::SseThenHang { body: partial }]);
    assert_eq!(requests, 1, "text was shown: the call is not repeated");
    let (kind, message) = failed_kind(&report);
    assert_eq!(kind, Some(ErrorKind::Network), "{message}");
    assert!(message.contains("sent nothing for 60 s"), "{message}");
}

#[test]
fn a_context_overflow_400_ends_with_a_context_overflow_reason() {
    let overflow = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "prompt is too long: 210000 tokens > 200000 maximum"}})
    .to_string();
    // The first request overflows; the task condenses if it can and tries once more.
    let (report, requests) = run_over_wire(vec![
        Reply::status(400, &overflow),
        Reply::status(400, &overflow),
        Reply::status(400, &overflow),
    ]);
    assert!(requests <= 3, "{requests}");
    let (kind, message) = failed_kind(&report);
    assert_eq!(kind, Some(ErrorKind::ContextOverflow), "{message}");
    assert!(message.contains("prompt is too long"), "{message}");
}

#[test]
fn a_429_storm_is_retried_then_ends_as_rate_limited() {
    let storm = || {
        Reply::status(
            429,
            &json!({"type": "error", "error": {"type": "rate_limit_error", "message": "Rate limited"}}).to_string(),
        )
    };
    let (report, requests) = run_over_wire((0..6).map(|_| storm()).collect());
    assert_eq!(requests, 6, "the retry policy's six attempts");
    let (kind, message) = failed_kind(&report);
    assert_eq!(kind, Some(ErrorKind::RateLimited), "{message}");

    // A storm that passes: the answer arrives.
    let mut replies: Vec<Reply> = (0..4).map(|_| storm()).collect();
    replies.push(Reply::sse(&text_answer("Done after the storm.")));
    let (report, requests) = run_over_wire(replies);
    assert_eq!(requests, 5);
    assert_eq!(report.end, EndReason::Answered);
}

/// The model retries an edit whose checkpoint could not be saved: the retried write must not
/// run on a checkpoint that exists only in memory.
#[test]
fn an_edit_retried_after_its_checkpoint_failed_is_still_undoable() {
    let script = || {
        let edit = (
            "edit_file",
            json!({"path": "Projects/Alpha.md", "old_string": "Status: draft.", "new_string": "Status: done."}),
        );
        vec![
            Turn::tools([("read_file", json!({"path": "Projects/Alpha.md"}))]),
            Turn::tools([edit.clone()]),
            Turn::tools([edit]),
            Turn::tools([("attempt_completion", json!({"result": "Alpha is done."}))]),
        ]
    };
    let clean = Rc::new(FaultyVault::new(user_notes()));
    let h = Harness { vault: clean.clone(), ..Harness::new(MemoryVault::new(), script()) };
    block_on(h.task(config()).run("Mark Alpha done"));
    for at in 0..clean.changes() {
        for fault in [Fault::Eio, Fault::DiskFull] {
            let vault = Rc::new(FaultyVault::new(user_notes()));
            let before = snapshot(vault.inner());
            vault.fail_at(at, fault);
            let h = Harness { vault: vault.clone(), ..Harness::new(MemoryVault::new(), script()) };
            let report = block_on(h.task(config()).run("Mark Alpha done"));
            vault.restart();
            let case = format!("{fault:?} at call {at} ({:?})", vault.injected());
            assert_clear_end(&report, &case);
            assert_no_partial_notes(&*vault, &case);
            assert_undo_restores_everything(vault, &before, &case);
        }
    }
}
