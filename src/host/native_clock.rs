//! The system clock, for the native CLI (needs a tokio runtime for `sleep`).

use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;

use super::Clock;

/// Wall time from the OS; sleeping through tokio.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[async_trait(?Send)]
impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }

    async fn sleep(&self, ms: u64) {
        if ms == 0 {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
    }
}
