//! A conversation across tasks: attached notes, and retrying the last request.

use vault_agent::agent::{AgentConfig, Conversation, ATTACHMENTS_OPEN, ATTACHMENT_CHARS, FOLDER_CHARS, FOLDER_NOTES};
use vault_agent::protocol::{ContentBlock, EndReason, ErrorKind, Role};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, p, Harness};

/// A conversation without the end-of-task memory extraction, so the scripts here are the
/// tasks' own calls (the extraction has its own tests in `memory.rs`).
fn conversation(h: &Harness) -> Conversation {
    let config = AgentConfig { memory_extraction: false, ..AgentConfig::default() };
    Conversation::new(config, h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone())
}

fn vault_with(files: &[(&str, &str)]) -> MemoryVault {
    let vault = MemoryVault::new();
    for (path, text) in files {
        block_on(vault.write(&p(path), text)).unwrap();
    }
    vault
}

#[test]
fn attached_notes_reach_the_model_after_the_message() {
    let long = "y".repeat(ATTACHMENT_CHARS + 10);
    let h = Harness::new(
        vault_with(&[("Cooking/Bread.md", "# Bread\nSourdough"), ("Long.md", &long)]),
        [Turn::text("Noted.")],
    );
    let chat = conversation(&h);
    let report =
        block_on(chat.send_with_attachments("Summarise these", &["Cooking/Bread.md".into(), "Long.md".into()]))
            .unwrap();
    assert_eq!(report.end, EndReason::Answered);
    let sent = h.provider.requests()[0].messages[0].text();
    assert!(
        sent.starts_with(&format!(
            "Summarise these\n\n{ATTACHMENTS_OPEN}\n<note path=\"Cooking/Bread.md\">\n# Bread\nSourdough\n</note>"
        )),
        "{sent}"
    );
    assert!(sent.contains(&format!("[… cut at {ATTACHMENT_CHARS} characters; read_file has the rest]")));
    assert!(sent.ends_with("</attached_notes>"));
}

#[test]
fn an_attached_folder_brings_its_visible_notes_in_order_and_names_those_past_its_limits() {
    let big = "z".repeat(FOLDER_CHARS / 2);
    let mut files: Vec<(String, String)> = [
        ("Trips/Oslo.md", "# Oslo"),
        ("Trips/Japan/Kyoto.md", "# Kyoto"),
        ("Trips/.drafts/Secret.md", "# Hidden"),
        ("Trips/map.png", "not a note"),
        ("Trip list.md", "# Outside the folder"),
        ("Big/a.md", &big),
        ("Big/b.md", &big),
        ("Big/c.md", &big),
    ]
    .map(|(path, text)| (path.to_string(), text.to_string()))
    .into();
    files.extend((0..FOLDER_NOTES + 3).map(|i| (format!("Many/{i:03}.md"), format!("# {i}"))));
    let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    let h = Harness::new(vault_with(&files), [Turn::text("One."), Turn::text("Two."), Turn::text("Three.")]);
    let chat = conversation(&h);
    block_on(chat.send_with_attachments("Sum up my trips", &["Trips/".into()])).unwrap();
    let sent = h.provider.requests()[0].messages[0].text();
    let expected = "<folder path=\"Trips/\">\n<note path=\"Trips/Japan/Kyoto.md\">\n# Kyoto\n</note>\n\
                    <note path=\"Trips/Oslo.md\">\n# Oslo\n</note>\n</folder>\n</attached_notes>";
    assert!(sent.ends_with(expected), "{sent}");
    assert_eq!(vault_agent::agent::split_request(&sent).1, ["Trips/"]);

    // The notes past the characters' limit, and past the count, are named for read_file.
    block_on(chat.send_with_attachments("And these", &["Big/".into()])).unwrap();
    let sent = h.provider.requests()[1].messages.last().unwrap().text();
    assert_eq!(sent.matches("<note path=").count(), 2, "{}", &sent[..200]);
    assert!(sent.contains("[1 more note of this folder not attached; read_file reads them: Big/c.md]"));
    block_on(chat.send_with_attachments("And these", &["Many/".into()])).unwrap();
    let sent = h.provider.requests()[2].messages.last().unwrap().text();
    assert_eq!(sent.matches("<note path=").count(), FOLDER_NOTES);
    assert!(
        sent.contains(
            "[3 more notes of this folder not attached; read_file reads them: Many/050.md, Many/051.md, Many/052.md]"
        ),
        "{sent}"
    );

    // No folder, an empty one, a hidden one or the vault itself: stopped before the task.
    for (folder, why) in [("Nowhere/", "not found"), ("Trips/.drafts/", "not found"), ("/", "empty")] {
        let refused = block_on(chat.send_with_attachments("x", &[folder.into()])).unwrap_err();
        assert!(refused.to_string().to_lowercase().contains(why), "{folder}: {refused}");
    }
    block_on(h.vault.mkdir(&p("Empty"))).unwrap();
    let empty = block_on(chat.send_with_attachments("x", &["Empty/".into()])).unwrap_err();
    assert_eq!(empty.to_string(), "invalid input: Empty/ holds no notes to attach");
    assert_eq!(h.provider.requests().len(), 3);
}

