//! Where the user's notes for a day, a week and a month are, so that "add this to today's note"
//! or "what did I plan this week?" finds the note without a search: Obsidian's Daily notes (a
//! core plugin), and the community plugins that add weeks and months — Periodic Notes, whose
//! daily notes replace the core plugin's where it has them on, and the Calendar plugin's weekly
//! notes and first weekday. Read from the vault's own settings (`.obsidian/core-plugins.json`,
//! `daily-notes.json`, `community-plugins.json`, `plugins/<id>/data.json`), so the plugin and
//! the CLI agree.

use serde_json::Value;

use super::moment_format::{format_date, MomentLocale};
use crate::host::WEEKDAYS;
use crate::vault::{Vault, VaultPath};

/// Obsidian's settings folder when the host names none.
pub const CONFIG_DIR: &str = ".obsidian";

/// A span of time that has its own note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Day,
    Week,
    Month,
}

impl Period {
    /// The name format the plugins use when their settings name none.
    fn default_format(self) -> &'static str {
        match self {
            Period::Day => "YYYY-MM-DD",
            Period::Week => "gggg-[W]ww",
            Period::Month => "YYYY-MM",
        }
    }

    fn adjective(self) -> &'static str {
        match self {
            Period::Day => "daily",
            Period::Week => "weekly",
            Period::Month => "monthly",
        }
    }
}

/// The plugin whose settings name a period's notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum NotesPlugin {
    /// Obsidian's core Daily notes.
    DailyNotes,
    /// The community plugin Periodic Notes.
    PeriodicNotes,
    /// The community plugin Calendar (its weekly notes, before Periodic Notes took them over).
    Calendar,
}

impl NotesPlugin {
    /// Whose notes these are, starting a sentence or inside one.
    fn owner(self, starts_sentence: bool) -> &'static str {
        match (self, starts_sentence) {
            (NotesPlugin::DailyNotes, _) => "Obsidian's",
            (NotesPlugin::PeriodicNotes, true) => "The Periodic Notes plugin's",
            (NotesPlugin::PeriodicNotes, false) => "the Periodic Notes plugin's",
            (NotesPlugin::Calendar, true) => "The Calendar plugin's",
            (NotesPlugin::Calendar, false) => "the Calendar plugin's",
        }
    }
}

/// One period's notes: where they go, how they are named, what a new one starts from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NoteSeries {
    pub period: Period,
    pub plugin: NotesPlugin,
    /// The folder new notes go in, without a trailing `/`; empty: the vault's root.
    pub folder: String,
    /// Their names, as a moment.js format (`YYYY-MM-DD`; `/` makes subfolders).
    pub format: String,
    /// The note a new one starts from (its vault path, with `.md`); empty: none.
    pub template: String,
}

impl NoteSeries {
    fn new(period: Period, plugin: NotesPlugin, settings: &Value, keys: [&str; 3]) -> NoteSeries {
        let [folder, format, template] = keys;
        let setting = |key: &str| settings.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        // The plugins store the template's path without its extension.
        let template = setting(template).map(|t| t.trim_matches('/')).filter(|t| !t.is_empty());
        NoteSeries {
            period,
            plugin,
            folder: setting(folder).unwrap_or_default().trim_matches('/').to_string(),
            format: setting(format).unwrap_or(period.default_format()).to_string(),
            template: template.map_or_else(String::new, |t| {
                if t.ends_with(".md") {
                    t.to_string()
                } else {
                    format!("{t}.md")
                }
            }),
        }
    }

    /// The vault path of the note of the period holding `date`, or `None` when its format holds
    /// what this cannot write as moment.js would in `locale` (a time; months' or weekdays' names
    /// in a language other than English; a locale's weeks whose rules are not known).
    pub fn path_for(&self, date: (i64, u32, u32), locale: MomentLocale) -> Option<String> {
        let name = format_date(&self.format, date, locale)?;
        Some(if self.folder.is_empty() { format!("{name}.md") } else { format!("{}/{name}.md", self.folder) })
    }

