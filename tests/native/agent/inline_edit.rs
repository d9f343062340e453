//! The editor's inline edit: one model turn rewrites the selection, and the rewrite is a note
//! write through the pipeline — approved on the diff, checkpointed, undone like a task.

use std::rc::Rc;

use futures::FutureExt;
use vault_agent::agent::{AgentConfig, InlineEdit, InlineEditOutcome, InlineEditRequest};
use vault_agent::pipeline::{list_checkpoints, undo_task};
use vault_agent::protocol::{AgentEvent, ApprovalDecision, ChangePreview, DiffRowKind};
use vault_agent::provider::Turn;
use vault_agent::vault::{MemoryVault, Vault};

use super::support::{block_on, last_user_text, p, Harness};

const NOTE: &str = "# Bread\n\nBake at 230 °C until golden.\nCool for an hour.\n";

fn harness(answer: &str) -> Harness {
    Harness::new(MemoryVault::with_notes([("Bread.md", NOTE)]).unwrap(), [Turn::text(answer)])
}

fn edit(h: &Harness) -> InlineEdit {
    InlineEdit::new(AgentConfig::default(), h.provider.clone(), h.vault.clone(), h.clock.clone(), h.host.clone())
}

/// The selection "Bake at 230 °C until golden." as the editor counts (UTF-16 units).
fn request() -> InlineEditRequest {
    let from = NOTE.find("Bake").unwrap();
    let to = NOTE.find("\nCool").unwrap();
    // The note is ASCII up to "°", which is one UTF-16 unit and two bytes.
    InlineEditRequest {
        path: "Bread.md".into(),
        from,
        to: to - 1,
        selection: "Bake at 230 °C until golden.".into(),
        instruction: "make it 250 °C for 40 minutes".into(),
    }
}

fn read(h: &Harness) -> String {
    block_on(h.vault.read(&p("Bread.md"))).unwrap()
}

#[test]
fn an_accepted_edit_replaces_the_selection_is_checkpointed_and_undone() {
    let h = harness("Bake at 250 °C for 40 minutes.");
    let report = block_on(edit(&h).run(&request())).unwrap();

    assert_eq!(report.outcome, InlineEditOutcome::Applied, "{}", report.message);
    assert_eq!(read(&h), "# Bread\n\nBake at 250 °C for 40 minutes.\nCool for an hour.\n");
    // One focused request: the selection, its context and the instruction; no tools.
    let requests = h.provider.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].tools.is_empty());
    let asked = last_user_text(&requests[0]);
    assert!(asked.contains("<selection>Bake at 230 °C until golden.</selection>"), "{asked}");
    assert!(asked.contains("<before_selection># Bread\n\n</before_selection>"), "{asked}");
    assert!(asked.contains("make it 250 °C for 40 minutes"), "{asked}");
    assert!(requests[0].system[0].text.contains("replacement for the selected passage only"));
    // The approval is the note write's, with the word diff the inline view shows.
    let events = h.host.events();
    let approval = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ApprovalRequired { request } => Some(request.clone()),
            _ => None,
        })
        .expect("the write asks for approval");
    let Some(ChangePreview::Write { rows, old, .. }) = approval.preview else { panic!("a write preview") };
    assert_eq!(old.as_deref(), Some(NOTE));
    let removed = rows.iter().find(|r| r.kind == DiffRowKind::Removed).unwrap();
    let struck: Vec<&str> = removed.parts.iter().filter(|p| p.changed).map(|p| p.text.as_str()).collect();
    assert!(struck.concat().contains("230"), "{struck:?}");
    // Checkpointed under the report's task, which undo reverts.
    let tasks = block_on(list_checkpoints(&*h.vault)).unwrap();
    assert!(tasks.iter().any(|t| t.task_id == report.task_id), "a checkpoint for {}", report.task_id);
    block_on(undo_task(h.vault.clone(), &report.task_id, 1)).unwrap();
    assert_eq!(read(&h), NOTE);
}

#[test]
fn a_rejected_edit_writes_nothing() {
    let h = harness("Bake at 250 °C.");
    h.host.deciding(|_| ApprovalDecision::Deny);
    let report = block_on(edit(&h).run(&request())).unwrap();

    assert_eq!(report.outcome, InlineEditOutcome::Rejected);
    assert_eq!(report.replacement.as_deref(), Some("Bake at 250 °C."));
    assert_eq!(read(&h), NOTE);
    assert!(block_on(list_checkpoints(&*h.vault)).unwrap().iter().all(|t| t.task_id != report.task_id));
}

#[test]
fn a_note_changed_while_the_diff_was_shown_is_a_conflict_and_keeps_the_users_text() {
    let h = harness("Bake at 250 °C.");
    let typed = "# Bread\n\nBake at 230 °C until golden, then rest.\nCool for an hour.\n";
    let vault: Rc<dyn Vault> = h.vault.clone();
    h.host.on_event(move |event| {
        if let AgentEvent::ApprovalRequired { .. } = event {
            vault.write(&p("Bread.md"), typed).now_or_never().unwrap().unwrap();
        }
    });
    let report = block_on(edit(&h).run(&request())).unwrap();

    assert_eq!(report.outcome, InlineEditOutcome::Conflict, "{}", report.message);
    assert!(report.message.contains("changed while the edit was shown"), "{}", report.message);
    assert_eq!(read(&h), typed);
}

#[test]
fn a_selection_the_note_no_longer_holds_is_a_conflict_before_asking() {
    let h = harness("Bake at 250 °C.");
    // Typed in the editor after selecting, and saved: the note holds other text there.
    let typed = "# Bread\n\nBake at 200 °C until golden.\nCool for an hour.\n";
    block_on(h.vault.write(&p("Bread.md"), typed)).unwrap();
    let report = block_on(edit(&h).run(&request())).unwrap();
    assert_eq!(report.outcome, InlineEditOutcome::Conflict, "{}", report.message);
    assert!(h.provider.requests().is_empty(), "the model is not asked");
    assert!(!h.host.events().iter().any(|e| matches!(e, AgentEvent::ApprovalRequired { .. })));
    assert_eq!(read(&h), typed);
}

#[test]
fn a_range_outside_the_note_is_refused() {
    let h = harness("unused");
    let mut asked = request();
    asked.to = 10_000;
    assert!(block_on(edit(&h).run(&asked)).is_err());
    assert!(h.provider.requests().is_empty());
}
