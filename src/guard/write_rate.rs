//! The write-rate tripwire: a task that suddenly writes or deletes many notes in a short time
//! is stopped, even where the user let writes run without asking. An injected "rewrite every
//! note" looks like this; a user's real bulk edit can raise the limit.

use std::cell::RefCell;

use super::guardrail::{GuardedCall, Guardrail, Verdict};
use crate::protocol::ApprovalCategory;

pub struct WriteRate {
    limit: usize,
    window_ms: u64,
    times: RefCell<Vec<u64>>,
}

impl WriteRate {
    /// Stops the task at the `limit`+1-th write or deletion within `window_ms`.
    pub fn new(limit: usize, window_ms: u64) -> WriteRate {
        WriteRate { limit, window_ms, times: RefCell::new(Vec::new()) }
    }
}

impl Guardrail for WriteRate {
    fn name(&self) -> &'static str {
        "write rate"
    }

    fn check_tool_call(&self, call: &GuardedCall<'_>) -> Verdict {
        if !matches!(call.category, ApprovalCategory::Write | ApprovalCategory::Delete) {
            return Verdict::Allow;
        }
        let mut times = self.times.borrow_mut();
        times.retain(|t| call.now_ms.saturating_sub(*t) < self.window_ms);
        times.push(call.now_ms);
        if times.len() > self.limit {
            return Verdict::Block(format!(
                "more than {} writes or deletions within {} s",
                self.limit,
                self.window_ms / 1000
            ));
        }
        Verdict::Allow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trips_past_the_limit_within_the_window_only() {
        let rate = WriteRate::new(2, 60_000);
        let args = json!({});
        let call = |now_ms, category| GuardedCall { tool: "write_file", category, args: &args, now_ms };
        assert_eq!(rate.check_tool_call(&call(0, ApprovalCategory::Write)), Verdict::Allow);
        assert_eq!(rate.check_tool_call(&call(1_000, ApprovalCategory::Read)), Verdict::Allow);
        assert_eq!(rate.check_tool_call(&call(2_000, ApprovalCategory::Delete)), Verdict::Allow);
        assert!(matches!(rate.check_tool_call(&call(3_000, ApprovalCategory::Write)), Verdict::Block(_)));
        // A minute later the window is clear again.
        assert_eq!(rate.check_tool_call(&call(70_000, ApprovalCategory::Write)), Verdict::Allow);
    }
}
