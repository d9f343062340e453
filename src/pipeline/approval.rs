//! Stage 4: which categories of call run without asking, and asking the user about the rest.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::future::Future;

use crate::cancel::{with_cancel, CancelToken};
use crate::host::AgentHost;
use crate::protocol::{AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest};

/// The categories the user lets the agent do without asking. Control calls (finishing the
/// task, asking a question) never need approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPolicy {
    auto: BTreeSet<ApprovalCategory>,
}

impl Default for ApprovalPolicy {
    /// Reads run without asking; writes and deletes ask.
    fn default() -> Self {
        ApprovalPolicy::auto_approving([ApprovalCategory::Read])
    }
}

impl ApprovalPolicy {
    /// A policy that runs `categories` without asking.
    pub fn auto_approving(categories: impl IntoIterator<Item = ApprovalCategory>) -> Self {
        ApprovalPolicy { auto: categories.into_iter().collect() }
    }

    /// A policy from a comma-separated list of categories, such as `read,write`.
    pub fn from_list(list: &str) -> Result<Self, String> {
        let categories = list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| ApprovalCategory::parse(s).ok_or_else(|| format!("unknown approval category {:?}", s.trim())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ApprovalPolicy::auto_approving(categories))
    }

    /// A policy that asks for everything but control calls.
    pub fn ask_always() -> Self {
        ApprovalPolicy { auto: BTreeSet::new() }
    }

    /// Whether a call of `category` runs without asking.
    pub fn is_automatic(&self, category: ApprovalCategory) -> bool {
        category == ApprovalCategory::Control || self.auto.contains(&category)
    }

    /// From now on, run `category` without asking ("always allow").
    pub fn allow(&mut self, category: ApprovalCategory) {
        self.auto.insert(category);
    }

    /// The categories that run without asking.
    pub fn automatic(&self) -> impl Iterator<Item = ApprovalCategory> + '_ {
        self.auto.iter().copied()
    }
}

/// Asks the user about `request`, the same way for a tool call and for what a running call
/// asks (an MCP server's request for the model): the request is shown (emitted), `shown` runs
/// (the task's snapshot notes the wait), `answer` (the host's `approve`, timed as the caller
/// needs) is awaited unless the task is stopped first (`None`), the answer is shown, and an
/// "always allow" holds for the request's category from then on.
pub(crate) async fn ask_user(
    host: &dyn AgentHost,
    cancel: &CancelToken,
    policy: &RefCell<ApprovalPolicy>,
    request: &ApprovalRequest,
    shown: impl Future<Output = ()>,
    answer: impl Future<Output = ApprovalDecision>,
) -> Option<ApprovalDecision> {
    host.emit(&AgentEvent::ApprovalRequired { request: request.clone() });
    shown.await;
    let decision = with_cancel(cancel, answer).await.ok()?;
    host.emit(&AgentEvent::ApprovalResolved { request_id: request.id.clone(), decision });
    if decision == ApprovalDecision::AlwaysAllow {
        policy.borrow_mut().allow(request.category);
    }
    Some(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_is_always_automatic_and_always_allow_sticks() {
        let mut policy = ApprovalPolicy::ask_always();
        assert!(policy.is_automatic(ApprovalCategory::Control));
        assert!(!policy.is_automatic(ApprovalCategory::Read));
        policy.allow(ApprovalCategory::Write);
        assert!(policy.is_automatic(ApprovalCategory::Write));
        assert!(!policy.is_automatic(ApprovalCategory::Delete));
        assert!(ApprovalPolicy::default().is_automatic(ApprovalCategory::Read));
        let listed = ApprovalPolicy::from_list("read, Write").unwrap();
        assert!(listed.is_automatic(ApprovalCategory::Write) && !listed.is_automatic(ApprovalCategory::Delete));
        assert!(ApprovalPolicy::from_list("read,rename").unwrap_err().contains("rename"));
    }
}
