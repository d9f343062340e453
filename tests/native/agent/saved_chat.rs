//! The core owns the saved chat: a conversation saved in the vault records its tasks (the
//! ledger of reports the chat's footers and undo buttons come from), and a saved chat reads
//! back as turns the chat view renders as they are.

use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::{
    delete_chat, load_chat, mark_undone, rename_chat, AgentConfig, ChatArchive, ChatMatch, ChatRequest, Conversation,
    SavedChat, Speaker, TranscriptStep, TranscriptTurn,
};
use vault_agent::protocol::{AgentEvent, EndReason, ErrorKind, ToolOutcome};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, p, Harness};
use crate::faulty_vault::{Fault, FaultyVault};

/// A conversation saved in the vault (without the end-of-task memory extraction, so the
/// scripts are the tasks' own calls).
fn saved(h: &Harness, chat_id: Option<&str>) -> Conversation {
    let config = AgentConfig { memory_extraction: false, ..AgentConfig::default() };
    Conversation::new(config, h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone())
        .saved_in_vault(chat_id.map(str::to_string))
}

fn bread() -> MemoryVault {
    MemoryVault::with_notes([("Cooking/Bread.md", "# Bread\nSourdough\n"), ("Cooking/Pizza.md", "# Pizza\n")]).unwrap()
}

/// The chats the host was told were saved: `(id, title)`.
fn saves(h: &Harness) -> Vec<(String, String)> {
    h.host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ChatSaved { chat_id, title } => Some((chat_id, title)),
            _ => None,
        })
        .collect()
}

fn requests(turns: &[TranscriptTurn]) -> Vec<String> {
    turns.iter().map(|t| t.request.as_ref().map(|r| r.text.clone()).unwrap_or_default()).collect()
}

#[test]
fn a_saved_chat_reads_back_as_turns_with_attachments_tool_calls_and_reports() {
    let h = Harness::new(
        bread(),
        [
            Turn::text_and_tools("Reading the pizza note.", [("read_file", json!({"path": "Cooking/Pizza.md"}))]),
            Turn::text("Bread: sourdough. Pizza: a heading."),
        ],
    );
    let chat = saved(&h, None);
    let report = block_on(chat.send_with_attachments("Compare these", &["Cooking/Bread.md".into()])).unwrap();
    assert_eq!(report.end, EndReason::Answered);

    // Saved before the task ran (so its snapshot names the chat), and the host told then; the
    // save after it changed neither id nor title, so the task's `Done` stays its last word.
    let id = chat.chat_id().expect("the chat was saved");
    assert_eq!(saves(&h), [(id.clone(), "Compare these".to_string())]);
    let kinds: Vec<&str> = h
        .host
        .events()
        .iter()
        .map(|e| {
            if matches!(e, AgentEvent::ChatSaved { .. }) {
                "saved"
            } else if matches!(e, AgentEvent::TaskStarted { .. }) {
                "started"
            } else if matches!(e, AgentEvent::Done { .. }) {
                "done"
            } else {
                ""
            }
        })
        .filter(|k| !k.is_empty())
        .collect();
    assert_eq!(kinds, ["saved", "started", "done"]);
    let stored = block_on(load_chat(&*h.vault, &id)).unwrap();
    assert_eq!(stored.messages, chat.history());
    assert_eq!(stored.tasks.len(), 1);
    assert_eq!(stored.tasks[0].message_index, 0);
    assert_eq!(stored.tasks[0].report.task_id, report.task_id);
    assert_eq!(stored.mode, "agent");

    let transcript = stored.transcript();
    assert_eq!((transcript.chat_id.as_str(), transcript.title.as_str()), (id.as_str(), "Compare these"));
    let [turn] = &transcript.turns[..] else { panic!("one turn: {:?}", transcript.turns) };
    assert_eq!(
        turn.request,
        Some(ChatRequest { text: "Compare these".into(), attachments: vec!["Cooking/Bread.md".into()] })
    );
    assert_eq!((turn.tasks.len(), turn.interrupted), (1, false));
    let [TranscriptStep::Text { text: first }, TranscriptStep::Tool { call_id, name, label, outcome, result, is_error, .. }, TranscriptStep::Text { text: last }] =
        &turn.steps[..]
    else {
        panic!("text, a call, text: {:?}", turn.steps)
    };
    assert_eq!(first, "Reading the pizza note.");
    assert_eq!(name, "read_file");
    assert_eq!(label.as_ref().map(|l| l.text()).as_deref(), Some("Read Pizza"), "the call in words, from the report");
    assert_eq!(report.steps[0].tool_calls[0].call_id, *call_id);
    assert_eq!((*outcome, *is_error), (Some(ToolOutcome::Done), false));
    assert!(result.as_deref().is_some_and(|r| r.contains("# Pizza")), "{result:?}");
    assert_eq!(last, "Bread: sourdough. Pizza: a heading.");
}

