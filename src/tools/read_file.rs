//! `read_file`: a note's text, a window of lines at a time.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::plural;
use super::{Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::media::{attach_media, MediaKind};
use crate::vault::VaultPath;

/// Lines returned when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 2000;
/// At most this many characters are returned at once; the rest is a later `offset` away.
pub const MAX_CHARS: usize = 50_000;

pub struct ReadFile;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Vault-relative path, e.g. "Projects/Plan.md".
    path: VaultPath,
    /// First line to return (1-based).
    #[schemars(range(min = 1))]
    offset: Option<usize>,
    /// How many lines to return.
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Read;
    const EXTERNALIZABLE: bool = false;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "Read a note (or any text file) in the vault. Returns the lines from `offset` (1-based, default 1), \
         at most `limit` lines (default 2000), under a header that gives the line range and the total. \
         For long files, read the next window with a larger offset. Also opens the result files that \
         other tools saved under .obsidian-agent/tmp/. An image (png, jpg, gif, webp) or a PDF comes back \
         as the image or document itself where you can take it (a PDF otherwise as its text)."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        vec![args.path.clone()]
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        if let Some(kind) = MediaKind::of(&args.path) {
            let attached = attach_media(ctx.vault, &args.path, ctx.media).await?;
            let summary = match kind {
                MediaKind::Image(_) => "image",
                MediaKind::Pdf => "PDF",
            };
            let output = ToolOutput::text(format!("{}: {}", args.path, attached.body)).with_summary(summary);
            return Ok(ToolOutput { media: attached.blocks, ..output });
        }
        let text = ctx.vault.read(&args.path).await?;
        ctx.ledger.record(&args.path, text.as_bytes());

        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len();
        let start = args.offset.unwrap_or(1).max(1);
        if total == 0 {
            return Ok(ToolOutput::text(format!("{} is empty.", args.path)).with_summary("empty note"));
        }
        if start > total {
            return Err(ToolError::model(format!(
                "offset {start} is past the end of {} ({}).",
                args.path,
                plural(total, "line", "lines")
            )));
        }
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        let mut body = String::new();
        let mut end = start - 1;
        for line in lines.iter().skip(start - 1).take(limit) {
            if !body.is_empty() && body.len() + line.len() + 1 > MAX_CHARS {
                break;
            }
            body.push_str(line);
            body.push('\n');
            end += 1;
        }
        let header = if start == 1 && end == total {
            format!("{} ({}):", args.path, plural(total, "line", "lines"))
        } else {
            format!("{} (lines {start}-{end} of {total}):", args.path)
        };
        let mut content = format!("{header}\n{body}");
        if end < total {
            content.push_str(&format!(
                "[{} more; continue with offset {}]\n",
                plural(total - end, "line", "lines"),
                end + 1
            ));
        }
        Ok(ToolOutput::text(content).with_summary(format!("lines {start}-{end} of {total}")))
    }
}
