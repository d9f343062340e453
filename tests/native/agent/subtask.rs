//! Sub-tasks (`new_task`): a fresh child in its own mode, the depth limit on both layers,
//! approvals through the parent's host, cancellation, the usage roll-up over two levels, one
//! undo for a parent and its children, and children without condensing or power steering.

use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::{AgentConfig, AgentTask, TaskSetup};
use vault_agent::host::{AgentHost, ChannelHost};
use vault_agent::pipeline::{list_checkpoints, undo_task};
use vault_agent::prompt::VaultInfo;
use vault_agent::protocol::{
    AgentEvent, ApprovalCategory, ApprovalDecision, EndReason, ModelRequest, Role, RunReport, ToolCallReport, Usage,
};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, is_flush_request, is_summary_request, last_user_text, p, routed, snapshot, Harness};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

fn notes() -> MemoryVault {
    MemoryVault::with_notes([
        ("Cooking/Bread.md", "# Bread\n\nSourdough needs a starter. Bake at 230 °C.\n"),
        ("Cooking/Pizza.md", "# Pizza\n\nThe dough rests 48 hours.\n"),
    ])
    .unwrap()
}

fn delegate(mode: &str, message: &str) -> Turn {
    Turn::tools([("new_task", json!({"mode": mode, "message": message}))])
}

fn tool_names(request: &ModelRequest) -> Vec<String> {
    request.tools.iter().map(|t| t.name.clone()).collect()
}

/// The call that started a sub-task, in `report`'s steps.
fn subtask_call(report: &RunReport) -> &ToolCallReport {
    report.steps.iter().flat_map(|s| &s.tool_calls).find(|c| c.subtask.is_some()).expect("a new_task call")
}

fn steps_usage(report: &RunReport) -> Usage {
    report.steps.iter().fold(Usage::default(), |sum, s| sum + s.usage)
}

