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

fn recipe_store(requests: &[&str]) -> RecipeStore {
    let mut store = RecipeStore::default();
    for (i, request) in requests.iter().enumerate() {
        let steps = vec![RecipeStep::new(&format!("tool_{i}"), &serde_json::json!({}))];
        store.learn(request, None, steps, &format!("t{i}"), 0);
    }
    store
}

#[test]
fn a_request_matches_a_recipe_of_its_kind_and_never_an_unrelated_one() {
    let store = recipe_store(&[
        "Research how Canvas, Graph view and Backlinks work in Obsidian and write a summary note.",
        "Summarise my meeting notes from Monday into the weekly review",
        "Tag every note in Inbox/ with #todo",
        "Delete the empty notes in Archive/",
    ]);
    let found = |request: &str| store.find(request, None).map(|r| r.id.clone());
    // The same request, and the same kind with other details.
    assert_eq!(
        found("Research how Canvas, Graph view and Backlinks work in Obsidian and write a summary note."),
        Some("r1".into())
    );
    assert_eq!(found("Summarise my meeting notes from Tuesday into the weekly review"), Some("r2".into()));
    assert_eq!(found("tag every note in Inbox/ with #later"), Some("r3".into()));
    // Unrelated requests, including ones sharing a word or two, match nothing.
    for unrelated in [
        "What is the capital of France?",
        "Write a poem about bees",
        "Move my Canvas note to Archive/",
        "Summarise this note",
        "Delete everything",
        "Research how Canvas works and then delete all the notes in Archive/ and tag Inbox/",
        "",
    ] {
        assert_eq!(found(unrelated), None, "{unrelated:?}");
    }
    let similarity = term_similarity(&["Tag every note in Inbox/ with #todo"], "Write a poem about bees");
    assert_eq!(similarity, [0.0]);
}

#[test]
fn a_close_vector_matches_only_with_some_words_in_common() {
    let mut store = RecipeStore::default();
    let steps = vec![RecipeStep::new("read_file", &serde_json::json!({"path": "a.md"}))];
    let theirs = RequestVector { embedder: "static", vector: &[1.0, 0.0] };
    store.learn("Summarise my meeting notes from Monday", Some(theirs), steps, "t1", 0);
    let near = [0.95_f32, (1.0_f32 - 0.95 * 0.95).sqrt()];
    let vector = |embedder| Some(RequestVector { embedder, vector: &near });
    // Fewer shared words than a match by words needs, but a close vector of the same embedder.
    let request = "Condense the meeting notes, please";
    assert!(term_similarity(&["Summarise my meeting notes from Monday"], request)[0] < TERM_MATCH);
    assert!(store.find(request, None).is_none());
    assert_eq!(store.find(request, vector("static")).map(|r| r.id.as_str()), Some("r1"));
    assert!(store.find(request, vector("minilm")).is_none(), "another embedder's vectors do not compare");
    // A close vector alone, no word in common: no match.
    assert!(store.find("Condense what was decided", vector("static")).is_none());
}

#[test]
fn the_fast_path_needs_three_net_successes_and_templates_elide_long_texts() {
    let mut store = RecipeStore::default();
    let long = "x".repeat(300);
    let steps = vec![RecipeStep::new("write_file", &serde_json::json!({"path": "A.md", "content": long}))];
    assert!(steps[0].depends_on_results());
    assert_eq!(steps[0].args["path"], "A.md");
    for task in ["t1", "t2"] {
        store.learn("Tag every note in Inbox/", None, steps.clone(), task, 0);
    }
    assert!(store.fast_path("Tag every note in Inbox/", None).is_none(), "two successes");
    store.learn("Tag every note in Inbox/", None, steps.clone(), "t3", 0);
    assert_eq!(store.fast_path("Tag every note in Inbox/", None).map(|r| r.successes), Some(3));
    store.count_against("r1", 1);
    assert!(store.fast_path("Tag every note in Inbox/", None).is_none(), "3 successes, 1 failure");
    // Other tools for the same kind of request: a recipe of their own.
    let other = vec![RecipeStep::new("search_by_tag", &serde_json::json!({"tag": "inbox"}))];
    assert_eq!(store.learn("Tag every note in Inbox/", None, other, "t4", 0), "r2");
}
