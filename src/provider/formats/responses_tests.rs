use serde_json::json;

use super::*;
use crate::protocol::{Message, SystemPart, ToolSpec};
use crate::provider::formats::decode_recorded;

fn recorded(name: &str) -> Vec<StreamEvent> {
    let body =
        std::fs::read_to_string(format!("{}/tests/fixtures/responses/{name}.sse", env!("CARGO_MANIFEST_DIR"))).unwrap();
    decode_recorded(&mut ResponsesDecoder::new(), &body)
}

fn thinking(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| if let StreamEvent::ThinkingDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

#[test]
fn a_text_answer_streams_with_its_usage_cached_tokens_apart() {
    let events = recorded("text");
    let text: String = events
        .iter()
        .filter_map(|e| if let StreamEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(text, "Hello! Your notes on cats are in `Pets/Cats.md` — 3 of them, 日本語 included.");
    let usage = Usage { input_tokens: 20, output_tokens: 21, cache_read_tokens: 100, cache_write_tokens: 0 };
    assert_eq!(
        events[events.len() - 2..],
        [StreamEvent::Usage { usage }, StreamEvent::Done { stop_reason: StopReason::EndTurn }]
    );
}

#[test]
fn reasoning_summaries_are_thinking_and_the_encrypted_reasoning_is_kept_for_the_next_request() {
    let events = recorded("tool_calls");
    assert_eq!(
        thinking(&events),
        "**Finding the notes**\n\nThe user wants cat notes; search first.\n\nThen read them."
    );
    let calls: Vec<&StreamEvent> = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCallStart { .. } | StreamEvent::ToolCallEnd { .. }))
        .collect();
    assert_eq!(
        calls,
        [
            &StreamEvent::ToolCallStart { index: 0, id: "call_abc".into(), name: "search_notes".into() },
            &StreamEvent::ToolCallEnd { index: 0 },
            &StreamEvent::ToolCallStart { index: 1, id: "call_def".into(), name: "list_files".into() },
            &StreamEvent::ToolCallEnd { index: 1 },
        ]
    );
    let arguments: String = events
        .iter()
        .filter_map(|e| if let StreamEvent::ToolCallDelta { index: 0, json } = e { Some(json.as_str()) } else { None })
        .collect();
    assert_eq!(arguments, r#"{"query": "cats"}"#);
    // The reasoning item goes back as it came, less its id (nothing is stored on the server).
    let details =
        events
            .iter()
            .find_map(|e| if let StreamEvent::ReasoningDetails { details } = e { Some(details) } else { None });
    assert_eq!(
        details,
        Some(&json!([{"type": "reasoning", "encrypted_content": "gAAAAB-opaque-1", "summary": [
            {"type": "summary_text", "text": "**Finding the notes**\n\nThe user wants cat notes; search first."},
            {"type": "summary_text", "text": "Then read them."}]}]))
    );
    assert_eq!(events.last(), Some(&StreamEvent::Done { stop_reason: StopReason::ToolUse }));
}

#[test]
fn an_answer_cut_by_the_limit_a_failure_an_error_and_a_cut_stream_each_end_as_they_should() {
    assert_eq!(recorded("incomplete").last(), Some(&StreamEvent::Done { stop_reason: StopReason::MaxTokens }));
    let Some(StreamEvent::Error { error }) = recorded("failed").pop() else { panic!("no error") };
    assert_eq!(error.kind, ErrorKind::RateLimited);
    assert!(error.message.starts_with("Rate limit reached for gpt-5"), "{}", error.message);
    let events = recorded("error_midstream");
    assert_eq!(events[0], StreamEvent::TextDelta { text: "Partial".into() });
    let Some(StreamEvent::Error { error }) = events.last() else { panic!("no error") };
    assert_eq!(error.message, "The server had an error while processing your request.");
    let Some(StreamEvent::Error { error }) = recorded("truncated").pop() else { panic!("no error") };
    assert_eq!(
        (error.kind, error.message.as_str()),
        (ErrorKind::Network, "the response stream ended before response.completed")
    );
}

#[test]
fn a_call_whose_arguments_come_only_with_its_finished_item_still_has_them() {
    let mut decoder = ResponsesDecoder::new();
    let item = json!({"type": "function_call", "id": "fc_9", "call_id": "c9", "name": "read_file", "arguments": "{\"path\":\"A.md\"}"});
    let events =
        decoder.decode("", &json!({"type": "response.output_item.done", "output_index": 0, "item": item}).to_string());
    assert_eq!(
        events,
        [
            StreamEvent::ToolCallStart { index: 0, id: "c9".into(), name: "read_file".into() },
            StreamEvent::ToolCallDelta { index: 0, json: "{\"path\":\"A.md\"}".into() },
            StreamEvent::ToolCallEnd { index: 0 },
        ]
    );
}

#[test]
fn a_whole_response_reads_as_its_stream_would() {
    let body = json!({"status": "completed", "output": [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Plan."}], "encrypted_content": "enc"},
        {"type": "message", "content": [{"type": "output_text", "text": "Done."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "list_files", "arguments": "{}"}],
        "usage": {"input_tokens": 5, "output_tokens": 3}});
    let events = ResponsesDecoder::new().decode_whole(&body).unwrap();
    assert_eq!(thinking(&events), "Plan.");
    assert!(events.contains(&StreamEvent::TextDelta { text: "Done.".into() }));
    assert!(events.contains(&StreamEvent::ToolCallDelta { index: 0, json: "{}".into() }));
    assert!(events.iter().any(|e| matches!(e, StreamEvent::ReasoningDetails { .. })));
    assert_eq!(events.last(), Some(&StreamEvent::Done { stop_reason: StopReason::ToolUse }));
}

fn request(model_thinks: bool) -> (String, ModelRequest) {
    let history = vec![
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::text("Tidy my cat notes"),
                ContentBlock::Image { media_type: "image/png".into(), data: "iVBO".into() },
            ],
        },
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking { thinking: "Plan.".into(), signature: None },
                ContentBlock::text("Looking."),
                ContentBlock::tool_use("call_abc", "search_notes", json!({"query": "cats"})),
                ContentBlock::ReasoningDetails {
                    details: json!([{"type": "reasoning", "summary": [], "encrypted_content": "enc"},
                        {"type": "reasoning.text", "text": "another provider's"}]),
                },
            ],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: "call_abc".into(),
                content: "no such folder".into(),
                is_error: true,
            }],
        },
    ];
    let request = ModelRequest {
        system: ["You work in a vault.", "Be brief."]
            .map(|text| SystemPart { text: text.into(), cache_breakpoint: false })
            .to_vec(),
        messages: history,
        tools: vec![ToolSpec {
            name: "search_notes".into(),
            description: "Search".into(),
            input_schema: json!({"type": "object"}),
        }],
        max_tokens: 1000,
        thinking_budget: Some(8192),
        temperature: Some(0.2),
        tool_choice: ToolChoice::Auto,
        model: None,
    };
    (if model_thinks { "gpt-5-mini" } else { "gpt-4.1" }.to_string(), request)
}

