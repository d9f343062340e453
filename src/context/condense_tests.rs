use serde_json::json;

use super::*;
use crate::protocol::{ToolChoice, ToolSpec};

fn turn(i: usize, size: usize) -> [Message; 2] {
    [
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: format!("c{i}"),
                name: "read_file".into(),
                input: json!({"path": format!("n{i}.md")}),
                signature: None,
            }],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult {
                tool_use_id: format!("c{i}"),
                content: format!("line one of n{i}\n{}", "x".repeat(size)),
                is_error: i == 1,
            }],
        },
    ]
}

fn history(turns: usize) -> Vec<Message> {
    let mut messages = vec![Message::user("merge my notes")];
    for i in 0..turns {
        messages.extend(turn(i, 2_000));
    }
    messages
}

#[test]
fn the_cut_keeps_recent_turns_whole_and_starts_with_an_assistant_message() {
    let messages = history(6);
    let cut = split_point(&messages, 0).unwrap();
    assert_eq!(messages[cut].role, Role::Assistant);
    assert!(messages.len() - cut >= MIN_KEPT);
    // A larger budget keeps more, still cutting before an assistant message.
    let wide = split_point(&messages, 2_000).unwrap();
    assert!(wide < cut && messages[wide].role == Role::Assistant);
    // Too little history: nothing to condense.
    assert_eq!(split_point(&history(1), 0), None);
}

#[test]
fn the_summary_request_disables_tools_and_asks_for_the_sections() {
    let base = ModelRequest {
        system: vec![],
        messages: vec![],
        tools: vec![ToolSpec { name: "read_file".into(), description: "d".into(), input_schema: json!({}) }],
        max_tokens: 4_000,
        thinking_budget: Some(2_000),
        temperature: None,
        tool_choice: ToolChoice::Auto,
        model: None,
    };
    let older = &history(4)[..5];
    let request = summary_request(&base, older);
    assert_eq!(request.tool_choice, ToolChoice::None);
    assert_eq!(request.tools.len(), 1);
    assert_eq!(request.thinking_budget, None);
    let last = request.messages.last().unwrap();
    assert_eq!(last.role, Role::User);
    let ask = last.text();
    for section in SUMMARY_SECTIONS {
        assert!(ask.contains(&format!("## {section}")), "{ask}");
    }
    assert!(matches!(last.content[0], ContentBlock::ToolResult { .. }), "the last results stay first");
}

#[test]
fn the_ledger_lists_every_call_with_its_outcome() {
    let messages = history(3);
    let ledger = tool_ledger(&messages);
    let lines: Vec<&str> = ledger.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "- read_file {\"path\":\"n0.md\"} → ok: line one of n0");
    assert!(lines[1].ends_with("→ failed: line one of n1"));
    let condensed = condensed("## User goal\nmerge", &ledger, &messages[5..]);
    assert_eq!(condensed.len(), 3);
    assert!(condensed[0].text().starts_with(SUMMARY_MARKER));
    assert!(condensed[0].text().contains("## Tool-call ledger"));
    assert_eq!(condensed[1].role, Role::Assistant);
}
