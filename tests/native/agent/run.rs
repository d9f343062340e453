//! AgentTask::run end to end with a scripted model: a real task, and every limit and rail.

use serde_json::json;
use vault_agent::agent::{AgentConfig, Mode};
use vault_agent::protocol::{AgentEvent, ContentBlock, EndReason, ErrorKind, Role, ToolChoice, Usage};
use vault_agent::provider::Turn;
use vault_agent::vault::MemoryVault;

use super::support::{block_on, last_user_text, p, Harness, YieldingVault};

fn notes() -> MemoryVault {
    MemoryVault::with_notes([
        ("Cooking/Bread.md", "# Bread\n\nSourdough needs a starter. Bake at 230 °C.\n"),
        ("Cooking/Pizza.md", "# Pizza\n\nThe dough rests 48 hours. Bake as hot as the oven goes.\n"),
        ("Work/Plan.md", "# Plan\n\nShip the search.\n"),
    ])
    .unwrap()
}

/// A fast config for tests: no tool timeout (the manual clock's sleeps end at once).
fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

#[test]
fn a_three_step_task_reads_in_parallel_then_writes_then_completes() {
    let h = Harness::new(
        YieldingVault(notes()),
        [
            Turn::text_and_tools(
                "I'll read both baking notes.",
                [
                    ("read_file", json!({"path": "Cooking/Bread.md"})),
                    ("read_file", json!({"path": "Cooking/Pizza.md"})),
                ],
            ),
            Turn::tools([(
                "write_file",
                json!({"path": "Cooking/Baking.md", "content": "# Baking\n\n- [[Bread]]: 230 °C\n- [[Pizza]]: 48 h dough\n"}),
            )]),
            Turn::tools([("attempt_completion", json!({"result": "Merged into [[Baking]]."}))]),
        ],
    );
    let mut task = h.task(config());
    let report = block_on(task.run("Merge my baking notes into one note"));

    assert_eq!(report.end, EndReason::Completed);
    assert_eq!(report.final_text.as_deref(), Some("Merged into [[Baking]]."));
    assert_eq!(report.steps.len(), 3);
    assert_eq!(report.tool_calls, 4);
    assert_eq!(report.tool_errors, 0);
    assert_eq!(report.changed_paths, vec!["Cooking/Baking.md"]);
    assert!(report.usage.input_tokens > 0 && report.usage.output_tokens > 0);
    let written = block_on(h.vault.read(&p("Cooking/Baking.md"))).unwrap();
    assert!(written.contains("[[Bread]]"));

    // The two reads ran concurrently: the second started before the first finished.
    let trace = h.host.trace();
    let pos = |name: &str| trace.iter().position(|t| t == name).unwrap();
    assert!(pos("tool_started:read_file") < pos("tool_finished:read_file"));
    let second_start = trace.iter().rposition(|t| t == "tool_started:read_file").unwrap();
    assert!(second_start < pos("tool_finished:read_file"), "reads interleave: {trace:?}");
    // Text streamed in several deltas before the tools ran; the run ends with Done.
    assert!(trace.iter().filter(|t| *t == "text_delta").count() > 2, "{trace:?}");
    assert_eq!(trace.last().unwrap(), "done");
    let meter: Vec<u64> = h
        .host
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::StepFinished { total, .. } => Some(total.output_tokens),
            _ => None,
        })
        .collect();
    assert_eq!(meter.len(), 3, "one usage event per model call");
    assert!(meter.windows(2).all(|w| w[0] < w[1]) && *meter.last().unwrap() == report.usage.output_tokens);

    // The model saw the tool results, in call order, before writing.
    let second = &h.provider.requests()[1];
    let results: Vec<_> = second
        .messages
        .last()
        .unwrap()
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                (tool_use_id.clone(), content.clone(), *is_error)
            }
            other => panic!("unexpected block {other:?}"),
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].1.contains("Sourdough") && results[1].1.contains("48 hours"));
    assert_eq!(results[0].0, "call_1_0");
    // The report has per-step metrics.
    assert_eq!(report.steps[0].tool_calls.len(), 2);
    assert!(report.steps.iter().all(|s| s.stop_reason.is_some()));
}

