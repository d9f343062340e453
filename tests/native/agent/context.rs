//! The context machinery around the loop: the cached prompt, modes and switch_mode, rules,
//! condensing and its memory flush, emergency condensing, the per-turn trim, power steering
//! and sanitising.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::{AgentConfig, Conversation, MemoryFlush, Mode};
use vault_agent::context::SUMMARY_MARKER;
use vault_agent::memory::MemoryStore;
use vault_agent::protocol::{
    AgentEvent, ApprovalCategory, ContentBlock, EndReason, ErrorKind, Message, Role, ToolChoice,
};
use vault_agent::provider::{ScriptedProvider, Turn};
use vault_agent::tools::ToolGroup;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{self, block_on, is_flush_request, is_summary_request, last_user_text, p, routed, Harness};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

/// A vault of `n` notes of about `chars` characters each.
fn notes(n: usize, chars: usize) -> MemoryVault {
    let vault = MemoryVault::new();
    for i in 0..n {
        let body = format!("# Note {i}\n\n{}\n", format!("Fact {i} about the garden. ").repeat(chars / 26));
        block_on(vault.write(&p(&format!("Notes/n{i}.md")), &body)).unwrap();
    }
    vault
}

fn read(i: usize) -> Turn {
    Turn::text_and_tools(format!("Reading note {i}."), [("read_file", json!({"path": format!("Notes/n{i}.md")}))])
}

const SUMMARY: &str = "## User goal\nSummarise the garden notes.\n## What was done\nRead n0 to n3.\n## Current state\nFacts collected.\n## Pending\nRead the rest.\n## Key context\nNotes live in Notes/.";

#[test]
fn the_prompt_is_byte_identical_across_a_tasks_requests() {
    let h = Harness::new(notes(3, 500), [read(0), read(1), Turn::text("done")]);
    block_on(h.task(config()).run("read"));
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests[1..] {
        assert_eq!(r.system[..2], requests[0].system[..2], "the cached parts never change within a task");
    }
    assert!(requests[0].system[0].cache_breakpoint && requests[0].system[1].cache_breakpoint);
}

#[test]
fn rules_skills_and_custom_instructions_reach_the_prompt() {
    let vault = notes(1, 100);
    block_on(vault.write(&p(".obsidian-agent/rules/style.md"), "Always write dates as YYYY-MM-DD.\n")).unwrap();
    block_on(vault.write(
        &p(".obsidian-agent/skills/weekly.md"),
        "---\ndescription: How to write the weekly review\n---\nSteps…\n",
    ))
    .unwrap();
    block_on(vault.write(&p(".obsidian-agent/memory/facts.md"), "# Memory\n- The user gardens.\n")).unwrap();
    let h = Harness::new(vault, [Turn::text("ok")]);
    block_on(h.task(AgentConfig { custom_instructions: "Reply in French.".into(), ..config() }).run("hi"));
    let system: String = h.provider.requests()[0].system.iter().map(|s| s.text.clone()).collect();
    assert!(system.contains("### style\nAlways write dates as YYYY-MM-DD."), "{system}");
    assert!(system.contains("- weekly (.obsidian-agent/skills/weekly.md): How to write the weekly review"));
    assert!(system.contains("- The user gardens."));
    assert!(system.contains("Reply in French."));
}

#[test]
fn the_configured_temperature_and_thinking_budget_reach_the_tasks_requests() {
    let h = Harness::new(notes(1, 100), [Turn::text("ok")]);
    block_on(h.task(config()).run("hi"));
    assert_eq!(h.provider.requests()[0].temperature, None, "by default the provider's own");
    let h = Harness::new(notes(1, 100), [Turn::text("ok")]);
    block_on(h.task(AgentConfig { temperature: Some(0.3), thinking_budget: Some(2_048), ..config() }).run("hi"));
    let request = &h.provider.requests()[0];
    assert_eq!((request.temperature, request.thinking_budget), (Some(0.3), Some(2_048)));
}

