//! Small vault helpers the note tools share.

use schemars::JsonSchema;
use serde::Deserialize;
use similar::{ChangeTag, TextDiff};

use super::ledger::conflict;
use super::{ToolContext, ToolError, ToolOutput};
use crate::protocol::{ChangePreview, DiffPart, DiffRow, DiffRowKind};
use crate::vault::{EntryKind, VaultPath};

/// The arguments of a tool that reads one note and nothing else.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotePath {
    /// Vault-relative path of the note.
    pub path: VaultPath,
}

/// The note's text, or `None` when nothing is there. A folder is an error for the model.
pub async fn read_existing(ctx: &ToolContext<'_>, path: &VaultPath) -> Result<Option<String>, ToolError> {
    match ctx.vault.stat(path).await? {
        None => Ok(None),
        Some(stat) if stat.kind == EntryKind::Folder => {
            Err(ToolError::model(format!("{path} is a folder, not a note")))
        }
        Some(_) => Ok(Some(ctx.vault.read(path).await?)),
    }
}

/// The note's text as [`read_existing`] gives it, refused when the note changed since this task
/// last read or wrote it (so the agent never replaces text it has not seen).
pub async fn read_unchanged(ctx: &ToolContext<'_>, path: &VaultPath) -> Result<Option<String>, ToolError> {
    let old = read_existing(ctx, path).await?;
    if let Some(old) = &old {
        ctx.ledger.check_unchanged(path, old.as_bytes())?;
    }
    Ok(old)
}

/// Writes `content` to `path`, whose text was `old` (`None`: a new note), and records it as
/// seen, so the agent can edit it again.
///
/// A failed write leaves no partial note: a host that wrote part of the note before failing
/// (Obsidian's adapter writes in place; a full disk) gets `old` written back, and a partial new
/// note goes to the trash. Best effort: should that fail too, the task's checkpoint still holds
/// the old bytes for undo.
pub async fn write_note(
    ctx: &ToolContext<'_>,
    path: &VaultPath,
    old: Option<&str>,
    content: &str,
) -> Result<(), ToolError> {
    if let Err(e) = ctx.vault.write(path, content).await {
        let now = ctx.vault.read_binary(path).await.ok();
        match (old, now) {
            (Some(old), Some(now)) if now != old.as_bytes() => {
                let _ = ctx.vault.write(path, old).await;
            }
            (None, Some(_)) => {
                let _ = ctx.vault.trash(path).await;
            }
            _ => {}
        }
        return Err(e.into());
    }
    ctx.ledger.record(path, content.as_bytes());
    Ok(())
}

/// A planned change of one note's text: what the note held when the plan was made (`None`:
/// nothing), what it will hold, and what the model is told once it does.
pub struct NoteWrite {
    pub path: VaultPath,
    pub old: Option<String>,
    pub new: String,
    pub done: String,
}

impl NoteWrite {
    /// The approval preview: the diff from the old text to the new.
    pub fn preview(&self) -> ChangePreview {
        write_preview(&self.path, self.old.as_deref(), &self.new)
    }

    /// Keeps only the changes (the preview's hunks, numbered from 0 in order) in `accepted`:
    /// the others leave the old lines as they were. The model is told what was left out.
    /// `false` when the plan has nothing to narrow (a new note) or `accepted` names no hunk it
    /// has.
    pub fn keep_hunks(&mut self, accepted: &[usize]) -> bool {
        let Some(old) = self.old.as_deref() else { return false };
        let lines = TextDiff::from_lines(old, &self.new);
        let groups = lines.grouped_ops(3);
        if accepted.iter().any(|&h| h >= groups.len()) {
            return false;
        }
        if accepted.len() == groups.len() {
            return true;
        }
        // A changed op belongs to one hunk; it is known by where it starts in both texts.
        let kept: std::collections::HashSet<(usize, usize)> = accepted
            .iter()
            .flat_map(|&h| &groups[h])
            .filter(|op| op.tag() != similar::DiffTag::Equal)
            .map(|op| (op.old_range().start, op.new_range().start))
            .collect();
        let (olds, news) = (lines.old_slices(), lines.new_slices());
        let mut text = String::new();
        for op in lines.ops() {
            let take_new =
                op.tag() != similar::DiffTag::Equal && kept.contains(&(op.old_range().start, op.new_range().start));
            let slices = if take_new { &news[op.new_range()] } else { &olds[op.old_range()] };
            slices.iter().for_each(|line| text.push_str(line));
        }
        let (n, total) = (accepted.len(), groups.len());
        self.done = format!(
            "{} Only {n} of the {total} changes were applied: the user turned the others down, so {} keeps its text there.",
            self.done, self.path
        );
        self.new = text;
        true
    }

