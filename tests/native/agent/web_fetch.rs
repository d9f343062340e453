//! `web_fetch` over a real HTTP client and a page server on 127.0.0.1: HTML as Markdown, the
//! size cap and externalization, approval by default, the allow list and the deny list.

use std::rc::Rc;

use serde_json::{json, Value};
use vault_agent::agent::AgentConfig;
use vault_agent::host::ReqwestClient;
use vault_agent::protocol::{AgentEvent, ApprovalCategory, ApprovalDecision, RunReport};
use vault_agent::provider::Turn;
use vault_agent::tools::WEB_FETCH_MAX_CHARS as MAX_CHARS;
use vault_agent::vault::MemoryVault;

use super::support::{last_user_text, p, Harness};
use crate::local_server::{serve, Answer};

const PAGE: &str = "<!doctype html><html><head><title>Bread</title><script>steal(document.cookie)</script></head>\
                    <body><h1>Sourdough</h1><p>Bake at <strong>250 °C</strong> for 40 minutes.</p>\
                    <ul><li>flour</li><li>water</li></ul></body></html>";

fn config(allow: &[&str], deny: &[&str]) -> AgentConfig {
    AgentConfig {
        tool_timeout_ms: 0,
        web_allow: allow.iter().map(|s| s.to_string()).collect(),
        web_deny: deny.iter().map(|s| s.to_string()).collect(),
        ..AgentConfig::default()
    }
}

/// A task that fetches `url` once and then answers, with the web tool on.
fn harness(url: &str) -> Harness {
    let mut h = Harness::new(
        MemoryVault::new(),
        [Turn::tools([("web_fetch", json!({"url": url}))]), Turn::text("Here is what the page says.")],
    );
    h.web = Some(Rc::new(ReqwestClient::new()));
    h
}

/// Runs the task on a runtime reqwest can use.
fn run(h: &Harness, config: AgentConfig) -> RunReport {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    tokio::task::LocalSet::new().block_on(&rt, async { h.task(config).run("What does the page say?").await })
}

fn approvals(h: &Harness) -> Vec<ApprovalCategory> {
    h.host
        .events()
        .into_iter()
        .filter_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => Some(request.category),
            _ => None,
        })
        .collect()
}

fn audit(h: &Harness) -> Vec<Value> {
    let log = futures::executor::block_on(h.vault.read(&p(".obsidian-agent/logs/t1.jsonl"))).unwrap();
    log.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_page_is_read_as_markdown_after_the_user_approves() {
    let (base, seen) = serve(vec![Answer::Page("text/html; charset=utf-8", PAGE.into())]);
    let h = harness(&format!("{base}/bread"));
    let report = run(&h, config(&[], &[]));
    assert_eq!(report.tool_errors, 0);
    assert_eq!(approvals(&h), [ApprovalCategory::Web], "a fetch asks by default");
    let told = last_user_text(&h.provider.requests()[1]);
    assert!(told.contains("# Sourdough") && told.contains("Bake at **250 °C** for 40 minutes."), "{told}");
    assert!(!told.contains("steal") && !told.contains("<p>"), "{told}");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].line, "GET /bread HTTP/1.1");
    assert!(seen[0].header("accept").is_some_and(|a| a.starts_with("text/html")));
    assert_eq!(audit(&h)[0]["approval"], "approved");
}

#[test]
fn a_denied_approval_sends_nothing() {
    let (base, seen) = serve(vec![Answer::Page("text/html", PAGE.into())]);
    let h = harness(&format!("{base}/bread"));
    h.host.deciding(|_| ApprovalDecision::Deny);
    run(&h, config(&[], &[]));
    assert_eq!(approvals(&h), [ApprovalCategory::Web]);
    assert!(seen.lock().unwrap().is_empty(), "no request left before the user approved");
}

#[test]
fn an_allow_listed_domain_is_fetched_without_asking() {
    let (base, seen) = serve(vec![Answer::Page("text/html", PAGE.into())]);
    let h = harness(&format!("{base}/bread"));
    run(&h, config(&["127.0.0.1"], &[]));
    assert!(approvals(&h).is_empty());
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(audit(&h)[0]["approval"], "allow_listed");
    assert!(last_user_text(&h.provider.requests()[1]).contains("# Sourdough"));
}

