//! What a guardrail checks, and the set a task runs.

use std::rc::Rc;

use serde_json::Value;

use crate::protocol::ApprovalCategory;

/// A guardrail's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Stop the task; the text says why, in words the user reads.
    Block(String),
}

/// A tool call as the guardrails see it: after its arguments were validated, before approval.
#[derive(Debug, Clone, Copy)]
pub struct GuardedCall<'a> {
    pub tool: &'a str,
    pub category: ApprovalCategory,
    pub args: &'a Value,
    /// The task's clock, in ms.
    pub now_ms: u64,
}

impl GuardedCall<'_> {
    /// Whether the call sends its arguments outside the vault (web, MCP).
    pub fn is_egress(&self) -> bool {
        matches!(self.category, ApprovalCategory::Mcp | ApprovalCategory::Web)
    }
}

/// A check that may end a task. Each method allows by default.
pub trait Guardrail {
    /// A short name, shown with the reason ("canary", "secrets", "write rate").
    fn name(&self) -> &'static str;
    /// The user's request, before the task starts.
    fn check_input(&self, _text: &str) -> Verdict {
        Verdict::Allow
    }
    /// A tool call about to be approved and run.
    fn check_tool_call(&self, _call: &GuardedCall<'_>) -> Verdict {
        Verdict::Allow
    }
    /// The model's text: what it says to the user.
    fn check_output(&self, _text: &str) -> Verdict {
        Verdict::Allow
    }
}

/// The guardrails of one task, checked in order; the first block wins.
#[derive(Clone, Default)]
pub struct Guardrails {
    rails: Vec<Rc<dyn Guardrail>>,
}

impl Guardrails {
    pub fn new(rails: Vec<Rc<dyn Guardrail>>) -> Guardrails {
        Guardrails { rails }
    }

    pub fn push(&mut self, rail: Rc<dyn Guardrail>) {
        self.rails.push(rail);
    }

    pub fn check_input(&self, text: &str) -> Verdict {
        self.first(|r| r.check_input(text))
    }

    pub fn check_tool_call(&self, call: &GuardedCall<'_>) -> Verdict {
        self.first(|r| r.check_tool_call(call))
    }

    pub fn check_output(&self, text: &str) -> Verdict {
        self.first(|r| r.check_output(text))
    }

    fn first(&self, check: impl Fn(&dyn Guardrail) -> Verdict) -> Verdict {
        for rail in &self.rails {
            if let Verdict::Block(why) = check(&**rail) {
                return Verdict::Block(format!("{} guardrail: {why}", rail.name()));
            }
        }
        Verdict::Allow
    }
}

/// Every string in `value` (keys too), for checks that look for text anywhere in arguments.
pub(crate) fn strings(value: &Value) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(s) => out.push(s.as_str()),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (key, item) in map {
                    out.push(key.as_str());
                    stack.push(item);
                }
            }
            _ => {}
        }
    }
    out
}
