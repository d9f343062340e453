//! Related notes: what the sidebar shows next to the open note, from links, tags and text.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{folder_language, SearchIndex, SearchQuery};
use crate::Result;

/// A note related to another, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct RelatedNote {
    pub path: String,
    pub title: String,
    /// Higher is closer; comparable within one answer only.
    pub score: f32,
    /// Why, in a few words: `links here`, `linked from here`, `2 shared tags`, `similar text`.
    pub reasons: Vec<String>,
}

/// What each kind of relation weighs. A link either way says the most; shared tags and a
/// text match on the title's words add less.
const LINK: f32 = 3.0;
const TAG: f32 = 1.0;
const TEXT: f32 = 1.5;
/// The title words searched for at most.
const TITLE_WORDS: usize = 8;

impl SearchIndex {
    /// Up to `limit` notes related to `path`: notes it links to and notes linking to it, notes
    /// sharing its tags, and notes whose text matches its title's words — ranked by the sum of
    /// those, the note itself left out. A note the index does not know has only text relations.
    pub fn related(&self, path: &str, limit: usize) -> Result<Vec<RelatedNote>> {
        let mut found: HashMap<String, (f32, Vec<String>)> = HashMap::new();
        let mut add = |other: &str, weight: f32, reason: String| {
            if other == path {
                return;
            }
            let entry = found.entry(other.to_string()).or_default();
            entry.0 += weight;
            if !entry.1.contains(&reason) {
                entry.1.push(reason);
            }
        };
        let entry = self.note(path);
        if let Some(entry) = entry {
            for link in &entry.links {
                if let Some(target) = self.resolve_link(link, path) {
                    add(&target, LINK, "linked from here".into());
                }
            }
        }
        for source in self.backlinks(path)? {
            add(&source, LINK, "links here".into());
        }
        let mut shared_tags: HashMap<String, usize> = HashMap::new();
        for tag in entry.map(|e| e.tags.as_slice()).unwrap_or_default() {
            for other in self.notes_with_tag(tag)? {
                *shared_tags.entry(other).or_default() += 1;
            }
        }
        for (other, n) in shared_tags {
            let reason = if n == 1 { "a shared tag".to_string() } else { format!("{n} shared tags") };
            add(&other, TAG * n as f32, reason);
        }
        let title = entry.map(|e| e.title.clone()).unwrap_or_else(|| title_from_path(path));
        let words = query_words(&title);
        if !words.is_empty() {
            let query =
                SearchQuery { text: words.join(" OR "), limit: limit + 1, snippets: false, ..Default::default() };
            // In a vault of translations, a note in a language folder relates by text to the
            // notes of its own language (its translations share its title's words, and would
            // fill the list); to the others only when its language has none.
            let own_language = folder_language(path)
                .and_then(|_| path.split_once('/'))
                .map(|(folder, _)| SearchQuery { folder: Some(folder.to_string()), ..query.clone() });
            let mut hits = match own_language {
                Some(own) => self.search(&own)?,
                None => Vec::new(),
            };
            if hits.iter().all(|h| h.path == path) {
                hits = self.search(&query)?;
            }
            let best = hits.iter().filter(|h| h.path != path).map(|h| h.score).fold(0.0_f32, f32::max);
            for hit in hits.iter().filter(|_| best > 0.0) {
                add(&hit.path, TEXT * hit.score / best, "similar text".into());
            }
        }
        let mut related: Vec<RelatedNote> = found
            .into_iter()
            .map(|(path, (score, reasons))| {
                let title = self.note(&path).map(|e| e.title.clone()).unwrap_or_else(|| title_from_path(&path));
                RelatedNote { path, title, score, reasons }
            })
            .collect();
        crate::sort::sort_by(&mut related, |a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        related.truncate(limit);
        Ok(related)
    }
}

/// A title's words as plain lower-case search terms (no operators, no field prefixes).
fn query_words(title: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in title.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let word = word.to_lowercase();
        // One Latin letter or digit says little; a single CJK character does.
        if word.chars().count() < 2 && word.is_ascii() {
            continue;
        }
        if !words.contains(&word) {
            words.push(word);
        }
        if words.len() == TITLE_WORDS {
            break;
        }
    }
    words
}

fn title_from_path(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> SearchIndex {
        SearchIndex::from_notes([
            ("Baking/Bread.md", "# Sourdough bread\n\nSee [[Starter]]. #baking #food", 0),
            ("Baking/Starter.md", "# Starter\n\nFlour and water, fed daily. #baking", 0),
            ("Baking/Pizza.md", "# Pizza\n\nNeeds [[Bread]] dough skills. #food #baking", 0),
            ("Notes/Sourdough history.md", "# A history of sourdough\n\nBread from Egypt.", 0),
            ("Travel/Kyoto.md", "# Kyoto\n\nTemples.", 0),
        ])
        .unwrap()
    }

    #[test]
    fn links_both_ways_tags_and_text_all_count() {
        let related = index().related("Baking/Bread.md", 10).unwrap();
        let paths: Vec<&str> = related.iter().map(|r| r.path.as_str()).collect();
        // Pizza links here and shares two tags; Starter is linked from here and shares one.
        assert_eq!(&paths[..2], ["Baking/Pizza.md", "Baking/Starter.md"], "{related:#?}");
        // (Its text says "bread" too.)
        assert_eq!(related[0].reasons, ["links here", "2 shared tags", "similar text"]);
        assert!(related[1].reasons.contains(&"linked from here".to_string()));
        // Text alone: the history of sourdough matches the title's words.
        let history = related.iter().find(|r| r.path == "Notes/Sourdough history.md").unwrap();
        assert_eq!(history.reasons, ["similar text"]);
        assert_eq!(history.title, "A history of sourdough");
        assert!(!paths.contains(&"Baking/Bread.md") && !paths.contains(&"Travel/Kyoto.md"));
    }

    #[test]
    fn the_limit_holds_and_unknown_notes_relate_by_their_name() {
        let index = index();
        assert_eq!(index.related("Baking/Bread.md", 1).unwrap().len(), 1);
        let related = index.related("Elsewhere/Kyoto temples.md", 5).unwrap();
        assert_eq!(related[0].path, "Travel/Kyoto.md");
    }

    #[test]
    fn a_note_in_a_language_folder_relates_by_text_to_its_own_language_first() {
        let index = SearchIndex::from_notes([
            ("en/Plugins/Canvas.md", "# Canvas\n\nCanvas is a plugin for visual notes.", 0),
            ("pt-br/Plugins/Canvas.md", "# Canvas\n\nO Canvas é um plugin. Canvas, canvas.", 0),
            ("sv/Plugins/Canvas.md", "# Canvas\n\nCanvas är ett plugin. Canvas, canvas.", 0),
            ("en/Plugins/Drawing.md", "# Drawing\n\nDraw shapes on a canvas.", 0),
        ])
        .unwrap();
        let paths = |note: &str| -> Vec<String> {
            index.related(note, 3).unwrap().into_iter().map(|r| r.path).collect::<Vec<_>>()
        };
        assert_eq!(paths("en/Plugins/Canvas.md"), ["en/Plugins/Drawing.md"]);
        // No other note in its language: its translations.
        assert_eq!(paths("sv/Plugins/Canvas.md").len(), 3);
        assert!(paths("sv/Plugins/Canvas.md").contains(&"pt-br/Plugins/Canvas.md".to_string()));
    }

    #[test]
    fn title_words_are_plain_terms() {
        assert_eq!(query_words("Bread OR (cake) -x \"tag:a\" 京"), ["bread", "or", "cake", "tag", "京"]);
    }
}
