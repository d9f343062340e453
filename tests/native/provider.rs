//! Model providers end to end, without a network: recorded streams through the real
//! providers (HTTP handling, SSE, decoding) at every chunking, retries on a test clock, headers,
//! cancellation, text tool-call dialects and the factory.

use std::rc::Rc;

use futures::StreamExt;
use serde_json::json;
use vault_agent::cancel::CancelToken;
use vault_agent::protocol::{
    ContentBlock, ErrorKind, Message, MessageAssembler, ModelRequest, Role, StopReason, StreamEvent, SystemPart,
    ToolSpec, Usage,
};
use vault_agent::provider::formats::anthropic::AnthropicDecoder;
use vault_agent::provider::formats::openai::OpenAiDecoder;
use vault_agent::provider::formats::responses::ResponsesDecoder;
use vault_agent::provider::formats::{decode_recorded, StreamDecoder};
use vault_agent::provider::{
    build, complete, LocalServer, MediaSupport, ModelPrice, OpenAiApi, ProviderConfig, ProviderKind, ProviderPreset,
    RetryPolicy, TextToolDialect,
};

use crate::provider_support::*;

fn request() -> ModelRequest {
    ModelRequest {
        system: vec![SystemPart { text: "You are a test.".into(), cache_breakpoint: true }],
        messages: vec![Message::user("Hi")],
        tools: vec![ToolSpec {
            name: "search_notes".into(),
            description: "Searches.".into(),
            input_schema: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
        }],
        max_tokens: 1024,
        thinking_budget: None,
        temperature: None,
        tool_choice: Default::default(),
        model: None,
    }
}

fn assemble(events: &[StreamEvent]) -> MessageAssembler {
    let mut assembler = MessageAssembler::new();
    events.iter().for_each(|e| assembler.push(e));
    assembler
}

/// [`request`] followed by `assistant` and a result ("none") for each of its tool calls: the
/// next request of a task.
fn answered(assistant: Message) -> ModelRequest {
    let results = assistant
        .tool_uses()
        .map(|(id, _, _)| ContentBlock::ToolResult {
            tool_use_id: id.to_string(),
            content: "none".into(),
            is_error: false,
        })
        .collect();
    let mut next = request();
    next.messages.push(assistant);
    next.messages.push(Message { role: Role::User, content: results });
    next
}

const FIXTURES: &[&str] =
    &["text", "parallel_tools", "tool_split", "thinking", "error_midstream", "malformed", "truncated"];

/// A few fixed chunk sizes and pseudo-random cut points.
fn chunkings(len: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> =
        [1, 2, 3, 7, 64, len].iter().map(|&size| (size..len).step_by(size).collect()).collect();
    let mut seed = 0x2545_F491_u64;
    for _ in 0..5 {
        let mut cuts = Vec::new();
        let mut at = 0;
        loop {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            at += 1 + (seed >> 33) as usize % 40;
            if at >= len {
                break;
            }
            cuts.push(at);
        }
        out.push(cuts);
    }
    out
}

fn check_every_chunking(config: fn() -> ProviderConfig, dir: &str, decoder: fn() -> Box<dyn StreamDecoder>) {
    check_each_chunking(config, dir, FIXTURES, decoder);
}

fn check_each_chunking(
    config: fn() -> ProviderConfig,
    dir: &str,
    fixtures: &[&str],
    decoder: fn() -> Box<dyn StreamDecoder>,
) {
    for name in fixtures {
        let body = fixture(&format!("{dir}/{name}.sse"));
        let expected = decode_recorded(decoder().as_mut(), &body);
        assert!(!expected.is_empty(), "{dir}/{name}");
        for cuts in chunkings(body.len()) {
            let http = FakeHttp::new(vec![Reply::Sse { body: body.clone(), cuts: cuts.clone() }]);
            let (provider, _) = make(config(), &http);
            let events = collect(provider.as_ref(), &request());
            assert_eq!(events, expected, "{dir}/{name} cut at {cuts:?}");
        }
    }
}

#[test]
fn anthropic_recorded_streams_decode_the_same_at_every_chunking() {
    check_every_chunking(anthropic, "anthropic", || Box::new(AnthropicDecoder::new()));
}

#[test]
fn openai_recorded_streams_decode_the_same_at_every_chunking() {
    check_every_chunking(openai, "openai", || Box::new(OpenAiDecoder::new()));
}

#[test]
fn responses_api_recorded_streams_decode_the_same_at_every_chunking() {
    // (`failed`, a rate limit before any output, is retried: the unit tests read it.)
    let fixtures = ["text", "tool_calls", "incomplete", "error_midstream", "truncated"];
    check_each_chunking(responses, "responses", &fixtures, || Box::new(ResponsesDecoder::for_model("gpt-test")));
}

/// OpenAI's own API is spoken to through its Responses API unless the settings say otherwise;
/// every other server through Chat Completions unless they say it speaks Responses.
#[test]
fn openais_own_api_gets_the_responses_api_and_other_servers_chat_completions() {
    let official = || ProviderConfig { retry: openai().retry, ..ProviderConfig::openai("gpt-5", "sk-test") };
    for (config, url) in [
        (official(), "https://api.openai.com/v1/responses"),
        (
            ProviderConfig { api: Some(OpenAiApi::ChatCompletions), ..official() },
            "https://api.openai.com/v1/chat/completions",
        ),
        (openai(), "http://mock.test/v1/chat/completions"),
        (responses(), "http://mock.test/v1/responses"),
    ] {
        let text = if url.ends_with("responses") { "responses/text.sse" } else { "openai/text.sse" };
        let http = FakeHttp::new(vec![Reply::sse(&fixture(text))]);
        let (provider, _) = make(config, &http);
        let events = collect(provider.as_ref(), &request());
        assert_eq!(
            assemble(&events).finish().text(),
            "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included."
        );
        assert_eq!(http.requests()[0].url, url);
    }
}

/// A model that answers only through the Responses API (o3-pro, the Codex models), asked through
/// Chat Completions of a server the settings left to the automatic choice (a gateway in front of
/// OpenAI): asked again there at once, from then on, and the chat is told once. A server whose
/// API the settings chose keeps it.
#[test]
fn a_model_that_answers_only_through_the_responses_api_is_asked_there() {
    let refusal = json!({"error": {"message": "This model is only supported in v1/responses and not in v1/chat/completions.",
        "type": "invalid_request_error", "param": "model", "code": null}});
    let text = || Reply::sse(&fixture("responses/text.sse"));
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), text(), text()]);
    let (provider, _) = make(ProviderConfig { model: "o3-pro".into(), ..openai() }, &http);
    let first = collect(provider.as_ref(), &request());
    assert!(
        matches!(&first[0], StreamEvent::Notice { message } if message.starts_with("o3-pro answers only through OpenAI's Responses API: it is asked there from now on")),
        "{first:?}"
    );
    assert_eq!(
        assemble(&first).finish().text(),
        "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included."
    );
    let later = collect(provider.as_ref(), &request());
    assert!(!later.iter().any(|e| matches!(e, StreamEvent::Notice { .. })), "said once");
    let urls: Vec<String> = http.requests().iter().map(|r| r.url.clone()).collect();
    assert_eq!(
        urls,
        ["http://mock.test/v1/chat/completions", "http://mock.test/v1/responses", "http://mock.test/v1/responses"]
    );

    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string())]);
    let chosen = ProviderConfig { model: "o3-pro".into(), api: Some(OpenAiApi::ChatCompletions), ..openai() };
    let (provider, _) = make(chosen, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(
        matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::BadRequest),
        "{events:?}"
    );
    assert_eq!(http.requests().len(), 1);
}

/// A reasoning model's turn of tool calls, then the next request: its reasoning goes back
/// (encrypted, as it came) before the calls it made, and each call's result after them.
#[test]
fn the_responses_api_gets_a_turns_reasoning_back_with_its_calls() {
    let http = FakeHttp::new(vec![
        Reply::sse(&fixture("responses/tool_calls.sse")),
        Reply::sse(&fixture("responses/text.sse")),
    ]);
    let (provider, _) = make(ProviderConfig { model: "gpt-5-mini".into(), ..responses() }, &http);
    let message = assemble(&collect(provider.as_ref(), &request())).finish();
    assert!(
        matches!(&message.content[0], ContentBlock::Thinking { thinking, .. } if thinking.ends_with("Then read them."))
    );
    collect(provider.as_ref(), &answered(message));
    let body = FakeHttp::body_json(&http.requests()[1]);
    let kinds: Vec<&str> =
        body["input"].as_array().unwrap().iter().map(|i| i["type"].as_str().or(i["role"].as_str()).unwrap()).collect();
    assert_eq!(
        kinds,
        ["user", "reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]
    );
    assert_eq!(body["input"][1]["encrypted_content"], "gAAAAB-opaque-1");
    assert_eq!(
        body["input"][2],
        json!({"type": "function_call", "call_id": "call_abc", "name": "search_notes", "arguments": "{\"query\":\"cats\"}"})
    );
    assert_eq!(body["input"][4], json!({"type": "function_call_output", "call_id": "call_abc", "output": "none"}));
    assert_eq!((body["reasoning"]["summary"].as_str(), body["store"].as_bool()), (Some("auto"), Some(false)));
}

/// Reasoning the Responses API cannot verify ("The encrypted content … could not be verified")
/// would fail every later request of the chat, which carries it: the request goes again at once
/// without the reasoning items, and the answer comes.
#[test]
fn reasoning_the_api_cannot_verify_is_left_out_and_the_request_answered() {
    let refusal = json!({"error": {"message": "The encrypted content gAAA...Rg== could not be verified.",
        "type": "invalid_request_error", "param": null, "code": "invalid_encrypted_content"}});
    let http = FakeHttp::new(vec![
        Reply::sse(&fixture("responses/tool_calls.sse")),
        Reply::status(400, &refusal.to_string()),
        Reply::sse(&fixture("responses/text.sse")),
    ]);
    let (provider, _) = make(responses(), &http);
    let message = assemble(&collect(provider.as_ref(), &request())).finish();
    let events = collect(provider.as_ref(), &answered(message));
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    let kinds = |n: usize| -> Vec<String> {
        let body = FakeHttp::body_json(&http.requests()[n]);
        body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["type"].as_str().or(i["role"].as_str()).unwrap().to_string())
            .collect()
    };
    assert!(kinds(1).contains(&"reasoning".to_string()));
    assert_eq!(kinds(2), ["user", "function_call", "function_call", "function_call_output", "function_call_output"]);
}

