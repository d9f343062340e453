//! How a task stops, and that it always answers: the tool-call budget, the deadline, the final
//! round and its salvage call, Continue after a limit, and end reasons named as such.

use serde_json::json;
use vault_agent::agent::{AgentConfig, Conversation, CONTINUE_MESSAGE};
use vault_agent::protocol::{EndReason, ErrorKind, ToolChoice};
use vault_agent::provider::Turn;
use vault_agent::vault::MemoryVault;
use vault_agent::Error;

use super::support::{block_on, last_user_text, Harness};

fn notes() -> MemoryVault {
    MemoryVault::with_notes([("Work/Plan.md", "# Plan\n\nShip the search.\n"), ("Home.md", "# Home\n")]).unwrap()
}

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

fn listings(n: usize, from: usize) -> Turn {
    Turn::tools((from..from + n).map(|i| ("list_files", json!({"path": "", "limit": i + 1}))))
}

#[test]
fn the_tool_call_budget_ends_the_task_with_an_answer_and_a_clear_reason() {
    let h = Harness::new(notes(), [listings(3, 0), listings(3, 10), Turn::text("Two notes: Plan and Home.")]);
    let config = AgentConfig { max_tool_calls: 3, max_tool_calls_per_step: 2, ..config() };
    let report = block_on(h.task(config).run("list everything"));
    assert_eq!(report.end, EndReason::ToolBudget { limit: 3 });
    assert_eq!(report.final_text.as_deref(), Some("Two notes: Plan and Home."));
    assert_eq!(report.end.describe(), "Stopped: the task used its budget of 3 tool calls.");
    assert_eq!(report.tool_calls, 3, "only the calls within the budgets ran");
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    assert!(last_user_text(&requests[1]).contains("a step may make at most 2 tool calls"), "the per-step cap");
    assert!(last_user_text(&requests[2]).contains("3 tool calls in all, and they are used up"));
    assert_eq!(requests[2].tool_choice, ToolChoice::None, "the final round has tools disabled");
    assert!(h.host.warnings().iter().any(|w| w.contains("used its 3 tool calls")));
}

#[test]
fn a_final_round_without_prose_gets_one_salvage_call() {
    let bad = |i: usize| Turn::tools([("read_file", json!({"path": format!("missing-{i}.md")}))]);
    let h = Harness::new(
        notes(),
        [bad(1), bad(2), bad(3), Turn::tools([("read_file", json!({"path": "Home.md"}))]), Turn::text("Plain answer.")],
    );
    let report = block_on(h.task(config()).run("read my notes"));
    assert_eq!(report.end, EndReason::MistakeLimit);
    assert_eq!(report.final_text.as_deref(), Some("Plain answer."));
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 5, "three steps, the final round, one salvage call");
    assert!(last_user_text(&requests[4]).contains("Your last reply had no text for the user"));
    assert_eq!(requests[4].tool_choice, ToolChoice::None);
    assert!(h.host.warnings().iter().any(|w| w.contains("asking once more for a plain answer")));
}

#[test]
fn no_salvage_when_even_it_has_no_prose_and_no_third_call() {
    let h = Harness::new(notes(), [listings(1, 0), Turn::tools([("list_files", json!({}))]), Turn::text("   ")]);
    let report = block_on(h.task(AgentConfig { max_iterations: 1, ..config() }).run("x"));
    assert_eq!(report.end, EndReason::MaxIterations);
    assert_eq!(report.final_text, None);
    assert_eq!(h.provider.requests().len(), 3);
}

#[test]
fn the_deadline_stops_a_hanging_model_call() {
    let h = Harness::new(notes(), [Turn::Hang { text: "Thinking about it".into() }]);
    let config = AgentConfig { deadline_ms: 90_000, ..config() };
    let report = block_on(h.task(config).run("x"));
    assert_eq!(report.end, EndReason::Deadline { limit_ms: 90_000 });
    assert_eq!(report.end.describe(), "Stopped: the task ran past its deadline of 90 s.");
    assert!(report.end.can_continue());
    assert!(h.clock.sleeps().contains(&90_000), "the deadline waits on the host clock");
}

#[test]
fn continue_after_the_step_limit_runs_a_fresh_task_and_is_refused_otherwise() {
    let h = Harness::new(
        notes(),
        [listings(1, 0), Turn::text("I listed the vault; the summary is left."), Turn::text("Summary: two notes.")],
    );
    let chat = Conversation::new(
        AgentConfig { max_iterations: 1, memory_extraction: false, ..config() },
        h.provider.clone(),
        h.vault.clone(),
        h.clock.clone(),
        h.host.clone(),
    );
    let first = block_on(chat.send("summarise my vault")).unwrap();
    assert_eq!(first.end, EndReason::MaxIterations);
    assert_eq!(first.final_text.as_deref(), Some("I listed the vault; the summary is left."), "an answer at the limit");
    let next = block_on(chat.continue_last()).unwrap();
    assert_eq!(next.end, EndReason::Answered);
    assert_ne!(next.task_id, first.task_id, "a new task, with a fresh budget");
    assert!(last_user_text(h.provider.requests().last().unwrap()).contains(CONTINUE_MESSAGE));
    let refused = block_on(chat.continue_last()).unwrap_err().to_string();
    assert!(refused.contains("did not stop at a limit"), "{refused}");
}

#[test]
fn end_reasons_read_as_reasons_not_input_errors() {
    assert_eq!(EndReason::RepetitionLoop.describe(), "Stopped: the model repeated the same calls.");
    assert_eq!(EndReason::Cancelled.describe(), "Stopped by the user.");
    let failed = EndReason::Failed { kind: Some(ErrorKind::Auth), message: "invalid key".into() };
    assert_eq!(failed.describe(), "Failed: invalid key");
    assert_eq!(
        EndReason::Deadline { limit_ms: 5_400_000 }.describe(),
        "Stopped: the task ran past its deadline of 1 h 30 min."
    );
    let error = Error::Stopped(EndReason::MistakeLimit.describe());
    assert_eq!(error.to_string(), "Stopped: the model's tool calls kept failing.");
    assert!(!EndReason::Denied.can_continue() && EndReason::MaxIterations.can_continue());
}
