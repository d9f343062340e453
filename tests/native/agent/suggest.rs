//! Suggestions as the user types: one short model turn, no tools, what goes at the cursor.

use vault_agent::agent::{AgentConfig, SuggestRequest, Suggester};
use vault_agent::protocol::{ErrorKind, ToolChoice};
use vault_agent::provider::Turn;
use vault_agent::vault::MemoryVault;
use vault_agent::Error;

use super::support::{block_on, last_user_text, Harness};

fn harness(turns: impl IntoIterator<Item = Turn>) -> Harness {
    let vault = MemoryVault::with_notes([
        ("Cooking/Bread.md", "# Bread\n"),
        ("Private/Diary.md", "# Diary\n"),
        (".obsidian-agentignore", "Private/\n"),
    ])
    .unwrap();
    Harness::new(vault, turns)
}

fn suggester(h: &Harness) -> Suggester {
    Suggester::new(AgentConfig::default(), h.provider.clone(), h.vault.clone())
}

fn at_cursor(path: &str) -> SuggestRequest {
    SuggestRequest { path: path.into(), before: "# Bread\n\nThe loaf cools ".into(), after: "\n\nServe warm.".into() }
}

#[test]
fn a_suggestion_is_one_short_turn_without_tools_that_continues_the_line() {
    let h = harness([Turn::text("The loaf cools for an hour on a rack.\nThen slice it.")]);
    let suggestion = block_on(suggester(&h).suggest(&at_cursor("Cooking/Bread.md"))).unwrap();
    assert_eq!(suggestion, "for an hour on a rack.");
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert!(request.tools.is_empty() && request.tool_choice == ToolChoice::None);
    assert_eq!(request.max_tokens, 64);
    let asked = last_user_text(request);
    assert!(asked.contains("<note path=\"Cooking/Bread.md\">"), "{asked}");
    assert!(asked.contains("The loaf cools </before_cursor><cursor/><after_cursor>\n\nServe warm."), "{asked}");
}

#[test]
fn a_note_hidden_from_the_agent_is_never_sent() {
    let h = harness([Turn::text("unused")]);
    let suggestion = block_on(suggester(&h).suggest(&at_cursor("Private/Diary.md"))).unwrap();
    assert_eq!(suggestion, "");
    assert!(h.provider.requests().is_empty(), "the model is not asked");
}

#[test]
fn the_models_error_comes_back_to_say_once() {
    let h = harness([Turn::fail(ErrorKind::Auth, "invalid x-api-key")]);
    let error = block_on(suggester(&h).suggest(&at_cursor("Cooking/Bread.md"))).unwrap_err();
    assert!(matches!(&error, Error::Provider(e) if e.kind == ErrorKind::Auth), "{error}");
}