#[test]
fn a_text_only_answer_ends_the_task() {
    let h = Harness::new(MemoryVault::new(), [Turn::text("Hello! Your vault is empty.")]);
    let report = block_on(h.task(config()).run("hi"));
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(report.final_text.as_deref(), Some("Hello! Your vault is empty."));
    assert!(report.changed_paths.is_empty());
}

fn listing_turn(i: usize) -> Turn {
    Turn::tools([("list_files", json!({"path": "", "limit": i + 1}))])
}

#[test]
fn the_soft_limit_warning_reaches_the_model() {
    let turns: Vec<Turn> = (0..5).map(listing_turn).chain([Turn::text("done")]).collect();
    let h = Harness::new(notes(), turns);
    let config = AgentConfig { max_iterations: 10, ..config() };
    assert_eq!(config.soft_limit_step(), 6);
    let report = block_on(h.task(config).run("list a lot"));
    assert_eq!(report.end, EndReason::Answered);
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 6);
    for request in &requests[..5] {
        assert!(!last_user_text(request).contains("Step"), "no warning before the soft limit");
    }
    let warned = last_user_text(&requests[5]);
    assert!(warned.contains("[Step 6 of 10]") && warned.contains("attempt_completion"), "{warned}");
    assert!(h.host.warnings().iter().any(|w| w.contains("[Step 6 of 10]")));
}

#[test]
fn the_hard_limit_stops_the_loop() {
    let turns: Vec<Turn> = (0..3).map(listing_turn).chain([Turn::text("Listed three times; not done yet.")]).collect();
    let h = Harness::new(notes(), turns);
    let report = block_on(h.task(AgentConfig { max_iterations: 3, ..config() }).run("loop forever"));
    assert_eq!(report.end, EndReason::MaxIterations);
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 4, "three steps, then one final round for an answer");
    assert_eq!(requests[3].tool_choice, ToolChoice::None);
    assert!(last_user_text(&requests[3]).contains("you have used all the steps of this task"));
    assert_eq!(report.final_text.as_deref(), Some("Listed three times; not done yet."));
    assert_eq!(report.steps.len(), 4);
}

#[test]
fn the_mistake_limit_runs_the_force_answer_round() {
    let h = Harness::new(
        notes(),
        [
            Turn::tools([("read_file", json!({"path": "missing-1.md"}))]),
            Turn::tools([("read_file", json!({"path": "missing-2.md"}))]),
            Turn::tools([("read_file", json!({"path": "missing-3.md"}))]),
            Turn::text("I could not find the notes you meant."),
        ],
    );
    let report = block_on(h.task(config()).run("read my notes"));
    assert_eq!(report.end, EndReason::MistakeLimit);
    assert_eq!(report.final_text.as_deref(), Some("I could not find the notes you meant."));
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 4);
    let forced = requests.last().unwrap();
    assert_eq!(forced.tool_choice, ToolChoice::None, "the force-answer round disables tools");
    assert!(!forced.tools.is_empty(), "tools stay defined: the history holds tool calls");
    assert!(last_user_text(forced).contains("Do not call any more tools"));
    assert!(requests[..3].iter().all(|r| r.tool_choice == ToolChoice::Auto));
    assert_eq!(report.tool_errors, 3);
}

#[test]
fn repeated_identical_calls_are_blocked_then_the_loop_is_broken() {
    let read = || Turn::tools([("read_file", json!({"path": "Work/Plan.md"}))]);
    let h = Harness::new(notes(), [read(), read(), read(), read(), Turn::text("The plan is to ship the search.")]);
    let report = block_on(h.task(config()).run("what is the plan?"));
    assert_eq!(report.end, EndReason::RepetitionLoop);
    assert_eq!(report.final_text.as_deref(), Some("The plan is to ship the search."));
    let requests = h.provider.requests();
    assert!(last_user_text(&requests[3]).contains("Blocked: this exact read_file call"));
    assert_eq!(requests.last().unwrap().tool_choice, ToolChoice::None);
    let errors: Vec<_> = report.steps.iter().flat_map(|s| &s.tool_calls).map(|c| c.error.is_some()).collect();
    assert_eq!(errors, vec![false, false, true, true]);
}

