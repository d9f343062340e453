//! The knobs of a task.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::protocol::ApprovalCategory;
use crate::provider::{known_context_window, ModelPrice, FALLBACK_CONTEXT_WINDOW};

/// How a task runs. Every field has a default (the reference design's), so hosts may pass a
/// partial object. In JSON the fields are camelCase, like the plugin's other settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentConfig {
    /// Model calls at most; the hard stop.
    pub max_iterations: u32,
    /// At this share of `max_iterations` (in %), the model is told to wrap up.
    pub soft_limit_percent: u32,
    /// After this many failing steps in a row, the loop-breaker runs.
    pub consecutive_mistake_limit: u32,
    /// At least this long between two model requests (0: no limit).
    pub rate_limit_ms: u64,
    pub condensing_enabled: bool,
    /// Condense the history above this share (in %) of `context_window`.
    pub condensing_threshold: u32,
    /// Remind the model of its mode every N steps (0: never).
    pub power_steering_frequency: u32,
    /// How deep this task is nested in subtasks (0: a user's task).
    pub depth: u32,
    pub max_subtask_depth: u32,
    /// The model's answer length limit per call.
    pub max_tokens: u32,
    /// The model's context window in tokens; 0: the window of the model each call goes to
    /// ([`AgentConfig::context_window_for`]).
    pub context_window: u32,
    /// Context windows the provider's server reported, by model id (the plugin keeps those of
    /// the models picked from the server's list).
    #[ts(type = "Record<string, number>")]
    pub model_windows: BTreeMap<String, u32>,
    /// Extended-thinking budget, for models that support it.
    pub thinking_budget: Option<u32>,
    /// Sampling temperature for the task's own model calls; `None`: the provider's default.
    /// Anthropic ignores it while extended thinking is on (it requires the default).
    pub temperature: Option<f32>,
    /// A tool call is stopped after this long (0: never).
    pub tool_timeout_ms: u64,
    /// Tool results longer than this (in characters) are externalized.
    pub externalize_threshold: usize,
    /// Categories of tool call that run without asking.
    pub auto_approve: Vec<ApprovalCategory>,
    /// The mode's slug (`ask`, `agent`, or a custom mode).
    pub mode: String,
    /// The user's own instructions, added to every task's prompt.
    pub custom_instructions: String,
    /// Before condensing, ask the model for durable facts and save them to memory.
    pub memory_flush: bool,
    /// After a task that completed, one short model call saves the durable facts and
    /// preferences of the conversation to memory.
    pub memory_extraction: bool,
    /// A request that matches a recipe with enough successes takes its fast path: one planning
    /// call, the plan through the pipeline, one or two final turns.
    pub fast_path: bool,
    /// What the model costs, for the meter (`StepFinished.cost`, `RunReport.cost`): the user's
    /// price; `None`: the price of the model the task calls, as its provider knows it (the list
    /// price, free on the user's machine), or no cost for a model off the list.
    pub price: Option<ModelPrice>,
    /// Tool calls a task may make in all; past it the task ends (`EndReason::ToolBudget`)
    /// after one last answer. 0: no budget.
    pub max_tool_calls: u32,
    /// Tool calls one step may make; the model is told the rest were not run. 0: no limit.
    pub max_tool_calls_per_step: u32,
    /// The task stops this long after it started (`EndReason::Deadline`). 0: no deadline.
    pub deadline_ms: u64,
    /// Domains `web_fetch` reads without asking (a domain also covers its subdomains).
    pub web_allow: Vec<String>,
    /// Domains `web_fetch` never reads, allow-listed or not.
    pub web_deny: Vec<String>,
    /// The search engine `web_search` asks; `None`: the tool is not offered.
    pub web_search: Option<crate::tools::WebSearchConfig>,
    /// The defences against prompt injection (each can be turned off).
    pub guard: GuardConfig,
}

