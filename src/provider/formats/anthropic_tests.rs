use serde_json::json;

use super::*;
use crate::protocol::{ToolSpec, Usage};

fn request() -> ModelRequest {
    ModelRequest {
        system: vec![
            SystemPart { text: "You are an agent.".into(), cache_breakpoint: true },
            SystemPart { text: "Today is Monday.".into(), cache_breakpoint: false },
        ],
        messages: vec![
            Message::user("Find cats"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking { thinking: "search".into(), signature: Some("sig".into()) },
                    ContentBlock::Thinking { thinking: "from elsewhere".into(), signature: None },
                    ContentBlock::RedactedThinking { data: "opaque".into() },
                    ContentBlock::text("Searching."),
                    ContentBlock::tool_use("toolu_1", "search", json!({"q": "cats"})),
                    ContentBlock::tool_use("toolu_2", "read", json!("{broken")),
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_1".into(),
                        content: "cats.md".into(),
                        is_error: false,
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "toolu_2".into(),
                        content: "bad args".into(),
                        is_error: true,
                    },
                    ContentBlock::Image { media_type: "image/png".into(), data: "iVBOR".into() },
                ],
            },
        ],
        tools: vec![ToolSpec {
            name: "search".into(),
            description: "Searches notes.".into(),
            input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        }],
        max_tokens: 4096,
        thinking_budget: None,
        temperature: Some(0.2),
        tool_choice: Default::default(),
        model: None,
    }
}

#[test]
fn the_request_body_has_every_part_in_anthropic_shape() {
    let body = request_body("claude-x", &request());
    assert_eq!(body["model"], "claude-x");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["stream"], true);
    assert_eq!(body["temperature"], 0.2);
    assert_eq!(
        body["system"],
        json!([
            {"type": "text", "text": "You are an agent.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Today is Monday."}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"name": "search", "description": "Searches notes.",
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}])
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0], json!({"role": "user", "content": [{"type": "text", "text": "Find cats"}]}));
    assert_eq!(
        messages[1]["content"],
        json!([
            {"type": "thinking", "thinking": "search", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Searching."},
            {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "cats"}},
            {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}
        ]),
        "unsigned thinking is dropped; unparseable arguments become an empty input"
    );
    assert_eq!(
        messages[2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "cats.md"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "bad args", "is_error": true},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
                "cache_control": {"type": "ephemeral"}}
        ]),
        "the last block of the last message carries the conversation's breakpoint"
    );
}

#[test]
fn thinking_replaces_temperature() {
    let mut r = request();
    r.thinking_budget = Some(2048);
    let body = request_body("m", &r);
    assert_eq!(body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));
    assert!(body.get("temperature").is_none());
    // The answer keeps its length on top of the budget (Anthropic wants max_tokens above it).
    assert_eq!(body["max_tokens"], json!(r.max_tokens + 2048));
    // A budget below Anthropic's least is raised to it rather than refused by the API.
    r.thinking_budget = Some(100);
    let body = request_body("m", &r);
    assert_eq!(body["thinking"]["budget_tokens"], json!(1024));
    assert_eq!(body["max_tokens"], json!(r.max_tokens + 1024));
}

#[test]
fn at_most_four_cache_breakpoints() {
    let mut r = request();
    r.system = (0..6).map(|i| SystemPart { text: format!("part {i}"), cache_breakpoint: true }).collect();
    let body = request_body("m", &r);
    let marked = body.to_string().matches("cache_control").count();
    assert_eq!(marked, 4);
    assert!(body["system"][5].get("cache_control").is_some(), "the latest system breakpoints are kept");
    assert!(body["system"][2].get("cache_control").is_none());
}

#[test]
fn empty_messages_are_left_out() {
    let mut r = request();
    r.messages.push(Message { role: Role::Assistant, content: vec![ContentBlock::text("")] });
    let body = request_body("m", &r);
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
}

#[test]
fn usage_from_start_and_delta_is_cumulative() {
    let mut d = AnthropicDecoder::new();
    let start = json!({"type": "message_start", "message": {"usage": {"input_tokens": 10,
        "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5, "output_tokens": 1}}});
    let events = d.decode("message_start", &start.to_string());
    assert_eq!(
        events,
        vec![StreamEvent::Usage {
            usage: Usage { input_tokens: 10, output_tokens: 1, cache_read_tokens: 100, cache_write_tokens: 5 }
        }]
    );
    let delta =
        json!({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 42}});
    let events = d.decode("message_delta", &delta.to_string());
    assert_eq!(
        events,
        vec![StreamEvent::Usage {
            usage: Usage { input_tokens: 10, output_tokens: 42, cache_read_tokens: 100, cache_write_tokens: 5 }
        }]
    );
    assert_eq!(
        d.decode("message_stop", r#"{"type":"message_stop"}"#),
        vec![StreamEvent::Done { stop_reason: StopReason::MaxTokens }]
    );
    assert!(d.is_finished());
    assert!(d.finish().is_empty());
}

#[test]
fn a_forced_answer_keeps_the_tools_but_disables_them() {
    let mut r = request();
    assert!(request_body("m", &r).get("tool_choice").is_none(), "auto is the API default");
    r.tool_choice = crate::protocol::ToolChoice::None;
    let body = request_body("m", &r);
    assert_eq!(body["tool_choice"], json!({"type": "none"}));
    assert!(!body["tools"].as_array().unwrap().is_empty());
}

#[test]
fn a_pdf_goes_as_a_document_block_with_its_name_as_title() {
    let mut r = request();
    r.messages = vec![crate::provider::formats::pdf_message()];
    let body = request_body("m", &r);
    assert_eq!(
        body["messages"][0]["content"][1],
        json!({"type": "document", "title": "q3.pdf", "cache_control": {"type": "ephemeral"},
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0"}})
    );
}