#[test]
fn retry_keeps_the_failed_attempt_and_an_edit_drops_what_it_replaces() {
    let h = Harness::new(
        bread(),
        [
            Turn::text("First answer."),
            Turn::fail(ErrorKind::Auth, "invalid key"),
            Turn::text("Second answer."),
            Turn::text("Answer to the edit."),
            Turn::text("Third answer."),
        ],
    );
    let chat = saved(&h, None);
    block_on(chat.send("one")).unwrap();
    h.clock.advance(60_000);
    let failed = block_on(chat.send("two")).unwrap();
    h.clock.advance(60_000);
    let retried = block_on(chat.retry_last()).unwrap();
    assert_ne!(failed.task_id, retried.task_id);
    let id = chat.chat_id().unwrap();
    let turns = block_on(load_chat(&*h.vault, &id)).unwrap().transcript().turns;
    assert_eq!(requests(&turns), ["one", "two"]);
    // The failed attempt's changes stay undoable: its footer comes before the retry's.
    let ids: Vec<&str> = turns[1].tasks.iter().map(|t| t.report.task_id.as_str()).collect();
    assert_eq!(ids, [failed.task_id.as_str(), retried.task_id.as_str()]);
    assert_eq!(turns[1].steps, [TranscriptStep::Text { text: "Second answer.".into() }]);

    h.clock.advance(60_000);
    let edited = block_on(chat.edit_last("two, edited", &["Cooking/Pizza.md".into()])).unwrap();
    h.clock.advance(60_000);
    block_on(chat.send("three")).unwrap();
    let stored = block_on(load_chat(&*h.vault, &id)).unwrap();
    let turns = stored.transcript().turns;
    assert_eq!(requests(&turns), ["one", "two, edited", "three"]);
    assert_eq!(turns[1].request.as_ref().unwrap().attachments, ["Cooking/Pizza.md"]);
    let ids: Vec<&str> = turns[1].tasks.iter().map(|t| t.report.task_id.as_str()).collect();
    assert_eq!(ids, [edited.task_id.as_str()], "the replaced request's tasks left with it");
    assert_eq!(stored.tasks.iter().map(|t| t.message_index).collect::<Vec<_>>(), [0, 2, 4]);
}

#[test]
fn a_chat_made_with_its_id_continues_the_saved_history() {
    let h = Harness::new(bread(), [Turn::text("Sourdough."), Turn::text("Yes, with rye.")]);
    let first = saved(&h, None);
    block_on(first.send("What bread do I bake?")).unwrap();
    let id = first.chat_id().unwrap();
    block_on(rename_chat(&*h.vault, &id, "  Baking  ", 5)).unwrap();

    // The view closed; a new chat for the same id reads the history before its task.
    h.clock.advance(60_000);
    let again = saved(&h, Some(&id));
    block_on(again.send("Any rye?")).unwrap();
    let sent = &h.provider.requests()[1].messages;
    assert_eq!(sent.iter().map(|m| m.text()).collect::<Vec<_>>(), ["What bread do I bake?", "Sourdough.", "Any rye?"]);
    let stored = block_on(load_chat(&*h.vault, &id)).unwrap();
    assert_eq!(stored.title, "Baking", "a rename made meanwhile is kept");
    assert_eq!(stored.tasks.len(), 2);
    block_on(mark_undone(&*h.vault, &id, &stored.tasks[1].report.task_id, true, 6)).unwrap();
    let turns = block_on(load_chat(&*h.vault, &id)).unwrap().transcript().turns;
    assert_eq!(turns.iter().map(|t| t.tasks[0].undone).collect::<Vec<_>>(), [false, true]);
    assert!(block_on(mark_undone(&*h.vault, &id, "no-such-task", true, 7)).unwrap_err().is_not_found());
}