/// The defences against prompt injection, each a setting; all on by default. See
/// [`crate::guard`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default, rename_all = "camelCase")]
pub struct GuardConfig {
    /// Results of tools that read others' words (notes, web, MCP) reach the model between
    /// per-task random markers, which the prompt says never carry instructions.
    pub untrusted_marking: bool,
    /// A per-task token in the prompt; a call or answer that holds it stops the task.
    pub canary: bool,
    /// A web or MCP call whose arguments hold an API key or token stops the task.
    pub secrets: bool,
    /// More writes and deletions than this within `write_rate_window_s` stop the task (0: off).
    pub write_rate_limit: u32,
    pub write_rate_window_s: u32,
    /// A model call reads each web and MCP result for injected instructions before the main
    /// model does (one more call per such result; off by default).
    pub screening: bool,
    /// The model that screens (a cheap one); `None`: the task's own.
    pub screening_model: Option<String>,
}

impl Default for GuardConfig {
    fn default() -> Self {
        GuardConfig {
            untrusted_marking: true,
            canary: true,
            secrets: true,
            write_rate_limit: 20,
            write_rate_window_s: 60,
            screening: false,
            screening_model: None,
        }
    }
}

impl GuardConfig {
    /// The guardrails and data markers these settings ask for, fresh for one task (the
    /// canary's token and the markers' id are new each time).
    pub fn for_task(
        &self,
    ) -> (crate::guard::Guardrails, Option<crate::guard::Canary>, Option<crate::guard::DataMarkers>) {
        use crate::guard::{Canary, DataMarkers, Guardrails, Secrets, WriteRate};
        use std::rc::Rc;
        let mut rails = Guardrails::default();
        let canary = self.canary.then(Canary::new);
        if let Some(canary) = &canary {
            rails.push(Rc::new(canary.clone()));
        }
        if self.secrets {
            rails.push(Rc::new(Secrets));
        }
        if self.write_rate_limit > 0 {
            rails.push(Rc::new(WriteRate::new(
                self.write_rate_limit as usize,
                u64::from(self.write_rate_window_s) * 1000,
            )));
        }
        (rails, canary, self.untrusted_marking.then(DataMarkers::new))
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_iterations: 25,
            soft_limit_percent: 60,
            consecutive_mistake_limit: 3,
            rate_limit_ms: 0,
            condensing_enabled: true,
            condensing_threshold: 70,
            power_steering_frequency: 0,
            depth: 0,
            max_subtask_depth: 2,
            max_tokens: 8_192,
            context_window: 0,
            model_windows: BTreeMap::new(),
            thinking_budget: None,
            temperature: None,
            tool_timeout_ms: 120_000,
            externalize_threshold: crate::pipeline::DEFAULT_THRESHOLD,
            auto_approve: vec![ApprovalCategory::Read],
            mode: "agent".into(),
            custom_instructions: String::new(),
            memory_flush: true,
            memory_extraction: true,
            fast_path: true,
            price: None,
            max_tool_calls: 40,
            max_tool_calls_per_step: 10,
            deadline_ms: 0,
            web_allow: Vec::new(),
            web_deny: Vec::new(),
            web_search: None,
            guard: GuardConfig::default(),
        }
    }
}

impl AgentConfig {
    /// The step at which the soft-limit warning is sent (15 of 25 by default).
    pub fn soft_limit_step(&self) -> u32 {
        (self.max_iterations * self.soft_limit_percent).div_ceil(100).max(1)
    }

    /// The context window of a call to the model `id`: the user's setting when there is one,
    /// else the window the server reported for the model, else the core's list's, else
    /// [`FALLBACK_CONTEXT_WINDOW`].
    pub fn context_window_for(&self, id: &str) -> u32 {
        if self.context_window > 0 {
            return self.context_window;
        }
        self.model_windows
            .get(id)
            .copied()
            .filter(|&window| window > 0)
            .or_else(|| known_context_window(id))
            .unwrap_or(FALLBACK_CONTEXT_WINDOW)
    }
}