    /// The prompt's line: where the current period's note is (when it can be told), the folder
    /// and format, and the template a new one starts from.
    fn prompt_line(&self, today: (i64, u32, u32), locale: MomentLocale) -> String {
        let folder = if self.folder.is_empty() { "the vault's root".to_string() } else { format!("{}/", self.folder) };
        let kind = self.period.adjective();
        let settings = |starts_sentence| {
            let owner = self.plugin.owner(starts_sentence);
            format!("{owner} {kind} notes are in {folder}, named in the moment.js format {}", self.format)
        };
        let current = match self.period {
            Period::Day => "Today's daily note",
            Period::Week => "This week's note",
            Period::Month => "This month's note",
        };
        let mut line = match self.path_for(today, locale) {
            Some(path) => format!("{current}: {path} ({}).", settings(false)),
            None => format!("{}; {} is named after it in that format.", settings(true), current.to_lowercase()),
        };
        if !self.template.is_empty() {
            line.push_str(&format!(
                " A new {kind} note starts as a copy of {} with its {{{{date}}}}, {{{{time}}}} and {{{{title}}}} filled in.",
                self.template
            ));
        }
        line
    }
}

/// The periods whose notes the user keeps, as the vault's settings say.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PeriodicNotes {
    /// Day, week and month, those that are on, in that order.
    pub series: Vec<NoteSeries>,
    /// The first weekday (0 = Sunday) where the Calendar plugin sets it instead of the language.
    pub week_start: Option<u32>,
    /// The language moment.js writes in where the Calendar plugin sets it instead of Obsidian's.
    pub locale: Option<String>,
}

impl PeriodicNotes {
    /// The settings in `config_dir`, or `None` when no plugin keeps such notes there (or the
    /// folder is not an Obsidian vault's, or its settings cannot be read: a task never fails for
    /// them). A plugin that is on with settings it cannot read has its defaults.
    pub async fn load(vault: &dyn Vault, config_dir: &str) -> Option<PeriodicNotes> {
        let read = |name: String| {
            let path = VaultPath::parse(&format!("{}/{name}", config_dir.trim_end_matches('/')));
            async move {
                let text = vault.read(&path.ok()?).await.ok()?;
                serde_json::from_str::<Value>(&text).ok()
            }
        };
        // Newer Obsidian writes `{"daily-notes": true, …}`; older, the list of the plugins on.
        let core_daily = match read("core-plugins.json".into()).await {
            Some(Value::Object(plugins)) => plugins.get("daily-notes") == Some(&Value::Bool(true)),
            Some(Value::Array(plugins)) => plugins.iter().any(|p| p == "daily-notes"),
            _ => false,
        };
        let community = read("community-plugins.json".into()).await.unwrap_or(Value::Null);
        let enabled = |id: &str| community.as_array().is_some_and(|ids| ids.iter().any(|p| p == id));
        let plugin_data = |id: &str| read(format!("plugins/{id}/data.json"));
        let periodic = if enabled("periodic-notes") { plugin_data("periodic-notes").await } else { None };
        let calendar = if enabled("calendar") { plugin_data("calendar").await } else { None };

        let mut series = Vec::new();
        for (period, old_key, new_key) in
            [(Period::Day, "daily", "day"), (Period::Week, "weekly", "week"), (Period::Month, "monthly", "month")]
        {
            // Periodic Notes 0.x keeps `daily: {enabled, folder, format, template}`; 1.x, sets
            // of calendars, each with `day: {enabled, folder, format, templatePath}`.
            let from_periodic = periodic.as_ref().and_then(|data| {
                let (settings, template) = match data.get(old_key) {
                    Some(settings) => (settings, "template"),
                    None => (active_calendar_set(data)?.get(new_key)?, "templatePath"),
                };
                (settings.get("enabled") == Some(&Value::Bool(true))).then(|| {
                    NoteSeries::new(period, NotesPlugin::PeriodicNotes, settings, ["folder", "format", template])
                })
            });
            let fallback = match period {
                Period::Day if core_daily => {
                    let settings = read("daily-notes.json".into()).await.unwrap_or(Value::Null);
                    Some(NoteSeries::new(period, NotesPlugin::DailyNotes, &settings, ["folder", "format", "template"]))
                }
                Period::Week => {
                    calendar.as_ref().filter(|c| c.get("showWeeklyNote") == Some(&Value::Bool(true))).map(|settings| {
                        let keys = ["weeklyNoteFolder", "weeklyNoteFormat", "weeklyNoteTemplate"];
                        NoteSeries::new(period, NotesPlugin::Calendar, settings, keys)
                    })
                }
                _ => None,
            };
            series.extend(from_periodic.or(fallback));
        }
        if series.is_empty() {
            return None;
        }
        let calendar_setting = |key: &str| calendar.as_ref()?.get(key)?.as_str().map(str::to_ascii_lowercase);
        let week_start = calendar_setting("weekStart")
            .and_then(|day| WEEKDAYS.iter().position(|name| name.eq_ignore_ascii_case(&day)).map(|i| i as u32));
        let locale = calendar_setting("localeOverride").filter(|l| l != "system-default");
        Some(PeriodicNotes { series, week_start, locale })
    }