#[test]
fn a_mode_switch_changes_the_tools_on_both_layers_and_only_the_modes_prompt_sections() {
    let h = Harness::new(
        notes(1, 100),
        [
            Turn::tools([("write_file", json!({"path": "Notes/new.md", "content": "x"}))]),
            Turn::tools([("switch_mode", json!({"mode": "agent", "reason": "the user wants a new note"}))]),
            Turn::tools([("write_file", json!({"path": "Notes/new.md", "content": "x"}))]),
            Turn::text("Created it."),
        ],
    );
    let asked = Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = asked.clone();
    h.host.deciding(move |request| {
        log.borrow_mut().push((request.tool.clone(), request.category));
        vault_agent::protocol::ApprovalDecision::Approve
    });
    let mut task = h.task(AgentConfig { mode: "ask".into(), ..config() });
    let report = block_on(task.run("make a note"));
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(task.mode().slug, "agent");
    let requests = h.provider.requests();
    let offered = |i: usize| requests[i].tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    // Layer 1, the schema: ask mode offers no write tool; agent mode does.
    assert!(!offered(0).contains(&"write_file".to_string()) && offered(0).contains(&"switch_mode".to_string()));
    assert!(offered(2).contains(&"write_file".to_string()));
    // Layer 2, the pipeline: the write the model was never shown is refused.
    assert!(last_user_text(&requests[1]).contains("not available in ask mode"));
    // Switching is approved like a change, then the write is asked for.
    assert_eq!(asked.borrow()[0], ("switch_mode".to_string(), ApprovalCategory::Write));
    assert!(h.host.events().iter().any(|e| matches!(e, AgentEvent::ModeChanged { mode } if mode == "agent")));
    // Only the mode part of the prompt changed; the core stayed cached.
    assert_eq!(requests[0].system[0], requests[2].system[0]);
    assert_ne!(requests[0].system[1], requests[2].system[1]);
    assert!(requests[2].system[1].text.contains("## Mode: Agent (agent)"));
    assert!(block_on(h.vault.stat(&p("Notes/new.md"))).unwrap().is_some());
}

#[test]
fn a_custom_mode_grants_its_groups_and_uses_its_model() {
    let mut h = Harness::new(notes(1, 100), [Turn::text("ok")]);
    h.modes = vec![Mode {
        slug: "researcher".into(),
        name: "Researcher".into(),
        role: "You research and never write.".into(),
        groups: vec![ToolGroup::Read, ToolGroup::Search],
        model: Some("small-fast-model".into()),
    }];
    block_on(h.task(AgentConfig { mode: "researcher".into(), ..config() }).run("x"));
    let request = &h.provider.requests()[0];
    assert_eq!(request.model.as_deref(), Some("small-fast-model"));
    let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        offered.contains(&"search_files")
            && !offered.contains(&"attempt_completion")
            && !offered.contains(&"edit_file")
    );
    assert!(request.system[1].text.contains("You research and never write."));
}

#[test]
fn the_window_is_that_of_the_model_the_mode_calls() {
    // Eight notes of ~300 tokens each: over 70 % of a 4,000-token window, far under 128,000.
    let run = |config: AgentConfig| {
        let steps: Vec<Turn> = (0..8).map(read).chain([Turn::text("All read.")]).collect();
        let mut h = Harness::new(notes(8, 1_200), routed(steps, SUMMARY, "NONE"));
        h.modes = vec![Mode {
            slug: "local".into(),
            name: "Local".into(),
            role: "You read notes.".into(),
            groups: vec![ToolGroup::Read, ToolGroup::Search],
            model: Some("small-local".into()),
        }];
        let report = block_on(h.task(AgentConfig { mode: "local".into(), memory_flush: false, ..config }).run("x"));
        assert_eq!(report.end, EndReason::Answered, "{report:?}");
        report.condensations
    };
    let reported = BTreeMap::from([("small-local".to_string(), 4_000)]);
    // The window the server reported for the mode's model...
    assert!(run(AgentConfig { model_windows: reported.clone(), ..config() }) >= 1);
    // ...not another model's; a model nobody reported and the list lacks gets 128,000.
    let other = BTreeMap::from([("another-model".to_string(), 4_000)]);
    assert_eq!(run(AgentConfig { model_windows: other, ..config() }), 0);
    // The user's own setting comes first.
    assert_eq!(run(AgentConfig { context_window: 200_000, model_windows: reported, ..config() }), 0);
    assert!(run(AgentConfig { context_window: 4_000, ..config() }) >= 1);
    // The list's windows, as a call to each model would get them.
    let listed = AgentConfig::default();
    assert_eq!(listed.context_window_for("gpt-4-0613"), 8_192);
    assert_eq!(listed.context_window_for("anthropic/claude-sonnet-4.5"), 200_000);
    assert_eq!(listed.context_window_for("small-local"), vault_agent::provider::FALLBACK_CONTEXT_WINDOW);
}

