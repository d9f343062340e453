//! The tools that find notes — search_files, search_by_tag, get_linked_notes — over the
//! vault's full-text index (built on their first use when the host has not), and the
//! frontmatter tools.

use serde_json::json;
use vault_agent::agent::AgentConfig;
use vault_agent::host::ManualClock;
use vault_agent::index::SharedIndex;
use vault_agent::protocol::EndReason;
use vault_agent::provider::Turn;
use vault_agent::search::SearchIndex;
use vault_agent::vault::MemoryVault;

use super::support::{block_on, last_user_text, p, Harness};

fn vault() -> MemoryVault {
    MemoryVault::with_notes([
        (
            "Projects/Alpha.md",
            "---\ntags: [project/alpha]\nstatus: active\n---\n# Alpha\n\nBacklinks panel redesign. See [[Beta]].\n",
        ),
        ("Projects/Beta.md", "# Beta\n\nSourdough starter notes, linked from [[Alpha]]. #project\n"),
        ("Journal/2026-11-20.md", "# Friday\n\nWorked on [[Alpha]] and ![[diagram.png]].\n#journal\n"),
        ("Private/Secret.md", "# Secret\n\n#project [[Alpha]] backlinks\n"),
        (".obsidian-agentignore", "Private/\n"),
    ])
    .unwrap()
}

/// A harness whose search tools use an index of the vault built beforehand, or an empty one
/// (which the first search tool builds).
fn harness(with_index: bool, turns: Vec<Turn>) -> Harness {
    let vault = vault();
    let mut h = Harness::new(vault, turns);
    if with_index {
        let index = block_on(SearchIndex::build(&*h.vault, &ManualClock::new(0), &mut |_| {})).unwrap();
        let shared = SharedIndex::new();
        shared.replace(index);
        h.search = shared;
    }
    h
}

fn config() -> AgentConfig {
    AgentConfig { tool_timeout_ms: 0, auto_approve: vec![], ..AgentConfig::default() }
}

