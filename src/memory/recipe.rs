//! A recipe: what a kind of request took the last times it was done — the request, the tool
//! calls with their arguments as templates, and how often it worked.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A string argument longer than this is not kept in a template: it was written from what
/// earlier steps returned (a note's new text), so only its length is.
const TEMPLATE_CHARS: usize = 200;

/// One step of a recipe: a tool and its arguments as a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecipeStep {
    pub tool: String,
    /// The arguments of the run it was learned from, long texts replaced by a placeholder
    /// ([`RecipeStep::depends_on_results`]).
    pub args: Value,
}

impl RecipeStep {
    /// The step for a call of `tool` with `args`.
    pub fn new(tool: &str, args: &Value) -> Self {
        RecipeStep { tool: tool.to_string(), args: template(args) }
    }

    /// Whether an argument was written from earlier results (only the final turn can fill it).
    pub fn depends_on_results(&self) -> bool {
        holds_elided(&self.args)
    }
}

/// What a kind of request took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recipe {
    /// Stable within the store (`r1`, `r2`, …).
    pub id: String,
    /// The request it was first learned from: the kind of request it answers.
    pub request: String,
    /// The request's vector, where an embedder was on, and which embedder made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<Vec<f32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    /// The tool calls of the last run that worked, in order (control tools left out).
    pub steps: Vec<RecipeStep>,
    /// Runs that completed (and were not undone).
    pub successes: u32,
    /// Runs that failed, were denied or were undone, and fast paths that fell back.
    pub failures: u32,
    /// The tasks whose success is counted (newest last, at most [`KEPT_TASKS`]): undoing one
    /// takes its success back.
    #[serde(default)]
    pub tasks: Vec<String>,
    pub updated_ms: u64,
}

/// How many succeeded task ids a recipe keeps.
pub const KEPT_TASKS: usize = 20;

impl Recipe {
    /// Successes less failures: what the fast path asks of a recipe.
    pub fn net(&self) -> i64 {
        i64::from(self.successes) - i64::from(self.failures)
    }

    /// The recipe's tools, in order.
    pub fn tools(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.tool.as_str()).collect()
    }

    /// Counts a success of `task_id`.
    pub(super) fn credit(&mut self, task_id: &str, now_ms: u64) {
        self.successes += 1;
        self.tasks.push(task_id.to_string());
        let extra = self.tasks.len().saturating_sub(KEPT_TASKS);
        self.tasks.drain(..extra);
        self.updated_ms = now_ms;
    }
}

fn template(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > TEMPLATE_CHARS => Value::String(format!(
            "{ELIDED}{} characters, written from what the earlier steps returned>",
            text.chars().count()
        )),
        Value::Array(items) => Value::Array(items.iter().map(template).collect()),
        Value::Object(map) => {
            Value::Object(crate::sort::by_insertion(map.iter().map(|(k, v)| (k.clone(), template(v)))))
        }
        other => other.clone(),
    }
}

/// How a placeholder for a long text starts.
const ELIDED: &str = "<elided: ";

fn holds_elided(value: &Value) -> bool {
    match value {
        Value::String(text) => text.starts_with(ELIDED),
        Value::Array(items) => items.iter().any(holds_elided),
        Value::Object(map) => map.values().any(holds_elided),
        _ => false,
    }
}