#[test]
fn a_sub_task_starts_fresh_in_its_own_mode_and_its_answer_is_the_result() {
    let h = Harness::new(
        notes(),
        [
            Turn::tools([("read_file", json!({"path": "Cooking/Bread.md"}))]),
            delegate("ask", "List the notes in Cooking/ that mention dough."),
            Turn::tools([("search_files", json!({"query": "dough"}))]),
            Turn::text("Only Cooking/Pizza.md mentions dough."),
            Turn::tools([("attempt_completion", json!({"result": "Done."}))]),
        ],
    );
    let mut task = h.task(config());
    let report = block_on(task.run("SECRET-REQUEST: tidy my cooking notes"));
    assert_eq!(report.end, EndReason::Completed, "{report:?}");

    let requests = h.provider.requests();
    let child_first = &requests[2];
    // Nothing of the parent's conversation: one user message, the child's own.
    assert_eq!(child_first.messages.len(), 1);
    assert_eq!(child_first.messages[0].role, Role::User);
    assert_eq!(child_first.messages[0].text(), "List the notes in Cooking/ that mention dough.");
    let sent = serde_json::to_string(&child_first.messages).unwrap();
    assert!(!sent.contains("SECRET-REQUEST") && !sent.contains("Sourdough"), "{sent}");
    // Its own mode: ask's tools (no writing), and it may still delegate (depth 1 of 2).
    let tools = tool_names(child_first);
    assert!(tools.contains(&"search_files".to_string()) && tools.contains(&"new_task".to_string()), "{tools:?}");
    assert!(!tools.contains(&"write_file".to_string()), "{tools:?}");
    assert!(child_first.system.iter().any(|s| s.text.contains("Ask")), "the ask mode's prompt");
    // The parent offered new_task too, and got the child's answer as the call's result.
    assert!(tool_names(&requests[0]).contains(&"new_task".to_string()));
    assert_eq!(last_user_text(&requests[4]), "Only Cooking/Pizza.md mentions dough.");

    // The report nests the child's, under the call that started it.
    let call = subtask_call(&report);
    assert_eq!(call.tool, "new_task");
    let child = call.subtask.as_deref().unwrap();
    assert_eq!(child.task_id, "t1.1");
    assert_eq!(child.end, EndReason::Answered);
    assert_eq!(child.steps.len(), 2);
    assert_eq!(child.steps[0].tool_calls[0].tool, "search_files");
    // Its events reached the host wrapped, from its start to its end.
    let wrapped: Vec<String> = h
        .host
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Subtask { task_id, event, .. } if task_id == "t1.1" => {
                Some(serde_json::to_value(event).unwrap()["type"].as_str().unwrap().to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(wrapped.first().map(String::as_str), Some("task_started"));
    assert_eq!(wrapped.last().map(String::as_str), Some("done"));
    assert!(h.host.events().iter().any(|e| matches!(e, AgentEvent::Subtask { event, .. }
        if matches!(&**event, AgentEvent::TaskStarted { mode, .. } if mode == "ask"))));
}

#[test]
fn a_child_may_not_get_tools_its_parent_lacks() {
    let h = Harness::new(
        notes(),
        [delegate("agent", "Rewrite Cooking/Bread.md."), Turn::text("I cannot change notes in ask mode.")],
    );
    let report = block_on(h.task(AgentConfig { mode: "ask".into(), ..config() }).run("x"));
    assert_eq!(report.end, EndReason::Answered);
    let result = last_user_text(&h.provider.requests()[1]);
    assert!(result.contains("could use edit tools, which this task in ask mode may not"), "{result}");
    assert_eq!(h.provider.requests().len(), 2, "no child ran");
}

#[test]
fn at_the_depth_limit_new_task_is_neither_offered_nor_run() {
    let h = Harness::new(
        notes(),
        [
            delegate("agent", "Look into bread."),
            // The child, at the limit, calls it anyway.
            delegate("ask", "Look deeper."),
            Turn::text("Bread needs a starter."),
            Turn::text("Done."),
        ],
    );
    let report = block_on(h.task(AgentConfig { max_subtask_depth: 1, ..config() }).run("x"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 4, "no grandchild ran");
    assert!(tool_names(&requests[0]).contains(&"new_task".to_string()));
    assert!(!tool_names(&requests[1]).contains(&"new_task".to_string()), "not offered at the limit");
    assert!(!requests[1].system.iter().any(|s| s.text.contains("new_task")), "nor named in the prompt");
    let refusal = last_user_text(&requests[2]);
    assert!(
        refusal.contains("new_task is not available here") && refusal.contains("max_subtask_depth (1)"),
        "{refusal}"
    );
    let child = subtask_call(&report).subtask.as_deref().unwrap();
    assert_eq!(child.final_text.as_deref(), Some("Bread needs a starter."));
}

#[test]
fn a_childs_approval_reaches_the_user_through_the_parents_host_saying_who_asks() {
    let vault: Rc<dyn Vault> = Rc::new(notes());
    let provider = Rc::new(vault_agent::provider::ScriptedProvider::new([
        delegate("agent", "Add a note about rye.\nKeep it short."),
        Turn::tools([("write_file", json!({"path": "Cooking/Rye.md", "content": "# Rye\n"}))]),
        Turn::text("Wrote Cooking/Rye.md."),
        Turn::text("The sub-task added a note on rye."),
    ]));
    // The plugin's host: answers come later, by request id.
    let slot: Rc<std::cell::RefCell<Option<Rc<ChannelHost>>>> = Rc::default();
    let asked = Rc::new(std::cell::RefCell::new(Vec::new()));
    let (answerer, seen) = (slot.clone(), asked.clone());
    let host = Rc::new(ChannelHost::new(move |event| {
        if let AgentEvent::ApprovalRequired { request } = event {
            seen.borrow_mut().push(request.clone());
            assert!(answerer.borrow().as_ref().unwrap().respond(&request.id, ApprovalDecision::Approve));
        }
    }));
    *slot.borrow_mut() = Some(host.clone());
    let events = Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut task = block_on(AgentTask::new(TaskSetup {
        config: config(),
        provider: provider.clone(),
        vault: vault.clone(),
        clock: Rc::new(vault_agent::host::ManualClock::new(1_795_392_000_000)),
        host: Rc::new(Recording { inner: host.clone(), events: events.clone() }),
        cancel: Default::default(),
        tools: None,
        web: None,
        modes: Vec::new(),
        vault_info: VaultInfo::default(),
        search: Default::default(),
        condense_hook: None,
        end_hook: None,
        history: Vec::new(),
        task_id: Some("t1".into()),
    }))
    .unwrap();
    let report = block_on(task.run("x"));
    *slot.borrow_mut() = None;
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    assert_eq!(block_on(vault.read(&p("Cooking/Rye.md"))).unwrap(), "# Rye\n");

    let asked = asked.borrow();
    assert_eq!(asked.len(), 1);
    let request = &asked[0];
    assert_eq!(request.id, "t1.0/a0", "named for the child, so it cannot clash with the parent's");
    assert_eq!(request.category, ApprovalCategory::Write);
    let who = request.subtask.as_ref().expect("says which sub-task asks");
    assert_eq!((who.task_id.as_str(), who.mode.as_str(), who.depth), ("t1.0", "agent", 1));
    assert_eq!(who.title, "Add a note about rye.");
    assert!(events.borrow().iter().any(|e| matches!(e,
        AgentEvent::ApprovalResolved { request_id, decision: ApprovalDecision::Approve } if request_id == "t1.0/a0")));
}

/// Passes everything to `inner` and keeps the events.
struct Recording {
    inner: Rc<ChannelHost>,
    events: Rc<std::cell::RefCell<Vec<AgentEvent>>>,
}

#[async_trait::async_trait(?Send)]
impl AgentHost for Recording {
    fn emit(&self, event: &AgentEvent) {
        self.events.borrow_mut().push(event.clone());
        self.inner.emit(event);
    }
    async fn approve(&self, request: &vault_agent::protocol::ApprovalRequest) -> ApprovalDecision {
        self.inner.approve(request).await
    }
    fn denial_reason(&self, request_id: &str) -> Option<String> {
        self.inner.denial_reason(request_id)
    }
}

#[test]
fn a_reason_given_to_a_childs_denial_reaches_the_child_and_a_plain_denial_stops_both() {
    let h = Harness::new(
        notes(),
        [
            delegate("agent", "Add a note about rye."),
            Turn::tools([("write_file", json!({"path": "Cooking/Rye.md", "content": "# Rye\n"}))]),
            Turn::text("The user does not want it."),
            Turn::text("Left it."),
        ],
    );
    h.host.denying_first_because("not now");
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Answered);
    assert!(last_user_text(&h.provider.requests()[2]).contains("Their reason: not now"));

    let h = Harness::new(
        notes(),
        [
            delegate("agent", "Add a note about rye."),
            Turn::tools([("write_file", json!({"path": "Cooking/Rye.md", "content": "# Rye\n"}))]),
            Turn::text("never sent"),
        ],
    );
    h.host.deciding(|_| ApprovalDecision::Deny);
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Denied, "the parent stops with its child");
    assert_eq!(subtask_call(&report).subtask.as_ref().unwrap().end, EndReason::Denied);
    assert_eq!(h.provider.remaining(), 1);
}

#[test]
fn cancelling_the_parent_cancels_its_child() {
    let h = Harness::new(
        notes(),
        [delegate("ask", "Read everything."), Turn::Hang { text: "Reading".into() }, Turn::text("never sent")],
    );
    let cancel = h.cancel.clone();
    h.host.on_event(move |event| {
        if let AgentEvent::Subtask { event, .. } = event {
            if matches!(**event, AgentEvent::TextDelta { .. }) {
                cancel.cancel();
            }
        }
    });
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Cancelled);
    let child = subtask_call(&report).subtask.as_deref().expect("the child's report");
    assert_eq!(child.end, EndReason::Cancelled);
    // The child's stopped call still counts (estimated), in its usage and the parent's.
    assert!(child.usage.input_tokens > 0);
    assert_eq!(report.usage, steps_usage(&report) + child.usage);
    assert_eq!(h.provider.remaining(), 1, "nothing ran after the cancel");
}