    /// The prompt's lines, one a period: where the note of the period holding `today` is, as
    /// moment.js names it in Obsidian's language `locale`.
    pub fn prompt_lines(&self, today: (i64, u32, u32), locale: Option<&str>) -> Vec<String> {
        let locale = MomentLocale::new(self.locale.as_deref().or(locale), self.week_start);
        self.series.iter().map(|series| series.prompt_line(today, locale)).collect()
    }
}

/// Periodic Notes 1.x's calendar set in use.
fn active_calendar_set(data: &Value) -> Option<&Value> {
    let sets = data.get("calendarSets")?.as_array()?;
    let active = data.get("activeCalendarSet").and_then(Value::as_str);
    sets.iter().find(|set| active.is_some_and(|id| set.get("id").and_then(Value::as_str) == Some(id))).or(sets.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(period: Period, plugin: NotesPlugin, folder: &str, format: &str) -> NoteSeries {
        NoteSeries { period, plugin, folder: folder.into(), format: format.into(), template: String::new() }
    }

    #[test]
    fn a_name_in_a_language_this_cannot_write_says_the_format_instead() {
        let notes = PeriodicNotes {
            series: vec![series(Period::Day, NotesPlugin::DailyNotes, "Journal", "YYYY-MM-DD dddd")],
            week_start: None,
            locale: None,
        };
        assert_eq!(notes.prompt_lines((2026, 12, 8), Some("en-gb")), [
            "Today's daily note: Journal/2026-12-08 Tuesday.md (Obsidian's daily notes are in Journal/, named in the \
             moment.js format YYYY-MM-DD dddd)."
        ]);
        assert_eq!(notes.prompt_lines((2026, 12, 8), Some("de")), [
            "Obsidian's daily notes are in Journal/, named in the moment.js format YYYY-MM-DD dddd; today's daily note \
             is named after it in that format."
        ]);
    }

    #[test]
    fn weeks_and_months_are_named_by_their_plugin_in_the_calendars_language() {
        let notes = PeriodicNotes {
            series: vec![
                series(Period::Week, NotesPlugin::PeriodicNotes, "", "gggg-[W]ww"),
                series(Period::Month, NotesPlugin::PeriodicNotes, "Months", "YYYY-MM MMMM"),
            ],
            week_start: Some(1),
            locale: Some("en".into()),
        };
        // A Sunday: the last day of week 49 when weeks start on Monday. The Calendar plugin's
        // language wins over Obsidian's.
        let lines = notes.prompt_lines((2026, 12, 6), Some("de"));
        assert_eq!(lines, [
            "This week's note: 2026-W49.md (the Periodic Notes plugin's weekly notes are in the vault's root, named in \
             the moment.js format gggg-[W]ww).",
            "This month's note: Months/2026-12 December.md (the Periodic Notes plugin's monthly notes are in Months/, \
             named in the moment.js format YYYY-MM MMMM).",
        ]);
    }
}
