//! The index's fields, and how a [`ParsedNote`] becomes a tantivy document.

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STORED, STRING,
};
use tantivy::TantivyDocument;

use super::note::ParsedNote;
use super::tokenizer::TOKENIZER_NAME;

/// Every field of the index.
///
/// | field | kind | for |
/// | --- | --- | --- |
/// | `path` | raw, stored, fast | identity, path filters, results |
/// | `title`, `aliases`, `headings`, `tags`, `properties`, `body` | analysed text with positions | BM25, phrases, snippets (`body` stored) |
/// | `folder` | raw, every ancestor folder | folder filter (subfolders included) |
/// | `tag` | raw, lowercased, every ancestor tag | tag filter (`a` matches `a/b`) |
/// | `link` | raw, normalised link targets | backlinks |
/// | `mtime` | u64, fast, stored | recency |
/// | `sections` | stored only | which heading a snippet falls under |
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub path: Field,
    pub title: Field,
    pub aliases: Field,
    pub headings: Field,
    pub tags: Field,
    /// The text of the other frontmatter properties ([`ParsedNote::property_text`]).
    pub properties: Field,
    pub body: Field,
    pub folder: Field,
    pub tag: Field,
    pub link: Field,
    pub mtime: Field,
    pub sections: Field,
}

impl Fields {
    /// The schema and its fields.
    pub fn schema() -> (Schema, Fields) {
        let mut b = Schema::builder();
        let text = |stored: bool| {
            let indexing = TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions);
            let options = TextOptions::default().set_indexing_options(indexing);
            if stored {
                options.set_stored()
            } else {
                options
            }
        };
        let fields = Fields {
            path: b.add_text_field("path", STRING | STORED | FAST),
            title: b.add_text_field("title", text(true)),
            aliases: b.add_text_field("aliases", text(false)),
            headings: b.add_text_field("headings", text(false)),
            tags: b.add_text_field("tags", text(false)),
            properties: b.add_text_field("properties", text(false)),
            body: b.add_text_field("body", text(true)),
            folder: b.add_text_field("folder", STRING),
            tag: b.add_text_field("tag", STRING),
            link: b.add_text_field("link", STRING),
            mtime: b.add_u64_field("mtime", INDEXED | FAST | STORED),
            sections: b.add_text_field("sections", STORED),
        };
        (b.build(), fields)
    }

    /// The full-text fields and their BM25 boosts: a word in the title or an alias says far more
    /// about a note than the same word in its body.
    pub fn boosted(&self) -> [(Field, f32); 6] {
        [
            (self.title, 5.0),
            (self.aliases, 4.0),
            (self.headings, 2.0),
            (self.tags, 2.0),
            (self.properties, 1.0),
            (self.body, 1.0),
        ]
    }

    /// The note as a document. `mtime` is the file's modification time (ms since the epoch).
    pub fn document(&self, note: &ParsedNote, mtime: u64) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.path, &note.path);
        doc.add_text(self.title, &note.title);
        for alias in &note.aliases {
            doc.add_text(self.aliases, alias);
        }
        for heading in &note.headings {
            doc.add_text(self.headings, &heading.text);
        }
        for tag in &note.tags {
            doc.add_text(self.tags, tag);
        }
        for text in note.property_text() {
            doc.add_text(self.properties, text);
        }
        let (body, sections) = body_and_sections(note);
        doc.add_text(self.body, &body);
        doc.add_text(self.sections, &sections);
        for folder in ancestor_folders(&note.path) {
            doc.add_text(self.folder, folder);
        }
        for tag in note.tags.iter().flat_map(|t| tag_prefixes(t)) {
            doc.add_text(self.tag, &tag);
        }
        let mut links: Vec<String> = note.links.iter().filter_map(|l| normalize_link(&l.target)).collect();
        crate::sort::sort(&mut links);
        links.dedup();
        for link in links {
            doc.add_text(self.link, &link);
        }
        doc.add_u64(self.mtime, mtime);
        doc
    }
}