#[test]
fn a_local_servers_own_window_is_taken_and_a_small_one_is_said_in_a_chats_first_task() {
    let run = |served: u32, config: AgentConfig| {
        let steps: Vec<Turn> = (0..8).map(read).chain([Turn::text("All read.")]).collect();
        let mut h = Harness::new(notes(8, 1_200), []);
        h.provider = Rc::new(ScriptedProvider::new(routed(steps, SUMMARY, "NONE")).with_served_window(served));
        let report = block_on(h.task(AgentConfig { memory_flush: false, ..config }).run("x"));
        assert_eq!(report.end, EndReason::Answered, "{report:?}");
        let said: Vec<String> = h.host.warnings().into_iter().filter(|w| w.contains("OLLAMA_CONTEXT_LENGTH")).collect();
        (report.condensations, said)
    };
    // Ollama short of memory: 4,096 tokens. The task condenses to fit and says how to give more.
    let (condensed, said) = run(4_096, config());
    assert!(condensed >= 1);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].starts_with("Ollama serves scripted with 4,096 tokens of context"), "{said:?}");
    assert!(said[0].ends_with("(or raise the context length in its app's settings)."), "{said:?}");
    // Served with room to spare: nothing to say, nothing to condense.
    assert_eq!(run(65_536, config()), (0, vec![]));
    // The user's own window stands, and the server is not second-guessed.
    assert_eq!(run(4_096, AgentConfig { context_window: 200_000, ..config() }), (0, vec![]));

    // In a chat, the first task says it; the next ones keep to the window quietly.
    let provider = Rc::new(ScriptedProvider::new([Turn::text("One."), Turn::text("Two.")]).with_served_window(4_096));
    let host = support::TestHost::new();
    let chat = Conversation::new(
        config(),
        provider,
        Rc::new(MemoryVault::new()),
        Rc::new(vault_agent::host::ManualClock::new(0)),
        host.clone(),
    );
    block_on(chat.send("first")).unwrap();
    block_on(chat.send("second")).unwrap();
    assert_eq!(host.warnings().iter().filter(|w| w.contains("OLLAMA_CONTEXT_LENGTH")).count(), 1);
}

