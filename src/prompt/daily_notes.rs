//! Obsidian's Daily notes (a core plugin): where the user's note for a day is, so that "add
//! this to today's note" finds it without a search. Read from the vault's own settings
//! (`.obsidian/core-plugins.json` and `daily-notes.json`), so the plugin and the CLI agree.

use serde_json::Value;

use crate::host::{days_from_civil, utc_datetime, weekday_index, WEEKDAYS};
use crate::vault::{Vault, VaultPath};

/// Obsidian's settings folder when the host names none.
pub const CONFIG_DIR: &str = ".obsidian";

/// The format Obsidian names daily notes with when its settings name none.
const DEFAULT_FORMAT: &str = "YYYY-MM-DD";

/// The Daily notes plugin's settings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DailyNotes {
    /// The folder new daily notes go in, without a trailing `/`; empty: the vault's root.
    pub folder: String,
    /// Their names, as a moment.js format (`YYYY-MM-DD`; `/` makes subfolders).
    pub format: String,
    /// The note a new daily note starts from (its vault path, with `.md`); empty: none.
    pub template: String,
}

impl DailyNotes {
    /// The settings in `config_dir`, or `None` when the plugin is not turned on there (or the
    /// folder is not an Obsidian vault's, or its settings cannot be read: a task never fails
    /// for them). Settings it cannot read are the plugin's defaults.
    pub async fn load(vault: &dyn Vault, config_dir: &str) -> Option<DailyNotes> {
        let read = |name: &str| {
            let path = VaultPath::parse(&format!("{}/{name}", config_dir.trim_end_matches('/')));
            async move {
                let text = vault.read(&path.ok()?).await.ok()?;
                serde_json::from_str::<Value>(&text).ok()
            }
        };
        // Newer Obsidian writes `{"daily-notes": true, …}`; older, the list of the plugins on.
        let on = match read("core-plugins.json").await {
            Some(Value::Object(plugins)) => plugins.get("daily-notes") == Some(&Value::Bool(true)),
            Some(Value::Array(plugins)) => plugins.iter().any(|p| p == "daily-notes"),
            _ => false,
        };
        if !on {
            return None;
        }
        let settings = read("daily-notes.json").await.unwrap_or(Value::Null);
        let setting = |key: &str| settings.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        // Obsidian stores the template's path without its extension.
        let template = setting("template").map(|t| t.trim_matches('/')).filter(|t| !t.is_empty());
        Some(DailyNotes {
            folder: setting("folder").unwrap_or_default().trim_matches('/').to_string(),
            format: setting("format").unwrap_or(DEFAULT_FORMAT).to_string(),
            template: template.map_or_else(String::new, |t| {
                if t.ends_with(".md") {
                    t.to_string()
                } else {
                    format!("{t}.md")
                }
            }),
        })
    }

    /// The vault path of the daily note of a date, or `None` when the format holds what this
    /// cannot write as moment.js would (a time, a locale's format) or names months and days in a
    /// `locale` other than English.
    pub fn path_for(&self, date: (i64, u32, u32), locale: Option<&str>) -> Option<String> {
        let english = locale.is_none_or(|l| l.is_empty() || l.to_ascii_lowercase().starts_with("en"));
        let name = format_date(&self.format, date, english)?;
        Some(if self.folder.is_empty() { format!("{name}.md") } else { format!("{}/{name}.md", self.folder) })
    }

