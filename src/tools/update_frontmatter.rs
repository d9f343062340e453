//! `update_frontmatter`: sets or removes properties in a note's YAML frontmatter, leaving the
//! body byte for byte as it was.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::note_io::{read_existing, NoteWrite};
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::protocol::ChangePreview;
use crate::search::Frontmatter;
use crate::vault::VaultPath;

pub struct UpdateFrontmatter;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path of the note.
    path: VaultPath,
    /// Properties to set, e.g. {"status": "done", "tags": ["a", "b"]}.
    #[serde(default)]
    set: Map<String, Value>,
    /// Property names to remove.
    #[serde(default)]
    remove: Vec<String>,
}

#[async_trait(?Send)]
impl Tool for UpdateFrontmatter {
    const NAME: &'static str = "update_frontmatter";
    const KIND: ToolKind = ToolKind::Write;
    const GROUP: ToolGroup = ToolGroup::Edit;
    type Args = Args;
    type Plan = NoteWrite;

    fn description(&self) -> &str {
        "Set or remove properties in a note's YAML frontmatter (created if the note has none). `set` \
         maps property names to values (strings, numbers, booleans, lists); `remove` lists names to \
         delete. The note's body is not touched; other properties keep their order but are written back \
         in plain YAML (comments inside the frontmatter are lost)."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, ctx: &ToolContext<'_>) -> Result<NoteWrite, ToolError> {
        if args.set.is_empty() && args.remove.is_empty() {
            return Err(ToolError::model("nothing to change: give properties in `set` or names in `remove`"));
        }
        // The change is made on the note's current text, so a user's edit to the body is kept.
        let Some(text) = read_existing(ctx, &args.path).await? else {
            return Err(ToolError::model(format!("{} does not exist", args.path)));
        };
        let new = with_frontmatter(&text, &args.set, &args.remove)
            .map_err(|e| ToolError::model(format!("{}: {e}", args.path)))?;
        let mut changes: Vec<String> = args.set.keys().map(|k| format!("set {k}")).collect();
        changes.extend(args.remove.iter().map(|k| format!("removed {k}")));
        let done = format!("Updated the frontmatter of {}: {}.", args.path, changes.join(", "));
        Ok(NoteWrite { path: args.path, old: Some(text), new, done })
    }

    fn preview(&self, plan: &NoteWrite) -> Option<ChangePreview> {
        Some(plan.preview())
    }

    async fn apply(&self, plan: NoteWrite, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        plan.apply(ctx).await
    }
}

/// `text` with its frontmatter changed: properties in `set` set (in place if present, else
/// appended), names in `remove` removed; everything after the frontmatter kept as it was.
pub fn with_frontmatter(text: &str, set: &Map<String, Value>, remove: &[String]) -> Result<String, String> {
    let parsed = Frontmatter::parse(text);
    if let Some(warning) = parsed.warning {
        return Err(format!("{warning}; fix the frontmatter with edit_file first"));
    }
    let (mut mapping, body) = if parsed.body_start == 0 {
        (serde_yaml_ng::Mapping::new(), text)
    } else {
        let end = text[..parsed.body_start].trim_end_matches(['\n', '\r']);
        let yaml = &end[..end.rfind('\n').unwrap_or(0)];
        let yaml = yaml.strip_prefix("---").unwrap_or(yaml);
        let mapping = match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(yaml) {
            Ok(serde_yaml_ng::Value::Mapping(m)) => m,
            Ok(serde_yaml_ng::Value::Null) => serde_yaml_ng::Mapping::new(),
            Ok(_) | Err(_) => return Err("the frontmatter is not a set of properties".into()),
        };
        (mapping, &text[parsed.body_start..])
    };
    for name in remove {
        mapping.remove(serde_yaml_ng::Value::String(name.clone()));
    }
    for (name, value) in set {
        let value = serde_yaml_ng::to_value(value).map_err(|e| format!("property {name}: {e}"))?;
        mapping.insert(serde_yaml_ng::Value::String(name.clone()), value);
    }
    if mapping.is_empty() {
        return Ok(body.to_string());
    }
    let yaml = serde_yaml_ng::to_string(&mapping).map_err(|e| e.to_string())?;
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let yaml = if newline == "\r\n" { yaml.replace('\n', "\r\n") } else { yaml };
    Ok(format!("---{newline}{yaml}---{newline}{body}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::with_frontmatter;

    fn set(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn sets_and_removes_properties_and_keeps_the_body() {
        let note = "---\ntitle: Plan\nstatus: draft\ntags: [a, b]\n---\n# Plan\n\n---\nnot frontmatter\n";
        let out =
            with_frontmatter(note, &set(json!({"status": "done", "due": "2026-12-01"})), &["tags".into()]).unwrap();
        assert_eq!(out, "---\ntitle: Plan\nstatus: done\ndue: 2026-12-01\n---\n# Plan\n\n---\nnot frontmatter\n");
    }

    #[test]
    fn creates_frontmatter_and_drops_an_emptied_one() {
        let out = with_frontmatter("Body\n", &set(json!({"tags": ["x", "y"]})), &[]).unwrap();
        assert_eq!(out, "---\ntags:\n- x\n- y\n---\nBody\n");
        assert_eq!(with_frontmatter(&out, &set(json!({})), &["tags".into()]).unwrap(), "Body\n");
    }

    #[test]
    fn crlf_notes_stay_crlf_and_broken_yaml_is_refused() {
        let out = with_frontmatter("---\r\na: 1\r\n---\r\nBody\r\n", &set(json!({"b": true})), &[]).unwrap();
        assert_eq!(out, "---\r\na: 1\r\nb: true\r\n---\r\nBody\r\n");
        let err = with_frontmatter("---\na: [1\n---\nBody\n", &set(json!({"b": 1})), &[]).unwrap_err();
        assert!(err.contains("YAML") && err.contains("edit_file"), "{err}");
    }
}
