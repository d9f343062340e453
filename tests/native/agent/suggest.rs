//! Suggestions as the user types: one short model turn, no tools, what goes at the cursor.

use std::rc::Rc;

use vault_agent::agent::{AgentConfig, SuggestRequest, Suggester, SuggestionMeter};
use vault_agent::protocol::{ErrorKind, ToolChoice};
use vault_agent::provider::{ModelPrice, Turn};
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

/// Every editor's suggestions count toward one meter: those asked, those answered, their tokens
/// and, at the model's price (or the user's own), their cost; a model without a price leaves the
/// cost unknown from then on, not zero.
#[test]
fn suggestions_are_metered_with_their_tokens_and_cost() {
    let h = harness([Turn::text("for an hour."), Turn::text("on a rack."), Turn::text("until cool.")]);
    let meter = Rc::new(SuggestionMeter::default());
    let price = ModelPrice { input: 1.0, output: 5.0, cache_read: 0.1, cache_write: 1.25 };
    let first = suggester(&h).metered(meter.clone(), Some(price));
    let second = suggester(&h).metered(meter.clone(), Some(price));
    block_on(first.suggest(&at_cursor("Cooking/Bread.md"))).unwrap();
    block_on(second.suggest(&at_cursor("Cooking/Bread.md"))).unwrap();
    // A hidden note asks nothing, so it counts nothing.
    block_on(first.suggest(&at_cursor("Private/Diary.md"))).unwrap();
    let total = meter.total();
    assert_eq!((total.asked, total.answered), (2, 2));
    // The scripted model bills a token for four characters written: 12 and 10 of them.
    assert_eq!(total.usage.output_tokens, 3 + 3);
    assert!(total.usage.input_tokens > 100, "the note around the cursor and the instructions");
    let cost = total.cost.unwrap();
    assert!((cost - price.cost(&total.usage)).abs() < 1e-12, "{cost}");

    // The user's own price wins over the model's; a model with none makes the cost unknown
    // from then on.
    let own = AgentConfig {
        price: Some(ModelPrice { input: 0.0, output: 0.0, cache_read: 0.0, cache_write: 0.0 }),
        ..AgentConfig::default()
    };
    let mine = Suggester::new(own, h.provider.clone(), h.vault.clone()).metered(meter.clone(), Some(price));
    block_on(mine.suggest(&at_cursor("Cooking/Bread.md"))).unwrap();
    assert_eq!((meter.total().answered, meter.total().cost), (3, Some(cost)), "free at the user's price");
    let unpriced = suggester(&h).metered(meter.clone(), None);
    h.provider.push(Turn::text("and serve."));
    block_on(unpriced.suggest(&at_cursor("Cooking/Bread.md"))).unwrap();
    assert_eq!((meter.total().asked, meter.total().answered, meter.total().cost), (4, 4, None));

    // A fresh core's meter carries on from the one it replaced.
    let fresh = SuggestionMeter::default();
    fresh.carry(total);
    assert_eq!(fresh.total(), total);
    fresh.carry(meter.total());
    assert_eq!(
        (fresh.total().asked, fresh.total().usage.output_tokens, fresh.total().cost),
        (6, 6 + meter.total().usage.output_tokens, None)
    );
}