/// A model that takes no reasoning fields (an older or a custom model behind a name that says it
/// reasons) is asked again at once without them, and from then on.
#[test]
fn a_model_that_refuses_reasoning_fields_is_asked_again_without_them() {
    let refusal = json!({"error": {"message": "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "type": "invalid_request_error", "param": "reasoning.effort", "code": "unsupported_parameter"}});
    let text = || Reply::sse(&fixture("responses/text.sse"));
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), text(), text()]);
    let (provider, _) = make(ProviderConfig { model: "o1-mini".into(), ..responses() }, &http);
    let mut asked = request();
    asked.thinking_budget = Some(2048);
    for _ in 0..2 {
        let events = collect(provider.as_ref(), &asked);
        assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    }
    let sent: Vec<(bool, bool)> = http
        .requests()
        .iter()
        .map(FakeHttp::body_json)
        .map(|body| (body.get("reasoning").is_some(), body.get("include").is_some()))
        .collect();
    assert_eq!(sent, [(true, true), (false, false), (false, false)]);
}

/// OpenAI gives summaries of a model's reasoning only to organizations that verified their
/// identity: an account that has not is asked again without them (the model still reasons, and
/// its reasoning still goes back), and the chat says once why its thinking is hidden.
#[test]
fn an_unverified_organization_gets_answers_without_reasoning_summaries() {
    let refusal = json!({"error": {"message": "Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.",
        "type": "invalid_request_error", "param": "reasoning.summary", "code": "unsupported_value"}});
    let text = || Reply::sse(&fixture("responses/text.sse"));
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), text(), text()]);
    let (provider, _) = make(ProviderConfig { model: "gpt-5".into(), ..responses() }, &http);
    let mut asked = request();
    asked.thinking_budget = Some(2048);
    let first = collect(provider.as_ref(), &asked);
    assert!(
        matches!(&first[0], StreamEvent::Notice { message } if message.starts_with("The model's thinking stays hidden: OpenAI shows summaries of it only to organizations that verified their identity (“Your organization must be verified")),
        "{first:?}"
    );
    let later = collect(provider.as_ref(), &asked);
    assert!(!later.iter().any(|e| matches!(e, StreamEvent::Notice { .. })), "said once");
    let sent: Vec<serde_json::Value> = http.requests().iter().map(FakeHttp::body_json).collect();
    assert_eq!(sent[0]["reasoning"], json!({"summary": "auto", "effort": "low"}));
    for body in &sent[1..] {
        assert_eq!(body["reasoning"], json!({"effort": "low"}));
        assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    }
}

/// The Responses API to an account that may not stream the model: the whole `response` object
/// is read as its stream would have been.
#[test]
fn the_responses_api_gives_whole_answers_to_an_account_that_may_not_stream() {
    let refusal = json!({"error": {"message": "Your organization must be verified to stream this model.",
        "type": "invalid_request_error", "param": "stream", "code": "unsupported_value"}});
    let whole = json!({"id": "resp_1", "object": "response", "status": "completed", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look first."}], "encrypted_content": "enc"},
        {"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "search_notes", "arguments": "{\"query\":\"cats\"}"}],
        "usage": {"input_tokens": 120, "input_tokens_details": {"cached_tokens": 100}, "output_tokens": 30}});
    let answer = Reply::status_with(200, &[("content-type", "application/json")], &whole.to_string());
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), answer]);
    let (provider, _) = make(ProviderConfig { model: "gpt-5".into(), ..responses() }, &http);
    let a = assemble(&collect(provider.as_ref(), &request()));
    assert_eq!(a.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!(a.usage(), Usage { input_tokens: 20, output_tokens: 30, cache_read_tokens: 100, cache_write_tokens: 0 });
    let message = a.finish();
    assert_eq!(message.text(), "Let me look.");
    assert_eq!(
        message.tool_uses().map(|(id, _, input)| (id.to_string(), input.clone())).collect::<Vec<_>>(),
        [("call_a".to_string(), json!({"query": "cats"}))]
    );
    assert_eq!(FakeHttp::body_json(&http.requests()[1])["stream"], json!(false));
}

fn events_for(config: ProviderConfig, body: &str) -> Vec<StreamEvent> {
    let http = FakeHttp::new(vec![Reply::sse_chunked(body, 5)]);
    let (provider, _) = make(config, &http);
    collect(provider.as_ref(), &request())
}

fn both(name: &str) -> [(&'static str, Vec<StreamEvent>); 2] {
    [
        ("anthropic", events_for(anthropic(), &fixture(&format!("anthropic/{name}.sse")))),
        ("openai", events_for(openai(), &fixture(&format!("openai/{name}.sse")))),
    ]
}

#[test]
fn text_only() {
    for (who, events) in both("text") {
        let deltas = events.iter().filter(|e| matches!(e, StreamEvent::TextDelta { .. })).count();
        assert_eq!(deltas, 4, "{who}: one event per delta");
        let a = assemble(&events);
        assert_eq!(a.stop_reason(), Some(&StopReason::EndTurn), "{who}");
        assert!(a.error().is_none());
        let message = a.finish();
        assert_eq!(message.text(), "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included.");
        assert_eq!(message.content.len(), 1, "{who}");
        assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{who}: Done comes last");
    }
}

#[test]
fn usage_with_cache_reads_and_writes() {
    let [(_, anthropic), (_, openai)] = both("text");
    assert_eq!(
        assemble(&anthropic).usage(),
        Usage { input_tokens: 12, output_tokens: 21, cache_read_tokens: 2048, cache_write_tokens: 310 }
    );
    assert_eq!(
        assemble(&openai).usage(),
        Usage { input_tokens: 12, output_tokens: 21, cache_read_tokens: 2048, cache_write_tokens: 0 },
        "OpenAI's prompt_tokens include the cached ones"
    );
}

#[test]
fn parallel_tool_calls() {
    for (who, events) in both("parallel_tools") {
        let a = assemble(&events);
        assert_eq!(a.stop_reason(), Some(&StopReason::ToolUse), "{who}");
        let message = a.finish();
        assert_eq!(message.text(), "I'll search and list the folder.");
        let calls: Vec<_> = message.tool_uses().map(|(_, name, input)| (name.to_string(), input.clone())).collect();
        assert_eq!(
            calls,
            vec![
                ("search_notes".to_string(), json!({"query": "cats", "limit": 5})),
                ("list_folder".to_string(), json!({"path": "Pets"})),
            ],
            "{who}"
        );
        let ids: Vec<_> = message.tool_uses().map(|(id, _, _)| id.to_string()).collect();
        assert!(ids[0] != ids[1] && ids.iter().all(|id| !id.is_empty()), "{who}: {ids:?}");
        let ends = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallEnd { .. })).count();
        assert_eq!(ends, 2, "{who}");
    }
}

#[test]
fn a_tool_call_split_across_many_chunks() {
    let args: serde_json::Value = serde_json::from_str(&fixture("anthropic/tool_split.args.json")).unwrap();
    for (who, events) in both("tool_split") {
        let deltas = events.iter().filter(|e| matches!(e, StreamEvent::ToolCallDelta { .. })).count();
        assert!(deltas > 30, "{who}: {deltas} argument pieces");
        let message = assemble(&events).finish();
        let (_, name, input) = message.tool_uses().next().unwrap();
        assert_eq!((name, input), ("write_note", &args), "{who}");
    }
}

#[test]
fn thinking_then_text() {
    let [(_, anthropic), (_, openai)] = both("thinking");
    let message = assemble(&anthropic).finish();
    assert_eq!(
        message.content,
        vec![
            ContentBlock::Thinking {
                thinking: "The user wants a summary. Let me be brief.".into(),
                signature: Some("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds".into()),
            },
            ContentBlock::RedactedThinking {
                data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP".into()
            },
            ContentBlock::text("Here is the summary."),
        ]
    );
    let message = assemble(&openai).finish();
    assert_eq!(
        message.content,
        vec![
            ContentBlock::Thinking { thinking: "The user wants a summary. Let me be brief.".into(), signature: None },
            ContentBlock::text("Here is the summary."),
        ]
    );
}

#[test]
fn an_error_event_mid_stream_ends_it_after_the_text_so_far() {
    for (who, events) in both("error_midstream") {
        let a = assemble(&events);
        let error = a.error().cloned().unwrap_or_else(|| panic!("{who}: {events:?}"));
        assert_eq!(error.kind, ErrorKind::Overloaded, "{who}");
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Retry { .. })), "{who}: output was shown: no retry");
        assert!(matches!(events.last(), Some(StreamEvent::Error { .. })), "{who}");
        assert_eq!(a.finish().text(), "Partial answer", "{who}");
    }
    let [(_, anthropic), (_, openai)] = both("error_midstream");
    assert!(matches!(anthropic.last(), Some(StreamEvent::Error { error }) if error.message == "Overloaded"));
    assert!(
        matches!(openai.last(), Some(StreamEvent::Error { error }) if error.message == "Upstream provider disconnected")
    );
}

#[test]
fn malformed_lines_are_skipped() {
    for (who, events) in both("malformed") {
        let a = assemble(&events);
        assert!(a.error().is_none(), "{who}: {events:?}");
        assert_eq!(a.stop_reason(), Some(&StopReason::EndTurn), "{who}");
        assert_eq!(a.usage().output_tokens, 9, "{who}");
        let text = a.finish().text();
        assert!(text == "multi-line data still arrives.", "{who}: {text:?}");
    }
}

#[test]
fn a_stream_cut_short_is_a_network_error() {
    for (who, events) in both("truncated") {
        let a = assemble(&events);
        assert_eq!(a.error().map(|e| e.kind), Some(ErrorKind::Network), "{who}");
        assert_eq!(a.finish().text(), "Cut o");
    }
}

