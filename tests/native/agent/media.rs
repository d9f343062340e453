//! Images and PDFs: attached to a message, or read by `read_file`, they reach the model as it
//! can take them.

use serde_json::json;
use vault_agent::agent::{AgentConfig, Conversation};
use vault_agent::media::MediaSupport;
use vault_agent::protocol::{ContentBlock, EndReason, Role};
use vault_agent::provider::{ScriptedProvider, Turn};
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, p, Harness};

const PNG: &[u8] = include_bytes!("../../fixtures/chart.png");
const PDF: &[u8] = include_bytes!("../../fixtures/report.pdf");

fn vault() -> MemoryVault {
    let vault = MemoryVault::new();
    block_on(vault.write_binary(&p("Charts/q3.png"), PNG)).unwrap();
    block_on(vault.write_binary(&p("Reports/q3.pdf"), PDF)).unwrap();
    block_on(vault.write(&p("Notes.md"), "# Notes\nSee the chart.")).unwrap();
    vault
}

/// A harness whose scripted model takes what `media` says.
fn harness(media: MediaSupport, turns: impl IntoIterator<Item = Turn>) -> Harness {
    Harness { provider: std::rc::Rc::new(ScriptedProvider::new(turns).with_media(media)), ..Harness::new(vault(), []) }
}

fn conversation(h: &Harness) -> Conversation {
    let config = AgentConfig { memory_extraction: false, ..AgentConfig::default() };
    Conversation::new(config, h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone())
}

const TEXT_ONLY: MediaSupport = MediaSupport { images: false, documents: false };

#[test]
fn an_attached_image_and_pdf_follow_the_message_as_blocks() {
    let h = harness(MediaSupport::ALL, [Turn::text("A bar chart.")]);
    let chat = conversation(&h);
    let paths = ["Charts/q3.png".to_string(), "Reports/q3.pdf".to_string(), "Notes.md".to_string()];
    let report = block_on(chat.send_with_attachments("What does this show?", &paths)).unwrap();
    assert_eq!(report.end, EndReason::Answered);
    let message = &h.provider.requests()[0].messages[0];
    let text = message.text();
    assert!(text.contains("<note path=\"Charts/q3.png\">\n[An image: it follows this text.]\n</note>"), "{text}");
    assert!(text.contains("<note path=\"Reports/q3.pdf\">\n[A PDF: the document follows this text.]"), "{text}");
    assert!(text.contains("<note path=\"Notes.md\">\n# Notes"), "{text}");
    let media: Vec<&ContentBlock> = message.content.iter().skip(1).collect();
    assert!(
        matches!(media[0], ContentBlock::Image { media_type, data } if media_type == "image/png" && data.starts_with("iVBORw0KGgo"))
    );
    assert!(
        matches!(media[1], ContentBlock::Document { name, media_type, .. } if name == "q3.pdf" && media_type == "application/pdf")
    );
    assert_eq!(media.len(), 2);
    // The request, and so the retry, keeps the media.
    assert_eq!(chat.history()[0].content.len(), 3);
}

#[test]
fn a_model_that_cannot_take_media_is_told_what_it_misses_and_gets_the_pdf_text() {
    let h = harness(TEXT_ONLY, [Turn::text("I cannot see it.")]);
    let chat = conversation(&h);
    let paths = ["Charts/q3.png".to_string(), "Reports/q3.pdf".to_string()];
    block_on(chat.send_with_attachments("Summarise", &paths)).unwrap();
    let message = &h.provider.requests()[0].messages[0];
    assert_eq!(message.content.len(), 1, "no image or document block: {message:?}");
    let text = message.text();
    assert!(text.contains("[An image; not shown, because this model cannot see images.]"), "{text}");
    assert!(text.contains("--- page 2 ---\nThe Kyoto office opens in March."), "{text}");
}

#[test]
fn read_file_on_an_image_gives_the_model_the_image_after_the_results() {
    let h = harness(
        MediaSupport::ALL,
        [
            Turn::tools([("read_file", json!({"path": "Charts/q3.png"})), ("read_file", json!({"path": "Notes.md"}))]),
            Turn::text("Blue beats red."),
        ],
    );
    let report = block_on(h.task(AgentConfig::default()).run("Look at the chart"));
    assert_eq!(report.end, EndReason::Answered);
    let second = &h.provider.requests()[1];
    let results = second.messages.last().unwrap();
    assert_eq!(results.role, Role::User);
    let kinds: Vec<&str> = results
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::ToolResult { .. } => "result",
            ContentBlock::Image { .. } => "image",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["result", "result", "image"]);
    let ContentBlock::ToolResult { content, is_error, .. } = &results.content[0] else { unreachable!() };
    assert!(!is_error);
    assert!(content.contains("Charts/q3.png: [An image: it follows this text.]"), "{content}");
}

#[test]
fn images_in_a_chat_begun_with_another_model_are_not_sent_to_one_that_cannot_see() {
    let h = harness(TEXT_ONLY, [Turn::text("Noted.")]);
    let earlier = vec![
        vault_agent::protocol::Message {
            role: Role::User,
            content: vec![
                ContentBlock::text("Look"),
                ContentBlock::Image { media_type: "image/png".into(), data: "iVBOR".into() },
            ],
        },
        vault_agent::protocol::Message::assistant("A chart."),
    ];
    let chat = conversation(&h).with_history(earlier);
    block_on(chat.send("And now?")).unwrap();
    let sent = &h.provider.requests()[0].messages[0];
    assert!(sent.content.iter().all(|b| !matches!(b, ContentBlock::Image { .. })), "{sent:?}");
    assert!(sent.text().contains("this model cannot take it"));
    // The chat's own history keeps the image for a model that can.
    assert!(matches!(chat.history()[0].content[1], ContentBlock::Image { .. }));
}
