use super::*;

const NOTE: &str = "---
title: Trip planning
aliases: [Travel, Voyage]
tags:
  - travel/japan
  - '#todo'
rating: 4
---
# Kyoto trip

Visit [[Kinkaku-ji|the golden temple]] and [[Kyoto#Food]]. #food/ramen and #2024 and a#b.
See [the guide](Guides/Kyoto%20guide.md#Trains) and [site](https://example.com/#x).

![[map.png]]

> [!tip]- Packing
> Bring an umbrella.

## Day 1

`#notatag` in code

```
#alsonotatag
```

### Evening

Dinner at 7.
";

#[test]
fn a_note_is_parsed_into_title_properties_tags_links_callouts_and_chunks() {
    let note = parse_note("Travel/Kyoto.md", NOTE);
    assert_eq!(note.title, "Trip planning");
    assert_eq!(note.aliases, vec!["Travel", "Voyage"]);
    assert_eq!(note.tags, vec!["travel/japan", "todo", "food/ramen"]);
    assert_eq!(note.frontmatter["rating"], serde_json::json!(4));
    // Title, aliases and tags have fields of their own; numbers are not prose.
    assert!(note.property_text().is_empty());
    let described = parse_note("a.md", "---\ndescription: Short.\npeople: [Ann, '', Bo]\npublish: true\n---\nx");
    assert_eq!(described.property_text(), vec!["Short.", "Ann", "Bo"]);
    assert!(note.warnings.is_empty());
    let headings: Vec<(u8, &str)> = note.headings.iter().map(|h| (h.level, h.text.as_str())).collect();
    assert_eq!(headings, vec![(1, "Kyoto trip"), (2, "Day 1"), (3, "Evening")]);

    let links: Vec<(&str, Option<&str>, Option<&str>, bool)> =
        note.links.iter().map(|l| (l.target.as_str(), l.heading.as_deref(), l.alias.as_deref(), l.embed)).collect();
    assert_eq!(
        links,
        vec![
            ("Kinkaku-ji", None, Some("the golden temple"), false),
            ("Kyoto", Some("Food"), None, false),
            ("Guides/Kyoto guide.md", Some("Trains"), Some("the guide"), false),
            ("map.png", None, None, true),
        ]
    );
    assert_eq!(note.callouts, vec![Callout { kind: "tip".into(), title: Some("Packing".into()) }]);

    let paths: Vec<Vec<&str>> =
        note.chunks.iter().map(|c| c.heading_path.iter().map(String::as_str).collect()).collect();
    assert_eq!(paths, vec![vec!["Kyoto trip"], vec!["Kyoto trip", "Day 1"], vec!["Kyoto trip", "Day 1", "Evening"]]);
    assert!(note.chunks[0].text.contains("the golden temple"), "{}", note.chunks[0].text);
    assert!(!note.chunks[0].text.contains("[["), "plain text, no syntax: {}", note.chunks[0].text);
    assert!(
        note.chunks[0].text.contains("Packing\nBring an umbrella."),
        "a callout's title stays: {}",
        note.chunks[0].text
    );
    assert!(!note.chunks[0].text.contains("[!"), "its marker goes: {}", note.chunks[0].text);
    assert!(NOTE[note.chunks[2].range.clone()].starts_with("### Evening"));
    assert_eq!(note.hash, content_hash(NOTE));
    assert_ne!(note.hash, content_hash(&NOTE.replace("7", "8")));
}

#[test]
fn the_title_falls_back_to_the_first_h1_then_the_file_name() {
    assert_eq!(parse_note("a/B.md", "intro\n\n## Two\n\n# One\n").title, "One");
    assert_eq!(parse_note("a/Brief notes.md", "no headings").title, "Brief notes");
}

#[test]
fn malformed_frontmatter_still_indexes_the_note_with_a_warning() {
    let note = parse_note("x.md", "---\ntags: [unclosed\n  - : :\n---\n# Still here\n\n#tagged body");
    assert_eq!(note.warnings.len(), 1, "{:?}", note.warnings);
    assert!(note.warnings[0].contains("YAML"), "{}", note.warnings[0]);
    assert!(note.frontmatter.is_empty());
    assert_eq!(note.title, "Still here");
    assert_eq!(note.tags, vec!["tagged"]);

    let list = parse_note("y.md", "---\n- a\n- b\n---\nbody");
    assert!(list.warnings[0].contains("not a set of properties"));
    // Unclosed frontmatter is just text; empty frontmatter is no properties, no warning.
    assert!(parse_note("z.md", "---\ntitle: x\nbody").warnings.is_empty());
    assert!(parse_note("w.md", "---\n---\nbody").warnings.is_empty());
}

#[test]
fn frontmatter_lists_may_be_strings() {
    let note = parse_note("x.md", "---\ntags: one, two/three\naliases: Solo\n---\n");
    assert_eq!(note.tags, vec!["one", "two/three"]);
    assert_eq!(note.aliases, vec!["Solo"]);
}

#[test]
fn a_callout_marker_is_syntax_not_words() {
    let note = parse_note("c.md", "> [!NOTE]\n> Body text.\n\n> [!warning]+ Careful\n> More.\n\n> [!] not one\n");
    let text = &note.chunks[0].text;
    assert!(!text.contains("[!note]") && !text.contains("[!warning]") && !text.contains("+ Careful"), "{text}");
    // What Obsidian shows: the kind's name where there is no title, else the title alone.
    assert!(
        text.starts_with("Note\nBody text.") && text.contains("Careful\nMore.") && text.contains("[!] not one"),
        "{text}"
    );
    let kinds: Vec<&str> = note.callouts.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["note", "warning"]);
}

#[test]
fn an_embedded_files_name_is_not_text_but_its_alt_text_and_a_notes_link_are() {
    let note = parse_note(
        "e.md",
        "See ![[Pasted image 20231114.png]] and ![[diagram.svg|300x200]] and ![[chart.png|Sales by month]].\n\n\
         Also ![[Other note]], ![[Meeting 2023.01.05]], [[report.pdf]] and ![a cat](cat.jpg).\n",
    );
    let text = &note.chunks[0].text;
    for gone in ["Pasted", "20231114", "diagram", "300x200"] {
        assert!(!text.contains(gone), "{gone} in {text}");
    }
    for kept in ["Sales by month", "Other note", "Meeting 2023.01.05", "report.pdf", "a cat"] {
        assert!(text.contains(kept), "{kept} not in {text}");
    }
    // Still links: backlinks and the related-notes panel find them.
    let targets: Vec<&str> = note.links.iter().map(|l| l.target.as_str()).collect();
    assert_eq!(
        targets,
        [
            "Pasted image 20231114.png",
            "diagram.svg",
            "chart.png",
            "Other note",
            "Meeting 2023.01.05",
            "report.pdf",
            "cat.jpg"
        ]
    );
}
