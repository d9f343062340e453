//! The ToolExecutionPipeline's stages, through real tasks: validation, modes, paths, approval,
//! externalization, the audit log, timeouts, questions and write conflicts.

use std::rc::Rc;

use async_trait::async_trait;
use futures::FutureExt;
use serde_json::{json, Value};
use vault_agent::agent::{AgentConfig, AgentTask, TaskSetup};
use vault_agent::pipeline::{release_results, sweep_orphans, ORPHAN_AGE_MS};
use vault_agent::protocol::{AgentEvent, ApprovalCategory, ApprovalDecision, ChangePreview, EndReason};
use vault_agent::provider::Turn;
use vault_agent::tools::{builtin_tools, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

use super::support::{block_on, last_user_text, p, snapshot, Harness};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

fn vault() -> MemoryVault {
    MemoryVault::with_notes([
        ("Inbox/Idea.md", "# Idea\n\nA plugin that merges notes.\n"),
        ("Private/Diary.md", "# Dear diary\n"),
        ("Archive/Old.md", "# Old\n"),
        (".obsidian-agentignore", "Private/\n"),
        (".obsidian-agentprotected", "Archive/\n"),
    ])
    .unwrap()
}

/// Runs `turns` then a final text answer; returns the harness and the model's view of each
/// step's tool results.
fn run(config: AgentConfig, vault: MemoryVault, turns: Vec<Turn>) -> (Harness, EndReason, Vec<String>) {
    let mut all = turns;
    all.push(Turn::text("finished"));
    let h = Harness::new(vault, all);
    let report = block_on(h.task(config).run("do it"));
    let seen = h.provider.requests().iter().skip(1).map(last_user_text).collect();
    (h, report.end, seen)
}

#[test]
fn unknown_tools_and_bad_arguments_go_back_to_the_model() {
    let (_, end, seen) = run(
        config(),
        vault(),
        vec![
            Turn::tools([("rm_rf", json!({})), ("read_file", json!({"path": "Inbox/Idea.md"}))]),
            Turn::tools([("read_file", json!({"path": 42}))]),
            Turn::tools([
                ("edit_file", json!({"path": "Inbox/Idea.md", "old_string": "x"})),
                ("read_file", json!({"path": "../etc/passwd"})),
            ]),
        ],
    );
    assert!(seen[0].contains("Unknown tool \"rm_rf\"") && seen[0].contains("read_file"), "{}", seen[0]);
    assert!(seen[0].contains("A plugin that merges notes"), "the valid call of the turn still ran");
    assert!(seen[1].contains("invalid arguments for read_file") && seen[1].contains("/path"), "{}", seen[1]);
    assert!(seen[2].contains("new_string"), "names the missing field: {}", seen[2]);
    assert!(seen[2].contains("'..' segments are not allowed"), "{}", seen[2]);
    assert_eq!(end, EndReason::Answered, "two failing steps stay under the mistake limit");
}

#[test]
fn arguments_that_are_not_json_are_reported_not_crashed_on() {
    let h = Harness::new(
        vault(),
        [
            Turn::Reply {
                thinking: None,
                text: String::new(),
                calls: vec![vault_agent::provider::ScriptedCall {
                    name: "read_file".into(),
                    input: json!("{\"path\": \"Inb"),
                }],
            },
            Turn::text("ok"),
        ],
    );
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Answered);
    let seen = last_user_text(&h.provider.requests()[1]);
    assert!(seen.contains("not valid JSON"), "{seen}");
    // The output limit cut the call off (the turn ended there): the model is told so.
    assert!(seen.contains("reached the output limit while writing a tool call"), "{seen}");
}

#[test]
fn ignored_paths_are_invisible_and_protected_paths_read_only() {
    let (h, _, seen) = run(
        config(),
        vault(),
        vec![
            Turn::tools([("read_file", json!({"path": "Private/Diary.md"}))]),
            Turn::tools([("list_files", json!({"recursive": true}))]),
            Turn::tools([("search_files", json!({"query": "diary"}))]),
            Turn::tools([("read_file", json!({"path": "Archive/Old.md"}))]),
            Turn::tools([("write_file", json!({"path": "Archive/Old.md", "content": "gone"}))]),
            Turn::tools([("write_file", json!({"path": ".obsidian-agent/checkpoints/x.md", "content": "x"}))]),
        ],
    );
    assert_eq!(seen[0].trim(), "not found: Private/Diary.md");
    assert!(!seen[1].contains("Private") && seen[1].contains("Inbox/Idea.md"), "{}", seen[1]);
    assert!(seen[2].contains("No notes match"), "{}", seen[2]);
    assert!(seen[3].contains("# Old"));
    assert!(seen[4].contains("Archive/Old.md is protected"), "{}", seen[4]);
    assert!(seen[5].contains("is protected"), "{}", seen[5]);
    assert_eq!(block_on(h.vault.read(&p("Archive/Old.md"))).unwrap(), "# Old\n");
}