#[test]
fn a_denied_domain_is_refused_even_when_allow_listed() {
    let (base, seen) = serve(vec![Answer::Page("text/html", PAGE.into())]);
    let h = harness(&format!("{base}/bread"));
    let report = run(&h, config(&["127.0.0.1"], &["127.0.0.1"]));
    assert!(approvals(&h).is_empty(), "a refused fetch asks nobody");
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(report.tool_errors, 1);
    let told = last_user_text(&h.provider.requests()[1]);
    assert!(told.contains("127.0.0.1 is on the user's deny list for web_fetch"), "{told}");
}

#[test]
fn a_long_page_is_cut_and_its_result_saved_to_a_file() {
    let paragraph = "<p>Knead the dough until it is smooth and elastic, then let it rest.</p>";
    let page = format!("<html><body><h1>Long</h1>{}</body></html>", paragraph.repeat(3_000));
    let (base, _seen) = serve(vec![Answer::Page("text/html", page)]);
    let h = harness(&format!("{base}/long"));
    run(&h, config(&["127.0.0.1"], &[]));
    let saved = futures::executor::block_on(h.vault.read(&p(".obsidian-agent/tmp/t1/web_fetch-0.md"))).unwrap();
    assert!(saved.contains("# Long") && saved.contains(&format!("[page cut at {MAX_CHARS} of ")), "{}", &saved[..200]);
    assert!(saved.chars().count() < MAX_CHARS + 500);
    let told = last_user_text(&h.provider.requests()[1]);
    assert!(told.contains(".obsidian-agent/tmp/t1/web_fetch-0.md") && told.len() < 4_000, "{told}");
}

#[test]
fn a_binary_answer_is_not_read_as_text() {
    let (base, _seen) = serve(vec![Answer::Page("image/png", "\u{89}PNG".into())]);
    let h = harness(&format!("{base}/logo.png"));
    let report = run(&h, config(&["127.0.0.1"], &[]));
    assert_eq!(report.tool_errors, 1);
    assert!(last_user_text(&h.provider.requests()[1]).contains("is image/png, not a page that can be read as text"));
}

/// A page the user attaches (`@` a web address) is read before the task, as `web_fetch` reads
/// one, into the message as data from the web; a site on the deny list is refused.
#[test]
fn a_page_the_user_attaches_is_read_into_the_message_as_data() {
    let (base, seen) = serve(vec![Answer::Page("text/html", PAGE.into())]);
    let url = format!("{base}/bread");
    let h = Harness::new(MemoryVault::new(), [Turn::text("It bakes at 250 °C.")]);
    let chat = vault_agent::agent::Conversation::new(
        config(&[], &["blocked.example"]),
        h.provider.clone(),
        h.vault.clone(),
        h.clock.clone(),
        h.host.clone(),
    )
    .with_web(Rc::new(ReqwestClient::new()));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        chat.send_with_attachments("How hot?", std::slice::from_ref(&url)).await.unwrap();
        let sent = h.provider.requests()[0].messages[0].text();
        assert!(sent.contains(&format!("<page url=\"{url}\">\n<<<data ")), "{sent}");
        assert!(sent.contains("(from the web)\n# Sourdough") && sent.contains("Bake at **250 °C**"), "{sent}");
        assert!(!sent.contains("steal("), "the script is not read: {sent}");
        assert_eq!(vault_agent::agent::split_request(&sent).1, std::slice::from_ref(&url));
        assert_eq!(seen.lock().unwrap().len(), 1);

        let asked = h.provider.requests().len();
        let denied = chat.send_with_attachments("And this?", &["https://blocked.example/x".into()]).await.unwrap_err();
        assert_eq!(denied.to_string(), "invalid input: blocked.example is on your deny list for web pages");
        let gone = chat.send_with_attachments("And this?", &[format!("{base}/missing")]).await.unwrap_err();
        assert!(gone.to_string().contains("could not fetch") || gone.to_string().contains("answered HTTP"), "{gone}");
        assert_eq!(h.provider.requests().len(), asked, "no task ran for either");
    });
}
