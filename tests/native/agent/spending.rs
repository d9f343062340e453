//! The session's spending: every model call counted by what asked for it (a chat's task,
//! suggestions, inline edits), at the user's price or the model's.

use std::rc::Rc;

use serde_json::json;
use vault_agent::agent::{AgentConfig, SuggestRequest, Suggester};
use vault_agent::provider::{CallPurpose, MeteredProvider, ModelPrice, ModelProvider, SpendMeter, Turn};
use vault_agent::vault::MemoryVault;

use super::support::{block_on, Harness};

#[test]
fn every_model_call_counts_toward_the_sessions_spending_by_what_asked_for_it() {
    let vault = MemoryVault::with_notes([("Cooking/Bread.md", "# Bread\n\nBake at 230 °C.\n")]).unwrap();
    let h = Harness::new(
        vault,
        [
            Turn::tools([("read_file", json!({"path": "Cooking/Bread.md"}))]),
            Turn::text("It bakes at 230 °C."),
            Turn::text("for an hour on a rack."),
        ],
    );
    let meter = Rc::new(SpendMeter::default());
    let metered = |purpose, price| -> Rc<dyn ModelProvider> {
        Rc::new(MeteredProvider::new(h.provider.clone(), meter.clone(), purpose, price))
    };
    let close = |a: Option<f64>, b: Option<f64>| (a.unwrap() - b.unwrap()).abs() < 1e-12;

    // A task of two model calls, at the user's price: the chat's spending is what the task's
    // own meter says.
    let price = ModelPrice { input: 3.0, output: 15.0, cache_read: 0.3, cache_write: 3.75 };
    let config = AgentConfig { tool_timeout_ms: 0, price: Some(price), ..AgentConfig::default() };
    let mut task = h.task_through(config, "t1", metered(CallPurpose::Chat, Some(price)));
    let report = block_on(task.run("how hot does bread bake?"));
    let chat = meter.totals()[0];
    assert_eq!((chat.purpose, chat.requests), (CallPurpose::Chat, 2));
    assert_eq!(chat.usage, report.usage);
    assert!(close(chat.cost, report.cost), "{:?} {:?}", chat.cost, report.cost);

    // A suggestion through a model with no known price: counted, its cost unknown, not zero.
    let suggester = Suggester::new(AgentConfig::default(), metered(CallPurpose::Suggestions, None), h.vault.clone());
    let request =
        SuggestRequest { path: "Cooking/Bread.md".into(), before: "# Bread\n\nLet it cool ".into(), after: "".into() };
    assert_eq!(block_on(suggester.suggest(&request)).unwrap(), "for an hour on a rack.");
    let totals = meter.totals();
    assert_eq!(totals.len(), 2);
    let suggestions = totals[1];
    assert_eq!((suggestions.purpose, suggestions.requests, suggestions.cost), (CallPurpose::Suggestions, 1, None));
    assert!(suggestions.usage.input_tokens > 0 && suggestions.usage.output_tokens > 0);
    assert_eq!(totals[0], chat, "the chat's totals are its own");

    // A fresh core's meter carries the session's totals on.
    let fresh = SpendMeter::default();
    fresh.carry(&totals);
    fresh.carry(&totals);
    let twice = fresh.totals();
    assert_eq!((twice[0].requests, twice[0].usage.output_tokens), (4, 2 * chat.usage.output_tokens));
    assert!(close(twice[0].cost, chat.cost.map(|c| 2.0 * c)));
    assert_eq!((twice[1].requests, twice[1].cost), (2, None));
}