#[test]
fn ask_mode_offers_and_allows_only_reading_tools() {
    let (h, _, seen) = run(
        AgentConfig { mode: "ask".into(), ..config() },
        vault(),
        vec![Turn::tools([("write_file", json!({"path": "Inbox/New.md", "content": "x"}))])],
    );
    let offered: Vec<String> = h.provider.requests()[0].tools.iter().map(|t| t.name.clone()).collect();
    assert!(offered.contains(&"read_file".to_string()) && offered.contains(&"attempt_completion".to_string()));
    assert!(!offered.iter().any(|t| ["write_file", "edit_file", "delete_file", "move_file"].contains(&t.as_str())));
    assert!(seen[0].contains("not available in ask mode"), "{}", seen[0]);
    assert!(block_on(h.vault.stat(&p("Inbox/New.md"))).unwrap().is_none());
}

#[test]
fn skip_goes_on_and_deny_stops_with_nothing_written() {
    // Skip: the write does not run, the model is told, the task goes on.
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("append_to_file", json!({"path": "Inbox/Idea.md", "content": "more"}))]),
            Turn::text("OK, I left it."),
        ],
    );
    h.host.deciding(|_| ApprovalDecision::Skip);
    let before = snapshot(&*h.vault);
    let report = block_on(h.task(config()).run("append"));
    assert_eq!(report.end, EndReason::Answered);
    assert!(last_user_text(&h.provider.requests()[1]).contains("skipped"));
    assert_eq!(snapshot(&*h.vault), before);

    // Deny: the write does not run, the later calls of the turn do not run, the task stops.
    let h = Harness::new(
        vault(),
        [Turn::tools([
            ("append_to_file", json!({"path": "Inbox/Idea.md", "content": "more"})),
            ("create_folder", json!({"path": "Later"})),
        ])],
    );
    let asked = Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = asked.clone();
    h.host.deciding(move |request| {
        log.borrow_mut().push(request.clone());
        ApprovalDecision::Deny
    });
    let before = snapshot(&*h.vault);
    let report = block_on(h.task(config()).run("append"));
    assert_eq!(report.end, EndReason::Denied);
    assert_eq!(snapshot(&*h.vault), before);
    assert_eq!(asked.borrow().len(), 1, "the second call was not even asked");
    let request = &asked.borrow()[0];
    assert_eq!(request.category, ApprovalCategory::Write);
    assert_eq!(request.summary, "Add to the end of Inbox/Idea.md");
    match &request.preview {
        Some(ChangePreview::Write { diff, old, .. }) => {
            assert!(old.is_some());
            assert!(diff.contains("+more"), "{diff}");
        }
        other => panic!("expected a write preview, got {other:?}"),
    }
    let errors: Vec<_> = report.steps[0].tool_calls.iter().map(|c| c.error.clone().unwrap()).collect();
    assert!(errors[1].contains("Not run"), "{errors:?}");
    assert!(block_on(h.vault.stat(&p("Later"))).unwrap().is_none());
}

#[test]
fn always_allow_stops_asking_for_that_category() {
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("create_folder", json!({"path": "A"}))]),
            Turn::tools([("create_folder", json!({"path": "B"}))]),
            Turn::tools([("delete_file", json!({"path": "Inbox/Idea.md"}))]),
            Turn::text("ok"),
        ],
    );
    let count = Rc::new(std::cell::Cell::new(0));
    let c = count.clone();
    h.host.deciding(move |_| {
        c.set(c.get() + 1);
        ApprovalDecision::AlwaysAllow
    });
    let mut task = h.task(config());
    block_on(task.run("x"));
    assert_eq!(count.get(), 2, "asked for the first write and the delete, not the second write");
    assert!(task.policy().is_automatic(ApprovalCategory::Delete));
}

