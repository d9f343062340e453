//! Stage 4's policy: which categories of call run without asking.

use std::collections::BTreeSet;

use crate::protocol::ApprovalCategory;

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
