//! Time, as the host provides it.

use std::cell::{Cell, RefCell};

use async_trait::async_trait;

/// Wall-clock time and sleeping. `std::time::Instant::now()` panics in wasm, so the core asks
/// the host instead.
#[async_trait(?Send)]
pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
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

/// A clock for tests: `sleep` returns at once and advances the time by the amount asked,
/// and every sleep is recorded, so backoff can be checked without waiting.
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Cell<u64>,
    sleeps: RefCell<Vec<u64>>,
}

impl ManualClock {
    /// A clock showing `start_ms`.
    pub fn new(start_ms: u64) -> Self {
        ManualClock { now: Cell::new(start_ms), sleeps: RefCell::new(Vec::new()) }
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

    async fn sleep(&self, ms: u64) {
        self.sleeps.borrow_mut().push(ms);
        self.advance(ms);
    }
}

#[cfg(test)]
mod tests {
    use super::utc_datetime;

    #[test]
    fn civil_dates() {
        assert_eq!(utc_datetime(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC, a leap day.
        assert_eq!(utc_datetime(1_709_210_096_000), (2024, 2, 29, 12, 34, 56));
        // 2026-11-23 00:00:00 UTC.
        assert_eq!(utc_datetime(1_795_392_000_000), (2026, 11, 23, 0, 0, 0));
    }
}
