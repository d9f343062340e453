//! A note, parsed: title, frontmatter, tags, headings, links, callouts, plain-text chunks and a
//! content hash. [`parse_note`] is pure (text in, [`ParsedNote`] out), so the agent's tools use
//! it directly and the index uses it for every note it indexes.

use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::frontmatter::Frontmatter;

/// One note, as the index and the agent's tools see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParsedNote {
    /// Vault-relative path, as given to [`parse_note`].
    pub path: String,
    /// Frontmatter `title`, else the first level-1 heading, else the file name without `.md`.
    pub title: String,
    /// Frontmatter `aliases` (or `alias`).
    pub aliases: Vec<String>,
    /// Tags without `#`, frontmatter first, then inline, each once (first spelling kept).
    pub tags: Vec<String>,
    /// Every heading, in order.
    pub headings: Vec<Heading>,
    /// Internal links and embeds (wikilinks and Markdown links without a URL scheme), in order.
    pub links: Vec<Link>,
    /// Obsidian callouts (`> [!tip] Title`), in order.
    pub callouts: Vec<Callout>,
    /// Every frontmatter property (YAML values as JSON).
    pub frontmatter: Map<String, Value>,
    /// Problems that did not stop parsing (malformed frontmatter).
    pub warnings: Vec<String>,
    /// The note's plain text split at headings: snippets now, embeddings later.
    pub chunks: Vec<Chunk>,
    /// A hash of the note's exact bytes (xxh3-64, 16 hex digits).
    pub hash: String,
}

/// A heading and its level (1–6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
}

/// A link from the note: `[[target#heading|alias]]`, `![[embed]]` or `[alias](target#heading)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// What the link names, as written without `#…` (empty for a link inside the same note).
    /// Markdown link targets are percent-decoded.
    pub target: String,
    /// The heading (or `^block` id) after `#`, if any.
    pub heading: Option<String>,
    /// The text shown instead of the target (`|alias` or a Markdown link's text).
    pub alias: Option<String>,
    /// Whether it is an embed (`![[…]]` or `![](…)`).
    pub embed: bool,
}

/// An Obsidian callout block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Callout {
    /// The callout type, lowercased (`note`, `tip`, `warning`…).
    pub kind: String,
    /// The title after the type, if one is given.
    pub title: Option<String>,
}

/// A section of the note between two headings, as plain text (Markdown syntax removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The headings above this section, outermost first (empty before the first heading).
    pub heading_path: Vec<String>,
    /// The section's plain text, its heading included.
    pub text: String,
    /// The section's byte range in the note's source text.
    pub range: Range<usize>,
}

impl ParsedNote {
    /// The plain text of the whole note: its chunks joined by blank lines.
    pub fn body(&self) -> String {
        let mut body = String::with_capacity(self.chunks.iter().map(|c| c.text.len() + 2).sum());
        for chunk in &self.chunks {
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&chunk.text);
        }
        body
    }

    /// The text of the frontmatter's other properties — a `description`, a `summary`, a
    /// `source`, a list of `people` — each string once, in the order written. Title, aliases
    /// and tags have fields of their own; CSS classes and the publish settings are not about
    /// the note. Nested maps are left out (plugins' settings, rarely prose).
    pub fn property_text(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for (key, value) in &self.frontmatter {
            // Per property of every note indexed: compared in place rather than lower-cased.
            if NOT_PROSE.iter().any(|k| key.eq_ignore_ascii_case(k)) {
                continue;
            }
            let items = match value {
                Value::Array(items) => items.as_slice(),
                one => std::slice::from_ref(one),
            };
            out.extend(items.iter().filter_map(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty()));
        }
        out
    }
}

/// Properties whose values are indexed elsewhere or are settings rather than the note's words.
const NOT_PROSE: &[&str] =
    &["title", "aliases", "alias", "tags", "tag", "cssclasses", "cssclass", "permalink", "publish", "image", "cover"];

/// The content hash [`ParsedNote::hash`] uses.
pub fn content_hash(text: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
}