#[test]
fn usage_rolls_up_exactly_over_two_levels_and_the_reports_nest() {
    let h = Harness::new(
        notes(),
        [
            delegate("agent", "Collect what the cooking notes say."),
            delegate("ask", "What does Cooking/Bread.md say?"),
            Turn::tools([("read_file", json!({"path": "Cooking/Bread.md"}))]),
            Turn::text("Bread needs a starter and 230 °C."),
            Turn::tools([("read_file", json!({"path": "Cooking/Pizza.md"}))]),
            Turn::text("Bread: starter, 230 °C. Pizza: dough rests 48 h."),
            Turn::text("Bread needs a starter; pizza dough rests 48 hours."),
        ],
    );
    let report = block_on(h.task(config()).run("Summarise my cooking notes"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 7);
    assert!(!tool_names(&requests[2]).contains(&"new_task".to_string()), "the grandchild is at the limit (2)");

    let child = subtask_call(&report).subtask.as_deref().unwrap();
    let grandchild = subtask_call(child).subtask.as_deref().unwrap();
    assert_eq!((child.task_id.as_str(), grandchild.task_id.as_str()), ("t1.0", "t1.0.0"));
    assert_eq!(grandchild.steps.len(), 2);
    assert_eq!(child.steps.len(), 3);
    assert_eq!(report.steps.len(), 2);
    // Exactly: each level is its own steps plus its children's.
    assert_eq!(grandchild.usage, steps_usage(grandchild));
    assert_eq!(child.usage, steps_usage(child) + grandchild.usage);
    assert_eq!(report.usage, steps_usage(&report) + child.usage);
    // … which is every model call made, once.
    let every_step = steps_usage(&report) + steps_usage(child) + steps_usage(grandchild);
    assert_eq!(report.usage, every_step);
    assert!(grandchild.usage.input_tokens > 0 && grandchild.usage.output_tokens > 0);
    // The parent's meter counted them by its last step.
    let last_total = h
        .host
        .events()
        .iter()
        .rev()
        .find_map(|e| match e {
            AgentEvent::StepFinished { total, .. } => Some(*total),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_total, report.usage);
    // A saved report reads back with its nesting.
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(serde_json::from_str::<RunReport>(&json).unwrap(), report);
}

#[test]
fn one_undo_reverts_the_parent_and_all_its_children() {
    let vault = notes();
    let before = snapshot(&vault);
    let h = Harness::new(
        vault,
        [
            Turn::tools([("write_file", json!({"path": "Cooking/Index.md", "content": "# Index\n"}))]),
            delegate("agent", "Add a line to the bread note, then have a sub-task file the pizza note."),
            Turn::tools([("read_file", json!({"path": "Cooking/Bread.md"}))]),
            Turn::tools([("append_to_file", json!({"path": "Cooking/Bread.md", "content": "\nRye works too.\n"}))]),
            delegate("agent", "Move Cooking/Pizza.md to Archive/Pizza.md."),
            Turn::tools([("move_file", json!({"path": "Cooking/Pizza.md", "new_path": "Archive/Pizza.md"}))]),
            Turn::text("Moved."),
            Turn::text("Appended and moved."),
            Turn::text("All done."),
        ],
    );
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    assert!(block_on(h.vault.read(&p("Archive/Pizza.md"))).is_ok());
    let changed = &report.changed_paths;
    assert!(
        ["Archive/Pizza.md", "Cooking/Bread.md", "Cooking/Index.md", "Cooking/Pizza.md"]
            .iter()
            .all(|path| changed.contains(&path.to_string())),
        "the parent's report names its children's changes: {changed:?}"
    );
    // One checkpoint: the parent's holds its children's writes.
    let checkpoints = block_on(list_checkpoints(&*h.vault)).unwrap();
    assert_eq!(checkpoints.iter().map(|c| c.task_id.as_str()).collect::<Vec<_>>(), ["t1"]);

    block_on(undo_task(h.vault.clone(), "t1", 2)).unwrap();
    assert_eq!(snapshot(&*h.vault), before);
}

#[test]
fn children_run_without_condensing_and_without_power_steering() {
    let reads = || -> Vec<Turn> {
        (0..8)
            .map(|i| Turn::tools([("read_file", json!({"path": format!("Notes/n{i}.md")}))]))
            .chain([Turn::text("All read.")])
            .collect()
    };
    let garden = || {
        let vault = MemoryVault::new();
        for i in 0..8 {
            let body = format!("# Note {i}\n\n{}\n", format!("Fact {i} about the garden. ").repeat(46));
            block_on(vault.write(&p(&format!("Notes/n{i}.md")), &body)).unwrap();
        }
        vault
    };
    // A small window, and a reminder every two steps.
    let tight = AgentConfig { context_window: 4_000, power_steering_frequency: 2, ..config() };

    // As a task of its own, this work condenses and is reminded of its mode.
    let alone = Harness::new(garden(), routed(reads(), "## User goal\nx", "NONE"));
    let report = block_on(alone.task(tight.clone()).run("Read the garden notes"));
    assert!(report.condensations >= 1);
    assert!(alone.provider.requests().iter().any(|r| last_user_text(r).contains("[Reminder]")));

    // As a sub-task, it does neither.
    let steps: Vec<Turn> = [delegate("agent", "Read the garden notes")]
        .into_iter()
        .chain(reads())
        .chain([Turn::text("The garden notes are read.")])
        .collect();
    let h = Harness::new(garden(), routed(steps, "## User goal\nx", "NONE"));
    let report = block_on(h.task(tight).run("Have the garden notes read"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let child = subtask_call(&report).subtask.as_deref().unwrap();
    assert_eq!((child.end.clone(), child.steps.len(), child.condensations), (EndReason::Answered, 9, 0));
    let requests = h.provider.requests();
    assert!(!requests.iter().any(|r| is_summary_request(r) || is_flush_request(r)));
    let child_requests = &requests[1..10];
    assert!(child_requests.iter().all(|r| !last_user_text(r).contains("[Reminder]")));
}

#[test]
fn a_grandchilds_approval_is_named_for_it_through_both_levels() {
    let h = Harness::new(
        notes(),
        [
            delegate("agent", "Add notes about rye."),
            delegate("agent", "Write Cooking/Rye.md."),
            Turn::tools([("write_file", json!({"path": "Cooking/Rye.md", "content": "# Rye\n"}))]),
            Turn::text("Wrote it."),
            Turn::text("Done below."),
            Turn::text("Done."),
        ],
    );
    let report = block_on(h.task(config()).run("x"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let events = h.host.events();
    let asked: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => Some(request.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "one request, at the top, not wrapped");
    assert_eq!(asked[0].id, "t1.0.0/a0");
    let who = asked[0].subtask.as_ref().unwrap();
    assert_eq!((who.task_id.as_str(), who.depth, who.title.as_str()), ("t1.0.0", 2, "Write Cooking/Rye.md."));
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::ApprovalResolved { request_id, .. } if request_id == "t1.0.0/a0")));
    // Its other events come wrapped twice: in the child's, in the task's.
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Subtask { task_id, event, .. } if task_id == "t1.0"
        && matches!(&**event, AgentEvent::Subtask { task_id, event, .. } if task_id == "t1.0.0"
            && matches!(&**event, AgentEvent::ToolFinished { tool, .. } if tool == "write_file")))));
}

