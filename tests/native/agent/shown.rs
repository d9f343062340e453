//! What the host is shown of a task: tool calls in people's words, errors in plain language,
//! and the real usage of a task that was stopped.

use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::protocol::EndReason;
use vault_agent::protocol::{
    AgentEvent, ApprovalDecision, CallLabel, ErrorKind, LabelPart, ProviderSetting, ToolOutcome,
};
use vault_agent::provider::Turn;
use vault_agent::vault::MemoryVault;

use super::support::{block_on, last_user_text, snapshot, Harness};

fn notes() -> MemoryVault {
    MemoryVault::with_notes([
        ("Cooking/Bread.md", "# Bread\n\nSourdough at 230 °C.\n"),
        ("Cooking/Pizza.md", "# Pizza\n\nSourdough pizza, hotter.\n"),
    ])
    .unwrap()
}

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

fn finished(h: &Harness) -> Vec<(String, CallLabel, ToolOutcome, String)> {
    h.host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ToolFinished { tool, label, outcome, result, .. } => Some((tool, label, outcome, result)),
            _ => None,
        })
        .collect()
}

#[test]
fn tool_events_carry_a_label_the_notes_and_the_result() {
    let h = Harness::new(
        notes(),
        [
            Turn::tools([
                ("search_files", json!({"query": "sourdough"})),
                ("read_file", json!({"path": "Cooking/Bread.md"})),
            ]),
            Turn::text("Both notes use sourdough."),
        ],
    );
    let report = block_on(h.task(config()).run("which notes use sourdough?"));
    let started: Vec<String> = h
        .host
        .events()
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolStarted { label, .. } => Some(label.text()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["Search for ‘sourdough’", "Read Bread"]);

    let done = finished(&h);
    let (_, search, outcome, result) = &done[0];
    assert_eq!(search.text(), "Searched for ‘sourdough’ — 2 notes");
    let mut found = search.notes.clone();
    found.sort();
    assert_eq!(found, ["Cooking/Bread.md", "Cooking/Pizza.md"]);
    assert_eq!(*outcome, ToolOutcome::Done);
    assert!(result.contains("Cooking/Pizza.md"), "the details hold what the model was told: {result}");
    let (_, read, _, _) = &done[1];
    assert_eq!(read.parts[1], LabelPart::Note { path: "Cooking/Bread.md".into(), name: "Bread".into() });
    assert_eq!(read.group.as_deref(), Some("Read {n} notes"));

    // The report keeps the labels, so a saved chat shows the same cards.
    let calls: Vec<_> = report.steps.iter().flat_map(|s| s.tool_calls.iter()).collect();
    assert_eq!(calls[0].label.as_ref().map(CallLabel::text).as_deref(), Some("Searched for ‘sourdough’ — 2 notes"));
}

#[test]
fn a_skipped_call_is_shown_as_skipped_and_the_models_words_stay_in_the_details() {
    let h = Harness::new(
        notes(),
        [
            Turn::tools([("write_file", json!({"path": "Cooking/Cake.md", "content": "# Cake\n"}))]),
            Turn::text("Fine, no cake."),
        ],
    );
    h.host.deciding(|_| ApprovalDecision::Skip);
    block_on(h.task(config()).run("write a cake note"));
    let (tool, label, outcome, result) = finished(&h).remove(0);
    assert_eq!(tool, "write_file");
    assert_eq!(label.text(), "Write Cake", "a skipped write did not write");
    assert_eq!(outcome, ToolOutcome::Skipped);
    assert!(result.contains("Continue the task without it"), "{result}");
}

#[test]
fn a_provider_error_is_told_in_plain_words_and_names_the_setting() {
    let h = Harness::new(notes(), [Turn::fail(ErrorKind::Auth, "invalid x-api-key")]);
    block_on(h.task(config()).run("hi"));
    let error = h.host.events().into_iter().find_map(|e| match e {
        AgentEvent::Error { message, detail, setting, .. } => Some((message, detail, setting)),
        _ => None,
    });
    let (message, detail, setting) = error.expect("an error event");
    assert_eq!(message, "The provider did not accept the API key.");
    assert!(!message.contains("Auth"), "no Rust names: {message}");
    assert_eq!(detail.as_deref(), Some("invalid x-api-key"));
    assert_eq!(setting, Some(ProviderSetting::ApiKey));
}

#[test]
fn a_stopped_task_reports_what_its_cut_short_call_used() {
    let text = "Reading all of your notes now, one at a time";
    let h = Harness::new(notes(), [Turn::Hang { text: text.into() }]);
    let cancel = h.cancel.clone();
    h.host.on_event(move |event| {
        if matches!(event, AgentEvent::TextDelta { .. }) {
            cancel.cancel();
        }
    });
    let report = block_on(h.task(config()).run("summarise everything"));
    assert!(report.usage.input_tokens > 100, "the request's estimate: {:?}", report.usage);
    let streamed: usize = h
        .host
        .events()
        .iter()
        .map(|e| match e {
            AgentEvent::TextDelta { text } => text.chars().count(),
            _ => 0,
        })
        .sum();
    assert!(streamed > 0);
    assert_eq!(report.usage.output_tokens, streamed.div_ceil(4) as u64, "the streamed text at 4 characters a token");
}

#[test]
fn a_denial_with_a_reason_goes_back_to_the_model_and_the_task_goes_on() {
    let h = Harness::new(
        notes(),
        [
            Turn::tools([("write_file", json!({"path": "Cooking/Cake.md", "content": "# Cake\n"}))]),
            Turn::tools([("write_file", json!({"path": "Inbox/Cake.md", "content": "# Cake\n"}))]),
            Turn::text("Written to your inbox instead."),
        ],
    );
    let before = snapshot(&*h.vault);
    h.host.denying_first_because("put new notes in Inbox/, not Cooking/");
    let report = block_on(h.task(config()).run("write a cake note"));
    assert_eq!(report.end, EndReason::Answered, "the task went on");
    let told = last_user_text(&h.provider.requests()[1]);
    assert!(told.contains("Their reason: put new notes in Inbox/, not Cooking/"), "{told}");
    let (_, _, outcome, _) = finished(&h).remove(0);
    assert_eq!(outcome, ToolOutcome::Denied);
    // The denied write did not happen; the one the model made instead did.
    let after = snapshot(&*h.vault);
    assert!(!after.contains_key("Cooking/Cake.md"));
    assert!(after.contains_key("Inbox/Cake.md"));
    assert_eq!(before.len() + 1, after.len());
}

#[test]
fn a_denial_without_a_reason_still_stops_the_task() {
    let h = Harness::new(notes(), [Turn::tools([("write_file", json!({"path": "Cooking/Cake.md", "content": "x"}))])]);
    h.host.deciding(|_| ApprovalDecision::Deny);
    let report = block_on(h.task(config()).run("write a cake note"));
    assert_eq!(report.end, EndReason::Denied);
}