#[test]
fn a_model_that_calls_tools_in_the_forced_round_gets_no_tool_run() {
    let bad = |i: usize| Turn::tools([("read_file", json!({"path": format!("missing-{i}.md")}))]);
    let h = Harness::new(
        notes(),
        [
            bad(1),
            bad(2),
            bad(3),
            Turn::text_and_tools("Partial answer.", [("read_file", json!({"path": "Work/Plan.md"}))]),
        ],
    );
    let mut task = h.task(config());
    let report = block_on(task.run("x"));
    assert_eq!(report.end, EndReason::MistakeLimit);
    assert_eq!(report.final_text.as_deref(), Some("Partial answer."));
    let last = task.history().last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert!(last.tool_uses().next().is_none(), "no call without a result is left in the history");
}

#[test]
fn cancel_mid_stream_ends_the_task() {
    let h = Harness::new(notes(), [Turn::Hang { text: "Thinking about your notes and".into() }]);
    let cancel = h.cancel.clone();
    h.host.on_event(move |event| {
        if matches!(event, AgentEvent::TextDelta { .. }) {
            cancel.cancel();
        }
    });
    let report = block_on(h.task(config()).run("summarise everything"));
    assert_eq!(report.end, EndReason::Cancelled);
    assert!(h.host.trace().contains(&"text_delta".to_string()));
    assert_eq!(h.host.trace().last().unwrap(), "done");
}

#[test]
fn a_provider_error_ends_the_task_with_its_category() {
    let h = Harness::new(notes(), [Turn::fail(ErrorKind::Auth, "invalid x-api-key")]);
    let report = block_on(h.task(config()).run("hi"));
    assert_eq!(report.end, EndReason::Failed { kind: Some(ErrorKind::Auth), message: "invalid x-api-key".into() });
    assert!(h.host.events().iter().any(|e| matches!(e, AgentEvent::Error { kind: Some(ErrorKind::Auth), .. })));
}

/// Groq refuses a tool call its model wrote badly with an error event, which can come after
/// some of the answer has streamed: the answer so far is kept, the model is asked to write the
/// call again, and the task goes on; past three such refusals the task ends with the error.
#[test]
fn a_tool_call_the_server_refused_mid_answer_is_asked_for_again() {
    use vault_agent::protocol::ProviderError;
    let refused = || Turn::Broken {
        text: "Let me look at the plan.".into(),
        error: ProviderError::new(
            ErrorKind::BadRequest,
            "Failed to call a function. Please adjust your prompt. The model wrote: read_file{\"path\": ",
        ),
    };
    let h = Harness::new(
        notes(),
        [refused(), Turn::tools([("read_file", json!({"path": "Work/Plan.md"}))]), Turn::text("The plan is ready.")],
    );
    let mut task = h.task(config());
    let report = block_on(task.run("what is the plan?"));
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(report.final_text.as_deref(), Some("The plan is ready."));
    // Shown again (a saved chat), it is one request, whose answer keeps the words so far.
    let turns = vault_agent::agent::transcript_turns(task.history(), &[]);
    assert_eq!(turns.len(), 1, "the note to the model is not a request of the user's");
    assert_eq!(turns[0].request.as_ref().map(|r| r.text.as_str()), Some("what is the plan?"));
    let second = &h.provider.requests()[1];
    let asked = last_user_text(second);
    assert!(asked.contains("The server refused your last tool call"), "{asked}");
    let before = &second.messages[second.messages.len() - 2];
    assert_eq!((before.role, before.text()), (Role::Assistant, "Let me look at the plan.".to_string()));
    let warned = h.host.events().iter().any(
        |e| matches!(e, AgentEvent::Warning { message } if message.contains("refused the tool call the model wrote")),
    );
    assert!(warned);

    let h = Harness::new(notes(), [refused(), refused(), refused(), refused()]);
    let report = block_on(h.task(config()).run("what is the plan?"));
    assert!(matches!(report.end, EndReason::Failed { kind: Some(ErrorKind::BadRequest), .. }), "{:?}", report.end);
    assert_eq!(h.provider.requests().len(), 4);
}