#[test]
fn complete_collects_the_stream() {
    let http = FakeHttp::new(vec![Reply::sse(&fixture("anthropic/parallel_tools.sse"))]);
    let (provider, _) = make(anthropic(), &http);
    let done = futures::executor::block_on(complete(provider.as_ref(), &request(), &CancelToken::new())).unwrap();
    assert_eq!(done.stop_reason, StopReason::ToolUse);
    assert_eq!(done.message.tool_uses().count(), 2);
    assert_eq!(done.usage.input_tokens, 472);

    let http = FakeHttp::new(vec![Reply::sse(&fixture("openai/error_midstream.sse"))]);
    let (provider, _) = make(openai(), &http);
    let err = futures::executor::block_on(complete(provider.as_ref(), &request(), &CancelToken::new())).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Overloaded);
}

// ---- requests and headers ----

#[test]
fn anthropic_sends_its_headers_and_the_browser_opt_in() {
    let http = FakeHttp::new(vec![Reply::sse(&fixture("anthropic/text.sse"))]);
    let mut config = anthropic();
    config.headers.insert("x-extra".into(), "1".into());
    let (provider, _) = make(config, &http);
    collect(provider.as_ref(), &request());
    let sent = &http.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.url, "http://mock.test/v1/messages");
    let header = |name: &str| sent.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    assert_eq!(header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(header("anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("x-extra"), Some("1"));
    assert_eq!(header("authorization"), None);
    let body = FakeHttp::body_json(sent);
    assert_eq!(body["model"], "claude-test");
    assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(body["tools"][0]["name"], "search_notes");
}

#[test]
fn openai_compatible_sends_a_minimal_header_set() {
    let http = FakeHttp::new(vec![Reply::sse(&fixture("openai/text.sse")), Reply::sse(&fixture("openai/text.sse"))]);
    let (provider, _) = make(openai(), &http);
    collect(provider.as_ref(), &request());
    let sent = &http.requests()[0];
    assert_eq!(sent.url, "http://mock.test/v1/chat/completions");
    let mut names: Vec<_> = sent.headers.iter().map(|(k, _)| k.as_str()).collect();
    names.sort();
    assert_eq!(names, vec!["accept", "authorization", "content-type"]);
    assert!(sent.headers.contains(&("authorization".into(), "Bearer sk-test".into())));
    let body = FakeHttp::body_json(sent);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 1024);

    // A local server without a key: no authorization header at all.
    let (provider, _) = make(ProviderConfig { api_key: None, ..openai() }, &http);
    collect(provider.as_ref(), &request());
    assert!(http.requests()[1].headers.iter().all(|(k, _)| k != "authorization"));
}

/// An address pasted with the endpoint on it (as servers' docs show one) is read as the base its
/// requests go under.
#[test]
fn a_pasted_endpoint_is_read_as_its_base() {
    for (config, pasted, sent) in [
        (anthropic(), "http://mock.test/v1/messages", "http://mock.test/v1/messages"),
        (anthropic(), "http://mock.test/v1/", "http://mock.test/v1/messages"),
        (openai(), "http://mock.test/v1/chat/completions/", "http://mock.test/v1/chat/completions"),
    ] {
        let fixture_name =
            if config.kind == ProviderKind::Anthropic { "anthropic/text.sse" } else { "openai/text.sse" };
        let http = FakeHttp::new(vec![Reply::sse(&fixture(fixture_name))]);
        let (provider, _) = make(config.with_base_url(pasted), &http);
        collect(provider.as_ref(), &request());
        assert_eq!(http.requests()[0].url, sent, "{pasted}");
    }
}

#[test]
fn a_request_may_name_another_model_than_the_providers() {
    for (config, fixture_name) in [(anthropic(), "anthropic/text.sse"), (openai(), "openai/text.sse")] {
        let http = FakeHttp::new(vec![Reply::sse(&fixture(fixture_name)), Reply::sse(&fixture(fixture_name))]);
        let default_model = config.model.clone();
        let (provider, _) = make(config, &http);
        collect(provider.as_ref(), &request());
        let mut other = request();
        other.model = Some("mode-specific-model".into());
        collect(provider.as_ref(), &other);
        assert_eq!(FakeHttp::body_json(&http.requests()[0])["model"], default_model.as_str());
        assert_eq!(FakeHttp::body_json(&http.requests()[1])["model"], "mode-specific-model");
    }
}

/// Gemini through its OpenAI-compatible endpoint (the settings' Google Gemini): calls without
/// an `index`, the first with a thought signature, ended by "stop"; the next request sends the
/// signature back on that call, as Gemini 3 requires.
#[test]
fn gemini_tool_calls_come_back_with_their_thought_signature() {
    let http =
        FakeHttp::new(vec![Reply::sse(&fixture("gemini/tool_calls.sse")), Reply::sse(&fixture("openai/text.sse"))]);
    let (provider, _) = make(ProviderPreset::Gemini.config("gemini-3-flash-preview").with_api_key("AIza-test"), &http);
    let answer = assemble(&collect(provider.as_ref(), &request()));
    assert_eq!(answer.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!(answer.usage(), Usage { input_tokens: 131, output_tokens: 38, ..Default::default() });
    let answer = answer.finish();
    assert_eq!(answer.tool_uses().count(), 2, "two calls, though neither has an index");
    let next = answered(answer);
    collect(provider.as_ref(), &next);
    let sent = &http.requests()[1];
    assert_eq!(sent.url, "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions");
    assert!(sent.headers.contains(&("authorization".into(), "Bearer AIza-test".into())));
    let body = FakeHttp::body_json(sent);
    let calls = body["messages"][2]["tool_calls"].as_array().unwrap().clone();
    assert_eq!(calls[0]["extra_content"], json!({"google": {"thought_signature": "CpwCAdHtim9TqZ3Vb0r8Yx7c2Q=="}}));
    assert!(calls[1].get("extra_content").is_none());
    assert_eq!(body["messages"][3]["tool_call_id"], "function-call-8841627512359826401");
    assert_eq!(body["messages"][3]["name"], "search_notes", "Gemini wants each result to name its tool");
}

/// Gemini through OpenRouter: its thought signature comes in `reasoning_details` (streamed in
/// pieces), which go back, joined, with the assistant message: OpenRouter refuses Gemini's tool
/// calls without them.
#[test]
fn openrouter_reasoning_details_come_back_with_their_message() {
    let http = FakeHttp::new(vec![
        Reply::sse(&fixture("openrouter/gemini_tool_call.sse")),
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let (provider, _) = make(ProviderConfig::openrouter("google/gemini-3-pro-preview", "sk-or-test"), &http);
    let answer = assemble(&collect(provider.as_ref(), &request()));
    assert_eq!(answer.stop_reason(), Some(&StopReason::ToolUse));
    let next = answered(answer.finish());
    collect(provider.as_ref(), &next);
    let body = FakeHttp::body_json(&http.requests()[1]);
    let assistant = &body["messages"][2];
    assert_eq!(assistant["tool_calls"][0]["id"], "tool_search_notes_k2Jv8Qw");
    assert_eq!(
        assistant["reasoning_details"],
        json!([
            {"type": "reasoning.text", "text": "The user asks about cats. I should search the notes.",
             "format": "google-gemini-v1", "index": 0},
            {"type": "reasoning.encrypted", "data": "CiQBjz1rX0sVbq", "id": "tool_search_notes_k2Jv8Qw",
             "format": "google-gemini-v1", "index": 1}
        ])
    );
    // Another server never gets them.
    let http = FakeHttp::new(vec![Reply::sse(&fixture("openai/text.sse"))]);
    let (provider, _) = make(openai(), &http);
    collect(provider.as_ref(), &next);
    assert!(FakeHttp::body_json(&http.requests()[0])["messages"][2].get("reasoning_details").is_none());
}

/// Mistral (the settings' Mistral AI): Magistral streams its thinking and its answer as lists
/// of chunks, and its calls with ids of nine letters and digits. The next request has no
/// `stream_options` (Mistral answers HTTP 422 to it), sends Mistral's ids back as they came,
/// gives a call the agent planned itself (`plan_0`) an id Mistral takes, the same in its
/// result, and no `reasoning_content` even where the settings ask for it (another 422).
#[test]
fn mistral_gets_a_request_it_accepts() {
    let http = FakeHttp::new(vec![
        Reply::sse(&fixture("mistral/magistral_tool_calls.sse")),
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let mut config = ProviderPreset::Mistral.config("magistral-medium-latest").with_api_key("mistral-test");
    config.echo_reasoning = true;
    let (provider, _) = make(config, &http);
    let answer = assemble(&collect(provider.as_ref(), &request()));
    assert_eq!(answer.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!(answer.usage(), Usage { input_tokens: 212, output_tokens: 48, ..Default::default() });
    let answer = answer.finish();
    assert_eq!(
        answer.content[..2],
        [
            ContentBlock::Thinking {
                thinking: "The user asks about cats and dogs. I should search the notes for each.".into(),
                signature: None
            },
            ContentBlock::text("I'll search your notes."),
        ]
    );
    let ids: Vec<&str> = answer.tool_uses().map(|(id, _, _)| id).collect();
    assert_eq!(ids, ["D681PevKs", "Qw3Rt5Yu7"]);
    let mut next = answered(answer);
    let planned =
        Message { role: Role::Assistant, content: vec![ContentBlock::tool_use("plan_0", "read_file", json!({}))] };
    next.messages.extend(answered(planned).messages.split_off(request().messages.len()));
    collect(provider.as_ref(), &next);
    let sent = &http.requests()[1];
    assert_eq!(sent.url, "https://api.mistral.ai/v1/chat/completions");
    assert!(sent.headers.contains(&("authorization".into(), "Bearer mistral-test".into())));
    let body = FakeHttp::body_json(sent);
    assert!(body.get("stream_options").is_none());
    assert!(!body.to_string().contains("reasoning_content"));
    // Mistral's own calls and their results as they came; the planned call and its result by
    // one id Mistral takes.
    let id = |pointer: &str| body.pointer(pointer).and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
    let turn = body["messages"].as_array().unwrap().len() - 2;
    assert_eq!([id("/messages/2/tool_calls/0/id"), id("/messages/3/tool_call_id")], ["D681PevKs", "D681PevKs"]);
    assert_eq!([id("/messages/2/tool_calls/1/id"), id("/messages/4/tool_call_id")], ["Qw3Rt5Yu7", "Qw3Rt5Yu7"]);
    let planned = id(&format!("/messages/{turn}/tool_calls/0/id"));
    assert_eq!(id(&format!("/messages/{}/tool_call_id", turn + 1)), planned);
    assert!(planned.len() == 9 && planned.chars().all(|c| c.is_ascii_alphanumeric()), "{planned}");
}

/// Azure OpenAI from the address its portal shows: the v1 API's base, the key in `api-key`
/// (not a bearer token, which Azure reads as Microsoft Entra ID's), the output limit as
/// `max_completion_tokens` (its reasoning deployments refuse `max_tokens`); a model that names
/// no deployment is said to be one; its models list is not asked for.
#[test]
fn azure_gets_its_key_header_and_deployments_by_name() {
    use vault_agent::protocol::ProviderSetting;
    use vault_agent::provider::list_models;
    let not_deployed = json!({"error": {"code": "DeploymentNotFound", "message": "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}});
    let http =
        FakeHttp::new(vec![Reply::sse(&fixture("openai/text.sse")), Reply::status(404, &not_deployed.to_string())]);
    let mut config = ProviderPreset::Azure.config("my-gpt-5").with_api_key("azure-key");
    config.base_url = Some(
        "https://my-res.openai.azure.com/openai/deployments/my-gpt-5/chat/completions?api-version=2025-01-01-preview"
            .into(),
    );
    let (provider, _) = make(config.clone(), &http);
    let answer = assemble(&collect(provider.as_ref(), &request())).finish();
    assert!(!answer.content.is_empty());
    let sent = &http.requests()[0];
    assert_eq!(sent.url, "https://my-res.openai.azure.com/openai/v1/chat/completions");
    assert!(sent.headers.contains(&("api-key".into(), "azure-key".into())));
    assert!(sent.headers.iter().all(|(name, _)| name != "authorization"));
    let body = FakeHttp::body_json(sent);
    assert_eq!((body["model"].as_str(), body["max_completion_tokens"].as_u64()), (Some("my-gpt-5"), Some(1024)));
    assert!(body.get("max_tokens").is_none());

    let events = collect(provider.as_ref(), &request());
    let Some(StreamEvent::Error { error }) = events.last() else { panic!("{events:?}") };
    assert_eq!((error.kind, error.setting()), (ErrorKind::BadRequest, Some(ProviderSetting::Model)));
    assert!(error.explain().starts_with("Azure has no deployment by the model's name"), "{}", error.explain());
    assert_eq!(http.requests().len(), 2);

    let list = futures::executor::block_on(list_models(&config, &*http, &CancelToken::new())).unwrap();
    let problem = list.problem.expect("Azure's list is not of deployments");
    assert!(list.models.is_empty() && problem.message.contains("not your deployments"), "{problem:?}");
    assert_eq!(problem.setting, Some(ProviderSetting::Model));
    assert_eq!(http.requests().len(), 2);
}

/// A compatible server that refuses fields by name — `stream_options` (Groq once did, older
/// Azure API versions), a temperature (OpenAI's reasoning models), `max_tokens` (the same
/// models behind a proxy) — gets the same request again at once without each, the answer
/// arrives as if nothing happened, and its later requests are sent as it takes them.
#[test]
fn a_server_that_refuses_fields_is_asked_again_without_them() {
    let refusal = |message: &str| {
        Reply::status(400, &json!({"error": {"message": message, "type": "invalid_request_error"}}).to_string())
    };
    let http = FakeHttp::new(vec![
        refusal("property 'stream_options' is unsupported, did you mean 'stream'?"),
        refusal("Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported."),
        refusal("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
        Reply::sse(&fixture("openai/text.sse")),
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let config = ProviderConfig { base_url: Some("https://llm-proxy.example/v1".into()), ..openai() };
    let (provider, clock) = make(config, &http);
    let mut asked = request();
    asked.temperature = Some(0.2);
    let events = collect(provider.as_ref(), &asked);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Error { .. } | StreamEvent::Retry { .. })));
    assert!(clock.sleeps().is_empty());
    collect(provider.as_ref(), &asked);
    let fields: Vec<Vec<&str>> = http
        .requests()
        .iter()
        .map(|r| {
            let body = FakeHttp::body_json(r);
            ["stream_options", "temperature", "max_tokens", "max_completion_tokens"]
                .into_iter()
                .filter(|field| body.get(*field).is_some())
                .collect()
        })
        .collect();
    assert_eq!(
        fields,
        [
            vec!["stream_options", "temperature", "max_tokens"],
            vec!["temperature", "max_tokens"],
            vec!["max_tokens"],
            vec!["max_completion_tokens"],
            vec!["max_completion_tokens"],
        ]
    );
    // Any other refusal is the caller's, as before.
    let http = FakeHttp::new(vec![Reply::status(400, r#"{"error":{"message":"unknown model"}}"#)]);
    let (provider, _) = make(openai(), &http);
    let events = collect(provider.as_ref(), &request());
    assert!(matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::BadRequest));
    assert_eq!(http.requests().len(), 1);
}

/// A thinking budget reaches OpenAI's API as an effort; a model that does not think (the
/// preset's `gpt-4.1`) refuses the field, and the request goes again at once without it.
#[test]
fn a_model_that_does_not_think_is_asked_again_without_an_effort() {
    let refusal = json!({"error": {"message": "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        "type": "invalid_request_error", "param": "reasoning_effort", "code": "unsupported_parameter"}});
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), Reply::sse(&fixture("openai/text.sse"))]);
    let mut config = ProviderConfig::openai("gpt-4.1", "sk-test");
    config.retry = openai().retry;
    config.api = Some(OpenAiApi::ChatCompletions);
    let (provider, _) = make(config, &http);
    let mut asked = request();
    asked.thinking_budget = Some(24_000);
    let events = collect(provider.as_ref(), &asked);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    let efforts: Vec<Option<String>> = http
        .requests()
        .iter()
        .map(|r| FakeHttp::body_json(r).get("reasoning_effort").and_then(|e| e.as_str().map(str::to_string)))
        .collect();
    assert_eq!(efforts, [Some("high".to_string()), None]);
}

/// Claude 3 Haiku gives at most 4,096 output tokens, under the plugin's default limit: the API
/// refuses the request and says so, the request goes again at once with that limit, and the
/// provider's later requests ask for it.
#[test]
fn an_output_limit_above_the_models_is_lowered_to_what_the_api_says() {
    let refusal = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307"}});
    let http = FakeHttp::new(vec![
        Reply::status(400, &refusal.to_string()),
        Reply::sse(&fixture("anthropic/text.sse")),
        Reply::sse(&fixture("anthropic/text.sse")),
    ]);
    let (provider, _) = make(anthropic(), &http);
    let mut asked = request();
    asked.max_tokens = 8192;
    let events = collect(provider.as_ref(), &asked);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    collect(provider.as_ref(), &asked);
    let limits: Vec<u64> =
        http.requests().iter().map(|r| FakeHttp::body_json(r)["max_tokens"].as_u64().unwrap()).collect();
    assert_eq!(limits, [8192, 4096, 4096]);
}

/// A server that counts the output limit against the window (vLLM served with a small
/// `--max-model-len`) refuses a request whose prompt and limit together overflow it: the
/// request goes again at once with the room the prompt leaves, and the next request asks for
/// the full limit again (its prompt is another length). Anthropic's thinking budget follows.
#[test]
fn an_output_limit_that_overflows_the_window_beside_the_prompt_is_lowered_for_that_request() {
    let refusal = json!({"object": "error", "type": "BadRequestError", "param": null, "code": 400,
        "message": "This model's maximum context length is 16384 tokens. However, you requested 8192 output tokens and your prompt contains at least 9000 input tokens, for a total of at least 17192 tokens."});
    let http = FakeHttp::new(vec![
        Reply::status(400, &refusal.to_string()),
        Reply::sse(&fixture("openai/text.sse")),
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let config = ProviderConfig { base_url: Some("http://127.0.0.1:8000/v1".into()), ..openai() };
    let (provider, clock) = make(config, &http);
    let mut asked = request();
    asked.max_tokens = 8192;
    let events = collect(provider.as_ref(), &asked);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Error { .. } | StreamEvent::Retry { .. })));
    assert!(clock.sleeps().is_empty());
    collect(provider.as_ref(), &asked);
    let limits: Vec<u64> =
        http.requests().iter().map(|r| FakeHttp::body_json(r)["max_tokens"].as_u64().unwrap()).collect();
    assert_eq!(limits, [8192, 16384 - 9000 - 32, 8192]);

    let refusal = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 190000 + 16000 > 200000, decrease input length or `max_tokens` and try again"}});
    let http =
        FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), Reply::sse(&fixture("anthropic/text.sse"))]);
    let (provider, _) = make(anthropic(), &http);
    let mut asked = request();
    asked.max_tokens = 16_000;
    asked.thinking_budget = Some(8000);
    let events = collect(provider.as_ref(), &asked);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    let sent: Vec<(u64, u64)> = http
        .requests()
        .iter()
        .map(|r| {
            let body = FakeHttp::body_json(r);
            (body["max_tokens"].as_u64().unwrap(), body["thinking"]["budget_tokens"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(sent[1], (200_000 - 190_000 - 32, 8000), "the budget was already below the room: {sent:?}");
}

/// OpenAI streams its newest models only to organizations that verified their identity; others
/// get "Your organization must be verified to stream this model". The request goes again at
/// once without streaming, the whole answer is read as one (text, two calls, usage), the user
/// is told once, and later requests are not streamed either.
#[test]
fn an_account_that_may_not_stream_the_model_gets_whole_answers() {
    let refusal = json!({"error": {"message": "Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.",
        "type": "invalid_request_error", "param": "stream", "code": "unsupported_value"}});
    let call = |id: &str, query: &str| json!({"id": id, "type": "function", "function": {"name": "search_notes", "arguments": json!({"query": query}).to_string()}});
    let whole = json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "Let me look.",
            "refusal": null, "tool_calls": [call("call_a", "cats"), call("call_b", "dogs")]}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150, "prompt_tokens_details": {"cached_tokens": 100}}});
    let answer = || Reply::status_with(200, &[("content-type", "application/json")], &whole.to_string());
    let http = FakeHttp::new(vec![Reply::status(400, &refusal.to_string()), answer(), answer()]);
    let mut config = ProviderConfig::openai("gpt-5", "sk-test");
    config.retry = openai().retry;
    config.api = Some(OpenAiApi::ChatCompletions);
    let (provider, clock) = make(config, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(clock.sleeps().is_empty());
    assert!(
        matches!(&events[0], StreamEvent::Notice { message } if message.contains("must be verified to stream")),
        "{events:?}"
    );
    let a = assemble(&events);
    assert_eq!(a.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!(a.usage(), Usage { input_tokens: 20, output_tokens: 30, cache_read_tokens: 100, cache_write_tokens: 0 });
    let message = a.finish();
    assert_eq!(message.text(), "Let me look.");
    let calls: Vec<_> = message.tool_uses().map(|(id, _, input)| (id.to_string(), input.clone())).collect();
    assert_eq!(
        calls,
        [("call_a".to_string(), json!({"query": "cats"})), ("call_b".to_string(), json!({"query": "dogs"}))]
    );
    let later = collect(provider.as_ref(), &request());
    assert!(!later.iter().any(|e| matches!(e, StreamEvent::Notice { .. })), "said once");
    let streamed: Vec<(bool, bool)> = http
        .requests()
        .iter()
        .map(|r| {
            let body = FakeHttp::body_json(r);
            (body["stream"] == json!(true), body.get("stream_options").is_some())
        })
        .collect();
    assert_eq!(streamed, [(true, true), (false, false), (false, false)]);
}

/// Groq refuses a tool call its model wrote badly (`tool_use_failed`, an `error` event before
/// any output): the model is asked to write it again, and the task goes on.
#[test]
fn a_tool_call_groq_refused_is_asked_for_again() {
    let refused = "event: error\ndata: {\"error\":{\"message\":\"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.\",\"type\":\"invalid_request_error\",\"code\":\"tool_use_failed\",\"failed_generation\":\"Tool use failed: JSON does not match the expected schema for tool calls\",\"status_code\":400}}\n\n";
    let http = FakeHttp::new(vec![Reply::sse(refused), Reply::sse(&fixture("openai/text.sse"))]);
    let config = ProviderConfig { base_url: Some("https://api.groq.com/openai/v1".into()), ..openai() };
    let (provider, clock) = make(config, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    assert!(clock.sleeps().is_empty());
    let again = FakeHttp::body_json(&http.requests()[1]);
    let last = again["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().starts_with("Your last tool call could not be read"), "{last}");
}

/// DeepSeek's thinking models refuse a tool call's follow-up without their reasoning: its API
/// gets it back as `reasoning_content` without a setting; another compatible server does not.
#[test]
fn deepseek_gets_its_reasoning_back_and_others_do_not() {
    let history = answered(Message {
        role: Role::Assistant,
        content: vec![
            ContentBlock::Thinking { thinking: "Search first.".into(), signature: None },
            ContentBlock::tool_use("call_0", "search_notes", json!({"query": "cats"})),
        ],
    });
    for (base, echoed) in [("https://api.deepseek.com/v1", true), ("https://api.example.com/v1", false)] {
        let http = FakeHttp::new(vec![Reply::sse(&fixture("openai/text.sse"))]);
        let config = ProviderConfig { base_url: Some(base.into()), model: "deepseek-reasoner".into(), ..openai() };
        let (provider, _) = make(config, &http);
        collect(provider.as_ref(), &history);
        let body = FakeHttp::body_json(&http.requests()[0]);
        assert_eq!(body["messages"][2]["reasoning_content"].as_str() == Some("Search first."), echoed, "{base}");
    }
}

// ---- retries, on a test clock ----

fn retries(events: &[StreamEvent]) -> Vec<(u32, u64, ErrorKind)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retry { attempt, delay_ms, error, .. } => Some((*attempt, *delay_ms, error.kind)),
            _ => None,
        })
        .collect()
}

#[test]
fn retries_429_500_and_529_with_backoff_then_succeeds() {
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string();
    let http = FakeHttp::new(vec![
        Reply::status(429, r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#),
        Reply::status(500, "Internal Server Error"),
        Reply::status(529, &overloaded),
        Reply::sse_chunked(&fixture("anthropic/text.sse"), 17),
    ]);
    let (provider, clock) = make(anthropic(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(
        retries(&events),
        vec![(1, 500, ErrorKind::RateLimited), (2, 1000, ErrorKind::Overloaded), (3, 2000, ErrorKind::Overloaded)]
    );
    assert_eq!(clock.sleeps(), vec![500, 1000, 2000], "slept on the test clock, not for real");
    assert_eq!(http.requests().len(), 4);
    let a = assemble(&events);
    assert_eq!(a.stop_reason(), Some(&StopReason::EndTurn));
    assert!(a.finish().text().starts_with("Hello!"));
}

#[test]
fn retry_after_is_honoured() {
    let http = FakeHttp::new(vec![
        Reply::status_with(429, &[("retry-after", "7")], "{}"),
        Reply::status_with(503, &[("retry-after-ms", "1250")], "{}"),
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let (provider, clock) = make(openai(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(clock.sleeps(), vec![7000, 1250]);
    assert_eq!(retries(&events), vec![(1, 7000, ErrorKind::RateLimited), (2, 1250, ErrorKind::Overloaded)]);
}

/// Gemini's free tier answers a per-minute limit with a 429 whose body says when to come back
/// (no header): the call waits that long, once, and goes on.
#[test]
fn gemini_s_retry_delay_in_the_body_is_honoured() {
    let body = json!([{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota. Please retry in 21.5s.",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "21.5s"}]}}]);
    let http = FakeHttp::new(vec![Reply::status(429, &body.to_string()), Reply::sse(&fixture("openai/text.sse"))]);
    let (provider, clock) = make(ProviderPreset::Gemini.config("gemini-flash-latest").with_api_key("AIza-test"), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(clock.sleeps(), vec![21_500]);
    assert_eq!(retries(&events), vec![(1, 21_500, ErrorKind::RateLimited)]);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })));
}

/// A day's quota on Gemini's free tier, or an OpenAI account without credit: the call is not
/// retried (six attempts would only delay the message), and the error says why.
#[test]
fn a_used_up_quota_is_said_at_once() {
    let day = json!([{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                {"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "quotaValue": "250"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "41s"}]}}]);
    let credit = json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota", "code": "insufficient_quota"}});
    for (config, body) in
        [(ProviderPreset::Gemini.config("gemini-flash-latest").with_api_key("AIza-test"), day), (openai(), credit)]
    {
        let http = FakeHttp::new(vec![Reply::status(429, &body.to_string()), Reply::sse(&fixture("openai/text.sse"))]);
        let (provider, clock) = make(config, &http);
        let events = collect(provider.as_ref(), &request());
        assert_eq!(http.requests().len(), 1, "{body}");
        assert!(clock.sleeps().is_empty());
        assert!(
            matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::QuotaExhausted),
            "{events:?}"
        );
    }
}

#[test]
fn a_dropped_connection_before_the_first_token_is_retried() {
    let body = fixture("anthropic/text.sse");
    let start_only = body.split("event: content_block_start").next().unwrap().to_string();
    let http = FakeHttp::new(vec![Reply::SseThenDrop { body: start_only }, Reply::Unreachable, Reply::sse(&body)]);
    let (provider, clock) = make(anthropic(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(retries(&events), vec![(1, 500, ErrorKind::Network), (2, 1000, ErrorKind::Network)]);
    assert_eq!(clock.sleeps(), vec![500, 1000]);
    let usage_events = events.iter().filter(|e| matches!(e, StreamEvent::Usage { .. })).count();
    assert_eq!(usage_events, 2, "the failed attempt's held-back events were dropped, not repeated");
    assert_eq!(
        assemble(&events).finish().text(),
        "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included."
    );
}

#[test]
fn a_drop_after_the_first_token_is_not_retried() {
    let body = fixture("openai/text.sse");
    let cut = body.find("cats are in").unwrap();
    let http = FakeHttp::new(vec![Reply::SseThenDrop { body: body[..cut].to_string() }, Reply::sse(&body)]);
    let (provider, clock) = make(openai(), &http);
    let events = collect(provider.as_ref(), &request());
    assert!(retries(&events).is_empty());
    assert!(clock.sleeps().is_empty());
    assert_eq!(http.requests().len(), 1);
    let a = assemble(&events);
    assert_eq!(a.error().map(|e| e.kind), Some(ErrorKind::Network));
    assert_eq!(a.finish().text(), "Hello! Your notes on ");
}

#[test]
fn a_429_inside_a_200_is_retried() {
    let http = FakeHttp::new(vec![
        // OpenRouter: an error chunk in the event stream, before any token.
        Reply::sse(&fixture("openai/error_before_output.sse")),
        // A JSON error body with status 200.
        Reply::Status {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: json!({"error": {"code": 429, "message": "Rate limit exceeded"}}).to_string(),
        },
        Reply::sse(&fixture("openai/text.sse")),
    ]);
    let (provider, clock) = make(openai(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(retries(&events), vec![(1, 500, ErrorKind::RateLimited), (2, 1000, ErrorKind::RateLimited)]);
    assert_eq!(clock.sleeps(), vec![500, 1000]);
    assert_eq!(assemble(&events).stop_reason(), Some(&StopReason::EndTurn));
}

#[test]
fn an_overloaded_error_event_before_output_is_retried() {
    let http = FakeHttp::new(vec![
        Reply::sse(&fixture("anthropic/error_before_output.sse")),
        Reply::sse(&fixture("anthropic/text.sse")),
    ]);
    let (provider, _) = make(anthropic(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(retries(&events), vec![(1, 500, ErrorKind::Overloaded)]);
    assert!(assemble(&events).error().is_none());
}

#[test]
fn six_attempts_then_the_error() {
    let http = FakeHttp::new((0..6).map(|_| Reply::status(529, "")).collect());
    let (provider, clock) = make(anthropic(), &http);
    let events = collect(provider.as_ref(), &request());
    assert_eq!(http.requests().len(), 6);
    assert_eq!(clock.sleeps(), vec![500, 1000, 2000, 4000, 8000]);
    match events.last() {
        Some(StreamEvent::Error { error }) => {
            assert_eq!((error.kind, error.status), (ErrorKind::Overloaded, Some(529)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn jitter_lengthens_waits_by_at_most_a_quarter() {
    let http = FakeHttp::new((0..6).map(|_| Reply::status(503, "")).collect());
    let config = ProviderConfig { retry: RetryPolicy::default(), ..anthropic() };
    let (provider, clock) = make(config, &http);
    collect(provider.as_ref(), &request());
    let sleeps = clock.sleeps();
    assert_eq!(sleeps.len(), 5);
    for (sleep, nominal) in sleeps.iter().zip([500u64, 1000, 2000, 4000, 8000]) {
        assert!((nominal..=nominal + nominal / 4).contains(sleep), "{sleeps:?}");
    }
}

#[test]
fn errors_that_retrying_cannot_fix_end_at_once() {
    let cases = [
        (
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            ErrorKind::Auth,
        ),
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            ErrorKind::ContextOverflow,
        ),
        (
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages: required"}}"#,
            ErrorKind::BadRequest,
        ),
    ];
    for (status, body, kind) in cases {
        let http = FakeHttp::new(vec![Reply::status(status, body)]);
        let (provider, clock) = make(anthropic(), &http);
        let events = collect(provider.as_ref(), &request());
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(matches!(&events[0], StreamEvent::Error { error } if error.kind == kind), "{events:?}");
        assert!(clock.sleeps().is_empty());
    }
    let http = FakeHttp::new(vec![Reply::status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
    )]);
    let (provider, _) = make(openai(), &http);
    let events = collect(provider.as_ref(), &request());
    assert!(matches!(&events[0], StreamEvent::Error { error } if error.kind == ErrorKind::ContextOverflow));
}

// ---- cancellation ----

#[test]
fn cancelling_ends_an_open_stream() {
    let body = fixture("anthropic/text.sse");
    let cut = body.find("event: content_block_stop").unwrap();
    let http = FakeHttp::new(vec![Reply::SseThenHang { body: body[..cut].to_string() }]);
    // A clock whose sleeps never end: the stream idle timeout must not end the hang first.
    let provider = build(&anthropic(), http.clone(), Rc::new(StuckClock)).unwrap();
    let cancel = CancelToken::new();
    let events = futures::executor::block_on(async {
        let mut stream = provider.stream(&request(), &cancel).await;
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            let is_text = matches!(event, StreamEvent::TextDelta { .. });
            events.push(event);
            if is_text {
                cancel.cancel();
            }
        }
        events
    });
    match events.last() {
        Some(StreamEvent::Error { error }) => assert_eq!(error.kind, ErrorKind::Cancelled),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancelling_during_a_backoff_wait_stops_at_once() {
    let http = FakeHttp::new(vec![Reply::status(529, ""), Reply::sse(&fixture("anthropic/text.sse"))]);
    let provider = build(&anthropic(), http.clone(), Rc::new(StuckClock)).unwrap();
    let cancel = CancelToken::new();
    let events = futures::executor::block_on(async {
        let mut stream = provider.stream(&request(), &cancel).await;
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            if matches!(event, StreamEvent::Retry { .. }) {
                cancel.cancel();
            }
            events.push(event);
        }
        events
    });
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(matches!(&events[1], StreamEvent::Error { error } if error.kind == ErrorKind::Cancelled));
    assert_eq!(http.requests().len(), 1, "no second request");
}

// ---- text tool-call dialects ----

#[test]
fn text_tool_calls_become_tool_call_events() {
    let say = |text: &str| {
        format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}))
    };
    let answer = "Let me search.\n<tool_call>\n<invoke name=\"search_notes\">\n<parameter name=\"query\">cats</parameter>\n</invoke>\n</tool_call>\n[TOOL_CALL]{\"name\": \"no_such_tool\", \"arguments\": {}}[/TOOL_CALL][TOOL_CALL]{\"name\": \"search_notes\", \"arguments\": {\"query\": }}[/TOOL_CALL]";
    // Streamed four characters at a time, so markers arrive split.
    let mut body: String =
        answer.chars().collect::<Vec<_>>().chunks(4).map(|c| say(&c.iter().collect::<String>())).collect();
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let http = FakeHttp::new(vec![Reply::sse(&body)]);
    let config = ProviderConfig { text_tool_dialect: Some(TextToolDialect::XmlInvoke), ..openai() };
    let (provider, _) = make(config, &http);

    let mut history = request();
    history.messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolUse {
            id: "t1".into(),
            name: "search_notes".into(),
            input: json!({"query": "dogs"}),
            signature: None,
        }],
    });
    history.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult {
            tool_use_id: "t1".into(),
            content: "dogs.md".into(),
            is_error: false,
        }],
    });
    let events = collect(provider.as_ref(), &history);
    let a = assemble(&events);
    assert_eq!(a.stop_reason(), Some(&StopReason::ToolUse));
    let message = a.finish();
    assert_eq!(message.text(), "Let me search.\n\n");
    let calls: Vec<_> =
        message.tool_uses().map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone())).collect();
    assert_eq!(calls.len(), 3);
    assert_eq!((calls[0].1.as_str(), &calls[0].2), ("search_notes", &json!({"query": "cats"})));
    assert_eq!(calls[1].1, "no_such_tool", "an unknown tool is passed on for the pipeline to refuse");
    assert_eq!(calls[2].1, "search_notes");
    let broken = calls[2].2.as_str().expect("unreadable arguments stay text");
    assert!(broken.contains("not a JSON object") || broken.contains("not valid JSON"), "{broken}");
    assert!(calls.iter().all(|(id, _, _)| id.starts_with("textcall_")));

    // What the model was sent: no native tools; the tools, the call and its result as text.
    let sent = FakeHttp::body_json(&http.requests()[0]);
    assert!(sent.get("tools").is_none());
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("### search_notes") && system.contains("<invoke name=\"tool_name\">"), "{system}");
    let assistant = sent["messages"][2]["content"].as_str().unwrap();
    assert!(
        assistant.contains("<invoke name=\"search_notes\">") && assistant.contains(">dogs</parameter>"),
        "{assistant}"
    );
    let result = sent["messages"][3]["content"].as_str().unwrap();
    assert!(result.contains("<tool_result name=\"search_notes\" id=\"t1\">\ndogs.md"), "{result}");
}

/// Ollama refuses tools for a model whose template has none ("gemma2:latest does not support
/// tools", a 400 it types as an `api_error`): the request goes again at once with the tools as
/// text, and so do the provider's later requests; nothing is retried as an overload.
#[test]
fn a_model_that_takes_no_tools_gets_them_as_text() {
    let refusal = json!({"error": {"message": "registry.ollama.ai/library/gemma2:latest does not support tools",
        "type": "api_error", "param": null, "code": null}});
    let say = |text: &str| {
        format!("data: {}\n\ndata: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n",
            json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}))
    };
    let call = "Searching.\n```tool_call\n{\"name\": \"search_notes\", \"arguments\": {\"query\": \"cats\"}}\n```";
    let http = FakeHttp::new(vec![
        Reply::status(400, &refusal.to_string()),
        Reply::sse(&say(call)),
        Reply::sse(&say("Done.")),
    ]);
    let config = ProviderConfig { base_url: Some("http://localhost:11434/v1".into()), ..openai() };
    let (provider, clock) = make(config, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(clock.sleeps().is_empty(), "a refusal is not retried");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Error { .. } | StreamEvent::Retry { .. })), "{events:?}");
    let calls: Vec<_> =
        assemble(&events).finish().tool_uses().map(|(_, name, input)| (name.to_string(), input.clone())).collect();
    assert_eq!(calls, [("search_notes".to_string(), json!({"query": "cats"}))]);
    let notices = |events: &[StreamEvent]| events.iter().filter(|e| matches!(e, StreamEvent::Notice { .. })).count();
    assert!(
        matches!(&events[0], StreamEvent::Notice { message } if message.contains("call tools itself")),
        "{events:?}"
    );
    assert_eq!(notices(&events), 1);
    let later = collect(provider.as_ref(), &request());
    assert_eq!(notices(&later), 0, "said once");
    let sent: Vec<serde_json::Value> = http.requests().iter().map(FakeHttp::body_json).collect();
    assert!(sent[0].get("tools").is_some(), "natively first");
    for later in &sent[1..] {
        assert!(later.get("tools").is_none());
        assert!(later["messages"][0]["content"].as_str().unwrap().contains("### search_notes"));
    }
    // llama.cpp's server started without templates refuses tools with a 500: the same, at once.
    let jinja = json!({"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}});
    let http = FakeHttp::new(vec![Reply::status(500, &jinja.to_string()), Reply::sse(&say("Hello."))]);
    let (provider, clock) =
        make(ProviderConfig { base_url: Some("http://127.0.0.1:8080/v1".into()), ..openai() }, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(clock.sleeps().is_empty() && http.requests().len() == 2, "not retried as an overload");
    assert!(matches!(&events[0], StreamEvent::Notice { message } if message.contains("--jinja")), "{events:?}");
    // A model that takes tools: requests and events untouched.
    let http = FakeHttp::new(vec![Reply::sse(&fixture("openai/parallel_tools.sse"))]);
    let (provider, _) = make(ProviderConfig { base_url: Some("http://localhost:11434/v1".into()), ..openai() }, &http);
    let events = collect(provider.as_ref(), &request());
    assert!(assemble(&events).finish().tool_uses().next().is_some());
    assert!(FakeHttp::body_json(&http.requests()[0]).get("tools").is_some());
}

#[test]
fn a_forced_answer_tells_a_text_dialect_model_of_no_tools() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    let http = FakeHttp::new(vec![Reply::sse(body)]);
    let config = ProviderConfig { text_tool_dialect: Some(TextToolDialect::XmlInvoke), ..openai() };
    let (provider, _) = make(config, &http);
    let mut forced = request();
    forced.tool_choice = vault_agent::protocol::ToolChoice::None;
    collect(provider.as_ref(), &forced);
    let sent = FakeHttp::body_json(&http.requests()[0]);
    assert!(sent.get("tools").is_none() && sent.get("tool_choice").is_none());
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(!system.contains("<invoke name=\"tool_name\">"), "no tool instructions: {system}");
}

// ---- configuration ----

#[test]
fn the_configuration_reads_camel_case_json() {
    let config: ProviderConfig = serde_json::from_value(json!({
        "kind": "openai-compatible", "model": "llama3.2", "baseUrl": "http://localhost:11434/v1",
        "maxTokens": 2048, "textToolDialect": "fenced-json", "echoReasoning": true,
        "headers": {"X-Title": "Vault Agent"}, "retry": {"maxAttempts": 2}
    }))
    .unwrap();
    assert_eq!(config.kind, ProviderKind::OpenAiCompatible);
    assert_eq!(config.max_tokens, 2048);
    assert_eq!(config.text_tool_dialect, Some(TextToolDialect::FencedJson));
    assert_eq!(config.retry.max_attempts, 2);
    assert_eq!(config.retry.base_delay_ms, 500, "unnamed retry fields keep their defaults");
    let minimal: ProviderConfig = serde_json::from_value(json!({"kind": "anthropic", "model": "claude-x"})).unwrap();
    assert_eq!(minimal.effective_base_url(), "https://api.anthropic.com");
    assert_eq!(minimal.max_tokens, 8192);
    assert_eq!(ProviderConfig::ollama("m").effective_base_url(), "http://localhost:11434/v1");
    assert_eq!(ProviderConfig::lm_studio("m").effective_base_url(), "http://localhost:1234/v1");
    assert_eq!(ProviderConfig::openrouter("m", "k").effective_base_url(), "https://openrouter.ai/api/v1");
}

#[test]
fn the_factory_refuses_configurations_that_cannot_work() {
    let http = FakeHttp::new(vec![]);
    let clock = Rc::new(vault_agent::host::ManualClock::new(0));
    let refuse = |config: ProviderConfig| build(&config, http.clone(), clock.clone()).err().unwrap().to_string();
    assert!(refuse(ProviderConfig::new(ProviderKind::Anthropic, "m")).contains("Anthropic needs an API key"));
    assert!(refuse(ProviderConfig::new(ProviderKind::OpenAi, "m")).contains("OpenAI needs an API key"));
    assert!(refuse(ProviderConfig::anthropic("", "k")).contains("names no model"));
    assert!(refuse(ProviderConfig::compatible("localhost:11434", "m")).contains("not an http"));
    let ollama = build(&ProviderConfig::ollama("llama3.2"), http.clone(), clock.clone()).unwrap();
    assert_eq!((ollama.name(), ollama.model()), ("openai-compatible", "llama3.2"));
}

#[test]
fn cancelling_closes_the_connection() {
    use std::io::{Read, Write};
    // A server that sends the start of a stream, then waits to see the client hang up.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (closed_tx, closed) = std::sync::mpsc::channel();
    let body = fixture("anthropic/text.sse");
    let first = body[..body.find("event: content_block_stop").unwrap()].to_string();
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 8192];
        // Read the whole request (headers, then content-length bytes) before answering.
        let complete = |request: &[u8]| {
            let text = String::from_utf8_lossy(request);
            let Some(end) = text.find("\r\n\r\n") else { return false };
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            request.len() >= end + 4 + length
        };
        while !complete(&request) {
            let n = socket.read(&mut buf).unwrap();
            request.extend_from_slice(&buf[..n]);
        }
        socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n").unwrap();
        socket.write_all(first.as_bytes()).unwrap();
        socket.flush().unwrap();
        let hung_up = matches!(socket.read(&mut buf), Ok(0) | Err(_));
        closed_tx.send(hung_up).unwrap();
    });

    let config = ProviderConfig { base_url: Some(base), ..anthropic() };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (last, hung_up) = runtime.block_on(async {
        let http = Rc::new(vault_agent::host::ReqwestClient::new());
        let provider = build(&config, http, Rc::new(vault_agent::host::SystemClock)).unwrap();
        let cancel = CancelToken::new();
        let mut stream = provider.stream(&request(), &cancel).await;
        let mut last = None;
        while let Some(event) = stream.next().await {
            if matches!(event, StreamEvent::TextDelta { .. }) {
                cancel.cancel();
            }
            last = Some(event);
        }
        // The runtime keeps running (as in the CLI) while the server waits for the hang-up.
        for _ in 0..1000 {
            if let Ok(hung_up) = closed.try_recv() {
                return (last, Some(hung_up));
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        (last, None)
    });
    assert!(matches!(last, Some(StreamEvent::Error { error }) if error.kind == ErrorKind::Cancelled));
    assert_eq!(hung_up, Some(true), "the server saw the client hang up");
}

#[test]
fn a_stalled_stream_is_a_retryable_network_error() {
    // The server sends the stream's start, then nothing: after the idle timeout (on the manual
    // clock, at once) the attempt counts as a dropped connection and is sent again.
    let body = fixture("anthropic/text.sse");
    let before_output = body[..body.find("event: content_block_start").unwrap()].to_string();
    let http = FakeHttp::new(vec![Reply::SseThenHang { body: before_output }, Reply::sse(&body)]);
    let (provider, clock) = make(anthropic(), &http);
    let events = futures::executor::block_on(async {
        provider.stream(&request(), &CancelToken::new()).await.collect::<Vec<_>>().await
    });
    let retry = events.iter().find_map(|e| match e {
        StreamEvent::Retry { error, .. } => Some(error.clone()),
        _ => None,
    });
    let retry = retry.expect("the stall was retried");
    assert_eq!(retry.kind, ErrorKind::Network);
    assert!(retry.message.contains("sent nothing for 60 s"), "{}", retry.message);
    assert!(matches!(events.last(), Some(StreamEvent::Done { .. })), "{events:?}");
    assert_eq!(clock.sleeps().first(), Some(&60_000), "the idle timeout waits on the host clock");
}

#[test]
fn a_stall_after_output_ends_the_stream_and_a_zero_timeout_waits() {
    let body = fixture("anthropic/text.sse");
    let cut = body.find("event: content_block_stop").unwrap();
    let http = FakeHttp::new(vec![Reply::SseThenHang { body: body[..cut].to_string() }]);
    let mut config = anthropic();
    config.retry.idle_timeout_ms = 5_000;
    let (provider, _) = make(config, &http);
    let events = futures::executor::block_on(async {
        provider.stream(&request(), &CancelToken::new()).await.collect::<Vec<_>>().await
    });
    assert!(events.iter().any(|e| matches!(e, StreamEvent::TextDelta { .. })));
    match events.last() {
        Some(StreamEvent::Error { error }) => {
            assert_eq!(error.kind, ErrorKind::Network);
            assert!(error.message.contains("5 s"), "{}", error.message);
        }
        other => panic!("{other:?}"),
    }
    let defaults: RetryPolicy = serde_json::from_value(json!({"idleTimeoutMs": 0})).unwrap();
    assert_eq!(defaults.idle_timeout_ms, 0);
    assert_eq!(RetryPolicy::default().idle_timeout_ms, 60_000);
}

#[test]
fn a_refused_connection_fails_at_once_without_retries() {
    // A port nobody listens on: the listener is dropped before the request.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let config = ProviderConfig { base_url: Some(format!("http://127.0.0.1:{port}")), ..anthropic() };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let events = runtime.block_on(async {
        let http = Rc::new(vault_agent::host::ReqwestClient::new());
        let provider = build(&config, http, Rc::new(vault_agent::host::SystemClock)).unwrap();
        provider.stream(&request(), &CancelToken::new()).await.collect::<Vec<_>>().await
    });
    assert!(retries(&events).is_empty(), "{events:?}");
    let Some(StreamEvent::Error { error }) = events.last() else { panic!("{events:?}") };
    assert_eq!(error.kind, ErrorKind::Unreachable);
    assert!(error.message.to_ascii_lowercase().contains("refused"), "the cause is kept: {}", error.message);
    assert_eq!(error.setting(), Some(vault_agent::protocol::ProviderSetting::BaseUrl));
    assert!(error.explain().contains("Is the server running"), "{}", error.explain());
}

#[test]
fn which_models_see_images_and_read_pdfs_comes_from_the_model_or_the_setting() {
    let seeing = |kind, model: &str| ProviderConfig::new(kind, model).sees_images();
    assert!(seeing(ProviderKind::Anthropic, "claude-sonnet-4-5"));
    assert!(seeing(ProviderKind::Anthropic, "claude-3-haiku-20240307"));
    assert!(!seeing(ProviderKind::Anthropic, "claude-2.1"));
    assert!(seeing(ProviderKind::OpenAi, "gpt-4o-mini"));
    assert!(seeing(ProviderKind::OpenAi, "gpt-5"));
    assert!(seeing(ProviderKind::OpenAi, "o3"));
    assert!(!seeing(ProviderKind::OpenAi, "o3-mini"));
    assert!(!seeing(ProviderKind::OpenAi, "gpt-3.5-turbo"));
    assert!(!seeing(ProviderKind::OpenAi, "gpt-4"));
    assert!(seeing(ProviderKind::OpenAiCompatible, "llava:13b"));
    assert!(
        seeing(ProviderKind::OpenAiCompatible, "qwen2.5vl:7b")
            || seeing(ProviderKind::OpenAiCompatible, "qwen2.5-vl:7b")
    );
    assert!(seeing(ProviderKind::OpenAiCompatible, "google/gemini-2.5-flash"));
    assert!(seeing(ProviderKind::OpenAiCompatible, "anthropic/claude-sonnet-4.5"));
    assert!(!seeing(ProviderKind::OpenAiCompatible, "qwen2.5:7b"));
    assert!(!seeing(ProviderKind::OpenAiCompatible, "llama3.1"));
    assert!(seeing(ProviderKind::OpenAiCompatible, "grok-4-fast-reasoning"));
    assert!(!seeing(ProviderKind::OpenAiCompatible, "grok-code-fast-1"));
    assert!(!seeing(ProviderKind::OpenAiCompatible, "openai/gpt-oss-120b"));
    // The setting wins over the name.
    let told = ProviderConfig { vision: Some(true), ..ProviderConfig::new(ProviderKind::OpenAiCompatible, "my-model") };
    assert!(told.sees_images());
    let blind = ProviderConfig { vision: Some(false), ..ProviderConfig::new(ProviderKind::Anthropic, "claude-opus-4") };
    assert!(!blind.sees_images());
    // PDFs go as documents to Anthropic and OpenAI only; the built provider says the same.
    assert!(ProviderConfig::new(ProviderKind::Anthropic, "claude-x").reads_documents());
    assert!(!ProviderConfig::new(ProviderKind::OpenAiCompatible, "llava").reads_documents());
    let http = FakeHttp::new(Vec::new());
    let (built, _) = make(ProviderConfig::ollama("qwen2.5:7b"), &http);
    assert_eq!(built.media(), MediaSupport { images: false, documents: false });
    let (built, _) = make(anthropic(), &http);
    assert_eq!(built.media(), MediaSupport::ALL);
}

// ---- the server's models, for the picker ----------------------------------------------------------

#[test]
fn the_models_list_is_asked_with_the_key_and_read() {
    use vault_agent::provider::list_models;
    let list_body = r#"{"data":[{"id":"qwen2.5:latest","created":2},{"id":"nomic-embed-text","created":3},{"id":"llama3.2","created":1}]}"#;
    // A server on this machine that is not Ollama: its models, and nothing said of their tools.
    let http = FakeHttp::new(vec![Reply::status(200, list_body), Reply::status(404, "404 page not found")]);
    let config = ProviderConfig::compatible("http://127.0.0.1:9/v1", "").with_api_key("k");
    let list = futures::executor::block_on(list_models(&config, &*http, &CancelToken::new())).unwrap();
    assert_eq!(list.problem, None);
    let ids: Vec<&str> = list.models.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["qwen2.5:latest", "llama3.2"]);
    // A server on this machine costs nothing, as the cost meter says.
    assert!(list.models.iter().all(|m| m.price.is_some_and(|p| p.input == 0.0 && p.output == 0.0)));
    assert!(list.models.iter().all(|m| m.tools.is_none()));
    let sent = http.requests();
    assert_eq!((sent[0].method.as_str(), sent[0].url.as_str()), ("GET", "http://127.0.0.1:9/v1/models"));
    assert!(sent[0].headers.contains(&("authorization".into(), "Bearer k".into())));
    assert_eq!(sent.len(), 2, "one model asked about, no more once the server said nothing");

    // Ollama says which of its models call tools (`/api/show`, one model at a time).
    let show = |capabilities: &str| Reply::status(200, &format!(r#"{{"details":{{}},"capabilities":{capabilities}}}"#));
    let http = FakeHttp::new(vec![
        Reply::status(200, list_body),
        show(r#"["completion","tools"]"#),
        show(r#"["completion"]"#),
    ]);
    let list =
        futures::executor::block_on(list_models(&ProviderConfig::ollama(""), &*http, &CancelToken::new())).unwrap();
    let tools: Vec<(&str, Option<bool>)> = list.models.iter().map(|m| (m.id.as_str(), m.tools)).collect();
    assert_eq!(tools, [("qwen2.5:latest", Some(true)), ("llama3.2", Some(false))]);
    let sent = http.requests();
    assert_eq!((sent[1].method.as_str(), sent[1].url.as_str()), ("POST", "http://localhost:11434/api/show"));
    assert_eq!(FakeHttp::body_json(&sent[2]), json!({"model": "llama3.2"}));
}

#[test]
fn a_models_list_that_fails_says_why_in_the_chats_words() {
    use vault_agent::protocol::ProviderSetting;
    use vault_agent::provider::list_models;
    let cancel = CancelToken::new();
    let config = ProviderConfig::anthropic("", "bad-key");
    let http = FakeHttp::new(vec![Reply::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    )]);
    let list = futures::executor::block_on(list_models(&config, &*http, &cancel)).unwrap();
    let problem = list.problem.expect("a 401 is a problem");
    assert!(list.models.is_empty());
    assert_eq!((problem.kind, problem.setting), (ErrorKind::Auth, Some(ProviderSetting::ApiKey)));
    assert!(problem.detail.contains("invalid x-api-key"), "{problem:?}");

    // A known model has the list price the cost meter uses; an unknown one none.
    let http = FakeHttp::new(vec![Reply::status(
        200,
        r#"{"data":[{"id":"claude-sonnet-4-5-20250929"},{"id":"claude-next-unknown"}]}"#,
    )]);
    let list = futures::executor::block_on(list_models(&config, &*http, &cancel)).unwrap();
    let sonnet = list.models[0].price.expect("Sonnet 4.5 has a list price");
    assert_eq!((sonnet.input, sonnet.output), (3.0, 15.0));
    assert_eq!(list.models[1].price, None);

    // Nothing listening on this machine: unreachable, not a network hiccup to wait out.
    let http = FakeHttp::new(vec![Reply::Unreachable]);
    let list = futures::executor::block_on(list_models(&ProviderConfig::ollama(""), &*http, &cancel)).unwrap();
    assert_eq!(list.problem.map(|p| p.kind), Some(ErrorKind::Unreachable));

    // A server with no list: said as such, not as a model call's "no such model".
    let http = FakeHttp::new(vec![Reply::status(404, r#"{"error":{"message":"Not Found"}}"#)]);
    let custom = ProviderConfig::compatible("https://llm.example.com/v1", "");
    let problem = futures::executor::block_on(list_models(&custom, &*http, &cancel)).unwrap().problem.unwrap();
    assert_eq!(problem.message, "The server lists no models at https://llm.example.com/v1/models.");
    assert_eq!(problem.setting, Some(ProviderSetting::BaseUrl));

    // A page that is not a models list.
    let http = FakeHttp::new(vec![Reply::status(200, "<html>login</html>")]);
    let list = futures::executor::block_on(list_models(&ProviderConfig::ollama(""), &*http, &cancel)).unwrap();
    assert_eq!(list.problem.map(|p| p.kind), Some(ErrorKind::Protocol));

    // No key for a provider that needs one: the configuration is refused before sending.
    let http = FakeHttp::new(vec![]);
    let mut keyless = config.clone();
    keyless.api_key = None;
    assert!(futures::executor::block_on(list_models(&keyless, &*http, &cancel)).is_err());
    assert!(http.requests().is_empty());
}

#[test]
fn each_provider_prices_the_model_a_call_names() {
    let http = FakeHttp::new(Vec::new());
    let price = |config: ProviderConfig, model: &str| make(config, &http).0.price(model);
    let haiku = vault_agent::provider::list_price("claude-haiku-4-5");
    assert!(haiku.is_some());
    // Priced by the model asked for, not the provider's default model.
    assert_eq!(price(ProviderConfig::anthropic("claude-sonnet-4-5", "k"), "claude-haiku-4-5"), haiku);
    assert_eq!(price(ProviderConfig::openrouter("openai/gpt-4o", "k"), "anthropic/claude-haiku-4.5"), haiku);
    // Text tool calls wrap a provider and keep its prices.
    let text_tools =
        ProviderConfig { text_tool_dialect: Some(TextToolDialect::XmlInvoke), ..ProviderConfig::openai("x", "k") };
    assert_eq!(price(text_tools, "claude-haiku-4-5"), haiku);
    // A server on this machine is free whatever the model; a model off the list has no price.
    assert_eq!(price(ProviderConfig::ollama("llama3.2"), "claude-haiku-4-5"), Some(ModelPrice::FREE));
    assert_eq!(price(ProviderConfig::compatible("https://example.com/v1", "x"), "my-model"), None);
}

#[test]
fn a_local_server_says_the_window_it_serves_a_loaded_model_with() {
    let cancel = CancelToken::new();
    let ps = r#"{"models":[{"name":"qwen2.5:latest","model":"qwen2.5:latest","context_length":4096}]}"#;
    let http = FakeHttp::new(vec![Reply::status(200, ps)]);
    let (ollama, _) = make(ProviderConfig::ollama("qwen2.5"), &http);
    let served = futures::executor::block_on(ollama.served_window("qwen2.5", &cancel)).unwrap();
    assert_eq!((served.tokens, served.server), (4096, LocalServer::Ollama));
    assert_eq!(http.requests()[0].url, "http://localhost:11434/api/ps");
    // LM Studio has no /api/ps, but names a loaded model's window in its own list.
    let lm = r#"{"data":[{"id":"qwen","state":"loaded","max_context_length":32768,"loaded_context_length":8192}]}"#;
    let http = FakeHttp::new(vec![Reply::status(404, "Not Found"), Reply::status(200, lm)]);
    let (lmstudio, _) = make(ProviderConfig::compatible("http://127.0.0.1:1234/v1", "qwen"), &http);
    let served = futures::executor::block_on(lmstudio.served_window("qwen", &cancel)).unwrap();
    assert_eq!((served.tokens, served.server), (8192, LocalServer::LmStudio));
    let urls: Vec<String> = http.requests().iter().map(|r| r.url.clone()).collect();
    assert_eq!(urls, ["http://127.0.0.1:1234/api/ps", "http://127.0.0.1:1234/api/v0/models"]);
    // llama.cpp's server has neither; a hosted API is not asked at all.
    let http = FakeHttp::new(vec![Reply::status(404, "Not Found"), Reply::status(404, "Not Found")]);
    let (llama, _) = make(ProviderConfig::compatible("http://127.0.0.1:8080/v1", "m"), &http);
    assert_eq!(futures::executor::block_on(llama.served_window("m", &cancel)), None);
    let http = FakeHttp::new(vec![]);
    let (openai, _) = make(ProviderConfig::openai("gpt-4.1", "k"), &http);
    assert_eq!(futures::executor::block_on(openai.served_window("gpt-4.1", &cancel)), None);
    assert!(http.requests().is_empty());
}
