//! Memory: the `remember` tool and its approval category, recall of the memories relevant to
//! the request within the budget, the old `facts.md` kept, and the end-of-task extraction.

use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::{AgentConfig, Conversation, MemoryExtraction};
use vault_agent::memory::{MemoryKind, MemoryStore, LEGACY_FILE, MEMORY_FILE, MEMORY_TOKENS};
use vault_agent::protocol::{AgentEvent, ApprovalCategory, ApprovalDecision, EndReason, ModelRequest, ToolChoice};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, is_flush_request, p, Harness};

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() }
}

fn vault() -> MemoryVault {
    let vault = MemoryVault::new();
    block_on(vault.write(&p("Notes/a.md"), "# A\n")).unwrap();
    vault
}

fn system(request: &ModelRequest) -> String {
    request.system.iter().map(|s| s.text.clone()).collect::<Vec<_>>().join("\n")
}

/// The prompt's memory section.
fn memory_section(request: &ModelRequest) -> String {
    let system = system(request);
    let Some(start) = system.find("## Memory\n") else { return String::new() };
    let rest = &system[start..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

fn memories(vault: &dyn Vault) -> Vec<(MemoryKind, String)> {
    block_on(MemoryStore::load(vault)).unwrap().entries().iter().map(|e| (e.kind, e.text.clone())).collect()
}

#[test]
fn remember_asks_in_its_own_category_and_a_later_task_sees_the_memory() {
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("remember", json!({"kind": "preference", "text": "Write dates as YYYY-MM-DD."}))]),
            Turn::text("Noted."),
            Turn::text("Done."),
        ],
    );
    let report = block_on(h.task(config()).run("From now on, write dates as YYYY-MM-DD."));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let asked: Vec<(ApprovalCategory, String, String)> = h
        .host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => Some((request.category, request.tool, request.summary)),
            _ => None,
        })
        .collect();
    let said = "Remember, as a preference: Write dates as YYYY-MM-DD.".to_string();
    assert_eq!(asked, [(ApprovalCategory::Memory, "remember".to_string(), said)]);
    assert_eq!(memories(&*h.vault), [(MemoryKind::Preference, "Write dates as YYYY-MM-DD.".to_string())]);
    let entry = block_on(MemoryStore::load(&*h.vault)).unwrap().entries()[0].clone();
    assert_eq!((entry.id.as_str(), entry.task_id.as_deref(), entry.created_ms), ("m1", Some("t1"), 1_795_392_000_000));

    // The next task's prompt has it.
    block_on(h.task(config()).run("Add today's entry to my journal"));
    let requests = h.provider.requests();
    let section = memory_section(requests.last().unwrap());
    assert!(section.contains("- Preference: Write dates as YYYY-MM-DD."), "{section}");
    assert!(memory_section(&requests[0]).is_empty(), "nothing was remembered before the first task");
}

#[test]
fn a_skipped_remember_saves_nothing() {
    let h = Harness::new(
        vault(),
        [Turn::tools([("remember", json!({"kind": "fact", "text": "The user is called Ada."}))]), Turn::text("Ok.")],
    );
    h.host.deciding(|_| ApprovalDecision::Skip);
    block_on(h.task(config()).run("hi"));
    assert!(memories(&*h.vault).is_empty());
    assert!(block_on(h.vault.stat(&p(MEMORY_FILE))).unwrap().is_none());
}

#[test]
fn memory_never_keeps_a_secret_and_the_user_is_never_asked_to_store_one() {
    let key = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let h = Harness::new(
        vault(),
        [
            Turn::tools([("remember", json!({"kind": "fact", "text": format!("The Anthropic key is {key}")}))]),
            Turn::text("I will not keep it."),
        ],
    );
    block_on(h.task(config()).run("remember my key"));
    let asked = h.host.events().into_iter().any(|e| matches!(e, AgentEvent::ApprovalRequired { .. }));
    assert!(!asked, "refused before the approval");
    let told = h.provider.requests()[1].messages.last().unwrap().clone();
    assert!(format!("{told:?}").contains("memory never keeps secrets"), "{told:?}");
    assert!(memories(&*h.vault).is_empty());
    // The flush, the extraction and the settings' editor go through the same store.
    let mut store = MemoryStore::default();
    assert!(store.add(MemoryKind::Fact, &format!("key {key}"), 0, None).is_err());
    let id = store.add(MemoryKind::Fact, "The key is in Settings/Keys.md", 0, None).unwrap();
    assert!(store.edit(&id, MemoryKind::Fact, &format!("key {key}")).is_err());
    assert_eq!(store.entries()[0].text, "The key is in Settings/Keys.md");
}

/// 200 facts on eight hobbies, and one about the user's bees.
fn many_facts() -> MemoryVault {
    let vault = vault();
    let mut store = block_on(MemoryStore::load(&vault)).unwrap();
    let topics = ["astronomy", "cycling", "pottery", "chess", "sailing", "baking", "birding", "knitting"];
    for i in 0..200 {
        let topic = topics[i % topics.len()];
        let fact = format!("The {topic} notes of year {} are kept in Archive/{topic}-{i}/.", 1800 + i);
        store.add(MemoryKind::Fact, &fact, i as u64, None).unwrap();
    }
    store
        .add(MemoryKind::Fact, "The user's beekeeping log is Hives/Log.md; one entry per inspection.", 500, None)
        .unwrap();
    block_on(store.save(&vault)).unwrap();
    vault
}

