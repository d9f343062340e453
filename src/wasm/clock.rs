//! [`Clock`] over `Date.now` and `setTimeout`.

use async_trait::async_trait;

use crate::host::Clock;

/// The browser's clock. `sleep` yields to the event loop, so the UI keeps running.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsClock;

#[async_trait(?Send)]
impl Clock for JsClock {
    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }

    async fn sleep(&self, ms: u64) {
        gloo_timers::future::TimeoutFuture::new(ms.min(u32::MAX as u64) as u32).await;
    }
}