    /// Writes the planned text. If the note changed after the plan was made (the user edited it
    /// while the approval waited), nothing is written: what the user approved is no longer what
    /// would be written, and the model is told to start again from the current text.
    pub async fn apply(self, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if read_existing(ctx, &self.path).await? != self.old {
            return Err(conflict(&self.path));
        }
        write_note(ctx, &self.path, self.old.as_deref(), &self.new).await?;
        Ok(ToolOutput::text(self.done))
    }
}

/// The approval preview of replacing `old` (absent: a new note) with `new` at `path`.
pub fn write_preview(path: &VaultPath, old: Option<&str>, new: &str) -> ChangePreview {
    let before = old.unwrap_or("");
    let name = path.as_str();
    let lines = TextDiff::from_lines(before, new);
    let diff =
        lines.unified_diff().context_radius(3).header(if old.is_some() { name } else { "/dev/null" }, name).to_string();
    let rows = diff_rows(&lines);
    ChangePreview::Write { path: name.to_string(), old: old.map(str::to_string), new: new.to_string(), diff, rows }
}

/// The diff as rows: each hunk (3 lines of context) opens with a row like the unified diff's
/// `@@ -a,b +c,d @@`, and a changed line marks the words that differ from its partner.
fn diff_rows<'a>(lines: &'a TextDiff<'a, 'a, 'a, str>) -> Vec<DiffRow> {
    let mut rows = Vec::new();
    for group in lines.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (old, new) = (first.old_range().start..last.old_range().end, first.new_range().start..last.new_range().end);
        let header = format!("@@ -{},{} +{},{} @@", old.start + 1, old.len(), new.start + 1, new.len());
        rows.push(DiffRow {
            kind: DiffRowKind::Hunk,
            old_line: None,
            new_line: None,
            parts: vec![DiffPart { text: header, changed: false }],
        });
        for op in &group {
            for change in lines.iter_inline_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => DiffRowKind::Context,
                    ChangeTag::Delete => DiffRowKind::Removed,
                    ChangeTag::Insert => DiffRowKind::Added,
                };
                let mut parts: Vec<DiffPart> = change
                    .iter_strings_lossy()
                    .map(|(changed, text)| DiffPart { text: text.into_owned(), changed })
                    .collect();
                // The line's end is not part of what is shown.
                if let Some(end) = parts.last_mut() {
                    let kept = end.text.trim_end_matches(['\n', '\r']).len();
                    end.text.truncate(kept);
                }
                parts.retain(|p| !p.text.is_empty());
                rows.push(DiffRow {
                    kind,
                    old_line: change.old_index().map(|i| i + 1),
                    new_line: change.new_index().map(|i| i + 1),
                    parts,
                });
            }
        }
    }
    rows
}

/// A count with its noun, singular or plural.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The number of lines in `text`.
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        text.lines().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(row: &DiffRow) -> Vec<&str> {
        row.parts.iter().filter(|p| p.changed).map(|p| p.text.as_str()).collect()
    }

    #[test]
    fn a_changed_line_marks_the_words_that_changed() {
        let path = VaultPath::parse("Bread.md").unwrap();
        let ChangePreview::Write { rows, .. } = write_preview(
            &path,
            Some("# Bread\n\nBake at 230 °C.\nCool.\n"),
            "# Bread\n\nBake at 250 °C for 40 minutes.\nCool.\n",
        ) else {
            panic!("a write preview")
        };
        let kinds: Vec<DiffRowKind> = rows.iter().map(|r| r.kind).collect();
        use DiffRowKind::*;
        assert_eq!(kinds, [Hunk, Context, Context, Removed, Added, Context]);
        assert_eq!(rows[0].parts[0].text, "@@ -1,4 +1,4 @@");
        let (removed, added) = (&rows[3], &rows[4]);
        assert_eq!((removed.old_line, removed.new_line), (Some(3), None));
        assert_eq!((added.old_line, added.new_line), (None, Some(3)));
        // Words, not characters; the words kept ("Bake at") are not marked.
        assert_eq!(changed(removed), ["230", "°C."]);
        let marked = changed(added).concat();
        assert!(marked.contains("250") && marked.contains("40 minutes."), "{marked}");
        assert!(!marked.contains("Bake"), "{marked}");
        let whole: String = added.parts.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(whole, "Bake at 250 °C for 40 minutes.");
    }

    #[test]
    fn a_new_note_is_all_added_lines_without_marks() {
        let path = VaultPath::parse("New.md").unwrap();
        let ChangePreview::Write { rows, .. } = write_preview(&path, None, "one\ntwo\n") else { panic!() };
        assert!(rows[1..].iter().all(|r| r.kind == DiffRowKind::Added && changed(r).is_empty()));
    }
}
