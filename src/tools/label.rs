//! How a tool call reads to a person: the chat's card titles ("Read *Bread*", "Searched for
//! 'sourdough' — 3 notes"), written here so the host renders them without knowing any tool.

use serde_json::Value;

use super::note_io::plural;
use super::OutputItem;
use crate::protocol::{CallLabel, LabelPart};

/// The label of a call of `tool` with `input`; with `found` (a finished call's result
/// entries), what it found too. A call that has not run, or did not succeed (waiting for
/// approval, denied, skipped, failed), says what was asked ("Write *Plan*"); one that ran says
/// what it did ("Wrote *Plan*"). A tool this function does not know (an MCP server's) reads
/// "Use *tool*" or "Used *tool*". The group (a run of such calls, one card) is named as done
/// in every state: it is the key that joins the calls.
pub fn call_label(tool: &str, input: &Value, found: Option<&[OutputItem]>) -> CallLabel {
    let arg = |name: &str| input.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
    // The verb of what was done, or of what was asked.
    let done = found.is_some();
    let verb = |did: &'static str, asked: &'static str| if done { did } else { asked };
    let mut label = Label::default();
    let path = arg("path");
    let count = |noun: (&str, &str)| found.map(|items| plural(items.len(), noun.0, noun.1));
    match tool {
        "read_file" => label.text("Read ").note(path).group("Read {n} notes"),
        "get_frontmatter" => label.text("Read the properties of ").note(path).group("Read the properties of {n} notes"),
        "get_linked_notes" => label
            .text(verb("Looked up the links of ", "Look up the links of "))
            .note(path)
            .count(count(("backlink", "backlinks"))),
        "list_files" => {
            label.text(verb("Listed ", "List "));
            match path {
                Some(folder) => label.text(folder),
                None => label.text("the vault"),
            };
            label.count(count(("entry", "entries"))).group("Listed {n} folders")
        }
        "search_files" => {
            label.text(&format!("{} for ‘{}’", verb("Searched", "Search"), arg("query").unwrap_or_default()));
            label.count(count(("note", "notes"))).group("Ran {n} searches")
        }
        "semantic_search" => {
            label.text(&format!(
                "{} by meaning for ‘{}’",
                verb("Searched", "Search"),
                arg("query").unwrap_or_default()
            ));
            label.count(count(("note", "notes"))).group("Ran {n} searches")
        }
        "search_by_tag" => {
            let tag = arg("tag").unwrap_or_default().trim_start_matches('#');
            label
                .text(&format!("{} for #{tag}", verb("Looked", "Look")))
                .count(count(("note", "notes")))
                .group("Ran {n} searches")
        }
        "recent_notes" => {
            let what = match super::recent_notes::span(arg("since"), arg("before")) {
                span if span.is_empty() => "the latest notes".to_string(),
                span => format!("the notes{span}"),
            };
            let place = arg("folder").map(|f| format!(" in {}", f.trim_end_matches('/'))).unwrap_or_default();
            label
                .text(&format!("{} {what}{place}", verb("Listed", "List")))
                .count(count(("note", "notes")))
                .group("Ran {n} searches")
        }
        "write_file" => label.text(verb("Wrote ", "Write ")).note(path).group("Wrote {n} notes"),
        "edit_file" => label.text(verb("Edited ", "Edit ")).note(path).group("Edited {n} notes"),
        "replace_selection" => label.text(verb("Edited the selection in ", "Edit the selection in ")).note(path),
        "append_to_file" => label.text(verb("Added to ", "Add to ")).note(path).group("Added to {n} notes"),
        "update_frontmatter" => label
            .text(verb("Updated the properties of ", "Update the properties of "))
            .note(path)
            .group("Updated the properties of {n} notes"),
        "move_file" => label.text(verb("Moved ", "Move ")).note(path).text(" to ").note(arg("new_path")),
        "delete_file" => {
            label.text(verb("Moved ", "Move ")).note(path).text(" to the trash").group("Moved {n} notes to the trash")
        }
        "create_folder" => label.text(verb("Created the folder ", "Create the folder ")).text(path.unwrap_or_default()),
        "remember" => label
            .text(&format!(
                "{} ‘{}’",
                verb("Remembered", "Remember"),
                super::new_task::subtask_title(arg("text").unwrap_or_default())
            ))
            .group("Remembered {n} things"),
        "web_fetch" => label
            .text(&format!("{} {}", verb("Read", "Fetch"), short_url(arg("url").unwrap_or("a web page"))))
            .group("Read {n} web pages"),
        "web_search" => label
            .text(&format!("{} the web for ‘{}’", verb("Searched", "Search"), arg("query").unwrap_or_default()))
            .group("Ran {n} web searches"),
        "list_mcp_resources" => {
            let on = arg("server").map_or("the MCP servers".to_string(), |s| s.to_string());
            label.text(&format!("{} the resources of {on}", verb("Listed", "List")))
        }
        "read_mcp_resource" => label
            .text(&format!(
                "Read {} from {}",
                resource_name(arg("uri").unwrap_or("a resource")),
                arg("server").unwrap_or("an MCP server")
            ))
            .group("Read {n} MCP resources"),
        "attempt_completion" => label.text(verb("Finished the task", "Finish the task")),
        "ask_followup_question" => label.text(verb("Asked you a question", "A question for you")),
        "switch_mode" => {
            label.text(&format!("{} to {} mode", verb("Switched", "Switch"), arg("mode").unwrap_or("another")))
        }
        "new_task" => label.text(&format!(
            "Sub-task in {} mode: {}",
            arg("mode").unwrap_or("another"),
            super::new_task::subtask_title(arg("message").unwrap_or_default())
        )),
        other => match crate::mcp::split_tool_name(other) {
            Some((server, remote)) => label
                .text(&format!("{} {remote} on {server}", verb("Called", "Call")))
                .group(&format!("Made {{n}} calls to {server}")),
            None => label.text(&format!("{} {other}", verb("Used", "Use"))),
        },
    };
    if let Some(items) = found {
        // Entries ending in `/` are folders; everything else opens.
        for item in items.iter().filter(|i| !i.label.ends_with('/')) {
            label.add_note(&item.label);
        }
    }
    label.0
}

