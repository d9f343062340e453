//! When to try a failed model call again, and how long to wait first.

use std::cell::Cell;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::protocol::ProviderError;

/// Exponential backoff with jitter. Attempt `n` (from 1) that fails with a retryable error is
/// followed by a wait of `min(max_delay, base_delay · 2^(n-1))`, lengthened by up to
/// `jitter` of itself (then capped at `max_delay_ms` again) so that clients that failed together do not
/// retry together. A `Retry-After` from the server replaces the computed wait; one longer
/// than `max_retry_after_ms` is not waited out: the error goes to the caller, which can
/// tell the user.
///
/// The defaults: 6 attempts, waits of 0.5, 1, 2, 4 and 8 s (+ up to 25 %), never more than
/// 32 s; Retry-After honoured up to 60 s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct RetryPolicy {
    /// Attempts in all, the first included. 1 means no retry.
    pub max_attempts: u32,
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
    /// The largest fraction of a computed wait added at random, 0 to 1.
    pub jitter: f64,
    pub max_retry_after_ms: u64,
    /// A response that sends no byte for this long is dropped and counts as a network error
    /// (retryable before the first output, like a dropped connection). 0: wait forever.
    pub idle_timeout_ms: u64,
}

/// The default stream idle timeout: a minute without a byte.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            base_delay_ms: 500,
            max_delay_ms: 32_000,
            jitter: 0.25,
            max_retry_after_ms: 60_000,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
        }
    }
}

/// The longest a request answered whole (not streamed) may take: a reasoning model's long
/// answer, written before a byte of it is sent.
pub const WHOLE_ANSWER_MS: u64 = 10 * 60 * 1000;

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        RetryPolicy { max_attempts: 1, ..Self::default() }
    }

    /// This policy for a request answered whole: the idle limit is the wait for the whole
    /// answer ([`WHOLE_ANSWER_MS`]), not for the next byte of a stream (none stays none).
    pub fn unhurried(mut self) -> Self {
        if self.idle_timeout_ms != 0 {
            self.idle_timeout_ms = self.idle_timeout_ms.max(WHOLE_ANSWER_MS);
        }
        self
    }

    /// How long to wait after `attempt` (from 1) failed with `error`, or `None` when the call
    /// should not be tried again: the error is not retryable, the attempts are used up, or the
    /// server asked for a longer wait than we accept. `unit` is a random number in `[0, 1)`.
    pub fn delay_after(&self, attempt: u32, error: &ProviderError, unit: f64) -> Option<u64> {
        if !error.kind.is_retryable() || attempt >= self.max_attempts {
            return None;
        }
        if let Some(asked) = error.retry_after_ms {
            return (asked <= self.max_retry_after_ms).then_some(asked);
        }
        let exponent = attempt.saturating_sub(1).min(32);
        let nominal = self.base_delay_ms.saturating_mul(1u64 << exponent).min(self.max_delay_ms);
        let extra = nominal as f64 * self.jitter.clamp(0.0, 1.0) * unit.clamp(0.0, 1.0);
        Some((nominal + extra as u64).min(self.max_delay_ms))
    }
}

/// Random numbers for jitter: xorshift64*, seeded by the caller (from the clock). Jitter needs
/// spread, not secrecy, and this keeps the core free of an entropy source that differs between
/// the browser and the CLI.
#[derive(Debug)]
pub struct JitterSource {
    state: Cell<u64>,
}

impl JitterSource {
    /// A source seeded with `seed` (any value; 0 is replaced).
    pub fn new(seed: u64) -> Self {
        JitterSource { state: Cell::new(seed.max(1) ^ 0x9E37_79B9_7F4A_7C15) }
    }

    /// The next number in `[0, 1)`.
    pub fn next_unit(&self) -> f64 {
        let mut x = self.state.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorKind;

    fn error(kind: ErrorKind) -> ProviderError {
        ProviderError::new(kind, "x")
    }

    #[test]
    fn delays_double_from_half_a_second_and_stop_after_six_attempts() {
        let policy = RetryPolicy::default();
        let delays: Vec<_> = (1..=6).map(|n| policy.delay_after(n, &error(ErrorKind::Overloaded), 0.0)).collect();
        assert_eq!(delays, vec![Some(500), Some(1000), Some(2000), Some(4000), Some(8000), None]);
    }

    #[test]
    fn the_cap_holds_with_jitter() {
        let policy = RetryPolicy { max_attempts: 20, ..RetryPolicy::default() };
        assert_eq!(policy.delay_after(7, &error(ErrorKind::RateLimited), 0.0), Some(32_000));
        assert_eq!(policy.delay_after(12, &error(ErrorKind::RateLimited), 0.99), Some(32_000));
        let jittered = policy.delay_after(2, &error(ErrorKind::RateLimited), 0.5).unwrap();
        assert_eq!(jittered, 1125);
    }

    #[test]
    fn only_retryable_errors_are_retried() {
        let policy = RetryPolicy::default();
        for kind in [ErrorKind::Auth, ErrorKind::BadRequest, ErrorKind::ContextOverflow, ErrorKind::Cancelled] {
            assert_eq!(policy.delay_after(1, &error(kind), 0.0), None, "{kind:?}");
        }
        for kind in [ErrorKind::RateLimited, ErrorKind::Overloaded, ErrorKind::Network] {
            assert!(policy.delay_after(1, &error(kind), 0.0).is_some(), "{kind:?}");
        }
    }

    #[test]
    fn retry_after_replaces_the_backoff_up_to_a_limit() {
        let policy = RetryPolicy::default();
        let mut e = error(ErrorKind::RateLimited);
        e.retry_after_ms = Some(7_000);
        assert_eq!(policy.delay_after(1, &e, 0.9), Some(7_000));
        e.retry_after_ms = Some(3_600_000);
        assert_eq!(policy.delay_after(1, &e, 0.0), None, "an hour is not waited out");
    }

    #[test]
    fn jitter_spreads_over_the_unit_interval() {
        let source = JitterSource::new(42);
        let values: Vec<f64> = (0..1000).map(|_| source.next_unit()).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!((0.4..0.6).contains(&mean), "mean {mean}");
        assert_ne!(JitterSource::new(1).next_unit(), JitterSource::new(2).next_unit());
    }
}
