use serde_json::json;

use super::*;
use crate::protocol::{Message, SystemPart, ToolSpec};

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
                    ContentBlock::Thinking { thinking: "I should search".into(), signature: None },
                    ContentBlock::tool_use("call_1", "search", json!({"q": "cats"})),
                    ContentBlock::tool_use("call_2", "read", json!("{broken")),
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult {
                        tool_use_id: "call_1".into(),
                        content: "cats.md".into(),
                        is_error: false,
                    },
                    ContentBlock::ToolResult {
                        tool_use_id: "call_2".into(),
                        content: "bad args".into(),
                        is_error: true,
                    },
                    ContentBlock::text("and this picture"),
                    ContentBlock::Image { media_type: "image/png".into(), data: "iVBOR".into() },
                ],
            },
            Message::assistant("Done."),
        ],
        tools: vec![ToolSpec {
            name: "search".into(),
            description: "Searches notes.".into(),
            input_schema: json!({"type": "object"}),
        }],
        max_tokens: 1000,
        thinking_budget: None,
        temperature: None,
        tool_choice: Default::default(),
        model: None,
    }
}

#[test]
fn the_request_body_in_chat_completions_shape() {
    let body = request_body("gpt-x", &request(), &OpenAiOptions::default());
    assert_eq!(body["model"], "gpt-x");
    assert_eq!(body["max_tokens"], 1000);
    assert!(body.get("max_completion_tokens").is_none());
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        body["tools"],
        json!([{"type": "function", "function": {"name": "search", "description": "Searches notes.",
            "parameters": {"type": "object"}}}])
    );
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You are an agent.\n\nToday is Monday."},
            {"role": "user", "content": "Find cats"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"cats\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{broken"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "cats.md"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: bad args"},
            {"role": "user", "content": [
                {"type": "text", "text": "and this picture"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR"}}
            ]},
            {"role": "assistant", "content": "Done."}
        ])
    );
}

#[test]
fn options_for_openai_itself_and_reasoning_echo() {
    let options = OpenAiOptions { max_completion_tokens: true, echo_reasoning: true, ..OpenAiOptions::default() };
    let body = request_body("o3", &request(), &options);
    assert_eq!(body["max_completion_tokens"], 1000 + 16_384, "a reasoning model's room to reason");
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["messages"][2]["reasoning_content"], "I should search");
    let plain = request_body("o3", &request(), &OpenAiOptions::default());
    assert!(plain["messages"][2].get("reasoning_content").is_none(), "not echoed unless asked");
}

#[test]
fn a_call_split_into_pieces_with_the_name_late() {
    let mut d = OpenAiDecoder::new();
    let chunk = |delta: serde_json::Value| json!({"choices": [{"index": 0, "delta": delta}]}).to_string();
    let mut events = Vec::new();
    events.extend(
        d.decode("", &chunk(json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"arguments": "{\"a\""}}]}))),
    );
    assert!(events.is_empty(), "no start before the name");
    events.extend(
        d.decode("", &chunk(json!({"tool_calls": [{"index": 0, "function": {"name": "t", "arguments": ":1}"}}]}))),
    );
    events.extend(d.decode("", &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string()));
    events.extend(d.decode("", "[DONE]"));
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStart { index: 0, id: "c1".into(), name: "t".into() },
            StreamEvent::ToolCallDelta { index: 0, json: "{\"a\":1}".into() },
            StreamEvent::ToolCallEnd { index: 0 },
            StreamEvent::Done { stop_reason: StopReason::ToolUse },
        ],
        "a 'stop' after tool calls means tool use"
    );
}