#[test]
fn a_sub_task_shares_its_parents_guard_so_delegating_does_not_reset_the_write_rate() {
    let mut guarded = config();
    guarded.guard.write_rate_limit = 2;
    let h = Harness::new(
        notes(),
        [
            Turn::tools([("write_file", json!({"path": "a.md", "content": "a"}))]),
            delegate("agent", "Write b.md and c.md."),
            Turn::tools([("write_file", json!({"path": "b.md", "content": "b"}))]),
            Turn::tools([("write_file", json!({"path": "c.md", "content": "c"}))]),
            Turn::text("never asked: a guardrail in a sub-task stops the whole task"),
        ],
    );
    let report = block_on(h.task(guarded).run("x"));
    assert!(
        matches!(&report.end, EndReason::Guardrail { message } if message.starts_with("in a sub-task, write rate")),
        "{:?}",
        report.end
    );
    assert_eq!(h.provider.remaining(), 1, "the parent did not carry on after the child was stopped");
    let child = subtask_call(&report).subtask.as_deref().unwrap();
    assert!(
        matches!(&child.end, EndReason::Guardrail { message } if message.contains("more than 2 writes")),
        "{child:?}"
    );
    assert!(block_on(h.vault.read(&p("b.md"))).is_ok());
    assert!(block_on(h.vault.read(&p("c.md"))).is_err(), "the parent's write counted: the third is stopped");
    // One canary for the whole task: the child's prompt names the parent's.
    let requests = h.provider.requests();
    let canary = |r: &ModelRequest| {
        let system: String = r.system.iter().map(|s| s.text.clone()).collect();
        system.split_whitespace().find(|w| w.contains("VA-CANARY-")).map(str::to_string)
    };
    assert!(canary(&requests[0]).is_some());
    assert_eq!(canary(&requests[2]), canary(&requests[0]));
}

