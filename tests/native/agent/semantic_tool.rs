//! `semantic_search` through the agent loop: the model asks in other words than the notes use,
//! the tool answers from the shared vectors (fused with the full-text index), says which signal
//! found each note, and tells the model when there are no vectors.

use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::embed::StaticEmbedder;
use vault_agent::host::ManualClock;
use vault_agent::index::SharedIndex;
use vault_agent::protocol::EndReason;
use vault_agent::provider::Turn;
use vault_agent::search::SearchIndex;
use vault_agent::vault::MemoryVault;

use super::support::{block_on, last_user_text, Harness};

fn static_model() -> StaticEmbedder {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(vault_agent::embed::STATIC_MODEL_REPO_PATH);
    StaticEmbedder::from_bytes(&std::fs::read(path).unwrap()).unwrap()
}

fn vault() -> MemoryVault {
    MemoryVault::with_notes([
        (
            "Kitchen/Sourdough.md",
            "# Sourdough\n\nFeed the starter with flour and water every morning. Bake the loaf at 230 °C.\n",
        ),
        (
            "Travel/Kyoto.md",
            "# Kyoto trip\n\nTemples, gardens and the train from Tokyo. See [[Sourdough]] for the bakery.\n",
        ),
        ("Work/Quarterly report.md", "# Quarterly report\n\nRevenue grew; hiring two engineers next quarter.\n"),
        ("Private/Diary.md", "# Diary\n\nBaking bread again today.\n"),
        (".obsidian-agentignore", "Private/\n"),
    ])
    .unwrap()
}

fn harness(embedded: bool, turns: Vec<Turn>) -> Harness {
    let mut h = Harness::new(vault(), turns);
    let shared = SharedIndex::new();
    shared.replace(block_on(SearchIndex::build(&*h.vault, &ManualClock::new(0), &mut |_| {})).unwrap());
    if embedded {
        shared.semantic().set_embedder(Rc::new(static_model()));
        block_on(shared.semantic().embed_vault(&*h.vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    }
    h.search = shared;
    h
}

fn run(embedded: bool, calls: Vec<serde_json::Value>) -> Vec<String> {
    let mut turns: Vec<Turn> = calls.into_iter().map(|args| Turn::tools([("semantic_search", args)])).collect();
    turns.push(Turn::text("done"));
    let h = harness(embedded, turns);
    let config = AgentConfig { tool_timeout_ms: 0, ..AgentConfig::default() };
    let report = block_on(h.task(config).run("go"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    h.provider.requests().iter().skip(1).map(last_user_text).collect()
}

#[test]
fn notes_are_found_by_meaning_and_each_hit_says_what_found_it() {
    let seen = run(
        true,
        vec![
            json!({"query": "how do I make bread rise", "mode": "semantic"}),
            json!({"query": "baking bread", "expand_links": true}),
        ],
    );
    let first = &seen[0];
    let top = first.lines().nth(1).unwrap();
    assert!(top.starts_with("- Kitchen/Sourdough.md") && top.contains("semantic"), "{first}");
    assert!(!first.contains("Private/Diary.md"), "ignored notes stay hidden: {first}");
    let second = &seen[1];
    assert!(second.contains("Kitchen/Sourdough.md"), "{second}");
    assert!(
        second.contains("from Kitchen/Sourdough.md") || second.contains("Travel/Kyoto.md"),
        "a linked note: {second}"
    );
}

#[test]
fn without_vectors_the_model_is_told_to_use_full_text_search() {
    let seen = run(false, vec![json!({"query": "bread"})]);
    assert!(seen[0].contains("not available") && seen[0].contains("search_files"), "{}", seen[0]);
}