#[test]
fn calls_that_reuse_index_zero_with_new_ids_stay_apart() {
    let mut d = OpenAiDecoder::new();
    let call = |id: &str, name: &str, args: &str| {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": args}}]}}]})
        .to_string()
    };
    let mut events = d.decode("", &call("a", "read", "{\"path\":\"x\"}"));
    events.extend(d.decode("", &call("b", "list", "{}")));
    events.extend(d.finish());
    assert_eq!(
        events,
        vec![
            StreamEvent::ToolCallStart { index: 0, id: "a".into(), name: "read".into() },
            StreamEvent::ToolCallDelta { index: 0, json: "{\"path\":\"x\"}".into() },
            StreamEvent::ToolCallEnd { index: 0 },
            StreamEvent::ToolCallStart { index: 1, id: "b".into(), name: "list".into() },
            StreamEvent::ToolCallDelta { index: 1, json: "{}".into() },
            StreamEvent::Error {
                error: ProviderError::new(
                    ErrorKind::Network,
                    "the response stream ended before a finish_reason or [DONE]"
                )
            },
        ]
    );
}

#[test]
fn a_forced_answer_keeps_the_tools_but_disables_them() {
    let mut r = request();
    assert!(request_body("m", &r, &OpenAiOptions::default()).get("tool_choice").is_none(), "auto is the default");
    r.tool_choice = crate::protocol::ToolChoice::None;
    let body = request_body("m", &r, &OpenAiOptions::default());
    assert_eq!(body["tool_choice"], json!("none"));
    assert!(!body["tools"].as_array().unwrap().is_empty());
}

#[test]
fn a_pdf_goes_as_a_file_part_with_a_data_url() {
    let mut r = request();
    r.messages = vec![crate::provider::formats::pdf_message()];
    let body = request_body("m", &r, &OpenAiOptions::default());
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap().clone();
    assert_eq!(
        user["content"][1],
        json!({"type": "file", "file": {"filename": "q3.pdf", "file_data": "data:application/pdf;base64,JVBERi0"}})
    );
}

/// Gemini's OpenAI-compatible stream, as Google sends it: two calls in one chunk with no
/// `index`, the first with its thought signature, then `finish_reason: "stop"`.
#[test]
fn gemini_calls_without_an_index_keep_their_signature_and_mean_tool_use() {
    let mut d = OpenAiDecoder::new();
    let mut events = d.decode(
        "",
        &json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"extra_content": {"google": {"thought_signature": "CpICAdHt"}},
             "function": {"arguments": "{\"path\":\"a.md\"}", "name": "read_file"}, "id": "function-call-1", "type": "function"},
            {"function": {"arguments": "{\"query\":\"cats\"}", "name": "search_notes"}, "id": "function-call-2", "type": "function"}
        ]}}]})
        .to_string(),
    );
    events.extend(d.decode("", &json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string()));
    events.extend(d.decode("", "[DONE]"));
    let mut assembler = crate::protocol::MessageAssembler::new();
    for event in &events {
        assembler.push(event);
    }
    assert_eq!(assembler.stop_reason(), Some(&StopReason::ToolUse));
    assert_eq!(
        assembler.finish().content,
        vec![
            ContentBlock::ToolUse {
                id: "function-call-1".into(),
                name: "read_file".into(),
                input: json!({"path": "a.md"}),
                signature: Some("CpICAdHt".into()),
            },
            ContentBlock::tool_use("function-call-2", "search_notes", json!({"query": "cats"})),
        ]
    );
}

/// Google's endpoint gets each call's signature back; a turn whose calls have none (planned by
/// the agent, or made by another provider) gets Google's placeholder on its first call. Other
/// servers get no `extra_content` at all.
#[test]
fn signatures_go_back_to_google_only() {
    let signed = Message {
        role: Role::Assistant,
        content: vec![
            ContentBlock::ToolUse {
                id: "c1".into(),
                name: "read".into(),
                input: json!({}),
                signature: Some("sig".into()),
            },
            ContentBlock::tool_use("c2", "list", json!({})),
        ],
    };
    let unsigned = Message {
        role: Role::Assistant,
        content: vec![ContentBlock::tool_use("p1", "read", json!({})), ContentBlock::tool_use("p2", "list", json!({}))],
    };
    let mut r = request();
    r.messages = vec![Message::user("go"), signed, Message::user("more"), unsigned];
    let google = OpenAiOptions { gemini: true, ..OpenAiOptions::default() };
    let body = request_body("gemini-3-flash", &r, &google);
    let calls = |i: usize| body["messages"][i]["tool_calls"].as_array().unwrap().clone();
    assert_eq!(calls(2)[0]["extra_content"], json!({"google": {"thought_signature": "sig"}}));
    assert!(calls(2)[1].get("extra_content").is_none(), "only the call Gemini signed");
    assert_eq!(calls(4)[0]["extra_content"], json!({"google": {"thought_signature": UNSIGNED_CALL}}));
    assert!(calls(4)[1].get("extra_content").is_none());
    let other = request_body("m", &r, &OpenAiOptions::default());
    assert!(!other.to_string().contains("extra_content"));
}