/// What the model was told after each of `turns` (then a final answer).
fn seen(with_index: bool, turns: Vec<Turn>) -> (Harness, Vec<String>) {
    let mut all = turns;
    all.push(Turn::text("done"));
    let h = harness(with_index, all);
    let report = block_on(h.task(config()).run("go"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let seen = h.provider.requests().iter().skip(1).map(last_user_text).collect();
    (h, seen)
}

#[test]
fn tags_and_links_are_found_with_and_without_the_index() {
    for with_index in [true, false] {
        let (_, seen) = seen(
            with_index,
            vec![
                Turn::tools([("search_by_tag", json!({"tag": "#Project"}))]),
                Turn::tools([("get_linked_notes", json!({"path": "Projects/Alpha.md"}))]),
            ],
        );
        let tagged = &seen[0];
        assert!(tagged.contains("2 notes tagged #project"), "index={with_index}: {tagged}");
        assert!(tagged.contains("Projects/Alpha.md") && tagged.contains("Projects/Beta.md"), "nested tag: {tagged}");
        assert!(!tagged.contains("Private"), "ignored notes stay invisible: {tagged}");
        let links = &seen[1];
        assert!(links.contains("[[Beta]] → Projects/Beta.md"), "index={with_index}: {links}");
        assert!(links.contains("- Journal/2026-11-20.md") && links.contains("- Projects/Beta.md"), "{links}");
        assert!(links.contains("Backlinks to Projects/Alpha.md (2)"), "ignored backlinks dropped: {links}");
    }
}

#[test]
fn search_files_uses_the_index_for_typos_phrases_and_snippets() {
    let (_, seen) = seen(
        true,
        vec![
            Turn::tools([("search_files", json!({"query": "bakclinks"}))]),
            Turn::tools([("search_files", json!({"query": "\"starter notes\"", "folder": "Projects"}))]),
        ],
    );
    assert!(seen[0].contains("Projects/Alpha.md") && seen[0].contains("**Backlinks**"), "{}", seen[0]);
    assert!(!seen[0].contains("Private"), "{}", seen[0]);
    assert!(seen[1].contains("Projects/Beta.md") && seen[1].contains("(score "), "{}", seen[1]);
}

#[test]
fn without_a_built_index_search_files_builds_it_first() {
    let (h, seen) = seen(false, vec![Turn::tools([("search_files", json!({"query": "sourdough starter"}))])]);
    assert!(seen[0].contains("1 note found") && seen[0].contains("Projects/Beta.md"), "{}", seen[0]);
    assert!(h.search.is_ready(), "the index stays for the next search");
}

#[test]
fn the_search_tools_find_the_same_notes_before_and_after_the_index_is_built() {
    // One tokeniser: a stemmed word ("starters" finds "starter"), a typo and a tag read the same
    // whether the call found the index built or built it.
    let turns = || {
        vec![
            Turn::tools([("search_files", json!({"query": "starters"}))]),
            Turn::tools([("search_files", json!({"query": "bakclinks"}))]),
            Turn::tools([("search_by_tag", json!({"tag": "project"}))]),
            Turn::tools([("get_linked_notes", json!({"path": "Projects/Beta.md"}))]),
            Turn::tools([("search_files", json!({"query": "starters"}))]),
        ]
    };
    let (_, before) = seen(false, turns());
    let (_, after) = seen(true, turns());
    assert_eq!(before, after);
    assert_eq!(before[0], before[4], "the same query in one task, before and after the index was in place");
    assert!(before[0].contains("Projects/Beta.md") && before[0].contains("**starter**"), "{}", before[0]);
    assert!(before[1].contains("Projects/Alpha.md"), "{}", before[1]);
}

#[test]
fn frontmatter_is_read_and_updated_and_the_index_follows_the_agents_writes() {
    let (h, seen) = seen(
        true,
        vec![
            Turn::tools([("get_frontmatter", json!({"path": "Projects/Alpha.md"}))]),
            Turn::tools([(
                "update_frontmatter",
                json!({"path": "Projects/Alpha.md", "set": {"status": "done", "reviewed": true}, "remove": ["tags"]}),
            )]),
            Turn::tools([(
                "write_file",
                json!({"path": "Ideas/Zeppelin.md", "content": "# Zeppelin\n\nAirship logistics.\n"}),
            )]),
            Turn::tools([("search_files", json!({"query": "zeppelin airship"}))]),
            Turn::tools([("search_by_tag", json!({"tag": "project/alpha"}))]),
        ],
    );
    let fm: serde_json::Value = serde_json::from_str(&seen[0]).unwrap();
    assert_eq!(fm["properties"]["status"], "active");
    assert_eq!(fm["tags"], json!(["project/alpha"]));
    assert_eq!(fm["title"], "Alpha");
    let alpha = block_on(h.vault.read(&p("Projects/Alpha.md"))).unwrap();
    assert_eq!(alpha, "---\nstatus: done\nreviewed: true\n---\n# Alpha\n\nBacklinks panel redesign. See [[Beta]].\n");
    assert!(seen[3].contains("Ideas/Zeppelin.md"), "a note the agent wrote is searchable at once: {}", seen[3]);
    assert!(
        seen[4].contains("No notes are tagged #project/alpha"),
        "a removed tag is gone from the index: {}",
        seen[4]
    );
}

/// `recent_notes` lists notes by when they changed, in the user's time zone: the dates it is
/// given and the times it shows are theirs (Tokyo here), the ignored ones left out.
#[test]
fn recent_notes_lists_what_changed_newest_first_in_the_users_time() {
    use vault_agent::vault::Vault;
    // UTC instants: 2026-12-01 01:00 is 10:00 in Tokyo; 2026-11-30 20:00 is already 12-01 05:00.
    const HOUR: u64 = 3_600_000;
    let dec1_utc = 1_796_083_200_000; // 2026-12-01 00:00 UTC
    let vault = MemoryVault::new();
    for (path, at) in [
        ("Projects/Old.md", dec1_utc - 11 * 24 * HOUR + 3 * HOUR), // 11-20 12:00 Tokyo
        ("Inbox.md", dec1_utc - 4 * HOUR),                         // 12-01 05:00 Tokyo
        ("Journal/2026-12-01.md", dec1_utc + HOUR),                // 12-01 10:00 Tokyo
        ("Private/Secret.md", dec1_utc + 2 * HOUR),
        ("Projects/Plan.md", dec1_utc + 5 * 24 * HOUR + 14 * HOUR + HOUR / 2), // 12-06 23:30 Tokyo
        (".obsidian-agentignore", dec1_utc),
    ] {
        vault.set_now(at - 1);
        let text = if path.ends_with("ignore") { "Private/\n" } else { "# Note\n" };
        block_on(vault.write(&p(path), text)).unwrap();
    }
    let turns = vec![
        Turn::tools([("recent_notes", json!({}))]),
        Turn::tools([("recent_notes", json!({"since": "2026-12-01", "limit": 2}))]),
        Turn::tools([("recent_notes", json!({"before": "2026-12-01", "folder": "Projects"}))]),
        Turn::tools([("recent_notes", json!({"since": "2026-12-06 23:31"}))]),
        Turn::tools([("recent_notes", json!({"since": "last week"}))]),
        Turn::text("done"),
    ];
    let h = Harness::new(vault, turns);
    h.clock.set_utc_offset(540);
    let report = block_on(h.task(config()).run("what did I write this week?"));
    assert_eq!(report.end, EndReason::Answered, "{report:?}");
    let seen: Vec<String> = h.provider.requests().iter().skip(1).map(last_user_text).collect();

    assert!(
        seen[0].contains(
            "4 notes, the most recently changed first (times in UTC+09:00):\n\
         2026-12-06 23:30  Projects/Plan.md\n\
         2026-12-01 10:00  Journal/2026-12-01.md\n\
         2026-12-01 05:00  Inbox.md\n\
         2026-11-20 12:00  Projects/Old.md"
        ),
        "{}",
        seen[0]
    );
    assert!(!seen[0].contains("Secret"), "an ignored note is not listed");
    // Tokyo's 1 December began at 15:00 UTC the day before: the note of 05:00 is in it.
    assert!(
        seen[1].contains(
            "3 notes changed since 2026-12-01, the most recently changed first (times in UTC+09:00):\n\
         2026-12-06 23:30  Projects/Plan.md\n\
         2026-12-01 10:00  Journal/2026-12-01.md\n[1 more; raise limit or narrow the dates]"
        ),
        "{}",
        seen[1]
    );
    assert!(
        seen[2].contains("1 note changed before 2026-12-01 in Projects/, the most recently changed first"),
        "{}",
        seen[2]
    );
    assert!(seen[2].contains("2026-11-20 12:00  Projects/Old.md") && !seen[2].contains("Inbox"), "{}", seen[2]);
    assert!(seen[3].contains("No notes changed since 2026-12-06 23:31."), "{}", seen[3]);
    assert!(seen[4].contains("since: \"last week\" is not a date; write YYYY-MM-DD"), "{}", seen[4]);

    // The card reads as a sentence.
    let label = |input| vault_agent::tools::call_label("recent_notes", &input, Some(&[])).text();
    assert_eq!(report.steps[0].tool_calls[0].label.as_ref().unwrap().text(), "Listed the latest notes — 4 notes");
    assert_eq!(
        label(json!({"since": "2026-12-01", "folder": "Projects"})),
        "Listed the notes changed since 2026-12-01 in Projects — 0 notes"
    );
    assert_eq!(label(json!({})), "Listed the latest notes — 0 notes");
}

/// A note the agent writes is the latest one for its next `recent_notes` in the same task: the
/// pipeline refreshes the index after each write.
#[test]
fn recent_notes_lists_what_the_task_itself_just_wrote_first() {
    use vault_agent::protocol::ApprovalCategory;
    use vault_agent::vault::Vault;
    let vault = MemoryVault::new();
    vault.set_now(1_795_000_000_000);
    block_on(vault.write(&p("Old.md"), "# Old\n")).unwrap();
    // The first call builds the index; the second must see the write made after it.
    let turns = vec![
        Turn::tools([("recent_notes", json!({}))]),
        Turn::tools([("write_file", json!({"path": "Projects/New.md", "content": "# New\n"}))]),
        Turn::tools([("recent_notes", json!({}))]),
        Turn::text("done"),
    ];
    let h = Harness::new(vault, turns);
    let config = AgentConfig { auto_approve: vec![ApprovalCategory::Write], ..config() };
    let report = block_on(h.task(config).run("write a note, then list the latest"));
    assert!(report.changed_paths.iter().any(|p| p == "Projects/New.md"), "{:?}", report.changed_paths);
    let before = last_user_text(&h.provider.requests()[1]);
    assert!(before.contains("1 note,") && !before.contains("New.md"), "{before}");
    let told = last_user_text(&h.provider.requests()[3]);
    let listed: Vec<&str> = told.lines().skip(1).map(|l| l.rsplit("  ").next().unwrap()).collect();
    assert_eq!(listed, ["Projects/New.md", "Old.md"], "{told}");
}
