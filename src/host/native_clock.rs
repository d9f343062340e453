//! The system clock, for the native CLI (needs a tokio runtime for `sleep`).

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use super::Clock;

/// Wall time from the OS; sleeping through tokio.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

/// The computer's UTC offset in minutes, read once.
static UTC_OFFSET: OnceLock<i32> = OnceLock::new();

impl SystemClock {
    /// The computer's UTC offset (its time zone's offset now, used for every date), read the
    /// first time it is asked. It can be read only while the process has a single thread (the C
    /// library's time zone functions race with a thread that changes the environment; `time`
    /// refuses otherwise, and the offset is then 0), so the CLI asks first thing.
    pub fn local_utc_offset() -> i32 {
        *UTC_OFFSET.get_or_init(|| {
            time::UtcOffset::current_local_offset().map_or(0, |offset| i32::from(offset.whole_minutes()))
        })
    }
}

#[async_trait(?Send)]
impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }

    fn utc_offset_minutes(&self, _at_ms: u64) -> i32 {
        Self::local_utc_offset()
    }

    async fn sleep(&self, ms: u64) {
        if ms == 0 {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
    }
}
