//! Time, as the host provides it.

use std::cell::{Cell, RefCell};

use async_trait::async_trait;

/// Wall-clock time and sleeping. `std::time::Instant::now()` panics in wasm, so the core asks
/// the host instead.
#[async_trait(?Send)]
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
    /// The user's time zone at `at_ms`: the minutes to add to UTC for the time their clock
    /// shows (540 in Tokyo, -300 in New York in winter); 0 where the host cannot tell.
    fn utc_offset_minutes(&self, _at_ms: u64) -> i32 {
        0
    }
    /// Resolves after `ms` milliseconds, yielding to the host's event loop meanwhile.
    /// `sleep(0)` just yields.
    async fn sleep(&self, ms: u64);
}

/// `(year, month, day, hour, minute, second)` in UTC of `ms` since the Unix epoch.
pub fn utc_datetime(ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    let secs = (ms / 1000) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

/// `ms` as the user's clock shows it: `(year, month, day, hour, minute, second)`.
pub fn local_datetime(clock: &dyn Clock, ms: u64) -> (i64, u32, u32, u32, u32, u32) {
    offset_datetime(ms, clock.utc_offset_minutes(ms))
}

/// `ms` as a clock `offset_minutes` ahead of UTC shows it.
pub fn offset_datetime(ms: u64, offset_minutes: i32) -> (i64, u32, u32, u32, u32, u32) {
    utc_datetime(shifted(ms, offset_minutes))
}

/// `ms` moved by `offset_minutes` (never before the epoch).
fn shifted(ms: u64, offset_minutes: i32) -> u64 {
    (ms as i64 + i64::from(offset_minutes) * 60_000).max(0) as u64
}

/// The instant the user's clock shows the date and time given (the inverse of
/// [`local_datetime`]), or `None` for a date that does not exist (month 13, February 30).
pub fn local_ms(clock: &dyn Clock, (y, mo, d, h, mi): (i64, u32, u32, u32, u32)) -> Option<u64> {
    let days_in_month = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return None,
    };
    if d == 0 || d > days_in_month || h > 23 || mi > 59 || y < 1970 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    let wall = ((days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60) * 1000) as u64;
    // The offset of that moment, near enough: the wall time read as UTC is within a day of it.
    Some(shifted(wall, -clock.utc_offset_minutes(wall)))
}

/// Days since 1970-01-01 of a date (Howard Hinnant's algorithm, the inverse of
/// [`utc_datetime`]'s).
pub(crate) fn days_from_civil(y: i64, mo: u32, d: u32) -> i64 {
    let (y, mo) = if mo <= 2 { (y - 1, mo + 12) } else { (y, mo) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (i64::from(mo) - 3) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The days of the week, Sunday first (as [`weekday_index`] counts them).
pub(crate) const WEEKDAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// The day of the week of a date: 0 for Sunday … 6 for Saturday.
pub(crate) fn weekday_index((y, mo, d): (i64, u32, u32)) -> usize {
    // 1970-01-01 was a Thursday.
    (days_from_civil(y, mo, d) + 4).rem_euclid(7) as usize
}

/// The day of the week of a date ("Monday").
pub fn weekday(date: (i64, u32, u32)) -> &'static str {
    WEEKDAYS[weekday_index(date)]
}

/// How a time zone is written after a time: `UTC`, `UTC+09:00`, `UTC-03:30`.
pub fn utc_offset_label(offset_minutes: i32) -> String {
    if offset_minutes == 0 {
        return "UTC".to_string();
    }
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let minutes = offset_minutes.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// A clock for tests: `sleep` returns at once and advances the time by the amount asked,
/// and every sleep is recorded, so backoff can be checked without waiting.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Cell<u64>,
    sleeps: RefCell<Vec<u64>>,
    utc_offset: Cell<i32>,
}

impl ManualClock {
    /// A clock showing `start_ms`.
    pub fn new(start_ms: u64) -> Self {
        ManualClock { now: Cell::new(start_ms), sleeps: RefCell::new(Vec::new()), utc_offset: Cell::new(0) }
    }

    /// The clock in a time zone `minutes` ahead of UTC (behind when negative).
    pub fn set_utc_offset(&self, minutes: i32) {
        self.utc_offset.set(minutes);
    }

    /// Moves the time forward by `ms`.
    pub fn advance(&self, ms: u64) {
        self.now.set(self.now.get() + ms);
    }

    /// Every `sleep` duration asked so far, in order.
    pub fn sleeps(&self) -> Vec<u64> {
        self.sleeps.borrow().clone()
    }
}

#[async_trait(?Send)]
impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.get()
    }

    fn utc_offset_minutes(&self, _at_ms: u64) -> i32 {
        self.utc_offset.get()
    }

    async fn sleep(&self, ms: u64) {
        self.sleeps.borrow_mut().push(ms);
        self.advance(ms);
    }
}

#[cfg(test)]
mod tests {
    use super::utc_datetime;

    #[test]
    fn local_dates_and_times_turn_into_instants_and_back() {
        use super::{local_datetime, local_ms, utc_offset_label, weekday, ManualClock};
        let tokyo = ManualClock::new(0);
        tokyo.set_utc_offset(540);
        // 2026-11-23 00:00 UTC is 09:00 in Tokyo.
        assert_eq!(local_datetime(&tokyo, 1_795_392_000_000), (2026, 11, 23, 9, 0, 0));
        assert_eq!(local_ms(&tokyo, (2026, 11, 23, 9, 0)), Some(1_795_392_000_000));
        assert_eq!(local_ms(&ManualClock::default(), (2024, 2, 29, 12, 34)), Some(1_709_210_040_000));
        assert_eq!(local_ms(&tokyo, (2025, 2, 29, 0, 0)), None, "not a leap year");
        assert_eq!(local_ms(&tokyo, (2026, 13, 1, 0, 0)), None);
        assert_eq!(weekday((2026, 11, 23)), "Monday");
        assert_eq!(weekday((1970, 1, 1)), "Thursday");
        assert_eq!(weekday((2024, 2, 29)), "Thursday");
        assert_eq!(
            [0, 540, -300, -210].map(utc_offset_label),
            ["UTC", "UTC+09:00", "UTC-05:00", "UTC-03:30"].map(String::from)
        );
    }

    #[test]
    fn civil_dates() {
        assert_eq!(utc_datetime(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC, a leap day.
        assert_eq!(utc_datetime(1_709_210_096_000), (2024, 2, 29, 12, 34, 56));
        // 2026-11-23 00:00:00 UTC.
        assert_eq!(utc_datetime(1_795_392_000_000), (2026, 11, 23, 0, 0, 0));
    }
}
