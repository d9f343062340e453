//! How the search tools show their hits to the model, one line each.

use super::{OutputItem, ToolOutput};

/// One hit as the model sees it.
pub struct Hit<'a> {
    pub path: &'a str,
    pub score: f32,
    /// What is said of the score in its parentheses: the score itself and, for some tools,
    /// which signal found the note.
    pub scored: String,
    pub title: &'a str,
    pub heading: Option<&'a str>,
    pub snippet: &'a str,
}

impl<'a> Hit<'a> {
    /// A hit at `path` with its `title`, `heading` and `snippet`, scored `score`, of which its
    /// line says `scored`.
    pub fn new(
        path: &'a str,
        title: &'a str,
        heading: Option<&'a str>,
        snippet: &'a str,
        score: f32,
        scored: String,
    ) -> Self {
        Hit { path, score, scored, title, heading, snippet }
    }
}

/// The result of a search for `query`: `summary`, then a line a hit —
/// `- path (scored) "title" › heading: snippet`, the title only where the file name does not
/// say it — or, with no hits, that no note matches.
pub fn hits_output(summary: String, query: &str, hits: &[Hit<'_>]) -> ToolOutput {
    if hits.is_empty() {
        return ToolOutput::text(format!("No notes match {query:?}.")).with_summary(summary);
    }
    let mut content = format!("{summary}:\n");
    for hit in hits {
        content.push_str(&format!("- {} ({})", hit.path, hit.scored));
        if !hit.path.ends_with(&format!("{}.md", hit.title)) {
            content.push_str(&format!(" \"{}\"", hit.title));
        }
        if let Some(heading) = hit.heading {
            content.push_str(&format!(" › {heading}"));
        }
        if !hit.snippet.is_empty() {
            content.push_str(&format!(": {}", hit.snippet));
        }
        content.push('\n');
    }
    let items = hits.iter().map(|h| OutputItem { label: h.path.to_string(), score: Some(h.score) }).collect();
    ToolOutput::text(content).with_summary(summary).with_items(items)
}