#[test]
fn large_results_are_externalized_readable_and_cleaned_up() {
    let v = MemoryVault::new();
    for i in 0..150 {
        block_on(v.write(&p(&format!("Notes/Topic {i:03} with a long descriptive name.md")), "x")).unwrap();
    }
    let tmp_path = ".obsidian-agent/tmp/t1/list_files-0.md";
    let h = Harness::new(
        v,
        [
            Turn::tools([("list_files", json!({"path": "Notes"}))]),
            Turn::tools([("read_file", json!({"path": tmp_path, "offset": 100, "limit": 3}))]),
            Turn::text("There are 150 topics."),
        ],
    );
    let seen_during = Rc::new(std::cell::RefCell::new(None));
    let (slot, vault) = (seen_during.clone(), h.vault.clone());
    h.host.on_event(move |event| {
        if let AgentEvent::Externalized { path, chars, .. } = event {
            let exists = vault.stat(&VaultPath::parse(path).unwrap()).now_or_never().unwrap().unwrap().is_some();
            *slot.borrow_mut() = Some((path.clone(), *chars, exists));
        }
    });
    let report = block_on(h.task(config()).run("how many topics?"));

    let (path, chars, existed) = seen_during.borrow().clone().expect("an Externalized event");
    assert_eq!(path, tmp_path, "deterministic name: <tool>-<callIndex>.md");
    assert!(chars > 2_000 && existed);
    let reference = last_user_text(&h.provider.requests()[1]);
    assert!(reference.len() < 1_000, "a compact reference, not the listing: {} chars", reference.len());
    assert!(reference.contains("150 entries in Notes") && reference.contains(tmp_path), "{reference}");
    assert!(reference.contains("Notes/Topic 000 with a long descriptive name.md"), "top entries: {reference}");
    let window = last_user_text(&h.provider.requests()[2]);
    assert!(window.contains("(lines 100-102 of 150)") && window.contains("Topic 099"), "{window}");
    assert_eq!(report.steps[0].tool_calls[0].externalized.as_deref(), Some(tmp_path));
    // Later turns of the chat still point to the file: it stays until the chat is closed.
    assert!(block_on(h.vault.stat(&p(tmp_path))).unwrap().is_some(), "kept after the task ends");
    block_on(release_results(&*h.vault, &["t1".to_string(), "never-ran".to_string()])).unwrap();
    assert!(block_on(h.vault.stat(&p(".obsidian-agent/tmp/t1"))).unwrap().is_none(), "released with its chat");
}

#[test]
fn search_results_keep_their_scores_in_the_reference() {
    let v = MemoryVault::new();
    for i in 0..60 {
        let body = format!(
            "# Garden {i}\n\ntomato {} and more words to make the snippet longer than usual here\n",
            "tomato ".repeat(i % 7)
        );
        block_on(v.write(&p(&format!("Garden/Bed {i:02}.md")), &body)).unwrap();
    }
    let (_, _, seen) = run(config(), v, vec![Turn::tools([("search_files", json!({"query": "tomato", "limit": 60}))])]);
    assert!(seen[0].contains("Summary: 60 notes found for \"tomato\""), "{}", seen[0]);
    assert!(seen[0].contains("(score "), "{}", seen[0]);
}

#[test]
fn the_startup_sweep_removes_only_orphans_older_than_an_hour() {
    let v = MemoryVault::new();
    v.set_now(1_000);
    block_on(v.write(&p(".obsidian-agent/tmp/old-task/read_file-0.md"), "x")).unwrap();
    let now = 1_000 + ORPHAN_AGE_MS + 10_000;
    v.set_now(now - 60_000);
    block_on(v.write(&p(".obsidian-agent/tmp/recent-task/list_files-2.md"), "x")).unwrap();
    block_on(v.write(&p(".obsidian-agent/tmp/mixed-task/a.md"), "x")).unwrap();
    let removed = block_on(sweep_orphans(&v, now, ORPHAN_AGE_MS)).unwrap();
    assert_eq!(removed, vec![p(".obsidian-agent/tmp/old-task")]);
    assert!(block_on(v.stat(&p(".obsidian-agent/tmp/recent-task"))).unwrap().is_some());
    assert!(block_on(sweep_orphans(&MemoryVault::new(), now, ORPHAN_AGE_MS)).unwrap().is_empty());
    // An interrupted task's results stay: its snapshot's history points to them.
    v.set_now(1_000);
    block_on(v.write(&p(".obsidian-agent/tmp/waiting/read_file-0.md"), "x")).unwrap();
    block_on(v.write(&p(".obsidian-agent/tasks/waiting.json"), "{}")).unwrap();
    assert!(block_on(sweep_orphans(&v, now, ORPHAN_AGE_MS)).unwrap().is_empty());
}

