//! Recipes and the fast path: a recipe learned only from runs that completed (a failed,
//! denied or undone run counts against it), the fast path on the fourth run of a kind of
//! request (one planning call, the plan through approval, checkpoint and audit log, one final
//! turn), and the fallback to the normal loop on a bad plan or a failed step.

use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::memory::{Recipe, RecipeStep, RecipeStore, RECIPE_FILE};
use vault_agent::pipeline::undo_task;
use vault_agent::protocol::{AgentEvent, ApprovalDecision, EndReason, RunReport, ToolChoice};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, p, Harness};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, memory_extraction: false, ..AgentConfig::default() }
}

const REQUEST: &str = "Summarise my notes on bees and hives into Summary.md";

/// Two notes on bees (one long enough that the fast path's digest cuts it).
fn vault() -> MemoryVault {
    let vault = MemoryVault::new();
    block_on(vault.write(&p("Bees/Hives.md"), &format!("# Hives\n\n{}", "Hives hold frames of comb. ".repeat(120))))
        .unwrap();
    block_on(vault.write(&p("Bees/Queens.md"), "# Queens\n\nA hive has one queen.\n")).unwrap();
    vault
}

/// Where run `n` writes its summary (a new note each time: replacing one would need a read).
fn summary_path(n: usize) -> String {
    format!("Summaries/Bees {n}.md")
}

/// What the normal loop does for the request: read both notes, write summary `n`, complete.
fn normal_run(n: usize) -> Vec<Turn> {
    vec![
        Turn::tools([
            ("read_file", json!({"path": "Bees/Hives.md"})),
            ("read_file", json!({"path": "Bees/Queens.md"})),
        ]),
        Turn::tools([("write_file", json!({"path": summary_path(n), "content": summary(n)}))]),
        Turn::tools([("attempt_completion", json!({"result": "Wrote [[Summary]]."}))]),
    ]
}

fn summary(n: usize) -> String {
    format!(
        "# Bees, summary {n}\n\n{}",
        "Hives hold comb and one queen each; the summary says so at length. ".repeat(5)
    )
}

fn recipes(vault: &dyn Vault) -> Vec<Recipe> {
    block_on(RecipeStore::load(vault)).unwrap().recipes().to_vec()
}

fn run(h: &Harness, id: &str, config: AgentConfig) -> RunReport {
    block_on(h.task_named(config, id).run(REQUEST))
}

fn fallbacks(h: &Harness) -> Vec<String> {
    h.host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::FastPathFallback { reason, .. } => Some(reason),
            _ => None,
        })
        .collect()
}

/// A store whose one recipe for the request has worked three times.
fn learned_three_times(vault: &dyn Vault) {
    let mut store = RecipeStore::default();
    let steps = vec![
        RecipeStep::new("read_file", &json!({"path": "Bees/Hives.md"})),
        RecipeStep::new("read_file", &json!({"path": "Bees/Queens.md"})),
        RecipeStep::new("write_file", &json!({"path": summary_path(0), "content": summary(0)})),
    ];
    for id in ["a", "b", "c"] {
        store.learn(REQUEST, None, steps.clone(), id, 1);
    }
    block_on(store.save(vault)).unwrap();
}

