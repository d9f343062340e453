use serde_json::json;

use super::*;

fn call(id: &str) -> ContentBlock {
    ContentBlock::tool_use(id, "read_file", json!({"path": "a.md"}))
}

fn result(id: &str) -> ContentBlock {
    ContentBlock::ToolResult { tool_use_id: id.into(), content: format!("result {id}"), is_error: false }
}

fn assistant(blocks: Vec<ContentBlock>) -> Message {
    Message { role: Role::Assistant, content: blocks }
}

fn user(blocks: Vec<ContentBlock>) -> Message {
    Message { role: Role::User, content: blocks }
}

/// Every call answered in the next message, every result answering the message before, roles
/// alternating, user first.
fn assert_well_formed(messages: &[Message]) {
    assert_eq!(messages[0].role, Role::User);
    for pair in messages.windows(2) {
        assert_ne!(pair[0].role, pair[1].role, "roles alternate: {messages:?}");
    }
    for (i, m) in messages.iter().enumerate() {
        let calls: Vec<&str> = m.tool_uses().map(|(id, _, _)| id).collect();
        if !calls.is_empty() {
            let answered: Vec<&str> = result_ids(&messages[i + 1]).collect();
            for id in calls {
                assert!(answered.contains(&id), "call {id} answered: {messages:?}");
            }
        }
        for id in result_ids(m) {
            assert!(messages[i - 1].tool_uses().any(|(c, _, _)| c == id), "result {id} has its call");
        }
    }
}

#[test]
fn a_well_formed_history_is_unchanged() {
    let history = vec![
        Message::user("go"),
        assistant(vec![ContentBlock::text("reading"), call("a"), call("b")]),
        user(vec![result("a"), result("b"), ContentBlock::text("[Step 3 of 5]")]),
        Message::assistant("done"),
    ];
    assert_eq!(sanitize(&history), history);
}

#[test]
fn a_call_without_a_result_gets_an_error_result() {
    let history = vec![Message::user("go"), assistant(vec![call("a"), call("b")]), user(vec![result("a")])];
    let clean = sanitize(&history);
    assert_well_formed(&clean);
    assert_eq!(clean.len(), 3);
    let missing = clean[2].content.iter().find_map(|b| match b {
        ContentBlock::ToolResult { tool_use_id, content, is_error } if tool_use_id == "b" => Some((content, *is_error)),
        _ => None,
    });
    assert_eq!(missing, Some((&MISSING_RESULT.to_string(), true)));

    // A call at the very end (the task was cancelled mid-turn) is answered too.
    let cut = vec![Message::user("go"), assistant(vec![call("z")])];
    let clean = sanitize(&cut);
    assert_well_formed(&clean);
    assert_eq!(clean.last().unwrap().role, Role::User);
}

#[test]
fn orphan_results_empty_messages_and_repeated_roles_are_cleaned() {
    let history = vec![
        assistant(vec![ContentBlock::text("a leading answer from a cut history")]),
        Message::user("go"),
        Message::user("and also this"),
        user(vec![result("ghost")]),
        assistant(vec![]),
        assistant(vec![call("a")]),
        user(vec![ContentBlock::text("note"), result("a"), result("ghost2")]),
    ];
    let clean = sanitize(&history);
    assert_well_formed(&clean);
    assert_eq!(clean.len(), 3);
    assert_eq!(clean[0].text(), "goand also this");
    assert!(matches!(&clean[2].content[0], ContentBlock::ToolResult { tool_use_id, .. } if tool_use_id == "a"));
    assert_eq!(clean[2].content.len(), 2, "the orphan result is gone, the text kept after the result");
}

#[test]
fn media_a_model_cannot_take_become_a_line_saying_so() {
    let image = ContentBlock::Image { media_type: "image/png".into(), data: "iVBOR".into() };
    let document =
        ContentBlock::Document { media_type: "application/pdf".into(), data: "JVBE".into(), name: "a.pdf".into() };
    let history = vec![user(vec![ContentBlock::text("look"), image.clone(), document.clone()])];
    let mut all = history.clone();
    drop_unseen_media(&mut all, MediaSupport::ALL);
    assert_eq!(all, history);
    let mut text_only = history.clone();
    drop_unseen_media(&mut text_only, MediaSupport { images: false, documents: true });
    assert_eq!(text_only[0].content, [ContentBlock::text("look"), ContentBlock::text(UNSEEN_MEDIA), document]);
}