#[test]
fn the_rate_limit_spaces_model_calls_on_the_clock() {
    let h = Harness::new(notes(), [listing_turn(0), listing_turn(1), Turn::text("ok")]);
    let report = block_on(h.task(AgentConfig { rate_limit_ms: 1_500, ..config() }).run("x"));
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(h.clock.sleeps(), vec![1_500, 1_500]);
}

#[test]
fn a_subtask_deeper_than_allowed_is_refused() {
    let h = Harness::new(notes(), []);
    let setup_err = block_on(vault_agent::agent::AgentTask::new(vault_agent::agent::TaskSetup {
        config: AgentConfig { depth: 3, ..config() },
        provider: h.provider.clone(),
        vault: h.vault.clone(),
        clock: h.clock.clone(),
        host: h.host.clone(),
        cancel: h.cancel.clone(),
        tools: None,
        web: None,
        modes: vec![],
        vault_info: Default::default(),
        search: vault_agent::index::SharedIndex::new(),
        condense_hook: None,
        end_hook: None,
        history: vec![],
        task_id: None,
    }))
    .err()
    .unwrap();
    assert!(setup_err.to_string().contains("depth 3"), "{setup_err}");
}

#[test]
fn the_meter_cost_comes_from_the_core_at_the_configured_price() {
    let price = vault_agent::provider::ModelPrice { input: 3.0, output: 15.0, cache_read: 0.3, cache_write: 3.75 };
    let h = Harness::new(MemoryVault::new(), [Turn::text("Priced.")]);
    let report = block_on(h.task(AgentConfig { price: Some(price), ..config() }).run("hi"));
    let steps: Vec<(Usage, Option<f64>)> = h
        .host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::StepFinished { total, cost, .. } => Some((total, cost)),
            _ => None,
        })
        .collect();
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].1, Some(price.cost(&steps[0].0)));
    assert!(steps[0].1.unwrap() > 0.0);
    assert_eq!(report.cost, Some(price.cost(&report.usage)));
    // Without a price there is no cost, not a zero.
    let h = Harness::new(MemoryVault::new(), [Turn::text("Unpriced.")]);
    assert_eq!(block_on(h.task(config()).run("hi")).cost, None);
    // Without the user's price the meter takes the list price of the model the mode calls.
    let mut h = Harness::new(MemoryVault::new(), [Turn::text("Priced by the mode's model.")]);
    let cheap =
        Mode { slug: "cheap".into(), name: "Cheap".into(), model: Some("claude-haiku-4-5".into()), ..Mode::ask() };
    h.modes = vec![cheap];
    let report = block_on(h.task(AgentConfig { mode: "cheap".into(), ..config() }).run("hi"));
    let haiku = vault_agent::provider::list_price("claude-haiku-4-5").unwrap();
    assert_eq!(haiku.output, 5.0);
    assert_eq!(report.cost, Some(haiku.cost(&report.usage)));
}

#[test]
fn the_meter_says_how_full_the_context_is_after_each_call() {
    use vault_agent::protocol::ContextUse;
    let h = Harness::new(MemoryVault::new(), [Turn::text("Measured.")]);
    let report = block_on(h.task(AgentConfig { context_window: 10_000, ..config() }).run("hi"));
    let last = &report.steps.last().unwrap().usage;
    // The last call's request and answer, against the window the task keeps to.
    let expected = ContextUse { tokens: last.total_input() + last.output_tokens, window: 10_000 };
    assert!(expected.tokens > 0);
    assert_eq!(report.context, Some(expected));
    let live: Vec<Option<ContextUse>> = h
        .host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::StepFinished { context, .. } => Some(context),
            _ => None,
        })
        .collect();
    assert_eq!(live, [Some(expected)]);
}