/// When each sub-task of a turn started and ended, by its message, in event order.
fn subtask_timeline(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Subtask { task_id, event, .. } => match event.as_ref() {
                AgentEvent::TaskStarted { .. } => Some(format!("start {task_id}")),
                AgentEvent::Done { .. } => Some(format!("end {task_id}")),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn read_only_sub_tasks_run_in_parallel_and_writing_ones_one_at_a_time() {
    for (mode, parallel) in [("ask", true), ("agent", false)] {
        let h = Harness::new(
            notes(),
            [
                Turn::tools([
                    ("new_task", json!({"mode": mode, "message": "What does Bread say?"})),
                    ("new_task", json!({"mode": mode, "message": "What does Pizza say?"})),
                ]),
                Turn::text("Bake at 230 °C."),
                Turn::text("The dough rests 48 hours."),
                Turn::text("Both answered."),
            ],
        );
        let report = block_on(h.task(config()).run("Ask about both notes at once"));
        assert_eq!(report.end, EndReason::Answered, "{report:?}");
        let timeline = subtask_timeline(&h.host.events());
        let id = &report.task_id;
        let expected: Vec<String> = if parallel {
            vec![format!("start {id}.0"), format!("start {id}.1"), format!("end {id}.0"), format!("end {id}.1")]
        } else {
            vec![format!("start {id}.0"), format!("end {id}.0"), format!("start {id}.1"), format!("end {id}.1")]
        };
        assert_eq!(timeline, expected, "{mode}");
        // Each child's answer is its own call's result, and both children's usage rolls up.
        let requests = h.provider.requests();
        let results = format!("{:?}", requests[3].messages.last().unwrap());
        assert!(results.contains("Bake at 230") && results.contains("48 hours"), "{results}");
        let children: Usage = report
            .steps
            .iter()
            .flat_map(|s| &s.tool_calls)
            .filter_map(|c| c.subtask.as_ref())
            .fold(Usage::default(), |sum, r| sum + r.usage);
        assert_eq!(report.usage, steps_usage(&report) + children);
    }
}

#[test]
fn a_sub_task_may_narrow_its_mode_but_never_widen_it() {
    let h = Harness::new(
        notes(),
        [
            delegate("ask", "Look around."),
            Turn::tools([("switch_mode", json!({"mode": "agent", "reason": "to write"}))]),
            Turn::text("Stayed in ask mode."),
            Turn::text("Done."),
        ],
    );
    let report = block_on(h.task(config()).run("go"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let requests = h.provider.requests();
    let switch = requests[1].tools.iter().find(|t| t.name == "switch_mode").expect("offered");
    assert_eq!(switch.input_schema["properties"]["mode"]["enum"], json!(["ask"]));
    // The call is refused by the schema, before any approval, and the child stays read-only.
    assert!(!h.host.events().iter().any(|e| matches!(e, AgentEvent::ApprovalRequired { .. })));
    assert!(!tool_names(&requests[2]).contains(&"write_file".to_string()));
    // The parent (depth 0) may switch to any mode.
    let modes =
        &requests[0].tools.iter().find(|t| t.name == "switch_mode").unwrap().input_schema["properties"]["mode"]["enum"];
    assert!(modes.as_array().unwrap().len() >= 2, "{modes}");
}