    /// The prompt's line: where today's note is (when it can be told), the folder and format,
    /// and the template a new one starts from.
    pub fn prompt_line(&self, today: (i64, u32, u32), locale: Option<&str>) -> String {
        let folder = if self.folder.is_empty() { "the vault's root".to_string() } else { format!("{}/", self.folder) };
        let settings = format!("Obsidian's daily notes are in {folder}, named in the moment.js format {}", self.format);
        let mut line = match self.path_for(today, locale) {
            Some(path) => format!("Today's daily note: {path} ({settings})."),
            None => format!("{settings}; today's note is named after today's date in that format."),
        };
        if !self.template.is_empty() {
            line.push_str(&format!(
                " A new daily note starts as a copy of {} with its {{{{date}}}}, {{{{time}}}} and {{{{title}}}} filled in.",
                self.template
            ));
        }
        line
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// moment.js's tokens this writes, longest first (moment takes the longest at each place).
const TOKENS: [&str; 26] = [
    "YYYY", "GGGG", "MMMM", "DDDD", "dddd", "DDDo", "MMM", "DDD", "ddd", "Mo", "MM", "Do", "DD", "do", "dd", "Qo",
    "Wo", "WW", "YY", "GG", "M", "D", "d", "Q", "W", "E",
];

/// `date` written in the moment.js `format` (`[…]` is text as it is), or `None` when the format
/// holds a token this does not write (a time; a locale's format `LL`; a locale's weeks `w`,
/// `gggg`, whose rules differ by locale), or names (of months, weekdays) or ordinals and
/// `english` is false. `W` and `GGGG` are ISO weeks and their years.
pub fn format_date(format: &str, (y, mo, d): (i64, u32, u32), english: bool) -> Option<String> {
    let weekday = weekday_index((y, mo, d)); // 0 = Sunday
    let (iso_year, iso_week) = iso_week(y, mo, d);
    let day_of_year = day_of_year(y, mo, d);
    let mut out = String::new();
    let mut rest = format;
    while let Some(c) = rest.chars().next() {
        if c == '[' {
            let end = rest.find(']')?;
            out.push_str(&rest[1..end]);
            rest = &rest[end + 1..];
            continue;
        }
        if !c.is_ascii_alphabetic() {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = TOKENS.iter().find(|t| rest.starts_with(**t))?;
        let names = token.contains("MMM") || token.starts_with("dd") || token.ends_with('o');
        if names && !english {
            return None;
        }
        out.push_str(&match *token {
            "YYYY" => format!("{y:04}"),
            "YY" => format!("{:02}", y.rem_euclid(100)),
            "GGGG" => format!("{iso_year:04}"),
            "GG" => format!("{:02}", iso_year.rem_euclid(100)),
            "MMMM" => MONTHS[mo as usize - 1].to_string(),
            "MMM" => MONTHS[mo as usize - 1][..3].to_string(),
            "MM" => format!("{mo:02}"),
            "Mo" => ordinal(mo),
            "M" => mo.to_string(),
            "Q" => ((mo - 1) / 3 + 1).to_string(),
            "Qo" => ordinal((mo - 1) / 3 + 1),
            "DDDD" => format!("{day_of_year:03}"),
            "DDDo" => ordinal(day_of_year),
            "DDD" => day_of_year.to_string(),
            "DD" => format!("{d:02}"),
            "Do" => ordinal(d),
            "D" => d.to_string(),
            "dddd" => WEEKDAYS[weekday].to_string(),
            "ddd" => WEEKDAYS[weekday][..3].to_string(),
            "dd" => WEEKDAYS[weekday][..2].to_string(),
            "do" => ordinal(weekday as u32),
            "d" => weekday.to_string(),
            "E" => (if weekday == 0 { 7 } else { weekday }).to_string(),
            "WW" => format!("{iso_week:02}"),
            "Wo" => ordinal(iso_week),
            "W" => iso_week.to_string(),
            _ => return None,
        });
        rest = &rest[token.len()..];
    }
    Some(out)
}

/// `n` with its English ordinal suffix: 1st, 2nd, 3rd, 4th, 11th, 22nd.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn day_of_year(y: i64, mo: u32, d: u32) -> u32 {
    (days_from_civil(y, mo, d) - days_from_civil(y, 1, 1)) as u32 + 1
}

/// The ISO 8601 week-numbering year and week of a date (weeks start on Monday; week 1 holds
/// the year's first Thursday).
fn iso_week(y: i64, mo: u32, d: u32) -> (i64, u32) {
    let days = days_from_civil(y, mo, d);
    let thursday = days - (days + 3).rem_euclid(7) + 3;
    let year = utc_datetime((thursday * 86_400_000) as u64).0;
    (year, ((thursday - days_from_civil(year, 1, 1)) / 7 + 1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(format: &str, date: (i64, u32, u32)) -> Option<String> {
        format_date(format, date, true)
    }

    #[test]
    fn moment_formats_users_name_their_daily_notes_with() {
        let date = (2026, 12, 8); // a Tuesday, ISO week 50
        assert_eq!(f("YYYY-MM-DD", date).as_deref(), Some("2026-12-08"));
        assert_eq!(f("YYYY/MM-MMMM/YYYY-MM-DD-dddd", date).as_deref(), Some("2026/12-December/2026-12-08-Tuesday"));
        assert_eq!(f("DD.MM.YY", date).as_deref(), Some("08.12.26"));
        assert_eq!(f("ddd, MMM Do YYYY", date).as_deref(), Some("Tue, Dec 8th 2026"));
        assert_eq!(f("GGGG-[W]WW", date).as_deref(), Some("2026-W50"));
        assert_eq!(f("gggg-[W]ww", date), None, "a locale's weeks");
        assert_eq!(f("YYYY-[Q]Q [day] DDDD", date).as_deref(), Some("2026-Q4 day 342"));
        assert_eq!(f("D/M/YYYY", (2026, 1, 3)).as_deref(), Some("3/1/2026"));
        // ISO weeks at the turn of a year: 2027-01-01 is a Friday of 2026's week 53.
        assert_eq!(f("GGGG-[W]WW-E", (2027, 1, 1)).as_deref(), Some("2026-W53-5"));
        assert_eq!(f("GGGG-[W]WW", (2024, 12, 30)).as_deref(), Some("2025-W01"));
        assert_eq!(f("Do", (2026, 12, 11)).as_deref(), Some("11th"));
        assert_eq!(f("Do", (2026, 12, 22)).as_deref(), Some("22nd"));
    }

    #[test]
    fn a_format_with_a_time_a_locale_format_or_foreign_names_has_no_path() {
        assert_eq!(f("YYYY-MM-DD HH:mm", (2026, 12, 8)), None);
        assert_eq!(f("LL", (2026, 12, 8)), None);
        assert_eq!(f("[unclosed", (2026, 12, 8)), None);
        assert_eq!(format_date("YYYY-MM-DD dddd", (2026, 12, 8), false), None);
        assert_eq!(format_date("YYYY-MM-DD", (2026, 12, 8), false).as_deref(), Some("2026-12-08"));
        let notes = DailyNotes { folder: "Journal".into(), format: "YYYY-MM-DD dddd".into(), template: String::new() };
        assert_eq!(notes.path_for((2026, 12, 8), Some("en-gb")).as_deref(), Some("Journal/2026-12-08 Tuesday.md"));
        assert_eq!(notes.path_for((2026, 12, 8), Some("de")), None);
        assert!(notes.prompt_line((2026, 12, 8), Some("de")).contains("named in the moment.js format YYYY-MM-DD dddd"));
    }
}
