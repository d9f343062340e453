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