#[test]
fn an_attachment_that_cannot_be_read_stops_before_the_task() {
    let h = Harness::new(vault_with(&[(".obsidian/app.json", "{}")]), [Turn::text("never")]);
    let chat = conversation(&h);
    assert!(block_on(chat.send_with_attachments("x", &["Missing.md".into()])).unwrap_err().is_not_found());
    assert!(block_on(chat.send_with_attachments("x", &[".obsidian/app.json".into()])).unwrap_err().is_not_found());
    assert!(block_on(chat.send_with_attachments("x", &["../out.md".into()])).is_err());
    assert!(h.provider.requests().is_empty());
    assert!(chat.history().is_empty());
}

#[test]
fn retry_runs_the_failed_request_again_without_the_failed_attempt() {
    let h = Harness::new(
        MemoryVault::new(),
        [Turn::text("First answer."), Turn::fail(ErrorKind::Auth, "invalid key"), Turn::text("Second answer.")],
    );
    let chat = conversation(&h);
    block_on(chat.send("one")).unwrap();
    let failed = block_on(chat.send("two")).unwrap();
    assert!(matches!(failed.end, EndReason::Failed { kind: Some(ErrorKind::Auth), .. }), "{:?}", failed.end);
    let retried = block_on(chat.retry_last()).unwrap();
    assert_eq!(retried.end, EndReason::Answered);
    let texts: Vec<(Role, String)> = chat.history().iter().map(|m| (m.role, m.text())).collect();
    assert_eq!(
        texts,
        [
            (Role::User, "one".to_string()),
            (Role::Assistant, "First answer.".to_string()),
            (Role::User, "two".to_string()),
            (Role::Assistant, "Second answer.".to_string()),
        ]
    );
    // The third request carried the history without the failed attempt.
    assert_eq!(h.provider.requests()[2].messages.len(), 3);
}

#[test]
fn a_restored_conversation_retries_its_last_request() {
    let h = Harness::new(MemoryVault::new(), [Turn::text("Answer.")]);
    let history = vec![
        vault_agent::protocol::Message::user("restored question"),
        vault_agent::protocol::Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult { tool_use_id: "x".into(), content: "r".into(), is_error: false }],
        },
    ];
    let chat = conversation(&h).with_history(history);
    block_on(chat.retry_last()).unwrap();
    assert_eq!(h.provider.requests()[0].messages[0].text(), "restored question");
    assert_eq!(chat.history().len(), 2);
    let empty = conversation(&Harness::new(MemoryVault::new(), []));
    assert!(block_on(empty.retry_last()).is_err());
}

#[test]
fn an_edited_request_replaces_the_last_one_and_what_followed_it() {
    let h = Harness::new(
        vault_with(&[("Cooking/Bread.md", "# Bread\nSourdough")]),
        [Turn::text("First answer."), Turn::text("Answer to the wrong question."), Turn::text("Answer to the edit.")],
    );
    let chat = conversation(&h);
    block_on(chat.send("one")).unwrap();
    block_on(chat.send("two, with a typo")).unwrap();
    // An attachment that cannot be read leaves the conversation as it was.
    assert!(block_on(chat.edit_last("two", &["Missing.md".into()])).is_err());
    assert_eq!(chat.history().len(), 4);
    let report = block_on(chat.edit_last("two", &["Cooking/Bread.md".into()])).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    let texts: Vec<String> = chat.history().iter().map(|m| m.text()).collect();
    assert_eq!(texts.len(), 4);
    assert_eq!(texts[..2], ["one".to_string(), "First answer.".to_string()]);
    assert!(texts[2].starts_with("two\n\n<attached_notes>"), "{}", texts[2]);
    assert_eq!(texts[3], "Answer to the edit.");
    assert!(!h.provider.requests()[2].messages.iter().any(|m| m.text().contains("typo")));
}