#[test]
fn a_recipe_is_learned_only_from_success_and_failures_denials_and_undos_count_against_it() {
    let mut turns = vec![Turn::fail(vault_agent::protocol::ErrorKind::Auth, "invalid key")];
    // Denied: the write is refused.
    turns.extend(normal_run(1).into_iter().take(2));
    let h = Harness::new(vault(), turns);
    h.host.deciding(|r| if r.tool == "write_file" { ApprovalDecision::Deny } else { ApprovalDecision::Approve });

    assert!(matches!(run(&h, "t1", config()).end, EndReason::Failed { .. }));
    assert_eq!(run(&h, "t2", config()).end, EndReason::Denied);
    assert!(recipes(&*h.vault).is_empty(), "a failed or denied run teaches nothing");
    assert!(block_on(h.vault.stat(&p(RECIPE_FILE))).unwrap().is_none(), "nothing was written");

    // A run that completes leaves a recipe: its calls that worked, control tools left out,
    // long texts as templates.
    h.host.deciding(|_| ApprovalDecision::Approve);
    for turn in normal_run(3) {
        h.provider.push(turn);
    }
    assert_eq!(run(&h, "t3", config()).end, EndReason::Completed);
    let learned = recipes(&*h.vault);
    assert_eq!(learned.len(), 1);
    let recipe = &learned[0];
    assert_eq!((recipe.id.as_str(), recipe.request.as_str()), ("r1", REQUEST));
    assert_eq!(recipe.tools(), ["read_file", "read_file", "write_file"]);
    assert_eq!(recipe.steps[0].args, json!({"path": "Bees/Hives.md"}));
    assert!(recipe.steps[2].depends_on_results(), "{}", recipe.steps[2].args);
    assert_eq!(recipe.steps[2].args["path"], "Summaries/Bees 3.md");
    assert_eq!((recipe.successes, recipe.failures, recipe.tasks.clone()), (1, 0, vec!["t3".to_string()]));

    // The same kind of request, denied now: it counts against the recipe it matches.
    h.host.deciding(|r| if r.tool == "write_file" { ApprovalDecision::Deny } else { ApprovalDecision::Approve });
    for turn in normal_run(4).into_iter().take(2) {
        h.provider.push(turn);
    }
    assert_eq!(run(&h, "t4", config()).end, EndReason::Denied);
    assert_eq!((recipes(&*h.vault)[0].successes, recipes(&*h.vault)[0].failures), (1, 1));

    // A second success, then its undo: the success is taken back and counts against.
    h.host.deciding(|_| ApprovalDecision::Approve);
    for turn in normal_run(5) {
        h.provider.push(turn);
    }
    assert_eq!(run(&h, "t5", config()).end, EndReason::Completed);
    assert_eq!((recipes(&*h.vault)[0].successes, recipes(&*h.vault)[0].tasks.len()), (2, 2));
    block_on(undo_task(h.vault.clone(), "t5", 2)).unwrap();
    let recipe = &recipes(&*h.vault)[0];
    assert_eq!((recipe.successes, recipe.failures, recipe.tasks.clone()), (1, 2, vec!["t3".to_string()]));

    // Undoing the last success leaves nothing learned.
    block_on(undo_task(h.vault.clone(), "t3", 3)).unwrap();
    assert!(recipes(&*h.vault).is_empty());
}

#[test]
fn the_fourth_run_of_a_kind_of_request_takes_the_fast_path_through_the_same_pipeline() {
    let mut turns = Vec::new();
    for n in 1..=3 {
        turns.extend(normal_run(n));
    }
    // The fourth run: the plan, then one final turn that writes from what was read.
    turns.push(Turn::text(
        "```json\n{\"calls\": [{\"tool\": \"read_file\", \"args\": {\"path\": \"Bees/Hives.md\"}}, \
         {\"tool\": \"read_file\", \"args\": {\"path\": \"Bees/Queens.md\"}}]}\n```",
    ));
    turns.push(Turn::tools([
        ("write_file", json!({"path": summary_path(4), "content": summary(4)})),
        ("attempt_completion", json!({"result": "Wrote [[Summary]] again."})),
    ]));
    let h = Harness::new(vault(), turns);
    for (n, id) in ["t1", "t2", "t3"].iter().enumerate() {
        let report = run(&h, id, config());
        assert_eq!(report.end, EndReason::Completed, "run {}", n + 1);
        assert_eq!(report.fast_path, None);
        assert_eq!(report.steps.len(), 3);
    }
    assert_eq!((recipes(&*h.vault)[0].successes, recipes(&*h.vault)[0].net()), (3, 3));
    let before = h.provider.requests().len();
    h.host.events.borrow_mut().clear();

    let report = run(&h, "t4", config());
    assert_eq!(report.end, EndReason::Completed, "{report:?}");
    assert_eq!(report.final_text.as_deref(), Some("Wrote [[Summary]] again."));
    let requests = &h.provider.requests()[before..];
    assert_eq!(requests.len(), 2, "one planning call and one final turn");
    assert_eq!(report.steps.len(), 2);
    let used = report.fast_path.clone().expect("the answer names its recipe");
    assert_eq!((used.id.as_str(), used.successes), ("r1", 3));

    // The planning call: a request of its own, no tools, the recipe in it.
    let planner = &requests[0];
    assert!(planner.tools.is_empty() && planner.tool_choice == ToolChoice::None);
    let asked = planner.messages[0].text();
    assert!(asked.contains(REQUEST) && asked.contains("read_file {\"path\":\"Bees/Hives.md\"}"), "{asked}");
    assert!(asked.contains("(left for the final turn)"), "{asked}");
    // The final turn: the recipe's tools only, the results as a digest.
    let final_turn = &requests[1];
    let offered: Vec<&str> = final_turn.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered, ["read_file", "write_file", "attempt_completion"]);
    let results: Vec<String> = final_turn
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|b| match b {
            vault_agent::protocol::ContentBlock::ToolResult { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].contains("cut at 1500 of"), "{}", results[0]);
    assert!(results[1].contains("A hive has one queen."));

    // Nothing bypassed: the write was asked for, checkpointed (undo removes it) and logged.
    let events = h.host.events();
    assert!(matches!(&events[1], AgentEvent::FastPath { recipe } if recipe.id == "r1"), "{:?}", events[1]);
    let approvals: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => Some(request.tool.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(approvals, ["write_file"]);
    let log = block_on(h.vault.read(&p(".obsidian-agent/logs/t4.jsonl"))).unwrap();
    let logged: Vec<String> =
        log.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["tool"].to_string()).collect();
    assert_eq!(logged, ["\"read_file\"", "\"read_file\"", "\"write_file\"", "\"attempt_completion\""]);
    assert_eq!(report.changed_paths, [summary_path(4)]);
    assert_eq!(block_on(h.vault.read(&p(&summary_path(4)))).unwrap(), summary(4));
    block_on(undo_task(h.vault.clone(), "t4", 9)).unwrap();
    assert!(block_on(h.vault.stat(&p(&summary_path(4)))).unwrap().is_none(), "the fast path's write undone");

    // The fast path's success counted (and was taken back by the undo).
    let recipe = &recipes(&*h.vault)[0];
    assert_eq!((recipe.successes, recipe.failures), (3, 1));
}

