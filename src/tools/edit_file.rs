//! `edit_file`: replaces exact text in a note.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::{plural, read_unchanged, NoteWrite};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::vault::VaultPath;

pub struct EditFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note.
    path: VaultPath,
    /// The exact text to replace.
    #[schemars(length(min = 1))]
    old_string: String,
    /// The text to put in its place.
    new_string: String,
    /// How many occurrences to replace (default 1).
    #[serde(default = "one")]
    #[schemars(range(min = 1))]
    expected_replacements: usize,
}

fn one() -> usize {
    1
}

#[async_trait(?Send)]
impl Tool for EditFile {
    const NAME: &'static str = "edit_file";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = NoteWrite;

    fn description(&self) -> &str {
        "Replace exact text in a note you have read in this task. `old_string` must match the note \
         exactly (whitespace and line breaks included) and occur exactly `expected_replacements` times \
         (default 1); include enough surrounding lines to make it unique. Every occurrence is replaced \
         by `new_string`."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<NoteWrite, ToolError> {
        let Some(current) = read_unchanged(ctx, &args.path).await? else {
            return Err(ToolError::model(format!("{} does not exist; create it with write_file", args.path)));
        };
        let new = replace_exact(&current, &args.old_string, &args.new_string, args.expected_replacements)
            .map_err(|problem| ToolError::model(format!("{}: {problem}", args.path)))?;
        let done = format!(
            "Edited {}: replaced {}.",
            args.path,
            plural(args.expected_replacements, "occurrence", "occurrences")
        );
        Ok(NoteWrite { path: args.path, old: Some(current), new, done })
    }

    fn preview(&self, plan: &NoteWrite) -> Option<ChangePreview> {
        Some(plan.preview())
    }

    async fn apply(&self, plan: NoteWrite, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        plan.apply(ctx).await
    }
}

/// Replaces every occurrence of `old` in `text` with `new` when there are exactly `expected`
/// of them. A note with CRLF line breaks matches `old` written with LF.
pub fn replace_exact(text: &str, old: &str, new: &str, expected: usize) -> Result<String, String> {
    if old.is_empty() {
        return Err("old_string is empty".into());
    }
    if old == new {
        return Err("old_string and new_string are the same; nothing would change".into());
    }
    let mut count = text.matches(old).count();
    let (mut old, mut new) = (old.to_string(), new.to_string());
    if count == 0 && text.contains("\r\n") && old.contains('\n') && !old.contains('\r') {
        old = old.replace('\n', "\r\n");
        new = new.replace('\n', "\r\n");
        count = text.matches(old.as_str()).count();
    }
    match count {
        0 => {
            let hint = nearest_line(text, &old)
                .map(|line| format!(" The closest line in the note is: {line:?}."))
                .unwrap_or_default();
            Err(format!(
                "old_string was not found. It must match the note exactly, including whitespace and line breaks; \
                 read the note again and copy the text.{hint}"
            ))
        }
        n if n != expected => Err(format!(
            "old_string occurs {n} times but expected_replacements is {expected}. Add surrounding text to \
             make it unique, or set expected_replacements to {n} to replace them all."
        )),
        _ => Ok(text.replace(old.as_str(), &new)),
    }
}

/// The note line that best matches the first non-blank line of `old`, ignoring case and
/// surrounding whitespace, to help the model correct itself.
fn nearest_line<'a>(text: &'a str, old: &str) -> Option<&'a str> {
    let wanted = old.lines().map(str::trim).find(|l| !l.is_empty())?.to_lowercase();
    text.lines().find(|line| {
        let line = line.trim().to_lowercase();
        !line.is_empty() && (line.contains(&wanted) || wanted.contains(&line))
    })
}

#[cfg(test)]
mod tests {
    use super::replace_exact;

    #[test]
    fn replaces_a_unique_match() {
        assert_eq!(replace_exact("a b c", "b", "B", 1).unwrap(), "a B c");
    }

    #[test]
    fn refuses_missing_ambiguous_and_no_op_edits() {
        let missing = replace_exact("alpha\nbeta\n", "Beta ", "x", 1).unwrap_err();
        assert!(missing.contains("not found") && missing.contains("\"beta\""), "{missing}");
        let ambiguous = replace_exact("x x x", "x", "y", 1).unwrap_err();
        assert!(ambiguous.contains("occurs 3 times"), "{ambiguous}");
        assert_eq!(replace_exact("x x x", "x", "y", 3).unwrap(), "y y y");
        assert!(replace_exact("x", "x", "x", 1).unwrap_err().contains("same"));
        assert!(replace_exact("x", "", "y", 1).unwrap_err().contains("empty"));
    }

    #[test]
    fn lf_edits_apply_to_crlf_notes() {
        let note = "# T\r\none\r\ntwo\r\n";
        assert_eq!(replace_exact(note, "one\ntwo", "1\n2", 1).unwrap(), "# T\r\n1\r\n2\r\n");
    }
}