#[test]
fn every_call_is_in_the_audit_log() {
    let (h, _, _) = run(
        config(),
        vault(),
        vec![
            Turn::tools([("read_file", json!({"path": "Inbox/Idea.md"})), ("read_file", json!({"path": "nope.md"}))]),
            Turn::tools([("append_to_file", json!({"path": "Inbox/Idea.md", "content": "x"}))]),
        ],
    );
    let log = block_on(h.vault.read(&p(".obsidian-agent/logs/t1.jsonl"))).unwrap();
    let lines: Vec<Value> = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["tool"], "read_file");
    assert_eq!(lines[0]["outcome"], "ok");
    assert_eq!(lines[1]["outcome"], "error");
    assert_eq!(lines[2]["approval"], "approved");
    assert_eq!(lines[2]["index"], 2);
}

/// A tool that never finishes, to prove the timeout.
struct Stall;

/// No arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoArgs {}

#[async_trait(?Send)]
impl Tool for Stall {
    type Args = NoArgs;
    type Plan = NoArgs;
    const NAME: &'static str = "stall";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Read;
    fn description(&self) -> &str {
        "never finishes"
    }
    async fn plan(&self, args: NoArgs, _ctx: &ToolContext<'_>) -> Result<NoArgs, ToolError> {
        Ok(args)
    }
    async fn apply(&self, _args: NoArgs, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        futures::future::pending().await
    }
}

#[test]
fn a_tool_that_hangs_is_stopped_by_the_timeout() {
    let h = Harness::new(vault(), [Turn::tools([("stall", json!({}))]), Turn::text("ok")]);
    let mut tools = builtin_tools();
    tools.register(Rc::new(Stall));
    let mut task = block_on(AgentTask::new(TaskSetup {
        config: AgentConfig { tool_timeout_ms: 5_000, ..AgentConfig::default() },
        provider: h.provider.clone(),
        vault: h.vault.clone(),
        clock: h.clock.clone(),
        host: h.host.clone(),
        cancel: h.cancel.clone(),
        tools: Some(tools),
        web: None,
        modes: vec![],
        vault_info: Default::default(),
        search: vault_agent::index::SharedIndex::new(),
        condense_hook: None,
        end_hook: None,
        history: vec![],
        task_id: None,
    }))
    .unwrap();
    let report = block_on(task.run("x"));
    assert_eq!(report.end, EndReason::Answered);
    assert!(last_user_text(&h.provider.requests()[1]).contains("stall did not finish within 5 s"));
    assert_eq!(h.clock.sleeps(), vec![5_000]);
}

#[test]
fn a_followup_question_waits_for_the_users_answer() {
    let h = Harness::new(
        vault(),
        [
            Turn::tools([(
                "ask_followup_question",
                json!({"question": "Which folder?", "suggestions": ["Inbox", "Archive"]}),
            )]),
            Turn::tools([("ask_followup_question", json!({"question": "Anything else?"}))]),
            Turn::text("ok"),
        ],
    );
    h.host.answering(Some("Inbox"));
    h.host.answering(None);
    block_on(h.task(config()).run("file my idea"));
    let requests = h.provider.requests();
    assert!(last_user_text(&requests[1]).contains("The user answered: Inbox"));
    assert!(last_user_text(&requests[2]).contains("did not answer"));
    assert!(h
        .host
        .events()
        .iter()
        .any(|e| matches!(e, AgentEvent::QuestionAsked { question } if question.suggestions.len() == 2)));
}

