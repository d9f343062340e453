//! `get_linked_notes`: where a note links to, and which notes link to it.

use async_trait::async_trait;

use super::note_io::{plural, NotePath};
use super::{OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::search::parse_note;
use crate::vault::VaultPath;

pub struct GetLinkedNotes;

#[async_trait(?Send)]
impl Tool for GetLinkedNotes {
    const NAME: &'static str = "get_linked_notes";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Read;
    type Args = NotePath;
    type Plan = NotePath;

    fn description(&self) -> &str {
        "A note's links: its outgoing links ([[wikilinks]], embeds and Markdown links, each with the \
         note it resolves to, as Obsidian resolves it) and its backlinks (the notes that link to it)."
    }

    fn paths(&self, args: &NotePath) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: NotePath, _ctx: &ToolContext<'_>) -> Result<NotePath, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: NotePath, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let text = ctx.vault.read(&args.path).await?;
        let note = parse_note(args.path.as_str(), &text);
        let index = ctx.index().await?;
        let source = args.path.as_str();
        let resolve = |target: &str| index.read(|i| Ok(i.resolve_link(target, source))).ok().flatten();
        let visible = |p: &String| ctx.is_visible(p);

        let mut outgoing = Vec::new();
        for link in &note.links {
            let shown = match (&link.heading, link.embed) {
                (Some(h), true) => format!("![[{}#{h}]]", link.target),
                (Some(h), false) => format!("[[{}#{h}]]", link.target),
                (None, true) => format!("![[{}]]", link.target),
                (None, false) => format!("[[{}]]", link.target),
            };
            let to = resolve(&link.target).filter(visible);
            outgoing.push(match to {
                Some(path) => format!("- {shown} → {path}"),
                None => format!("- {shown} → (no such note)"),
            });
        }
        outgoing.dedup();

        let mut backlinks = index.read(|i| i.backlinks(source))?;
        backlinks.retain(visible);

        let summary = format!(
            "{} out, {} in",
            plural(outgoing.len(), "link", "links"),
            plural(backlinks.len(), "backlink", "backlinks")
        );
        let mut content = format!("Outgoing links of {} ({}):\n", args.path, outgoing.len());
        content.push_str(&if outgoing.is_empty() { "(none)".to_string() } else { outgoing.join("\n") });
        content.push_str(&format!("\n\nBacklinks to {} ({}):\n", args.path, backlinks.len()));
        content.push_str(&if backlinks.is_empty() {
            "(none)".to_string()
        } else {
            format!("- {}", backlinks.join("\n- "))
        });
        let items = backlinks.into_iter().map(|label| OutputItem { label, score: None }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
}