/// Gemini refuses a tool result that does not name its tool; others get the OpenAI shape.
#[test]
fn tool_results_name_their_tool_for_gemini() {
    let google = OpenAiOptions { gemini: true, ..OpenAiOptions::default() };
    let body = request_body("gemini-flash-latest", &request(), &google);
    let results: Vec<&Value> = body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!((results[0]["name"].as_str(), results[1]["name"].as_str()), (Some("search"), Some("read")));
    let other = request_body("m", &request(), &OpenAiOptions::default());
    assert!(other["messages"].as_array().unwrap().iter().all(|m| m.get("name").is_none()));
}

/// Gemini refuses schema keywords outside its subset; other servers get the schema whole.
#[test]
fn tool_schemas_keep_to_what_gemini_reads() {
    let mut r = request();
    r.tools[0].input_schema = json!({"type": "object", "additionalProperties": false,
        "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let google = OpenAiOptions { gemini: true, ..OpenAiOptions::default() };
    assert_eq!(
        request_body("gemini-flash-latest", &r, &google)["tools"][0]["function"]["parameters"],
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    );
    let other = request_body("m", &r, &OpenAiOptions::default());
    assert_eq!(other["tools"][0]["function"]["parameters"]["additionalProperties"], false);
}

/// Mistral refuses `stream_options` (HTTP 422, "Extra inputs are not permitted") and any tool
/// call id that is not nine letters and digits (HTTP 400): the body has no `stream_options`,
/// and each call goes by an id Mistral takes, the same in the call and its result, while an id
/// Mistral made itself goes back as it came.
#[test]
fn mistral_gets_no_stream_options_and_ids_it_takes() {
    let mut r = request();
    r.messages.push(Message::user("and dogs?"));
    r.messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::tool_use("D681PevKs", "search", json!({"q": "dogs"}))],
    });
    r.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult {
            tool_use_id: "D681PevKs".into(),
            content: "dogs.md".into(),
            is_error: false,
        }],
    });
    let mistral = OpenAiOptions { mistral: true, ..OpenAiOptions::default() };
    let body = request_body("mistral-medium-latest", &r, &mistral);
    assert!(body.get("stream_options").is_none());
    assert_eq!(body["max_tokens"], 1000);
    let messages = body["messages"].as_array().unwrap();
    let calls: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let results: Vec<&str> =
        messages.iter().filter(|m| m["role"] == "tool").map(|m| m["tool_call_id"].as_str().unwrap()).collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls, results, "each result answers its call by the same id");
    assert!(calls.iter().all(|id| id.len() == 9 && id.chars().all(|c| c.is_ascii_alphanumeric())), "{calls:?}");
    assert_ne!(calls[0], calls[1]);
    assert_eq!(calls[2], "D681PevKs", "Mistral's own id is kept");
    // The same history gives the same ids (a retried request is the same request).
    assert_eq!(request_body("mistral-medium-latest", &r, &mistral), body);
    // Results name their tool, as Mistral's documentation shows them.
    assert_eq!(messages.iter().find(|m| m["role"] == "tool").unwrap()["name"], "search");
    // "and this picture" followed the results in the same user message: Mistral gets an
    // assistant message between them, and only there.
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "assistant", "user", "assistant", "user", "assistant", "tool"]
    );
    assert_eq!(messages[5]["content"], MISTRAL_BRIDGE);
    // A Mistral model on another server (vLLM with Mistral's tokenizer, NVIDIA NIM) keeps to
    // the same ids and order of roles, and is asked for usage.
    let served = request_body("mistralai/Mistral-Small-3.2-24B-Instruct-2506", &r, &OpenAiOptions::default());
    assert_eq!(served["messages"].as_array().unwrap().len(), messages.len());
    assert_eq!(served["messages"][2]["tool_calls"][0]["id"], messages[2]["tool_calls"][0]["id"]);
    assert!(served.get("stream_options").is_some());
    // Other servers and models keep the ids and get usage asked for.
    let other = request_body("m", &r, &OpenAiOptions::default());
    assert_eq!(other["messages"][2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(other["stream_options"], json!({"include_usage": true}));
}

/// Magistral streams `content` as a list of chunks: its thinking, then the answer's text.
#[test]
fn content_as_a_list_of_thinking_and_text_chunks() {
    let mut d = OpenAiDecoder::new();
    let chunk = |content: Value| json!({"choices": [{"index": 0, "delta": {"content": content}}]}).to_string();
    let mut events =
        d.decode("", &chunk(json!([{"type": "thinking", "thinking": [{"type": "text", "text": "The user greets"}]}])));
    events.extend(d.decode("", &chunk(json!([{"type": "thinking", "thinking": [{"type": "text", "text": " me."}]}]))));
    events.extend(d.decode("", &chunk(json!([{"type": "text", "text": "Hello"}]))));
    events.extend(d.decode("", &chunk(json!("!"))));
    assert_eq!(
        events,
        vec![
            StreamEvent::ThinkingDelta { text: "The user greets".into() },
            StreamEvent::ThinkingDelta { text: " me.".into() },
            StreamEvent::TextDelta { text: "Hello".into() },
            StreamEvent::TextDelta { text: "!".into() },
        ]
    );
}

/// A thinking budget reaches OpenRouter as `reasoning.max_tokens`, on top of the answer's
/// length and without a temperature (as Anthropic's API is asked); other compatible servers
/// get neither.
#[test]
fn a_thinking_budget_goes_to_openrouter_as_reasoning_and_to_openai_and_gemini_as_an_effort() {
    let mut r = request();
    r.thinking_budget = Some(4000);
    r.temperature = Some(0.3);
    let openrouter = OpenAiOptions { reasoning_details: true, ..OpenAiOptions::default() };
    let body = request_body("anthropic/claude-sonnet-4.5", &r, &openrouter);
    assert_eq!(body["reasoning"], json!({"max_tokens": 4000}));
    assert_eq!(body["max_tokens"], 5000);
    assert!(body.get("temperature").is_none());
    let other = request_body("m", &r, &OpenAiOptions::default());
    assert!(other.get("reasoning").is_none() && other.get("reasoning_effort").is_none());
    assert_eq!((other["max_tokens"].as_u64(), other["temperature"].as_f64()), (Some(1000), Some(0.3)));
    // OpenAI's API and Gemini's take the effort the budget comes nearest.
    let openai = OpenAiOptions { max_completion_tokens: true, ..OpenAiOptions::default() };
    let body = request_body("gpt-5-mini", &r, &openai);
    assert_eq!((body["reasoning_effort"].as_str(), body["max_completion_tokens"].as_u64()), (Some("low"), Some(5000)));
    assert!(body.get("temperature").is_none());
    // At the model's own effort: room for its reasoning, and no temperature (it takes none).
    r.thinking_budget = None;
    let body = request_body("gpt-5-mini", &r, &openai);
    assert_eq!(body["max_completion_tokens"], 1000 + 16_384);
    assert!(body.get("temperature").is_none() && body.get("reasoning_effort").is_none());
    assert_eq!(request_body("gpt-4.1", &r, &openai)["max_completion_tokens"], 1000, "not a reasoning model");
    let google = OpenAiOptions { gemini: true, ..OpenAiOptions::default() };
    for (budget, effort) in [(1024, "low"), (8192, "medium"), (24576, "high")] {
        r.thinking_budget = Some(budget);
        assert_eq!(request_body("gemini-2.5-flash", &r, &google)["reasoning_effort"], effort);
    }
}

/// DeepSeek reports the cached part of the prompt as `prompt_cache_hit_tokens`.
#[test]
fn deepseek_s_cache_hits_are_cache_reads() {
    let mut d = OpenAiDecoder::new();
    let events = d.decode(
        "",
        &json!({"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020,
            "prompt_cache_hit_tokens": 768, "prompt_cache_miss_tokens": 232}})
        .to_string(),
    );
    assert_eq!(
        events,
        vec![StreamEvent::Usage {
            usage: Usage { input_tokens: 232, output_tokens: 20, cache_read_tokens: 768, cache_write_tokens: 0 }
        }]
    );
}