#[test]
fn the_fast_path_is_off_when_the_setting_says_so() {
    let h = Harness::new(vault(), normal_run(4));
    learned_three_times(&*h.vault);
    let report = run(&h, "t4", AgentConfig { fast_path: false, ..config() });
    assert_eq!((report.end, report.fast_path, report.steps.len()), (EndReason::Completed, None, 3));
    assert!(!h.host.events().iter().any(|e| matches!(e, AgentEvent::FastPath { .. })));
    assert_eq!(recipes(&*h.vault)[0].successes, 4, "the run still teaches the recipe");
}

#[test]
fn a_plan_that_is_not_json_or_names_an_unknown_tool_falls_back_to_the_normal_loop() {
    for (plan, reason) in [
        ("Sure! First I will read the hives note, then the queens note.", "the plan was not JSON"),
        ("{\"calls\": [{\"tool\": \"summon_notes\", \"args\": {}}]}", "the plan names an unknown tool, summon_notes"),
        ("{\"steps\": []}", "the plan was not JSON of the plan's shape"),
    ] {
        let mut turns = vec![Turn::text(plan)];
        turns.extend(normal_run(4));
        let h = Harness::new(vault(), turns);
        learned_three_times(&*h.vault);
        let report = run(&h, "t4", config());
        assert_eq!(report.end, EndReason::Completed, "{plan}: {report:?}");
        assert_eq!(report.fast_path, None, "{plan}");
        assert_eq!(report.steps.len(), 4, "{plan}: the planning call, then the normal loop's three");
        let said = fallbacks(&h);
        assert_eq!(said.len(), 1, "{plan}: {said:?}");
        assert!(said[0].starts_with(reason), "{plan}: {said:?}");
        // The normal loop started from the request alone: nothing of the plan in its history.
        let second = &h.provider.requests()[1];
        assert_eq!(second.messages.len(), 1, "{plan}");
        assert_eq!(second.messages[0].text(), REQUEST);
        // The fallback counts against the recipe; the normal loop's success for it.
        let recipe = &recipes(&*h.vault)[0];
        assert_eq!((recipe.successes, recipe.failures), (4, 1), "{plan}");
    }
}

#[test]
fn a_plan_with_a_tool_the_mode_lacks_or_a_failing_step_falls_back_too() {
    // Ask mode does not write.
    let mut turns = vec![Turn::text(
        "{\"calls\": [{\"tool\": \"write_file\", \"args\": {\"path\": \"x.md\", \"content\": \"x\"}}]}",
    )];
    turns.push(Turn::text("The notes say hives hold comb."));
    let h = Harness::new(vault(), turns);
    learned_three_times(&*h.vault);
    let report = run(&h, "t4", AgentConfig { mode: "ask".into(), ..config() });
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(fallbacks(&h), ["the plan names write_file, which Ask mode does not allow"]);
    assert!(block_on(h.vault.stat(&p("x.md"))).unwrap().is_none());

    // A step that fails: the normal loop goes on from the plan's results.
    let mut turns =
        vec![Turn::text("{\"calls\": [{\"tool\": \"read_file\", \"args\": {\"path\": \"Bees/Drones.md\"}}]}")];
    turns.extend(normal_run(4));
    let h = Harness::new(vault(), turns);
    learned_three_times(&*h.vault);
    let report = run(&h, "t4", config());
    assert_eq!((report.end, report.fast_path.clone()), (EndReason::Completed, None));
    let said = fallbacks(&h);
    assert!(said.len() == 1 && said[0].starts_with("step 1 (read_file) failed"), "{said:?}");
    let second = &h.provider.requests()[1];
    assert!(second.tools.len() > 3, "the normal loop offers every tool of the mode again");
    assert_eq!(second.messages.len(), 3, "the request, the plan's call, its failed result");
}