#[test]
fn a_chat_saved_by_the_earlier_plugin_reads_back_as_turns() {
    // As the plugin's view saved chats before the core owned them (its JSON, unchanged).
    let json = r#"{"id":"20261101-090000","title":"Bread","createdMs":1,"updatedMs":2,"mode":"agent",
      "messages":[
        {"role":"user","content":[{"type":"text","text":"Tidy this\n\n<attached_notes>\n<note path=\"Cooking/Bread.md\">\n# Bread\n</note>\n</attached_notes>"}]},
        {"role":"assistant","content":[{"type":"thinking","thinking":"Look first."},{"type":"tool_use","id":"c1","name":"read_file","input":{"path":"Cooking/Bread.md"}}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"no such note","is_error":true}]},
        {"role":"assistant","content":[{"type":"text","text":"It is gone."}]}],
      "tasks":[{"messageIndex":0,"report":{"task_id":"t-old","end":{"reason":"answered"},"steps":[],
        "usage":{"input_tokens":1,"output_tokens":2,"cache_read_tokens":0,"cache_write_tokens":0},
        "duration_ms":5,"tool_calls":1,"tool_errors":1,"changed_paths":[]}}]}"#;
    let vault = MemoryVault::new();
    block_on(vault.write(&p(".obsidian-agent/chats/20261101-090000.json"), json)).unwrap();
    let chat: SavedChat = block_on(load_chat(&vault, "20261101-090000")).unwrap();
    let turns = chat.transcript().turns;
    let [turn] = &turns[..] else { panic!("{turns:?}") };
    assert_eq!(
        turn.request,
        Some(ChatRequest { text: "Tidy this".into(), attachments: vec!["Cooking/Bread.md".into()] })
    );
    assert_eq!(turn.tasks[0].report.task_id, "t-old");
    assert!(!turn.tasks[0].undone, "undone defaults to false");
    let [TranscriptStep::Thinking { .. }, TranscriptStep::Tool { outcome, result, is_error, label, .. }, TranscriptStep::Text { .. }] =
        &turn.steps[..]
    else {
        panic!("{:?}", turn.steps)
    };
    // No report of the call: how it ended comes from its result, its words from its arguments.
    assert_eq!((*outcome, result.as_deref(), *is_error), (Some(ToolOutcome::Failed), Some("no such note"), true));
    assert_eq!(label.as_ref().map(|l| l.text()).as_deref(), Some("Read Bread"));
}

#[test]
fn a_chat_the_vault_cannot_save_goes_on_in_memory_with_a_warning() {
    let vault = Rc::new(FaultyVault::new(MemoryVault::new()));
    let mut h = Harness::new(MemoryVault::new(), [Turn::text("One."), Turn::text("Two.")]);
    h.vault = vault.clone();
    let chat = saved(&h, None);
    vault.fail_randomly(1, 1, Fault::Eio);
    let first = block_on(chat.send("one")).unwrap();
    assert_eq!(first.end, EndReason::Answered);
    assert_eq!(chat.chat_id(), None);
    assert!(h.host.warnings().iter().any(|w| w.contains("the chat could not be saved")), "{:?}", h.host.warnings());
    assert_eq!(chat.history().len(), 2, "the chat goes on in memory");

    // Once the vault takes writes again, the next save has everything, the first task too.
    vault.restart();
    let second = block_on(chat.send("two")).unwrap();
    let stored = block_on(load_chat(&*h.vault, &chat.chat_id().unwrap())).unwrap();
    assert_eq!(stored.messages.len(), 4);
    let ids: Vec<&str> = stored.tasks.iter().map(|t| t.report.task_id.as_str()).collect();
    assert_eq!(ids, [first.task_id.as_str(), second.task_id.as_str()]);
}