/// Groq reports usage in `x_groq`, in its last chunk.
#[test]
fn groq_s_usage_is_read_from_x_groq() {
    let mut d = OpenAiDecoder::new();
    let events = d.decode(
        "",
        &json!({"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "x_groq": {"id": "req_1", "usage": {"queue_time": 0.02, "prompt_tokens": 300, "prompt_time": 0.01,
                "completion_tokens": 12, "completion_time": 0.02, "total_tokens": 312, "total_time": 0.03}}})
        .to_string(),
    );
    let usage = events.iter().find_map(|e| match e {
        StreamEvent::Usage { usage } => Some(*usage),
        _ => None,
    });
    assert_eq!(
        usage,
        Some(Usage { input_tokens: 300, output_tokens: 12, cache_read_tokens: 0, cache_write_tokens: 0 })
    );
}

/// A reasoning model served without a reasoning parser thinks in its content, between
/// `<think>` tags: that part is thinking, before its tool call and its answer.
#[test]
fn a_think_block_in_the_content_is_thinking() {
    let mut d = OpenAiDecoder::new();
    let chunk = |delta: Value| json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]}).to_string();
    let mut events = Vec::new();
    for piece in ["<thi", "nk>\nSearch ", "first.</th", "ink>\n\n"] {
        events.extend(d.decode("", &chunk(json!({"content": piece}))));
    }
    events.extend(d.decode(
        "",
        &chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "search_notes", "arguments": "{}"}}]}),
        ),
    ));
    events.extend(d.decode("", "[DONE]"));
    let thinking: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ThinkingDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "\nSearch first.");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::TextDelta { .. })), "{events:?}");
    let start = events.iter().position(|e| matches!(e, StreamEvent::ToolCallStart { .. })).unwrap();
    let last_thought = events.iter().rposition(|e| matches!(e, StreamEvent::ThinkingDelta { .. })).unwrap();
    assert!(last_thought < start);
}

/// A chat that moved from OpenAI's Responses API to OpenRouter: OpenRouter gets its own
/// reasoning entries back, not the Responses API's `reasoning` items.
#[test]
fn openrouter_gets_back_its_own_reasoning_details_only() {
    let mut r = request();
    r.messages.push(Message {
        role: Role::Assistant,
        content: vec![
            ContentBlock::text("Done."),
            ContentBlock::ReasoningDetails {
                details: json!([{"type": "reasoning", "summary": [], "encrypted_content": "enc"},
                    {"type": "reasoning.encrypted", "data": "or-data", "index": 0}]),
            },
        ],
    });
    let openrouter = OpenAiOptions { reasoning_details: true, ..OpenAiOptions::default() };
    let body = request_body("openai/gpt-5", &r, &openrouter);
    let assistant = body["messages"].as_array().unwrap().iter().rfind(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["reasoning_details"], json!([{"type": "reasoning.encrypted", "data": "or-data", "index": 0}]));
}
