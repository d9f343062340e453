//! What gets embedded: the text of the note's frontmatter properties (its description), then the
//! note parser's sections (split at headings), each at most [`MAX_CHUNK_CHARS`] characters — a
//! longer section becomes overlapping windows (about 10 %) cut at a sentence or word boundary —
//! with the note's title and the heading path in front, so a section's vector knows what it is
//! about.

use crate::search::ParsedNote;

/// The longest chunk text, in characters (the title/heading prefix comes on top).
pub const MAX_CHUNK_CHARS: usize = 2000;
/// How much consecutive windows of a long section share, as a fraction of the window.
const OVERLAP: f64 = 0.1;

/// One piece of a note to embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedChunk {
    /// The heading path of the section (`A › B`), if it is under a heading.
    pub heading: Option<String>,
    /// What is embedded: `title › heading path`, a newline, then the section's text.
    pub text: String,
}

/// The note's chunks, in order. A note without text gives one chunk with its title, so every
/// note can be found by its name's meaning.
pub fn embed_chunks(note: &ParsedNote, max_chars: usize) -> Vec<EmbedChunk> {
    let mut out = Vec::new();
    // The frontmatter's prose (a `description`, a `summary`) says what the whole note is about
    // in a sentence, the way searches are asked: a chunk of its own. Measured on the sample
    // vault's descriptions: paraphrases 0.589 → 0.593, questions 0.817 → 0.823, titles 0.889 →
    // 0.909 (BENCHMARKS.md).
    let properties = note.property_text().join("\n");
    for window in windows(&properties, max_chars).into_iter().filter(|w| !w.is_empty()) {
        out.push(EmbedChunk { heading: None, text: format!("{}\n{window}", note.title) });
    }
    for chunk in &note.chunks {
        let mut path: Vec<&str> = chunk.heading_path.iter().map(String::as_str).collect();
        // A note whose first heading is its title would otherwise say it twice.
        if path.first() == Some(&note.title.as_str()) {
            path.remove(0);
        }
        let heading = (!chunk.heading_path.is_empty()).then(|| chunk.heading_path.join(" › "));
        let mut prefix = note.title.clone();
        for h in &path {
            prefix.push_str(" › ");
            prefix.push_str(h);
        }
        // The section's text starts with its own heading, which the prefix already says.
        let body = match chunk.heading_path.last() {
            Some(h) => chunk.text.strip_prefix(h.as_str()).unwrap_or(&chunk.text).trim_start(),
            None => chunk.text.as_str(),
        };
        if body.is_empty() && !path.is_empty() {
            continue;
        }
        for window in windows(body, max_chars) {
            out.push(EmbedChunk { heading: heading.clone(), text: format!("{prefix}\n{window}") });
        }
    }
    if out.is_empty() {
        out.push(EmbedChunk { heading: None, text: note.title.clone() });
    }
    out
}

/// `text` cut into windows of at most `max` characters overlapping by about 10 %, each cut made
/// after the last sentence end (or else whitespace) in the window's final fifth.
fn windows(text: &str, max: usize) -> Vec<&str> {
    let max = max.max(20);
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
    let chars = bounds.len() - 1;
    if chars <= max {
        return vec![text];
    }
    let overlap = (max as f64 * OVERLAP) as usize;
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let hard_end = (start + max).min(chars);
        if hard_end == chars {
            out.push(text[bounds[start]..].trim());
            break;
        }
        let window = &text[bounds[start]..bounds[hard_end]];
        let floor = bounds[start + max * 4 / 5] - bounds[start];
        let cut = window[floor..]
            .rfind(['.', '!', '?', '\n', '。'])
            .map(|i| floor + i + window[floor + i..].chars().next().map_or(1, char::len_utf8))
            .or_else(|| window[floor..].rfind(char::is_whitespace).map(|i| floor + i + 1))
            .unwrap_or(window.len());
        let end_byte = bounds[start] + cut;
        let end = bounds.partition_point(|&b| b < end_byte);
        out.push(text[bounds[start]..end_byte].trim());
        // The next window starts about `overlap` characters back, at the start of a word.
        let mut next = end.saturating_sub(overlap).max(start + 1);
        while next < end && !text[..bounds[next]].ends_with(char::is_whitespace) {
            next += 1;
        }
        start = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::parse_note;

    #[test]
    fn sections_carry_the_title_and_heading_path() {
        let note = parse_note("Bread.md", "# Bread\n\nIntro.\n\n## Starter\n\nFeed it daily.\n\n### Flour\n\nRye.");
        let chunks = embed_chunks(&note, MAX_CHUNK_CHARS);
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, vec!["Bread\nIntro.", "Bread › Starter\nFeed it daily.", "Bread › Starter › Flour\nRye."]);
        assert_eq!(chunks[2].heading.as_deref(), Some("Bread › Starter › Flour"));
        assert_eq!(embed_chunks(&parse_note("Empty.md", ""), 2000)[0].text, "Empty");
    }

    #[test]
    fn the_frontmatter_prose_is_a_chunk_of_its_own() {
        let text = "---\ndescription: How to bake a sourdough loaf.\ntags: [food]\ncssclasses: wide\n---\nIntro.";
        let chunks = embed_chunks(&parse_note("Bread.md", text), MAX_CHUNK_CHARS);
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, vec!["Bread\nHow to bake a sourdough loaf.", "Bread\nIntro."]);
        assert_eq!(chunks[0].heading, None);
    }

    #[test]
    fn long_sections_become_overlapping_windows_cut_at_sentences() {
        let sentence = "Ünïcode sentence number one is here. ";
        let text = sentence.repeat(200);
        let parts = windows(&text, 2000);
        assert!(parts.len() >= 4, "{}", parts.len());
        for part in &parts {
            assert!(part.chars().count() <= 2000);
            assert!(part.ends_with('.'), "{part:?}");
        }
        // Consecutive windows overlap: the next one starts inside the last tenth of this one.
        for pair in parts.windows(2) {
            let head: String = pair[1].chars().take(60).collect();
            let tail: String = pair[0].chars().rev().take(260).collect::<Vec<_>>().into_iter().rev().collect();
            assert!(tail.contains(&head), "{head:?} not in {tail:?}");
        }
        let covered: usize = parts.iter().map(|p| p.chars().count()).sum();
        assert!(covered >= text.trim().chars().count());
    }
}