/// A chat's title comes from its first request: editing that request retitles the chat (and
/// the host is told), unless the user gave the chat a title of their own.
#[test]
fn editing_the_first_request_retitles_the_chat_unless_it_was_renamed() {
    let h = Harness::new(
        bread(),
        [Turn::text("Rye needs a starter."), Turn::text("Spelt is gentler."), Turn::text("Einkorn is older.")],
    );
    let chat = saved(&h, None);
    block_on(chat.send("tell me about rye")).unwrap();
    let id = chat.chat_id().unwrap();
    h.clock.advance(60_000);
    block_on(chat.edit_last("tell me about spelt", &[])).unwrap();
    assert_eq!(block_on(load_chat(&*h.vault, &id)).unwrap().title, "tell me about spelt");
    assert_eq!(saves(&h).last().unwrap(), &(id.clone(), "tell me about spelt".to_string()));

    block_on(rename_chat(&*h.vault, &id, "Grains", 5)).unwrap();
    h.clock.advance(60_000);
    block_on(chat.edit_last("tell me about einkorn", &[])).unwrap();
    let stored = block_on(load_chat(&*h.vault, &id)).unwrap();
    assert_eq!(stored.title, "Grains", "the user's title stays");
    assert_eq!(requests(&stored.transcript().turns), ["tell me about einkorn"]);
}

#[test]
fn the_history_finds_a_chat_by_what_was_said_in_it_not_by_the_notes_it_read() {
    let vault = MemoryVault::with_notes([("Cooking/Bread.md", "# Bread\nFerment it overnight.\n")]).unwrap();
    let h = Harness::new(
        vault,
        [
            Turn::text_and_tools("Reading it.", [("read_file", json!({"path": "Cooking/Bread.md"}))]),
            Turn::text("Your note says to bake the **sourdough** at 230 °C."),
            Turn::text("Kyoto in April: book the ryokan early, and try the bread at Shinshindo."),
        ],
    );
    let first = saved(&h, None);
    block_on(first.send("What does my bread note say?")).unwrap();
    h.clock.advance(60_000);
    let second = saved(&h, None);
    block_on(second.send("Plan my Kyoto trip")).unwrap();
    let (first, second) = (first.chat_id().unwrap(), second.chat_id().unwrap());
    let archive = block_on(ChatArchive::load(&*h.vault)).unwrap();
    let ids = |found: &[ChatMatch]| found.iter().map(|m| m.chat.id.clone()).collect::<Vec<_>>();

    // No words: every chat, the newest first, with no passage.
    let all = archive.search("  ");
    assert_eq!(ids(&all), [second.clone(), first.clone()]);
    assert!(all.iter().all(|m| m.passage.is_none()));
    assert_eq!(archive.summaries().iter().map(|c| c.id.clone()).collect::<Vec<_>>(), ids(&all));

    // Words of an answer, in any case: the agent's passage in the chat's first turn, marked
    // (the answer's own bold left out).
    let found = archive.search("SOURDOUGH 230");
    assert_eq!(ids(&found), std::slice::from_ref(&first));
    let passage = found[0].passage.clone().unwrap();
    assert_eq!((passage.turn, passage.by), (0, Speaker::Agent));
    assert_eq!(passage.text, "Your note says to bake the **sourdough** at **230** °C.");

    // Every word must be said in the chat: words of two chats find neither.
    assert!(archive.search("sourdough ryokan").is_empty());
    // What a task read is not what the chat said: the note's words find nothing.
    assert!(archive.search("overnight").is_empty());

    // A chat whose title holds the words comes before a newer one that only said them.
    let found = archive.search("bread");
    assert_eq!(ids(&found), [first.clone(), second.clone()]);
    let passage = found[0].passage.clone().unwrap();
    assert_eq!(
        (passage.turn, passage.by, passage.text.as_str()),
        (0, Speaker::You, "What does my **bread** note say?")
    );
    let passage = found[1].passage.clone().unwrap();
    assert_eq!(passage.by, Speaker::Agent);
    assert!(passage.text.contains("try the **bread** at Shinshindo."), "{}", passage.text);

    // A chat deleted from the history is no longer found, by the archive the history keeps
    // (told to forget it) or by one read again; the other chat still is.
    let mut archive = archive;
    block_on(delete_chat(&*h.vault, &first)).unwrap();
    assert!(archive.forget(&first));
    assert!(!archive.forget(&first));
    assert_eq!(ids(&archive.search("bread")), std::slice::from_ref(&second));
    let reread = block_on(ChatArchive::load(&*h.vault)).unwrap();
    assert_eq!(ids(&reread.search("bread")), [second]);
}
