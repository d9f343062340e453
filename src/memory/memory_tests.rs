use super::*;

fn store_of(facts: &[&str]) -> MemoryStore {
    let mut store = MemoryStore::default();
    for (i, fact) in facts.iter().enumerate() {
        store.add(MemoryKind::Fact, fact, i as u64 + 1, None).unwrap();
    }
    store
}

#[test]
fn entries_get_stable_ids_and_are_not_added_twice() {
    let mut store = store_of(&["Projects live in Projects/.", "The user gardens."]);
    assert_eq!(store.entries().iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["m1", "m2"]);
    assert_eq!(store.add(MemoryKind::Fact, "  the user   GARDENS. ", 9, None).unwrap(), "m2", "the same text");
    assert_eq!(store.entries().len(), 2);
    store.delete("m1").unwrap();
    assert_eq!(store.add(MemoryKind::Preference, "Dates as YYYY-MM-DD.", 10, Some("t9")).unwrap(), "m3");
    let added = store.get("m3").unwrap();
    assert_eq!((added.kind, added.created_ms, added.task_id.as_deref()), (MemoryKind::Preference, 10, Some("t9")));
}

#[test]
fn edit_delete_and_forget_all() {
    let mut store = store_of(&["one", "two"]);
    store.edit("m2", MemoryKind::Preference, "two,\nedited").unwrap();
    assert_eq!(store.get("m2").unwrap().text, "two, edited", "one line");
    assert_eq!(store.get("m2").unwrap().kind, MemoryKind::Preference);
    assert!(store.edit("m7", MemoryKind::Fact, "x").unwrap_err().is_not_found());
    assert!(store.edit("m1", MemoryKind::Fact, "  ").is_err(), "empty text is refused");
    assert_eq!(store.delete("m1").unwrap().text, "one");
    assert!(store.delete("m1").unwrap_err().is_not_found());
    store.forget_all();
    assert!(store.entries().is_empty());
    assert!(store.add(MemoryKind::Fact, &"x".repeat(501), 0, None).is_err(), "too long");
}

#[test]
fn the_answer_of_a_memory_call_parses_into_facts_and_preferences() {
    let parsed = parse_memories(
        "Here is what I found:\n- The user's garden notes are in Notes/.\n  - Preference: answers in French\n\
         - fact: Projects are tagged #project\n- \nNONE",
    );
    assert_eq!(
        parsed,
        [
            (MemoryKind::Fact, "The user's garden notes are in Notes/.".to_string()),
            (MemoryKind::Preference, "answers in French".to_string()),
            (MemoryKind::Fact, "Projects are tagged #project".to_string()),
        ]
    );
    assert!(parse_memories("NONE").is_empty());
}

#[test]
fn a_small_memory_is_recalled_whole_with_the_relevant_entries_first() {
    let store = store_of(&["The user gardens.", "Recipes are in Kitchen/.", "The user's cat is called Miso."]);
    let chosen = recall(store.entries(), "add a recipe for soup", MEMORY_TOKENS);
    let texts: Vec<&str> = chosen.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["Recipes are in Kitchen/.", "The user's cat is called Miso.", "The user gardens."]);
}

#[test]
fn past_the_budget_only_matching_entries_and_preferences_are_recalled() {
    let mut facts: Vec<String> =
        (0..200).map(|i| format!("Project number {i} notes live in the folder Area{i}/.")).collect();
    facts.push("The user's beekeeping log is kept in Hives/Log.md.".into());
    let refs: Vec<&str> = facts.iter().map(String::as_str).collect();
    let mut store = store_of(&refs);
    store.add(MemoryKind::Preference, "Write dates as YYYY-MM-DD.", 1_000, None).unwrap();
    let chosen = recall(store.entries(), "Summarise my beekeeping notes", 100);
    let texts: Vec<&str> = chosen.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["The user's beekeeping log is kept in Hives/Log.md.", "Write dates as YYYY-MM-DD."]);
    // "notes" is in most entries: it tells none apart and matches nothing.
    let rendered = render(&chosen);
    assert_eq!(
        rendered,
        "- The user's beekeeping log is kept in Hives/Log.md.\n- Preference: Write dates as YYYY-MM-DD."
    );

    // Many matches: the budget holds, the best matches first.
    let chosen = recall(store.entries(), "project 7", 30);
    let used: usize = chosen.iter().map(|e| render(&[e]).chars().count().div_ceil(4)).sum();
    assert!(used <= 30 && !chosen.is_empty(), "{used}");
    assert_eq!(chosen[0].text, "Project number 7 notes live in the folder Area7/.");
}