#[test]
fn a_user_edit_between_read_and_write_is_a_conflict_not_an_overwrite() {
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("read_file", json!({"path": "Inbox/Idea.md"}))]),
            Turn::tools([(
                "edit_file",
                json!({"path": "Inbox/Idea.md", "old_string": "merges notes", "new_string": "merges and links notes"}),
            )]),
            Turn::tools([("read_file", json!({"path": "Inbox/Idea.md"}))]),
            Turn::tools([(
                "edit_file",
                json!({"path": "Inbox/Idea.md", "old_string": "merges notes", "new_string": "merges and links notes"}),
            )]),
            Turn::tools([("write_file", json!({"path": "Archive/../Inbox/Other.md", "content": "x"}))]),
            Turn::text("done"),
        ],
    );
    // The user edits the note while the model is thinking about its first read.
    let (vault, edited) = (h.vault.clone(), Rc::new(std::cell::Cell::new(false)));
    let flag = edited.clone();
    h.host.on_event(move |event| {
        if matches!(event, AgentEvent::ToolFinished { tool, .. } if tool == "read_file") && !flag.replace(true) {
            let note = p("Inbox/Idea.md");
            let edit = vault.write(&note, "# Idea\n\nA plugin that merges notes.\n\nUser's new line.\n");
            edit.now_or_never().unwrap().unwrap();
        }
    });
    let report = block_on(h.task(config()).run("improve my idea"));
    let requests = h.provider.requests();
    let conflict = last_user_text(&requests[2]);
    assert!(conflict.contains("Conflict: Inbox/Idea.md changed since you last read it"), "{conflict}");
    let text = block_on(h.vault.read(&p("Inbox/Idea.md"))).unwrap();
    assert_eq!(
        text, "# Idea\n\nA plugin that merges and links notes.\n\nUser's new line.\n",
        "the user's line survives"
    );
    assert_eq!(report.end, EndReason::Answered);
}

#[test]
fn replacing_a_note_the_agent_never_read_is_refused() {
    let (h, _, seen) = run(
        config(),
        vault(),
        vec![Turn::tools([("write_file", json!({"path": "Inbox/Idea.md", "content": "overwritten"}))])],
    );
    assert!(seen[0].contains("you have not read it"), "{}", seen[0]);
    assert!(block_on(h.vault.read(&p("Inbox/Idea.md"))).unwrap().contains("merges notes"));
}

#[test]
fn edit_errors_reach_the_model_before_any_approval_is_asked() {
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("read_file", json!({"path": "Inbox/Idea.md"}))]),
            Turn::tools([(
                "edit_file",
                json!({"path": "Inbox/Idea.md", "old_string": "no such text", "new_string": "y"}),
            )]),
            Turn::text("ok"),
        ],
    );
    let asked = Rc::new(std::cell::Cell::new(0));
    let a = asked.clone();
    h.host.deciding(move |_| {
        a.set(a.get() + 1);
        ApprovalDecision::Approve
    });
    block_on(h.task(config()).run("x"));
    assert_eq!(asked.get(), 0);
    assert!(last_user_text(&h.provider.requests()[2]).contains("old_string was not found"));
}

/// The user keeps some of a write's changes and turns the others down: only the kept hunks
/// reach the note, and the model is told the rest were left out.
#[test]
fn an_approval_can_keep_some_hunks_of_a_change_and_turn_the_others_down() {
    let old: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let new = old.replace("line 2\n", "line two\n").replace("line 28\n", "line twenty-eight\n");
    let vault = MemoryVault::with_notes([("Long.md", old.as_str())]).unwrap();
    let turns = |new: &str| {
        vec![
            Turn::tools([("read_file", json!({"path": "Long.md"}))]),
            Turn::tools([("write_file", json!({"path": "Long.md", "content": new}))]),
            Turn::text("Done."),
        ]
    };
    let h = Harness::new(vault, turns(&new));
    h.host.keeping_hunks(&[1]);
    let report = block_on(h.task(config()).run("Spell out two numbers"));
    assert_eq!(report.end, EndReason::Answered);
    // The preview had two hunks; only the second was written.
    let hunks = h
        .host
        .events()
        .into_iter()
        .find_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => match request.preview {
                Some(ChangePreview::Write { rows, .. }) => {
                    Some(rows.iter().filter(|r| r.kind == vault_agent::protocol::DiffRowKind::Hunk).count())
                }
                _ => None,
            },
            _ => None,
        })
        .unwrap();
    assert_eq!(hunks, 2);
    let written = block_on(h.vault.read(&p("Long.md"))).unwrap();
    assert_eq!(written, old.replace("line 28\n", "line twenty-eight\n"));
    let told = last_user_text(&h.provider.requests()[2]);
    assert!(told.contains("Only 1 of the 2 changes were applied"), "{told}");

    // Turning every change down runs nothing, as a skip.
    let vault = MemoryVault::with_notes([("Long.md", old.as_str())]).unwrap();
    let h = Harness::new(vault, turns(&new));
    h.host.keeping_hunks(&[]);
    block_on(h.task(config()).run("Spell out two numbers"));
    assert_eq!(block_on(h.vault.read(&p("Long.md"))).unwrap(), old);
}
