//! `list_files`: what is in a folder, optionally recursive and filtered by a glob.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::plural;
use super::{OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::vault::{is_hidden, EntryKind, Glob, VaultPath};

/// Entries listed when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 500;

pub struct ListFiles;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Folder to list; "" or omitted for the vault root.
    #[serde(default = "VaultPath::root")]
    path: VaultPath,
    /// List every file below the folder.
    #[serde(default)]
    recursive: bool,
    /// Only files matching this glob.
    glob: Option<String>,
    /// At most this many entries (default 500).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for ListFiles {
    const NAME: &'static str = "list_files";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Read;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "List the files and folders in a vault folder (default: the vault root). With recursive=true, list \
         every file below it. `glob` filters files (a glob with ** lists recursively): a pattern without '/' matches file names (\"*.md\"), \
         one with '/' matches vault paths (\"Projects/**/*.md\"). Folders end with '/'. Hidden folders \
         (starting with '.') are skipped."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        if args.path.is_root() {
            Vec::new()
        } else {
            vec![args.path.clone()]
        }
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        match ctx.vault.stat(&args.path).await? {
            Some(stat) if stat.kind == EntryKind::Folder => {}
            Some(_) => return Err(ToolError::model(format!("{} is a file, not a folder", args.path))),
            None if args.path.is_root() => {}
            None => return Err(ToolError::model(format!("folder not found: {}", args.path))),
        }
        let matcher = match &args.glob {
            Some(glob) => {
                let pattern = if glob.contains('/') { glob.clone() } else { format!("**/{glob}") };
                Some(Glob::new(&pattern).map_err(|e| ToolError::model(format!("bad glob {glob:?}: {e}")))?)
            }
            None => None,
        };
        // A glob that spans folders implies a recursive listing.
        let recursive = args.recursive || args.glob.as_deref().is_some_and(|g| g.contains("**"));
        // Hidden entries are left out, except below a hidden folder the model asked for by name
        // (the pipeline let it through: it is not ignored).
        let inside_hidden = is_hidden(&args.path);
        let visible = |p: &VaultPath| if inside_hidden { !ctx.rules.is_ignored(p) } else { ctx.rules.is_visible(p) };
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);

        let mut entries: Vec<String> = Vec::new();
        let mut total = 0usize;
        let mut pending = vec![args.path.clone()];
        while let Some(folder) = pending.pop() {
            ctx.cancel.check()?;
            let listing = ctx.vault.list(&folder).await?;
            if !recursive && matcher.is_none() {
                for sub in listing.folders.iter().filter(|f| visible(f)) {
                    total += 1;
                    if entries.len() < limit {
                        entries.push(format!("{sub}/"));
                    }
                }
            }
            for file in listing.files.iter().filter(|f| visible(f)) {
                if matcher.as_ref().is_some_and(|m| !m.is_match(file.as_str())) {
                    continue;
                }
                total += 1;
                if entries.len() < limit {
                    entries.push(file.to_string());
                }
            }
            if recursive {
                pending.extend(listing.folders.into_iter().filter(|f| visible(f)).rev());
            }
        }
        crate::sort::sort(&mut entries);

        let place = if args.path.is_root() { "the vault root".to_string() } else { args.path.to_string() };
        let summary = format!("{} in {place}", plural(total, "entry", "entries"));
        let mut content = if entries.is_empty() { format!("No entries in {place}.") } else { entries.join("\n") };
        if total > entries.len() {
            content.push_str(&format!("\n[{} more not shown; raise limit or narrow the glob]", total - entries.len()));
        }
        let items = entries.iter().map(|e| OutputItem { label: e.clone(), score: None }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
}