/// A web address as a card shows it: without the scheme, `www.` and a trailing `/`, and cut
/// to [`URL_CHARS`] characters.
fn short_url(url: &str) -> String {
    let bare = url.split_once("://").map_or(url, |(_, rest)| rest);
    let bare = bare.strip_prefix("www.").unwrap_or(bare).trim_end_matches('/');
    cut_address(bare)
}

/// What a card calls a resource: its URI's last part (`features.md`), with the part before it
/// when the last is too short to tell (`text/7`); cut as an address is.
fn resource_name(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let name = match parts.as_slice() {
        [.., before, last] if last.chars().count() < 4 && !before.ends_with(':') => format!("{before}/{last}"),
        [.., last] => last.to_string(),
        [] => uri.to_string(),
    };
    cut_address(&name)
}

/// `address` cut to [`URL_CHARS`] characters, with `…` where it was cut.
fn cut_address(address: &str) -> String {
    match address.char_indices().nth(URL_CHARS) {
        Some((cut, _)) => format!("{}…", &address[..cut]),
        None => address.to_string(),
    }
}

/// The longest web address a card shows whole.
const URL_CHARS: usize = 60;

#[derive(Default)]
struct Label(CallLabel);

impl Label {
    fn text(&mut self, text: &str) -> &mut Self {
        if let Some(LabelPart::Text { text: last }) = self.0.parts.last_mut() {
            last.push_str(text);
        } else {
            self.0.parts.push(LabelPart::Text { text: text.to_string() });
        }
        self
    }

    /// A note part; a call without the argument (the schema check refuses it) reads "a note".
    fn note(&mut self, path: Option<&str>) -> &mut Self {
        let Some(path) = path else { return self.text("a note") };
        let name = path.rsplit('/').next().unwrap_or(path);
        let name = name.strip_suffix(".md").unwrap_or(name);
        self.0.parts.push(LabelPart::Note { path: path.to_string(), name: name.to_string() });
        self.add_note(path);
        self
    }

    fn add_note(&mut self, path: &str) {
        if !self.0.notes.iter().any(|n| n == path) {
            self.0.notes.push(path.to_string());
        }
    }

    fn count(&mut self, count: Option<String>) -> &mut Self {
        match count {
            Some(count) => self.text(&format!(" — {count}")),
            None => self,
        }
    }

