//! Both providers inside Chrome: gloo-net (`FetchClient`) streaming from the scriptable mock
//! provider on 127.0.0.1 (`tests/servers/routes/mock_provider.mjs`), across origins (CORS).

use std::rc::Rc;

use futures::StreamExt;
use serde_json::{json, Value};
use vault_agent::cancel::CancelToken;
use vault_agent::host::{HttpClient, HttpRequest};
use vault_agent::protocol::{
    ErrorKind, Message, MessageAssembler, ModelRequest, StopReason, StreamEvent, SystemPart, ToolSpec,
};
use vault_agent::provider::{build, ProviderConfig};
use vault_agent::wasm::{FetchClient, JsClock};
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::server_url;

fn session(name: &str) -> String {
    format!("{name}-{}", (js_sys::Math::random() * 1e9) as u64)
}

async fn post(path: &str, body: Value) -> String {
    let response =
        FetchClient.send(HttpRequest::post_json(server_url(path), &body), &CancelToken::new()).await.unwrap();
    assert_eq!(response.status, 200, "POST {path}");
    response.text().await.unwrap()
}

async fn script(id: &str, responses: Value) {
    post(&format!("/mock/{id}/script"), json!({ "responses": responses })).await;
}

async fn requests(id: &str) -> Vec<Value> {
    let response = FetchClient
        .send(HttpRequest::get(server_url(&format!("/mock/{id}/requests"))), &CancelToken::new())
        .await
        .unwrap();
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

fn provider(kind: &str, id: &str) -> Box<dyn vault_agent::provider::ModelProvider> {
    let config = match kind {
        "anthropic" => ProviderConfig::anthropic("claude-mock", "sk-ant-browser")
            .with_base_url(server_url(&format!("/mock/{id}/anthropic"))),
        _ => ProviderConfig::compatible(server_url(&format!("/mock/{id}/openai/v1")), "gpt-mock")
            .with_api_key("sk-browser"),
    };
    build(&config, Rc::new(FetchClient), Rc::new(JsClock)).unwrap()
}

fn request() -> ModelRequest {
    ModelRequest {
        system: vec![SystemPart { text: "You are in a browser.".into(), cache_breakpoint: true }],
        messages: vec![Message::user("Read my plan")],
        tools: vec![ToolSpec {
            name: "read_note".into(),
            description: "Reads a note.".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_tokens: 512,
        thinking_budget: None,
        temperature: None,
        tool_choice: Default::default(),
        model: None,
    }
}

/// Streams one scripted answer, holding the server after the first text delta: the rest is only
/// released once that delta was seen here, so the test can only pass if deltas arrive while the
/// response is still open.
async fn first_delta_arrives_before_the_stream_ends(kind: &str) {
    let id = session(kind);
    let text = "Your plan has three steps; let me open it. ✓";
    script(
        &id,
        json!([{
            "text": text, "thinking": "The user wants the plan.", "hold": true, "chunkSize": 5,
            "toolCalls": [{"id": "call_1", "name": "read_note", "arguments": {"path": "Projects/Plan.md"}}],
            "usage": {"input": 42, "output": 17}
        }]),
    )
    .await;
    let provider = provider(kind, &id);
    let mut stream = provider.stream(&request(), &CancelToken::new()).await;
    let mut assembler = MessageAssembler::new();
    loop {
        let event = stream.next().await.expect("the stream ended before any text");
        assembler.push(&event);
        if let StreamEvent::TextDelta { text } = &event {
            assert_eq!(text, "Your ");
            break;
        }
        assert!(!matches!(event, StreamEvent::Done { .. } | StreamEvent::Error { .. }), "{event:?}");
    }
    post(&format!("/mock/{id}/release"), json!({})).await;
    while let Some(event) = stream.next().await {
        assembler.push(&event);
    }
    assert!(assembler.error().is_none(), "{:?}", assembler.error());
    assert_eq!(assembler.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!((assembler.usage().input_tokens, assembler.usage().output_tokens), (42, 17));
    let message = assembler.finish();
    assert_eq!(message.text(), text);
    let calls: Vec<_> =
        message.tool_uses().map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone())).collect();
    assert_eq!(calls, vec![("call_1".to_string(), "read_note".to_string(), json!({"path": "Projects/Plan.md"}))]);
}

#[wasm_bindgen_test]
async fn anthropic_streams_through_fetch_before_the_response_ends() {
    first_delta_arrives_before_the_stream_ends("anthropic").await;
}

#[wasm_bindgen_test]
async fn openai_streams_through_fetch_before_the_response_ends() {
    first_delta_arrives_before_the_stream_ends("openai").await;
}

#[wasm_bindgen_test]
async fn anthropic_requests_carry_the_key_version_and_browser_opt_in() {
    let id = session("anthropic-headers");
    script(&id, json!([{"text": "ok"}])).await;
    let events: Vec<_> = provider("anthropic", &id).stream(&request(), &CancelToken::new()).await.collect().await;
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    let sent = requests(&id).await;
    assert_eq!(sent.len(), 1);
    let headers = &sent[0]["headers"];
    assert_eq!(headers["x-api-key"], "sk-ant-browser");
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(headers["anthropic-dangerous-direct-browser-access"], "true");
    assert_eq!(sent[0]["path"], format!("/mock/{id}/anthropic/v1/messages"));
    assert_eq!(sent[0]["body"]["model"], "claude-mock");
    assert_eq!(sent[0]["body"]["stream"], true);
    assert_eq!(sent[0]["body"]["tools"][0]["name"], "read_note");
}

#[wasm_bindgen_test]
async fn openai_requests_carry_no_sdk_headers() {
    let id = session("openai-headers");
    script(&id, json!([{"text": "ok"}])).await;
    let events: Vec<_> = provider("openai", &id).stream(&request(), &CancelToken::new()).await.collect().await;
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    let sent = requests(&id).await;
    let headers = sent[0]["headers"].as_object().unwrap();
    assert_eq!(headers["authorization"], "Bearer sk-browser");
    assert_eq!(headers["content-type"], "application/json");
    let ours: Vec<&String> = headers
        .keys()
        .filter(|k| k.starts_with("x-") || k.starts_with("anthropic") || k.contains("stainless"))
        .collect();
    assert!(ours.is_empty(), "no SDK-specific headers: {ours:?}");
    assert_eq!(sent[0]["body"]["stream_options"]["include_usage"], true);
    assert_eq!(sent[0]["body"]["messages"][0], json!({"role": "system", "content": "You are in a browser."}));
}

#[wasm_bindgen_test]
async fn a_rate_limit_is_retried_in_the_browser() {
    for kind in ["anthropic", "openai"] {
        let id = session("retry");
        script(&id, json!([{"status": 429, "headers": {"retry-after": "0"}}, {"text": "after the wait"}])).await;
        let events: Vec<_> = provider(kind, &id).stream(&request(), &CancelToken::new()).await.collect().await;
        let retried: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Retry { delay_ms, error, .. } => Some((*delay_ms, error.kind)),
                _ => None,
            })
            .collect();
        assert_eq!(retried, vec![(0, ErrorKind::RateLimited)], "{kind}");
        let mut assembler = MessageAssembler::new();
        events.iter().for_each(|e| assembler.push(e));
        assert_eq!(assembler.finish().text(), "after the wait", "{kind}");
        assert_eq!(requests(&id).await.len(), 2, "{kind}");
    }
}
