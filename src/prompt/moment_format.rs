//! Dates written as moment.js writes them in Obsidian, as far as note names need: the formats
//! users name their daily, weekly and monthly notes with (`YYYY-MM-DD`, `gggg-[W]ww`,
//! `YYYY-MM`…), so that the agent is told the note's very name.

use crate::host::{days_from_civil, utc_datetime, weekday_index, WEEKDAYS};

/// How moment.js writes a date in the user's language, as far as this can tell: months and
/// weekdays are named in English only, and a locale's weeks are known for English.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MomentLocale {
    /// Whether names (of months and weekdays) and ordinals are English.
    english: bool,
    /// The locale's weeks, as moment's `dow` (their first day, 0 = Sunday) and `doy` (with `dow`,
    /// which day of January week 1 always holds), where known.
    week: Option<(u32, u32)>,
}

impl MomentLocale {
    /// Obsidian's language `locale` (`en`, `en-gb`, `de`…; none or empty: English), with the
    /// weeks starting on `week_start` (0 = Sunday) where a plugin changed moment's first
    /// weekday (the Calendar plugin's *Start week on*).
    pub fn new(locale: Option<&str>, week_start: Option<u32>) -> MomentLocale {
        let locale = locale.unwrap_or_default().to_ascii_lowercase();
        let english = locale.is_empty() || locale.starts_with("en");
        // moment's own locales: `en` (the United States' weeks: from Sunday, week 1 holds
        // January 1st) and `en-gb` (ISO weeks). Other locales' rules are not known here.
        let week = match locale.as_str() {
            "" | "en" | "en-us" => Some((0, 6)),
            "en-gb" => Some((1, 4)),
            _ => None,
        };
        // Changing the first weekday keeps the locale's `doy`, as `moment.updateLocale` does.
        let week = week.map(|(dow, doy)| (week_start.filter(|d| *d < 7).unwrap_or(dow), doy));
        MomentLocale { english, week }
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
const TOKENS: [&str; 32] = [
    "YYYY", "GGGG", "gggg", "MMMM", "DDDD", "dddd", "DDDo", "MMM", "DDD", "ddd", "Mo", "MM", "Do", "DD", "do", "dd",
    "Qo", "Wo", "WW", "wo", "ww", "YY", "GG", "gg", "M", "D", "d", "Q", "W", "w", "E", "e",
];

/// `date` written in the moment.js `format` (`[…]` is text as it is), or `None` when the format
/// holds a token this does not write (a time; a locale's format `LL`), names months or weekdays
/// or writes ordinals in a language other than English, or counts a locale's weeks (`w`,
/// `gggg`, `e`) whose rules are not known. `W` and `GGGG` are ISO weeks and their years.
pub fn format_date(format: &str, (y, mo, d): (i64, u32, u32), locale: MomentLocale) -> Option<String> {
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
        if names && !locale.english {
            return None;
        }
        let local_week = || {
            let (dow, doy) = locale.week?;
            Some((locale_week(y, mo, d, dow, doy)?, (weekday as u32 + 7 - dow) % 7))
        };
        out.push_str(&match *token {
            "YYYY" => format!("{y:04}"),
            "YY" => format!("{:02}", y.rem_euclid(100)),
            "GGGG" => format!("{iso_year:04}"),
            "GG" => format!("{:02}", iso_year.rem_euclid(100)),
            "gggg" => format!("{:04}", local_week()?.0 .0),
            "gg" => format!("{:02}", local_week()?.0 .0.rem_euclid(100)),
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
            "e" => local_week()?.1.to_string(),
            "E" => (if weekday == 0 { 7 } else { weekday }).to_string(),
            "WW" => format!("{iso_week:02}"),
            "Wo" => ordinal(iso_week),
            "W" => iso_week.to_string(),
            "ww" => format!("{:02}", local_week()?.0 .1),
            "wo" => ordinal(local_week()?.0 .1),
            "w" => local_week()?.0 .1.to_string(),
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

/// The week-numbering year and week of a date under a locale's rules, as moment.js counts them
/// (`weekOfYear`): weeks start on `dow`, and week 1 is the one holding January `7 + dow - doy`.
fn locale_week(y: i64, mo: u32, d: u32, dow: u32, doy: u32) -> Option<(i64, u32)> {
    let first_day = (7 + dow).checked_sub(doy).filter(|day| (1..=7).contains(day))?;
    // Where week 1 starts, in days from January 1st (0 or less).
    let offset = |year: i64| {
        let first_day_weekday = weekday_index((year, 1, first_day)) as i64;
        -((7 + first_day_weekday - dow as i64) % 7) + first_day as i64 - 1
    };
    let weeks_in = |year: i64| {
        let days = days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1);
        (days - offset(year) + offset(year + 1)) / 7
    };
    let week = (day_of_year(y, mo, d) as i64 - offset(y) - 1).div_euclid(7) + 1;
    Some(if week < 1 {
        (y - 1, (week + weeks_in(y - 1)) as u32)
    } else if week > weeks_in(y) {
        (y + 1, (week - weeks_in(y)) as u32)
    } else {
        (y, week as u32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: MomentLocale = MomentLocale { english: true, week: Some((0, 6)) };

    fn f(format: &str, date: (i64, u32, u32)) -> Option<String> {
        format_date(format, date, EN)
    }

    #[test]
    fn moment_formats_users_name_their_periodic_notes_with() {
        let date = (2026, 12, 8); // a Tuesday, ISO week 50
        assert_eq!(f("YYYY-MM-DD", date).as_deref(), Some("2026-12-08"));
        assert_eq!(f("YYYY/MM-MMMM/YYYY-MM-DD-dddd", date).as_deref(), Some("2026/12-December/2026-12-08-Tuesday"));
        assert_eq!(f("DD.MM.YY", date).as_deref(), Some("08.12.26"));
        assert_eq!(f("ddd, MMM Do YYYY", date).as_deref(), Some("Tue, Dec 8th 2026"));
        assert_eq!(f("GGGG-[W]WW", date).as_deref(), Some("2026-W50"));
        assert_eq!(f("YYYY-[Q]Q [day] DDDD", date).as_deref(), Some("2026-Q4 day 342"));
        assert_eq!(f("YYYY-MM", date).as_deref(), Some("2026-12"));
        assert_eq!(f("D/M/YYYY", (2026, 1, 3)).as_deref(), Some("3/1/2026"));
        // ISO weeks at the turn of a year: 2027-01-01 is a Friday of 2026's week 53.
        assert_eq!(f("GGGG-[W]WW-E", (2027, 1, 1)).as_deref(), Some("2026-W53-5"));
        assert_eq!(f("GGGG-[W]WW", (2024, 12, 30)).as_deref(), Some("2025-W01"));
        assert_eq!(f("Do", (2026, 12, 11)).as_deref(), Some("11th"));
        assert_eq!(f("Do", (2026, 12, 22)).as_deref(), Some("22nd"));
    }

    #[test]
    fn a_locales_weeks_are_counted_as_moment_counts_them() {
        // English (moment's `en`): weeks from Sunday, week 1 holds January 1st. The Periodic
        // Notes plugin's default weekly format.
        assert_eq!(f("gggg-[W]ww", (2026, 12, 8)).as_deref(), Some("2026-W50"));
        assert_eq!(f("gggg-[W]ww-e", (2026, 12, 6)).as_deref(), Some("2026-W50-0"), "a Sunday starts it");
        assert_eq!(f("gggg-[W]ww", (2026, 12, 5)).as_deref(), Some("2026-W49"));
        // The week holding 2027-01-01 (a Friday) is 2027's first, from Sunday 2026-12-27 on.
        assert_eq!(f("gggg-[W]ww", (2026, 12, 27)).as_deref(), Some("2027-W01"));
        assert_eq!(f("gggg-[W]ww", (2026, 12, 26)).as_deref(), Some("2026-W52"));
        assert_eq!(f("gg [w]w wo", (2027, 1, 2)).as_deref(), Some("27 w1 1st"));
        // Weeks from Monday (the Calendar plugin's *Start week on*): that Sunday ends week 49.
        let monday = MomentLocale::new(Some("en"), Some(1));
        assert_eq!(format_date("gggg-[W]ww", (2026, 12, 6), monday).as_deref(), Some("2026-W49"));
        assert_eq!(format_date("gggg-[W]ww-e", (2026, 12, 7), monday).as_deref(), Some("2026-W50-0"));
        // British English counts ISO weeks: the same as `W` every day of 30 years.
        let gb = MomentLocale::new(Some("en-GB"), None);
        let mut day = days_from_civil(2000, 1, 1);
        while day < days_from_civil(2030, 12, 31) {
            let (y, mo, d, ..) = utc_datetime((day * 86_400_000) as u64);
            assert_eq!(format_date("gggg ww", (y, mo, d), gb), format_date("GGGG WW", (y, mo, d), gb), "{y}-{mo}-{d}");
            day += 1;
        }
    }

    #[test]
    fn a_format_with_a_time_a_locale_format_foreign_names_or_unknown_weeks_has_no_name() {
        assert_eq!(f("YYYY-MM-DD HH:mm", (2026, 12, 8)), None);
        assert_eq!(f("LL", (2026, 12, 8)), None);
        assert_eq!(f("[unclosed", (2026, 12, 8)), None);
        let de = MomentLocale::new(Some("de"), None);
        assert_eq!(format_date("YYYY-MM-DD dddd", (2026, 12, 8), de), None);
        assert_eq!(format_date("YYYY-MM-DD", (2026, 12, 8), de).as_deref(), Some("2026-12-08"));
        assert_eq!(format_date("gggg-[W]ww", (2026, 12, 8), de), None, "German weeks are not known here");
        assert_eq!(format_date("GGGG-[W]WW", (2026, 12, 8), de).as_deref(), Some("2026-W50"));
    }
}