#[test]
fn the_history_goes_as_items_with_the_reasoning_before_the_calls_it_made() {
    let (model, request) = request(true);
    let body = request_body(&model, &request);
    assert_eq!(body["instructions"], "You work in a vault.\n\nBe brief.");
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Tidy my cat notes"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBO"}]},
            {"type": "reasoning", "summary": [], "encrypted_content": "enc"},
            {"role": "assistant", "content": "Looking."},
            {"type": "function_call", "call_id": "call_abc", "name": "search_notes", "arguments": "{\"query\":\"cats\"}"},
            {"type": "function_call_output", "call_id": "call_abc", "output": "Error: no such folder"},
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "name": "search_notes", "description": "Search", "parameters": {"type": "object"},
            "strict": false}])
    );
    assert_eq!(body["reasoning"], json!({"summary": "auto", "effort": "medium"}));
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["max_output_tokens"], 1000 + 8192);
    assert_eq!((body["store"].clone(), body["stream"].clone()), (json!(false), json!(true)));
    assert!(body.get("temperature").is_none(), "reasoning models take only their default");
    // At the model's own effort, room for its reasoning all the same.
    let body = request_body(&model, &ModelRequest { thinking_budget: None, ..request });
    assert_eq!(
        (body["reasoning"].clone(), body["max_output_tokens"].clone()),
        (json!({"summary": "auto"}), json!(1000 + 16_384))
    );
}

/// A chat whose model changed: reasoning goes back only to the model that wrote it.
#[test]
fn reasoning_goes_back_to_the_model_that_wrote_it_alone() {
    let mut decoder = ResponsesDecoder::for_model("gpt-5-mini");
    let item = json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"});
    let mut events = decoder.decode("", &json!({"type": "response.output_item.done", "item": item}).to_string());
    events.extend(decoder.decode("", &json!({"type": "response.completed", "response": {}}).to_string()));
    let Some(StreamEvent::ReasoningDetails { details }) = events.first().cloned() else { panic!("{events:?}") };
    assert_eq!(
        details,
        json!([{"type": "reasoning", "summary": [], "encrypted_content": "enc", "model": "gpt-5-mini"}])
    );
    let (_, mut request) = request(true);
    request.messages[1].content[3] = ContentBlock::ReasoningDetails { details };
    let sent = |model: &str| request_body(model, &request)["input"].as_array().unwrap().clone();
    assert_eq!(sent("gpt-5-mini")[1], json!({"type": "reasoning", "summary": [], "encrypted_content": "enc"}));
    assert!(sent("o3").iter().all(|item| item["type"] != "reasoning"));
}

/// A turn cut off while the model reasoned left reasoning that nothing follows, which the API
/// refuses: it is not sent.
#[test]
fn reasoning_that_nothing_follows_is_not_sent() {
    let (model, mut request) = request(true);
    request.messages.truncate(1);
    request.messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ReasoningDetails {
            details: json!([{"type": "reasoning", "summary": [], "encrypted_content": "enc"}]),
        }],
    });
    request.messages.push(Message::user("Go on"));
    let kinds: Vec<Value> = request_body(&model, &request)["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.get("type").or(item.get("role")).cloned().unwrap())
        .collect();
    assert_eq!(kinds, [json!("user"), json!("user")]);
}

#[test]
fn a_model_that_does_not_reason_is_asked_no_reasoning_and_keeps_its_temperature() {
    let (model, request) = request(false);
    let body = request_body(&model, &request);
    assert!(body.get("reasoning").is_none() && body.get("include").is_none());
    assert_eq!(body["temperature"], json!(0.2));
    assert_eq!(body["max_output_tokens"], 1000);
    for (model, reasons) in [
        ("gpt-5", true),
        ("gpt-5.1-codex", true),
        ("o3-pro", true),
        ("o4-mini", true),
        ("openai/gpt-oss-120b", true),
        ("codex-mini-latest", true),
        ("gpt-5-chat-latest", false),
        ("gpt-4o", false),
        ("gpt-4.1-mini", false),
    ] {
        assert_eq!(is_reasoning_model(model), reasons, "{model}");
    }
}