#[test]
fn condensing_replaces_the_older_history_with_a_structured_summary_after_the_memory_flush() {
    let steps: Vec<Turn> = (0..8).map(read).chain([Turn::text("All read.")]).collect();
    let mut h = Harness::new(notes(8, 1_200), routed(steps, SUMMARY, "- The user's garden notes are in Notes/."));
    h.condense_hook = Some(Rc::new(MemoryFlush));
    // A small window: a few notes fill it.
    let config = AgentConfig { context_window: 4_000, condensing_threshold: 70, ..config() };
    let mut task = h.task(config);
    let report = block_on(task.run("summarise my garden notes"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    assert!(report.condensations >= 1);

    let requests = h.provider.requests();
    let first_summary = requests.iter().position(is_summary_request).expect("a summary call");
    assert!(is_flush_request(&requests[first_summary - 1]), "the memory flush runs first");
    let summary_call = &requests[first_summary];
    assert_eq!(summary_call.tool_choice, ToolChoice::None);
    let ask = last_user_text(summary_call);
    for section in ["## User goal", "## What was done", "## Current state", "## Pending", "## Key context"] {
        assert!(ask.contains(section), "{ask}");
    }
    // The next task request starts with the summary and the ledger, then intact recent turns.
    let after = &requests[first_summary + 1];
    let head = after.messages[0].text();
    assert!(head.starts_with(SUMMARY_MARKER) && head.contains("## Pending\nRead the rest."), "{head}");
    assert!(
        head.contains("## Tool-call ledger") && head.contains("read_file {\"path\":\"Notes/n0.md\"} → ok"),
        "{head}"
    );
    assert_eq!(after.messages[1].role, Role::Assistant);
    let mentions_n0 = |m: &Message| serde_json::to_string(m).unwrap().contains("Notes/n0.md");
    assert!(!after.messages[1..].iter().any(mentions_n0), "the oldest turns are gone, but for the summary");
    assert!(h.host.events().iter().any(|e| matches!(e, AgentEvent::ContextCondensed { tokens_before, tokens_after, .. } if tokens_after < tokens_before)));
    let memory = block_on(MemoryStore::load(&*h.vault)).unwrap();
    let saved: Vec<(&str, Option<&str>)> =
        memory.entries().iter().map(|e| (e.text.as_str(), e.task_id.as_deref())).collect();
    assert_eq!(saved, [("The user's garden notes are in Notes/.", Some("t1"))]);
    // The summary and flush calls are paid for, and counted.
    let steps_usage: u64 = report.steps.iter().map(|s| s.usage.input_tokens).sum();
    assert!(report.usage.input_tokens > steps_usage);
}

#[test]
fn an_overflow_from_the_provider_condenses_and_retries() {
    let steps = vec![
        read(0),
        read(1),
        read(2),
        Turn::fail(ErrorKind::ContextOverflow, "prompt is too long: 210000 tokens > 200000 maximum"),
        Turn::text("Done after condensing."),
    ];
    let h = Harness::new(notes(3, 400), routed(steps, SUMMARY, "NONE"));
    let report = block_on(h.task(config()).run("read three notes"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    assert_eq!(report.final_text.as_deref(), Some("Done after condensing."));
    assert_eq!(report.condensations, 1);
    let requests = h.provider.requests();
    assert!(is_summary_request(&requests[4]), "condensed right after the overflow");
    assert!(requests[5].messages[0].text().starts_with(SUMMARY_MARKER), "the retried request is condensed");
    assert!(h.host.warnings().iter().any(|w| w.contains("condensing the conversation and retrying")));
    assert_eq!(report.steps.len(), 4, "the retry is the same step, not a new one");
}

#[test]
fn a_second_overflow_in_the_same_step_fails_the_task() {
    let overflow = || Turn::fail(ErrorKind::ContextOverflow, "too long");
    let steps = vec![read(0), read(1), read(2), overflow(), overflow()];
    let h = Harness::new(notes(3, 400), routed(steps, SUMMARY, "NONE"));
    let report = block_on(h.task(config()).run("x"));
    assert!(matches!(report.end, EndReason::Failed { kind: Some(ErrorKind::ContextOverflow), .. }), "{report:?}");
}

#[test]
fn old_tool_results_are_trimmed_in_the_request_but_kept_in_the_history() {
    let steps: Vec<Turn> = (0..6).map(read).chain([Turn::text("ok")]).collect();
    let h = Harness::new(notes(6, 8_000), steps);
    // Six notes of ~2,000 tokens pass the trim level (60 % of 20,000); trimming the oldest
    // results brings the request back under it, so no summary is needed.
    let config = AgentConfig { context_window: 20_000, memory_flush: false, ..config() };
    let mut task = h.task(config);
    let report = block_on(task.run("read"));
    assert_eq!(report.condensations, 0);
    let last = h.provider.requests().pop().unwrap();
    let first_result = last.messages.iter().flat_map(|m| &m.content).find_map(|b| match b {
        ContentBlock::ToolResult { content, .. } => Some(content.clone()),
        _ => None,
    });
    assert!(first_result.unwrap().contains("[trimmed to save context"), "the oldest result was trimmed");
    let kept = task.history().iter().flat_map(|m| &m.content).find_map(|b| match b {
        ContentBlock::ToolResult { content, .. } => Some(content.len()),
        _ => None,
    });
    assert!(kept.unwrap() > 7_000, "the history keeps the whole result");
}

#[test]
fn power_steering_reminds_the_model_every_n_steps() {
    let steps: Vec<Turn> = (0..6).map(|i| read(i % 2)).chain([Turn::text("ok")]).collect();
    // Reads repeat: lift the repetition guard out of the way by alternating notes.
    let h = Harness::new(
        notes(2, 100),
        steps
            .into_iter()
            .enumerate()
            .map(|(i, t)| if i == 4 { Turn::tools([("list_files", json!({}))]) } else { t })
            .collect::<Vec<_>>(),
    );
    block_on(h.task(AgentConfig { power_steering_frequency: 2, ..config() }).run("x"));
    let reminded: Vec<bool> =
        h.provider.requests().iter().map(|r| last_user_text(r).contains("[Reminder] You are in Agent mode.")).collect();
    assert_eq!(reminded[..5], [false, false, true, false, true]);
}

#[test]
fn a_restored_history_with_a_dangling_call_is_sanitised_before_it_is_sent() {
    let provider = Rc::new(ScriptedProvider::new([Turn::text("Hello again.")]));
    let broken = vec![
        Message::user("earlier question"),
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: "old".into(),
                name: "read_file".into(),
                input: json!({"path": "x.md"}),
                signature: None,
            }],
        },
    ];
    let conversation = Conversation::new(
        config(),
        provider.clone(),
        Rc::new(MemoryVault::new()),
        Rc::new(vault_agent::host::ManualClock::new(0)),
        Rc::new(vault_agent::host::SilentHost),
    )
    .with_history(broken);
    let report = block_on(conversation.send("new question")).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    let sent = &provider.requests()[0].messages;
    assert_eq!(sent.len(), 3);
    assert!(
        matches!(&sent[2].content[0], ContentBlock::ToolResult { tool_use_id, is_error: true, .. } if tool_use_id == "old")
    );
    assert_eq!(sent[2].text(), "new question");
}

/// With Obsidian's Daily notes on, the prompt names today's note — today where the user is —
/// from the vault's own settings (a settings folder named otherwise too); off, nothing is said.
#[test]
fn the_prompt_names_todays_daily_note_from_obsidians_settings_in_the_users_time_zone() {
    use vault_agent::prompt::{MomentLocale, PeriodicNotes};
    let vault = || {
        MemoryVault::with_notes([
            (".obsidian/core-plugins.json", r#"{"file-explorer": true, "daily-notes": true}"#),
            (
                ".obsidian/daily-notes.json",
                r#"{"folder": "Journal/", "format": "YYYY-MM-DD dddd", "template": "Templates/Day"}"#,
            ),
        ])
        .unwrap()
    };
    let system_of = |h: &Harness| h.provider.requests()[0].system.iter().map(|s| s.text.clone()).collect::<String>();
    // 2026-11-23 00:00 UTC: Monday 09:00 in Tokyo, still Sunday 19:00 in New York.
    for (offset, expected) in [(540, "Journal/2026-11-23 Monday.md"), (-300, "Journal/2026-11-22 Sunday.md")] {
        let h = Harness::new(vault(), [Turn::text("ok")]);
        h.clock.set_utc_offset(offset);
        block_on(h.task(config()).run("add a line to today's note"));
        let system = system_of(&h);
        assert!(
            system.contains(&format!(
                "Today's daily note: {expected} (Obsidian's daily notes are in Journal/, named in the moment.js format \
                 YYYY-MM-DD dddd). A new daily note starts as a copy of Templates/Day.md with its {{{{date}}}}, \
                 {{{{time}}}} and {{{{title}}}} filled in."
            )),
            "{system}"
        );
    }

    // Turned off (the older list form of the settings): nothing about daily notes.
    let off = MemoryVault::with_notes([(".obsidian/core-plugins.json", r#"["file-explorer", "graph"]"#)]).unwrap();
    let h = Harness::new(off, [Turn::text("ok")]);
    block_on(h.task(config()).run("hello"));
    assert!(!system_of(&h).contains("daily note"));

    // On, in a settings folder of another name, with no settings of its own: the defaults.
    let elsewhere = MemoryVault::with_notes([(".config/core-plugins.json", r#"["daily-notes"]"#)]).unwrap();
    let found = block_on(PeriodicNotes::load(&elsewhere, ".config")).unwrap().series.remove(0);
    assert_eq!((found.folder.as_str(), found.format.as_str(), found.template.as_str()), ("", "YYYY-MM-DD", ""));
    assert_eq!(found.path_for((2026, 12, 8), MomentLocale::new(None, None)).as_deref(), Some("2026-12-08.md"));
    assert_eq!(block_on(PeriodicNotes::load(&elsewhere, ".obsidian")), None, "no settings there");
}

/// With the Periodic Notes plugin on, its daily notes replace the core plugin's, and the prompt
/// names this week's note too, counted from the first weekday the Calendar plugin sets; the
/// Calendar plugin's own weekly notes and Periodic Notes 1.x's settings are read as well.
#[test]
fn the_prompt_names_this_weeks_note_from_the_periodic_notes_plugin() {
    use vault_agent::prompt::{NotesPlugin, Period, PeriodicNotes};
    let vault = || {
        MemoryVault::with_notes([
            (".obsidian/core-plugins.json", r#"{"daily-notes": true}"#),
            (".obsidian/daily-notes.json", r#"{"folder": "Old"}"#),
            (".obsidian/community-plugins.json", r#"["calendar", "periodic-notes"]"#),
            (
                ".obsidian/plugins/periodic-notes/data.json",
                r#"{"showGettingStartedBanner": false,
                    "daily": {"enabled": true, "folder": "Journal/Daily", "format": "YYYY-MM-DD", "template": "Templates/Day"},
                    "weekly": {"enabled": true, "folder": "Journal/Weekly", "format": "", "template": ""},
                    "monthly": {"enabled": false, "folder": "Months", "format": "YYYY-MM", "template": ""}}"#,
            ),
            (".obsidian/plugins/calendar/data.json", r#"{"weekStart": "monday", "showWeeklyNote": true}"#),
        ])
        .unwrap()
    };
    let system_of = |h: &Harness| h.provider.requests()[0].system.iter().map(|s| s.text.clone()).collect::<String>();
    // 2026-11-23 00:00 UTC: Monday in Tokyo, which starts week 48; still Sunday in New York,
    // the last day of week 47 when weeks start on Monday.
    for (offset, day, week) in [(540, "2026-11-23", "2026-W48"), (-300, "2026-11-22", "2026-W47")] {
        let h = Harness::new(vault(), [Turn::text("ok")]);
        h.clock.set_utc_offset(offset);
        block_on(h.task(config()).run("what did I plan this week?"));
        let system = system_of(&h);
        assert!(
            system.contains(&format!(
                "Today's daily note: Journal/Daily/{day}.md (the Periodic Notes plugin's daily notes are in \
                 Journal/Daily/, named in the moment.js format YYYY-MM-DD). A new daily note starts as a copy of \
                 Templates/Day.md"
            )),
            "{system}"
        );
        assert!(
            system.contains(&format!(
                "\nThis week's note: Journal/Weekly/{week}.md (the Periodic Notes plugin's weekly notes are in \
                 Journal/Weekly/, named in the moment.js format gggg-[W]ww)."
            )),
            "{system}"
        );
        assert!(!system.contains("Old/") && !system.contains("monthly"), "{system}");
    }

    // The Calendar plugin alone keeps weekly notes; Periodic Notes 1.x keeps calendar sets.
    let calendar = MemoryVault::with_notes([
        (".obsidian/community-plugins.json", r#"["calendar"]"#),
        (".obsidian/plugins/calendar/data.json", r#"{"showWeeklyNote": true, "weeklyNoteFolder": "Weeks/"}"#),
    ])
    .unwrap();
    let found = block_on(PeriodicNotes::load(&calendar, ".obsidian")).unwrap();
    let weekly = &found.series[..];
    assert_eq!(weekly.len(), 1);
    assert_eq!((weekly[0].period, weekly[0].plugin), (Period::Week, NotesPlugin::Calendar));
    assert_eq!((weekly[0].folder.as_str(), weekly[0].format.as_str()), ("Weeks", "gggg-[W]ww"));
    let sets = MemoryVault::with_notes([
        (".obsidian/community-plugins.json", r#"["periodic-notes"]"#),
        (
            ".obsidian/plugins/periodic-notes/data.json",
            r#"{"activeCalendarSet": "Work", "calendarSets": [
                {"id": "Default", "day": {"enabled": true, "folder": "Home"}},
                {"id": "Work", "day": {"enabled": true, "format": "DD-MM-YYYY", "folder": "Days", "templatePath": "T/Day.md"},
                 "week": {"enabled": false}}]}"#,
        ),
    ])
    .unwrap();
    let found = block_on(PeriodicNotes::load(&sets, ".obsidian")).unwrap();
    assert_eq!(found.series.len(), 1);
    let day = &found.series[0];
    assert_eq!(
        (day.period, day.plugin, day.folder.as_str(), day.format.as_str(), day.template.as_str()),
        (Period::Day, NotesPlugin::PeriodicNotes, "Days", "DD-MM-YYYY", "T/Day.md")
    );
    // Installed but turned off in Obsidian: nothing.
    let off = MemoryVault::with_notes([
        (".obsidian/community-plugins.json", r#"["dataview"]"#),
        (".obsidian/plugins/periodic-notes/data.json", r#"{"daily": {"enabled": true}}"#),
    ])
    .unwrap();
    assert_eq!(block_on(PeriodicNotes::load(&off, ".obsidian")), None);
}
