//! `list_files`: what is in a folder, optionally recursive and filtered by a glob.

use async_trait::async_trait;
use globset::GlobBuilder;
use serde::Deserialize;
use serde_json::{json, Value};

use super::note_io::plural;
use super::{parse_args, OutputItem, PathUse, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::vault::{is_hidden, EntryKind, VaultPath};

/// Entries listed when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 500;

pub struct ListFiles;

#[derive(Deserialize)]
struct Args {
    #[serde(default = "VaultPath::root")]
    path: VaultPath,
    #[serde(default)]
    recursive: bool,
    glob: Option<String>,
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for ListFiles {
    fn name(&self) -> &'static str {
        "list_files"
    }

    fn description(&self) -> &str {
        "List the files and folders in a vault folder (default: the vault root). With recursive=true, list \
         every file below it. `glob` filters files (a glob with ** lists recursively): a pattern without '/' matches file names (\"*.md\"), \
         one with '/' matches vault paths (\"Projects/**/*.md\"). Folders end with '/'. Hidden folders \
         (starting with '.') are skipped."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Folder to list; \"\" or omitted for the vault root."},
                "recursive": {"type": "boolean", "description": "List every file below the folder."},
                "glob": {"type": "string", "description": "Only files matching this glob."},
                "limit": {"type": "integer", "minimum": 1, "description": "At most this many entries (default 500)."}
            },
            "additionalProperties": false
        })
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn group(&self) -> ToolGroup {
        ToolGroup::Read
    }

    fn paths(&self, args: &Value) -> Result<Vec<PathUse>, ToolError> {
        let path = parse_args::<Args>(self.name(), args)?.path;
        Ok(if path.is_root() { Vec::new() } else { vec![PathUse::read(path)] })
    }

    async fn execute(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(self.name(), &args)?;
        match ctx.vault.stat(&args.path).await? {
            Some(stat) if stat.kind == EntryKind::Folder => {}
            Some(_) => return Err(ToolError::model(format!("{} is a file, not a folder", args.path))),
            None if args.path.is_root() => {}
            None => return Err(ToolError::model(format!("folder not found: {}", args.path))),
        }
        let matcher = match &args.glob {
            Some(glob) => {
                let pattern = if glob.contains('/') { glob.clone() } else { format!("**/{glob}") };
                let glob = GlobBuilder::new(&pattern)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| ToolError::model(format!("bad glob {glob:?}: {e}")))?;
                Some(glob.compile_matcher())
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
        entries.sort();

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