#[test]
fn memory_retrieval_chooses_the_relevant_fact_among_many() {
    let h = Harness::new(many_facts(), [Turn::text("ok")]);
    block_on(h.task(config()).run("When did I last inspect the hives? Check my beekeeping log."));
    let section = memory_section(&h.provider.requests()[0]);
    assert!(section.contains("- The user's beekeeping log is Hives/Log.md; one entry per inspection."), "{section}");
    assert!(!section.contains("Archive/"), "unrelated facts stay out: {section}");

    // A request on one topic gets that topic's facts, as many as the budget holds.
    let h = Harness::new(many_facts(), [Turn::text("ok")]);
    block_on(h.task(config()).run("Where are my pottery notes?"));
    let section = memory_section(&h.provider.requests()[0]);
    let lines: Vec<&str> = section.lines().filter(|l| l.starts_with("- ")).collect();
    assert!(lines.len() >= 10 && lines.iter().all(|l| l.contains("pottery")), "{section}");
    let chars: usize = lines.iter().map(|l| l.chars().count()).sum();
    assert!(chars <= MEMORY_TOKENS * 4, "the budget holds: {chars} characters");
}

#[test]
fn the_old_facts_file_is_read_and_folded_into_the_store_on_the_next_write() {
    let vault = vault();
    block_on(vault.write(
        &p(LEGACY_FILE),
        "# Memory\n\nFacts the agent saved for later tasks.\n\n## 2026-01-02 (task t0)\n- The user gardens.\n- Garden notes are in Notes/.\n",
    ))
    .unwrap();
    let h = Harness::new(
        vault,
        [Turn::tools([("remember", json!({"kind": "fact", "text": "The user keeps bees."}))]), Turn::text("ok")],
    );
    h.host.deciding(|_| ApprovalDecision::Approve);
    block_on(h.task(config()).run("Remember that I keep bees, for my garden notes."));
    let section = memory_section(&h.provider.requests()[0]);
    assert!(section.contains("- The user gardens.") && section.contains("- Garden notes are in Notes/."), "{section}");
    assert_eq!(
        memories(&*h.vault).into_iter().map(|(_, t)| t).collect::<Vec<_>>(),
        ["The user gardens.", "Garden notes are in Notes/.", "The user keeps bees."]
    );
    assert!(block_on(h.vault.stat(&p(LEGACY_FILE))).unwrap().is_none(), "folded into the store");
}

#[test]
fn a_store_that_does_not_parse_is_not_overwritten() {
    let vault = vault();
    block_on(vault.write(&p(MEMORY_FILE), "{ not json")).unwrap();
    let h = Harness::new(
        vault,
        [Turn::tools([("remember", json!({"kind": "fact", "text": "The user keeps bees."}))]), Turn::text("ok")],
    );
    h.host.deciding(|_| ApprovalDecision::Approve);
    let report = block_on(h.task(config()).run("hi"));
    assert_eq!(report.end, EndReason::Answered);
    assert!(report.steps[0].tool_calls[0].error.as_deref().unwrap_or("").contains("not a memory store"));
    assert_eq!(block_on(h.vault.read(&p(MEMORY_FILE))).unwrap(), "{ not json");
    assert!(h.host.warnings().iter().any(|w| w.contains("memory could not be read")));
}

#[test]
fn a_completed_task_ends_with_one_extraction_call_that_saves_to_memory() {
    let mut h = Harness::new(
        vault(),
        [
            Turn::tools([("read_file", json!({"path": "Notes/a.md"}))]),
            Turn::text("Note A is empty."),
            Turn::text("- The user's scratch notes are in Notes/.\n- Preference: short answers"),
        ],
    );
    h.end_hook = Some(Rc::new(MemoryExtraction));
    let report = block_on(h.task(config()).run("What is in note A? Keep it short, as always."));
    assert_eq!(report.end, EndReason::Answered);
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 3);
    assert!(is_flush_request(&requests[2]), "the extraction is a memory call");
    assert_eq!(requests[2].tool_choice, ToolChoice::None);
    assert_eq!(
        memories(&*h.vault),
        [
            (MemoryKind::Fact, "The user's scratch notes are in Notes/.".to_string()),
            (MemoryKind::Preference, "short answers".to_string()),
        ]
    );
    let steps: u64 = report.steps.iter().map(|s| s.usage.input_tokens).sum();
    assert!(report.usage.input_tokens > steps, "the extraction is paid for, and counted");
}

#[test]
fn a_task_that_did_not_complete_extracts_nothing() {
    let mut h = Harness::new(
        vault(),
        [Turn::tools([("write_file", json!({"path": "Notes/b.md", "content": "x"}))]), Turn::text("- never asked")],
    );
    h.end_hook = Some(Rc::new(MemoryExtraction));
    h.host.deciding(|_| ApprovalDecision::Deny);
    let report = block_on(h.task(config()).run("write b"));
    assert_eq!(report.end, EndReason::Denied);
    assert_eq!(h.provider.requests().len(), 1);
    assert!(memories(&*h.vault).is_empty());
}

#[test]
fn a_conversation_extracts_by_default_and_not_when_the_setting_is_off() {
    let h = Harness::new(vault(), [Turn::text("Hello, Ada."), Turn::text("- The user is called Ada.")]);
    let chat =
        Conversation::new(AgentConfig::default(), h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone());
    let report = block_on(chat.send("Hi, I'm Ada.")).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    assert_eq!(memories(&*h.vault), [(MemoryKind::Fact, "The user is called Ada.".to_string())]);
    assert!(h.host.warnings().is_empty(), "{:?}", h.host.warnings());

    let h = Harness::new(vault(), [Turn::text("Hello, Ada.")]);
    let config = AgentConfig { memory_extraction: false, ..AgentConfig::default() };
    let chat = Conversation::new(config, h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone());
    block_on(chat.send("Hi, I'm Ada.")).unwrap();
    assert_eq!(h.provider.requests().len(), 1);
    assert!(memories(&*h.vault).is_empty());
}
