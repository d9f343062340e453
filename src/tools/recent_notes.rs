//! `recent_notes`: the notes changed most recently, or in a span of the user's dates — what
//! "what did I write this week?" needs, which no search for words finds.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::note_io::plural;
use super::{OutputItem, Tool, ToolContext, ToolError, ToolGroup, ToolKind, ToolOutput};
use crate::host::{local_datetime, local_ms, utc_offset_label, Clock};
use crate::vault::VaultPath;

/// Notes listed when the model gives no `limit`.
pub const DEFAULT_LIMIT: usize = 30;

pub struct RecentNotes;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// Only notes changed at or after this moment, in the user's time: "2026-12-01" (from the
    /// day's start) or "2026-12-01 14:00".
    since: Option<String>,
    /// Only notes changed before this moment, in the user's time: "2026-12-08" (before the day
    /// starts) or "2026-12-08 09:30".
    before: Option<String>,
    /// Only notes in this folder and its subfolders.
    folder: Option<VaultPath>,
    /// At most this many notes (default 30).
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[async_trait(?Send)]
impl Tool for RecentNotes {
    const NAME: &'static str = "recent_notes";
    const KIND: ToolKind = ToolKind::Read;
    const GROUP: ToolGroup = ToolGroup::Search;
    type Args = Args;
    type Plan = Args;

    fn description(&self) -> &str {
        "List notes by when they last changed, newest first, each with that date and time in the \
         user's time zone: the latest ones, or those changed between `since` and `before` (dates \
         as YYYY-MM-DD or YYYY-MM-DD HH:MM, the user's time). For what the user wrote or worked on \
         lately, today, this week."
    }

    fn paths(&self, args: &Args) -> Vec<VaultPath> {
        args.folder.iter().filter(|f| !f.is_root()).cloned().collect()
    }

    async fn plan(&self, args: Args, _ctx: &ToolContext<'_>) -> Result<Args, ToolError> {
        Ok(args)
    }

    async fn apply(&self, args: Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let since = args.since.as_deref().map(|s| moment(ctx.clock, "since", s)).transpose()?;
        let before = args.before.as_deref().map(|s| moment(ctx.clock, "before", s)).transpose()?;
        let folder = args.folder.as_ref().filter(|f| !f.is_root()).map(|f| format!("{f}/"));
        let mut notes: Vec<(String, u64)> = ctx.index().await?.read(|index| {
            Ok(index
                .notes()
                .filter(|(path, entry)| {
                    folder.as_ref().is_none_or(|f| path.starts_with(f.as_str()))
                        && since.is_none_or(|s| entry.mtime >= s)
                        && before.is_none_or(|b| entry.mtime < b)
                })
                .map(|(path, entry)| (path.to_string(), entry.mtime))
                .collect())
        })?;
        notes.retain(|(path, _)| ctx.is_visible(path));
        // Newest first; a note whose time the host could not tell (0) last.
        crate::sort::sort_by(&mut notes, |a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total = notes.len();
        notes.truncate(args.limit.unwrap_or(DEFAULT_LIMIT).max(1));

        let span = span(args.since.as_deref(), args.before.as_deref());
        let place = args.folder.as_ref().filter(|f| !f.is_root()).map(|f| format!(" in {f}/")).unwrap_or_default();
        let summary = format!("{}{span}{place}", plural(total, "note", "notes"));
        if notes.is_empty() {
            return Ok(ToolOutput::text(format!("No notes{span}{place}.")).with_summary(summary));
        }
        let zone = utc_offset_label(ctx.clock.utc_offset_minutes(ctx.clock.now_ms()));
        let mut content = format!("{summary}, the most recently changed first (times in {zone}):");
        for (path, mtime) in &notes {
            content.push('\n');
            if *mtime == 0 {
                content.push_str("(time unknown)    ");
            } else {
                let (y, mo, d, h, mi, _) = local_datetime(ctx.clock, *mtime);
                content.push_str(&format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}  "));
            }
            content.push_str(path);
        }
        if total > notes.len() {
            content.push_str(&format!("\n[{} more; raise limit or narrow the dates]", total - notes.len()));
        }
        let items = notes.into_iter().map(|(label, _)| OutputItem { label, score: None }).collect();
        Ok(ToolOutput::text(content).with_summary(summary).with_items(items))
    }
}

/// The dates asked, as words after "notes" (" changed since 2026-12-01"); empty for none.
pub(super) fn span(since: Option<&str>, before: Option<&str>) -> String {
    match (since, before) {
        (Some(s), Some(b)) => format!(" changed from {s} to before {b}"),
        (Some(s), None) => format!(" changed since {s}"),
        (None, Some(b)) => format!(" changed before {b}"),
        (None, None) => String::new(),
    }
}

/// The instant `text` names in the user's time ("2026-12-01" or "2026-12-01 14:00"), or an
/// error for the model saying how to write one.
fn moment(clock: &dyn Clock, arg: &str, text: &str) -> Result<u64, ToolError> {
    let bad = || {
        ToolError::model(format!(
            "{arg}: {text:?} is not a date; write YYYY-MM-DD or YYYY-MM-DD HH:MM, in the user's time"
        ))
    };
    let text = text.trim();
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((date, time)) => (date, Some(time.trim())),
        None => (text, None),
    };
    let number = |s: &str| s.parse::<u32>().map_err(|_| bad());
    let mut parts = date.split('-');
    let (Some(y), Some(mo), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    let y = i64::from(number(y)?);
    let (h, mi) = match time {
        Some(time) => {
            let (h, mi) = time.split_once(':').ok_or_else(bad)?;
            // Seconds, if given, are ignored.
            (number(h)?, number(mi.get(..2).unwrap_or(mi))?)
        }
        None => (0, 0),
    };
    local_ms(clock, (y, number(mo)?, number(d)?, h, mi)).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::moment;
    use crate::host::ManualClock;

    #[test]
    fn dates_are_read_in_the_users_time_zone_and_a_bad_one_says_how_to_write_it() {
        let tokyo = ManualClock::new(0);
        tokyo.set_utc_offset(540);
        // 2026-11-23 00:00 UTC is 09:00 in Tokyo.
        assert_eq!(moment(&tokyo, "since", "2026-11-23 09:00").unwrap(), 1_795_392_000_000);
        assert_eq!(moment(&tokyo, "since", " 2026-11-23T09:00:30 ").unwrap(), 1_795_392_000_000);
        assert_eq!(moment(&tokyo, "since", "2026-11-23").unwrap(), 1_795_392_000_000 - 9 * 3_600_000);
        for bad in ["last week", "2026-11", "2026-11-31", "2026-11-23 25:00", "2026-11-23 9", "23/11/2026"] {
            let error = moment(&tokyo, "before", bad).unwrap_err().to_string();
            assert!(error.contains("before:") && error.contains("YYYY-MM-DD"), "{bad}: {error}");
        }
    }
}