/// Parses a note. Never fails: malformed frontmatter becomes a warning and an empty property
/// map, and Markdown always parses.
pub fn parse_note(path: &str, text: &str) -> ParsedNote {
    let fm = Frontmatter::parse(text);
    let mut warnings = Vec::new();
    if let Some(w) = &fm.warning {
        warnings.push(w.clone());
    }
    let mut aliases = fm.string_list("aliases");
    aliases.extend(fm.string_list("alias"));
    let mut tags = TagSet::default();
    for tag in fm.string_list("tags").into_iter().chain(fm.string_list("tag")) {
        // `tags: a b` is a list of two to Obsidian.
        for t in tag.split_whitespace() {
            tags.add(t.trim_start_matches('#'));
        }
    }

    let mut walker = Walker::new(text, fm.body_start);
    walker.run();

    for tag in walker.tags {
        tags.add(&tag);
    }
    let first_h1 = walker.headings.iter().find(|h| h.level == 1).map(|h| h.text.clone());
    let title = fm.string("title").or(first_h1).unwrap_or_else(|| file_stem(path).to_string());

    ParsedNote {
        path: path.to_string(),
        title,
        aliases,
        tags: tags.list,
        headings: walker.headings,
        links: walker.links,
        callouts: walker.callouts,
        frontmatter: fm.properties,
        warnings,
        chunks: walker.chunks,
        hash: content_hash(text),
    }
}

/// The file name without its folder and `.md`.
pub(crate) fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

#[derive(Default)]
struct TagSet {
    list: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl TagSet {
    fn add(&mut self, tag: &str) {
        let tag = tag.trim().trim_matches('/');
        if !tag.is_empty() && self.seen.insert(tag.to_lowercase()) {
            self.list.push(tag.to_string());
        }
    }
}

/// An open link or image while its text is collected.
struct OpenLink {
    target: String,
    heading: Option<String>,
    embed: bool,
    piped: bool,
    /// False for URLs: their text is still the note's, but they are not vault links.
    record: bool,
    text: String,
    /// `![[picture.png]]`: an embedded file that is not a note. Obsidian shows the file, not its
    /// name, so the name leaves the text again when the link closes (an alt text stays).
    file_embed: bool,
    /// Where the link's text starts in `chunk_text`.
    chunk_at: usize,
}

/// One pass over pulldown-cmark's events, collecting everything [`ParsedNote`] holds.
struct Walker<'a> {
    text: &'a str,
    offset: usize,
    headings: Vec<Heading>,
    links: Vec<Link>,
    callouts: Vec<Callout>,
    tags: Vec<String>,
    chunks: Vec<Chunk>,
    // The chunk being filled.
    chunk_text: String,
    chunk_start: usize,
    heading_stack: Vec<(u8, String)>,
    // State while walking.
    heading: Option<(u8, String)>,
    open_links: Vec<OpenLink>,
    code_depth: usize,
    html_depth: usize,
    /// The blockquote whose first line may still turn out to be a callout marker.
    callout_line: Option<String>,
    /// Where that line starts in `chunk_text`: a marker found there leaves the text.
    callout_at: usize,
    /// The last character emitted, to tell `#tag` (after a space) from `a#b`.
    prev_char: Option<char>,
}

impl<'a> Walker<'a> {
    fn new(text: &'a str, offset: usize) -> Self {
        Walker {
            text,
            offset,
            headings: Vec::new(),
            links: Vec::new(),
            callouts: Vec::new(),
            tags: Vec::new(),
            chunks: Vec::new(),
            chunk_text: String::new(),
            chunk_start: offset,
            heading_stack: Vec::new(),
            heading: None,
            open_links: Vec::new(),
            code_depth: 0,
            html_depth: 0,
            callout_line: None,
            callout_at: 0,
            prev_char: None,
        }
    }