/// The body (the chunks joined by blank lines) and where each chunk starts in it, as lines of
/// `offset<TAB>heading path joined by " › "`.
fn body_and_sections(note: &ParsedNote) -> (String, String) {
    let body = note.body();
    let mut sections = String::new();
    let mut offset = 0;
    for chunk in &note.chunks {
        if !chunk.heading_path.is_empty() {
            sections.push_str(&format!("{offset}\t{}\n", chunk.heading_path.join(" › ")));
        }
        offset += chunk.text.len() + 2;
    }
    (body, sections)
}

/// The heading whose section contains byte `offset` of the stored body.
pub(crate) fn section_at(sections: &str, offset: usize) -> Option<String> {
    let mut found = None;
    for line in sections.lines() {
        let (start, heading) = line.split_once('\t')?;
        let start: usize = start.parse().ok()?;
        if start > offset {
            break;
        }
        found = Some(heading);
    }
    found.map(str::to_string)
}

/// The text of the stored body's sections under `heading` (a heading path joined by " › ",
/// each section without its heading line, joined by newlines; `None`: the text before the first
/// heading). Empty when there is no such section.
pub(crate) fn section_text(body: &str, sections: &str, heading: Option<&str>) -> String {
    let starts: Vec<(usize, &str)> = sections
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .filter_map(|(start, h)| Some((start.parse().ok()?, h)))
        .collect();
    let Some(heading) = heading else {
        let end = starts.first().map_or(body.len(), |s| s.0);
        return body.get(..end).unwrap_or_default().trim().to_string();
    };
    let mut out = String::new();
    for (i, &(start, h)) in starts.iter().enumerate().filter(|(_, s)| s.1 == heading) {
        // Sections are joined by a blank line, which the next offset counts.
        let end = starts.get(i + 1).map_or(body.len(), |s| s.0);
        let Some(text) = body.get(start..end) else { continue };
        let last = h.rsplit(" › ").next().unwrap_or(h);
        let text = text.strip_prefix(last).unwrap_or(text).trim();
        if !text.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
    }
    out
}

/// `a/b/c.md` → `a`, `a/b`.
pub(crate) fn ancestor_folders(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/').map(move |(i, _)| &path[..i])
}

/// `Project/Alpha` → `project`, `project/alpha` (lowercased: Obsidian's tags ignore case).
pub(crate) fn tag_prefixes(tag: &str) -> Vec<String> {
    let tag = tag.trim_start_matches('#').to_lowercase();
    let mut out: Vec<String> = tag.match_indices('/').map(|(i, _)| tag[..i].to_string()).collect();
    out.push(tag);
    out
}

/// A link target as the `link` field stores it: lowercased, without a leading `/` or `./`, and
/// without `.md`. `None` for a link to the note itself (`[[#heading]]`).
pub(crate) fn normalize_link(target: &str) -> Option<String> {
    let t = target.trim().trim_start_matches("./").trim_start_matches('/');
    let t = t.strip_suffix(".md").unwrap_or(t);
    (!t.is_empty()).then(|| t.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::note::parse_note;

    #[test]
    fn a_sections_text_is_read_back_from_the_stored_body_without_its_heading() {
        let note = parse_note(
            "n.md",
            "Opening words.\n\n# Setup\n\nInstall it.\n\n## Sync\n\nTurn sync on.\n\n# Setup\n\nAgain, later.\n",
        );
        let (body, sections) = body_and_sections(&note);
        assert_eq!(section_text(&body, &sections, None), "Opening words.");
        assert_eq!(section_text(&body, &sections, Some("Setup")), "Install it.\nAgain, later.");
        assert_eq!(section_text(&body, &sections, Some("Setup › Sync")), "Turn sync on.");
        assert_eq!(section_text(&body, &sections, Some("Elsewhere")), "");
    }
}