    fn group(&mut self, group: &str) -> &mut Self {
        self.0.group = Some(group.to_string());
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn item(label: &str) -> OutputItem {
        OutputItem { label: label.into(), score: None }
    }

    #[test]
    fn a_read_names_the_note_by_its_name_and_groups_with_other_reads() {
        let label = call_label("read_file", &json!({"path": "en/Linking notes/Internal links.md"}), None);
        assert_eq!(label.text(), "Read Internal links");
        assert_eq!(label.notes, vec!["en/Linking notes/Internal links.md"]);
        assert_eq!(label.group.as_deref(), Some("Read {n} notes"));
        assert!(matches!(&label.parts[1], LabelPart::Note { name, .. } if name == "Internal links"));
    }

    #[test]
    fn a_finished_search_says_how_many_notes_it_found_and_lists_them() {
        let found = [item("a/One.md"), item("b/Two.md"), item("a/One.md")];
        let label = call_label("search_files", &json!({"query": "internal links"}), Some(&found));
        assert_eq!(label.text(), "Searched for ‘internal links’ — 3 notes");
        assert_eq!(label.notes, vec!["a/One.md", "b/Two.md"]);
        let running = call_label("search_files", &json!({"query": "internal links"}), None);
        assert_eq!(running.text(), "Search for ‘internal links’");
    }

    #[test]
    fn folders_in_a_listing_are_not_notes_and_unknown_tools_are_named() {
        let label = call_label(
            "list_files",
            &json!({"path": "Cooking"}),
            Some(&[item("Cooking/Old/"), item("Cooking/Bread.md")]),
        );
        assert_eq!(label.text(), "Listed Cooking — 2 entries");
        assert_eq!(label.notes, vec!["Cooking/Bread.md"]);
        assert_eq!(call_label("mcp_weather", &json!({}), None).text(), "Use mcp_weather");
        assert_eq!(call_label("mcp_weather", &json!({}), Some(&[])).text(), "Used mcp_weather");
        assert_eq!(
            call_label("move_file", &json!({"path": "A.md", "new_path": "B/A.md"}), Some(&[])).text(),
            "Moved A to A"
        );
    }

    #[test]
    fn a_web_page_reads_as_its_short_address() {
        let input = json!({"url": "https://www.example.com/docs/getting-started/"});
        assert_eq!(call_label("web_fetch", &input, None).text(), "Fetch example.com/docs/getting-started");
        let done = call_label("web_fetch", &input, Some(&[]));
        assert_eq!(done.text(), "Read example.com/docs/getting-started");
        assert_eq!(done.group.as_deref(), Some("Read {n} web pages"));
        assert!(done.notes.is_empty(), "a page is not a note");
        let long = format!("https://example.com/{}", "a".repeat(100));
        assert_eq!(
            call_label("web_fetch", &json!({"url": long}), Some(&[])).text().chars().count(),
            "Read ".len() + 61
        );
    }

    #[test]
    fn an_mcp_resource_reads_as_its_address_and_server() {
        let input = json!({"server": "docs", "uri": "demo://resource/static/document/features.md"});
        let done = call_label("read_mcp_resource", &input, Some(&[]));
        assert_eq!(done.text(), "Read features.md from docs");
        let short = json!({"server": "docs", "uri": "demo://resource/dynamic/text/7?x=1"});
        assert_eq!(call_label("read_mcp_resource", &short, None).text(), "Read text/7 from docs");
        let bare = json!({"server": "docs", "uri": "db://a"});
        assert_eq!(call_label("read_mcp_resource", &bare, None).text(), "Read a from docs");
        assert_eq!(done.group.as_deref(), Some("Read {n} MCP resources"));
        assert_eq!(call_label("list_mcp_resources", &json!({}), None).text(), "List the resources of the MCP servers");
        assert_eq!(
            call_label("list_mcp_resources", &json!({"server": "docs"}), Some(&[])).text(),
            "Listed the resources of docs"
        );
    }

    #[test]
    fn a_change_not_yet_made_says_what_was_asked_and_a_made_one_what_was_done() {
        let input = json!({"path": "Plans/Trip.md", "content": "# Trip\n"});
        let asked = call_label("write_file", &input, None);
        assert_eq!(asked.text(), "Write Trip");
        // The group is what a run of such calls is titled once grouped: one name in every state.
        assert_eq!(asked.group.as_deref(), Some("Wrote {n} notes"));
        let done = call_label("write_file", &input, Some(&[]));
        assert_eq!(done.text(), "Wrote Trip");
        assert_eq!(done.group.as_deref(), Some("Wrote {n} notes"));
        assert_eq!(asked.notes, done.notes);
    }
}