    fn run(&mut self) {
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_WIKILINKS;
        let body = &self.text[self.offset..];
        for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
            let range = (range.start + self.offset)..(range.end + self.offset);
            self.event(event, range);
        }
        self.finish_chunk(self.text.len());
    }

    fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(tag) => self.start(tag, range),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                self.push_text(&code);
            }
            Event::InlineMath(m) | Event::DisplayMath(m) => self.push_text(&m),
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.text("\n"),
            Event::Html(_) | Event::InlineHtml(_) | Event::FootnoteReference(_) => {}
            Event::Rule | Event::TaskListMarker(_) => {}
        }
    }

    fn start(&mut self, tag: Tag<'_>, range: Range<usize>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.finish_chunk(range.start);
                self.heading = Some((level as u8, String::new()));
                self.prev_char = None;
            }
            Tag::CodeBlock(_) => {
                self.code_depth += 1;
                self.block_break();
            }
            Tag::HtmlBlock => self.html_depth += 1,
            Tag::BlockQuote(_) => {
                self.block_break();
                self.callout_line = Some(String::new());
                self.callout_at = self.chunk_text.len();
            }
            Tag::Link { link_type, dest_url, .. } => self.open_link(link_type, &dest_url, false),
            Tag::Image { link_type, dest_url, .. } => self.open_link(link_type, &dest_url, true),
            Tag::Paragraph | Tag::Item | Tag::TableRow | Tag::TableHead | Tag::FootnoteDefinition(_) => {
                self.block_break()
            }
            Tag::TableCell => self.push_text(" "),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                if let Some((level, text)) = self.heading.take() {
                    let text = text.trim().to_string();
                    while self.heading_stack.last().is_some_and(|(l, _)| *l >= level) {
                        self.heading_stack.pop();
                    }
                    self.heading_stack.push((level, text.clone()));
                    self.headings.push(Heading { level, text });
                }
                self.block_break();
            }
            TagEnd::CodeBlock => {
                self.code_depth = self.code_depth.saturating_sub(1);
                self.block_break();
            }
            TagEnd::HtmlBlock => self.html_depth = self.html_depth.saturating_sub(1),
            TagEnd::BlockQuote(_) => {
                self.close_callout_line();
                self.block_break();
            }
            TagEnd::Paragraph => {
                self.close_callout_line();
                self.block_break();
            }
            TagEnd::Link | TagEnd::Image => self.close_link(),
            TagEnd::Item | TagEnd::TableRow | TagEnd::TableHead => self.block_break(),
            _ => {}
        }
    }

    fn open_link(&mut self, link_type: LinkType, dest: &str, embed: bool) {
        let (raw_target, heading) = match link_type {
            LinkType::WikiLink { .. } => split_fragment(dest),
            LinkType::Autolink | LinkType::Email => (String::new(), None),
            _ if has_scheme(dest) => (String::new(), None),
            _ => {
                let (t, h) = split_fragment(dest);
                (percent_decode(&t), h.map(|h| percent_decode(&h)))
            }
        };
        let wiki = matches!(link_type, LinkType::WikiLink { .. });
        let external = !wiki && (has_scheme(dest) || matches!(link_type, LinkType::Autolink | LinkType::Email));
        let piped = match link_type {
            LinkType::WikiLink { has_pothole } => has_pothole,
            _ => true,
        };
        let record = !(external || raw_target.is_empty() && heading.is_none());
        let file_embed = embed && wiki && is_attachment(&raw_target);
        let chunk_at = self.chunk_text.len();
        self.open_links.push(OpenLink {
            target: raw_target,
            heading,
            embed,
            piped,
            record,
            text: String::new(),
            file_embed,
            chunk_at,
        });
    }

    fn close_link(&mut self) {
        let Some(open) = self.open_links.pop() else { return };
        // A file's name, or a size (`|300`, `|300x200`), is not what the reader sees.
        if open.file_embed && (!open.piped || is_size(open.text.trim())) && open.chunk_at <= self.chunk_text.len() {
            self.chunk_text.truncate(open.chunk_at);
        }
        if !open.record {
            return;
        }
        let text = open.text.trim();
        let alias = (open.piped && !text.is_empty()).then(|| text.to_string());
        self.links.push(Link { target: open.target, heading: open.heading, alias, embed: open.embed });
    }

    /// Text that is part of the note's prose: scanned for tags and callout markers.
    fn text(&mut self, text: &str) {
        if self.code_depth == 0 && self.html_depth == 0 && self.open_links.is_empty() {
            self.scan_tags(text);
        }
        if let Some(line) = &mut self.callout_line {
            if text == "\n" {
                self.close_callout_line();
            } else {
                line.push_str(text);
            }
        }
        self.push_text(text);
    }

    fn push_text(&mut self, text: &str) {
        if self.html_depth > 0 {
            return;
        }
        if let Some((_, heading)) = &mut self.heading {
            heading.push_str(text);
        }
        for link in &mut self.open_links {
            link.text.push_str(text);
        }
        self.chunk_text.push_str(text);
        if let Some(c) = text.chars().next_back() {
            self.prev_char = Some(c);
        }
    }

    fn block_break(&mut self) {
        if !self.chunk_text.is_empty() && !self.chunk_text.ends_with('\n') {
            self.chunk_text.push('\n');
        }
        self.prev_char = None;
    }

    fn close_callout_line(&mut self) {
        let Some(line) = self.callout_line.take() else { return };
        let line = line.trim();
        let Some(rest) = line.strip_prefix("[!") else { return };
        let Some(end) = rest.find(']') else { return };
        let kind = rest[..end].trim();
        if kind.is_empty() || !kind.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            return;
        }
        let title = rest[end + 1..].trim_start_matches(['+', '-']).trim();
        self.callouts
            .push(Callout { kind: kind.to_lowercase(), title: (!title.is_empty()).then(|| title.to_string()) });
        self.drop_callout_marker(kind, !title.is_empty());
    }

    /// Puts what Obsidian shows in place of the `[!kind]` marker (and its fold sign): the title
    /// alone, or the kind's name ("Tip") for a callout without one. The marker is syntax, and
    /// would otherwise show in snippets as it was typed.
    fn drop_callout_marker(&mut self, kind: &str, titled: bool) {
        let Some(line) = self.chunk_text.get(self.callout_at..) else { return };
        let start = self.callout_at + (line.len() - line.trim_start().len());
        let Some(marker) = self.chunk_text[start..].strip_prefix("[!") else { return };
        let Some(close) = marker.find(']') else { return };
        let after = &marker[close + 1..];
        let rest = after.trim_start_matches(['+', '-']).trim_start_matches([' ', '\t']);
        let end = self.chunk_text.len() - rest.len();
        let shown = if titled { String::new() } else { capitalised(kind) };
        self.chunk_text.replace_range(start..end, &shown);
    }

    /// Finds `#tag`s: `#` at the start or after whitespace, then letters, digits, `_`, `-`, `/`,
    /// with at least one character that is not a digit (Obsidian's rule).
    fn scan_tags(&mut self, text: &str) {
        // Only a `#` can start a tag: jump from one to the next (most text has none).
        let mut from = 0;
        while let Some(i) = text[from..].find('#').map(|i| from + i) {
            let prev = if i == 0 { self.prev_char } else { text[..i].chars().next_back() };
            let start = i + 1;
            if !prev.is_none_or(char::is_whitespace) {
                from = start;
                continue;
            }
            let end = text[start..]
                .find(|d: char| !(d.is_alphanumeric() || d == '_' || d == '-' || d == '/'))
                .map_or(text.len(), |n| start + n);
            let tag = text[start..end].trim_end_matches('/');
            if !tag.is_empty() && !tag.chars().all(|d| d.is_ascii_digit()) {
                self.tags.push(tag.to_string());
            }
            from = end;
        }
    }

    fn finish_chunk(&mut self, end: usize) {
        let text = std::mem::take(&mut self.chunk_text);
        let trimmed = text.trim();
        if !trimmed.is_empty() {
            self.chunks.push(Chunk {
                heading_path: self.heading_stack.iter().map(|(_, t)| t.clone()).collect(),
                text: trimmed.to_string(),
                range: self.chunk_start..end,
            });
        }
        self.chunk_start = end;
    }
}

/// Whether a link target names a file other than a note: it has an extension, and not `.md`.
fn is_attachment(target: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        // `Meeting 2023.01.05` is a note: an extension has a letter.
        !stem.is_empty()
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
            && !ext.eq_ignore_ascii_case("md")
    })
}

/// `300` or `300x200`: an embed's size, not its alt text.
fn is_size(text: &str) -> bool {
    let mut parts = text.splitn(2, 'x');
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    parts.next().is_some_and(digits) && parts.next().is_none_or(digits)
}

/// `tip` → `Tip`, `NOTE` → `Note`, `to-do` → `To-do`.
fn capitalised(word: &str) -> String {
    let lower = word.to_lowercase();
    let mut chars = lower.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// Splits `note#heading` (the heading may be empty: `note#` means the note).
fn split_fragment(dest: &str) -> (String, Option<String>) {
    match dest.split_once('#') {
        Some((target, heading)) => {
            let heading = heading.trim();
            (target.trim().to_string(), (!heading.is_empty()).then(|| heading.to_string()))
        }
        None => (dest.trim().to_string(), None),
    }
}

/// Whether a Markdown link destination is a URL (`https:`, `mailto:`, `obsidian:`…) rather
/// than a path in the vault.
fn has_scheme(dest: &str) -> bool {
    match dest.find(':') {
        Some(i) => {
            let scheme = &dest[..i];
            !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.')
                && !dest[..i].contains('/')
        }
        None => false,
    }
}

/// Decodes `%20`-style escapes; invalid escapes and non-UTF-8 results are kept as written.
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
#[path = "note_tests.rs"]
mod tests;
