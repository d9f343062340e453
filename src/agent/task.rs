//! AgentTask: the loop.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::future::Future;
use std::rc::Rc;

use futures::future::{select, Either};
use futures::StreamExt;

mod fast_path;

use fast_path::{recipe_use, FastPath};

use super::hooks::{CondenseHook, EndHook, HookContext};
use super::snapshot::{DoneCall, PendingTurn, RunProgress, SnapshotWriter, TaskSnapshot, SNAPSHOT_VERSION};
use super::subtask::{stops_parent, Shared, Subtasks};
use super::transcript::LOOP_NOTE;
use super::{AgentConfig, Mode};
use crate::cancel::{with_cancel, CancelToken};
use crate::context::{
    condensed, drop_unseen_media, estimate_request, sanitize, split_point, summary_request, tool_ledger,
    trim_tool_results, TokenEstimator,
};
use crate::guard::{Guardrails, ModelScreener, Verdict};
use crate::host::{utc_datetime, AgentHost, Clock, HttpClient};
use crate::index::SharedIndex;
use crate::mcp::ModelSampler;
use crate::memory::{recall, render, MemoryStore, MEMORY_TOKENS};
use crate::pipeline::{
    ApprovalPolicy, CallOutcome, CallStatus, CheckpointStore, PipelineHost, PipelineSettings, PipelineState, ToolCall,
    ToolExecutionPipeline, CHECKPOINT_FOLDER, LOG_FOLDER,
};
use crate::prompt::{PromptInputs, SystemPrompt, VaultInfo, VaultInstructions, CONFIG_DIR};
use crate::protocol::{
    AgentEvent, ContentBlock, ContextUse, EndReason, ErrorKind, Message, MessageAssembler, ModelRequest, ProviderError,
    Role, RunReport, StepReport, StopReason, StreamEvent, ToolCallReport, ToolChoice, Usage,
};
use crate::provider::{ModelPrice, ModelProvider};
use crate::tools::{
    builtin_tools, Control, NewTask, SwitchMode, ToolRegistry, WebFetch, WebSearch, WebSites, NEW_TASK,
};
use crate::vault::{PathRules, Vault, VaultPath};
use crate::{Error, Result};

/// Everything a task needs from its host.
#[derive(Clone)]
pub struct TaskSetup {
    pub config: AgentConfig,
    pub provider: Rc<dyn ModelProvider>,
    pub vault: Rc<dyn Vault>,
    pub clock: Rc<dyn Clock>,
    pub host: Rc<dyn AgentHost>,
    pub cancel: CancelToken,
    /// The tools on offer before the mode filters them; `None`: the built-in tools.
    pub tools: Option<ToolRegistry>,
    /// The HTTP client `web_fetch` reads the web with (within `config.web_allow` and
    /// `config.web_deny`); `None`: no web tool.
    pub web: Option<Rc<dyn HttpClient>>,
    /// The user's own modes; `config.mode` names one of them or a built-in one.
    pub modes: Vec<Mode>,
    /// What the prompt says about the vault.
    pub vault_info: VaultInfo,
    /// The vault's index, for the search tools (built on their first use if it is empty).
    pub search: SharedIndex,
    /// Runs before condensing (the memory flush, for one); `None`: nothing runs.
    pub condense_hook: Option<Rc<dyn CondenseHook>>,
    /// Runs after the task completed (the memory extraction, for one); `None`: nothing runs.
    pub end_hook: Option<Rc<dyn EndHook>>,
    /// Earlier messages of the conversation, to continue it.
    pub history: Vec<Message>,
    /// A task id to use; `None`: a new one from the clock.
    pub task_id: Option<String>,
}

/// One task: a user's request, worked on by the model with tools until it is done or a limit
/// is reached.
pub struct AgentTask {
    id: String,
    config: AgentConfig,
    mode: Mode,
    modes: Vec<Mode>,
    provider: Rc<dyn ModelProvider>,
    vault: Rc<dyn Vault>,
    clock: Rc<dyn Clock>,
    host: Rc<dyn AgentHost>,
    cancel: CancelToken,
    pipeline: ToolExecutionPipeline,
    prompt: SystemPrompt,
    instructions: VaultInstructions,
    vault_info: VaultInfo,
    condense_hook: Option<Rc<dyn CondenseHook>>,
    end_hook: Option<Rc<dyn EndHook>>,
    estimator: TokenEstimator,
    /// The context window and the meter's price of the model the mode calls ([`ModelTerms`]).
    terms: ModelTerms,
    /// Whether the server was asked the window it serves the model with (after the run's first
    /// call, when a local server has loaded it).
    served_checked: bool,
    /// Condense above this share (in %) of the window; an overflow raises it to 80.
    threshold: u32,
    /// The task's guardrails (the pipeline checks calls; the task checks the answer).
    guardrails: Guardrails,
    /// The prompt's lines for this task's canary and data markers.
    task_security: String,
    condensations: u32,
    /// Model calls the context machinery made (summaries, memory flush), for the report.
    overhead: Usage,
    /// What a model call that was stopped mid-way had used (the provider bills it all the same).
    cut_short: Cell<Usage>,
    history: Vec<Message>,
    /// The user's request (for the snapshot).
    request: String,
    snapshots: Option<Rc<SnapshotWriter>>,
    /// When the deadline passes (the clock's time), if there is one.
    deadline_at: Option<u64>,
    deadline_hit: Cell<bool>,
    /// Set when a cancel means "stop for now" (the snapshot stays, to resume).
    suspended: Rc<Cell<bool>>,
    /// What `new_task` starts sub-tasks with; `None` at `max_subtask_depth`, where the tool is
    /// not offered.
    subtasks: Option<Rc<Subtasks>>,
    /// The vault's index (its embedder gives recipes their vectors).
    search: SharedIndex,
    /// Where this run's request is in the history.
    start: usize,
    /// The fast path under way, if the task took one.
    fast: Option<FastPath>,
    /// Text for the model to read with the next turn's results (the fast path's note).
    pending_note: Option<String>,
    /// Whether this run was already counted against a recipe (a fast path fell back).
    recipe_charged: bool,
    /// The screening model, when screening is on: its calls count as the task's overhead.
    screener: Option<Rc<ModelScreener>>,
    /// The task's model answering MCP servers' sampling requests; what it uses is overhead.
    sampler: Rc<ModelSampler>,
}

/// The model a call in `mode` goes to: the mode's own, else the provider's.
fn called_model<'a>(mode: &'a Mode, provider: &'a dyn ModelProvider) -> &'a str {
    mode.model.as_deref().unwrap_or(provider.model())
}

/// What a task's calls are measured against: the window and the price of the model its mode
/// calls (the mode's own model, else the provider's), each the user's setting where there is
/// one.
#[derive(Debug, Clone, Copy)]
struct ModelTerms {
    window: u32,
    price: Option<ModelPrice>,
}

impl ModelTerms {
    fn of(config: &AgentConfig, provider: &dyn ModelProvider, mode: &Mode) -> Self {
        let model = called_model(mode, provider);
        ModelTerms { window: config.context_window_for(model), price: config.price.or_else(|| provider.price(model)) }
    }
}

/// One streamed model response, assembled.
struct ModelTurn {
    message: Message,
    usage: Usage,
    stop_reason: StopReason,
    latency_ms: u64,
    first_token_ms: Option<u64>,
    /// The server refused the tool call the model wrote after some of the answer had streamed
    /// ([`ProviderError::refused_tool_call`]): `message` is the answer so far.
    refused_call: Option<ProviderError>,
}

/// What the model is told when the server refused the tool call it wrote after some of its
/// answer had streamed (the provider itself asks again when none had).
const CALL_REFUSED: &str = "The server refused your last tool call: it could not be read. Write the call again, its \
arguments one JSON object that matches the tool's schema, or answer without it.";

/// What the model is told when the output limit cut its answer in the middle of a tool call's
/// arguments (a long note written in one call): the call could not run, and why.
const CUT_OFF_CALL: &str =
    "Your last answer reached the output limit while writing a tool call, so its arguments were \
cut off and it did not run. Make each call smaller: write a long note in parts (create it with the first part, then \
add the rest with further edits), or say less before the call.";

/// How many such refusals a task answers by asking again; the next ends it.
const CALL_REFUSALS: u32 = 3;

impl ModelTurn {
    /// The report of step `step`, made by this call (its tool calls are added once they ran).
    fn step_report(&self, step: u32) -> StepReport {
        StepReport {
            step,
            model_latency_ms: self.latency_ms,
            first_token_ms: self.first_token_ms,
            usage: self.usage,
            stop_reason: Some(self.stop_reason.clone()),
            tool_calls: Vec::new(),
        }
    }
}

/// The salvage call's note: the final answer had no prose.
const SALVAGE_NOTE: &str = "Your last reply had no text for the user. Write your answer now as plain prose: what you \
                            found, what you did, and what is left undone. Do not call tools.";

/// The share of the window (in %) condensing keeps as the latest turns.
const KEEP_RECENT_PERCENT: u64 = 25;
/// Old tool results are trimmed from this many points below the condensing threshold.
const TRIM_MARGIN_PERCENT: u32 = 10;
/// The threshold after a provider reported a context overflow.
const EMERGENCY_THRESHOLD: u32 = 80;

impl AgentTask {
    /// Prepares a task: picks its id and mode, loads the vault's ignore/protect lists, rules,
    /// skills and memory, and builds the pipeline with the mode's tools.
    pub async fn new(setup: TaskSetup) -> Result<Self> {
        Self::build(setup, None).await
    }

    /// Prepares a sub-task (`new_task`), whose writes are recorded in its parent's
    /// `checkpoints`.
    pub(super) async fn child(setup: TaskSetup, shared: Shared) -> Result<Self> {
        Self::build(setup, Some(shared)).await
    }

    async fn build(setup: TaskSetup, shared: Option<Shared>) -> Result<Self> {
        let TaskSetup {
            config,
            provider,
            web,
            vault,
            clock,
            host,
            cancel,
            tools,
            modes,
            vault_info,
            search,
            condense_hook,
            end_hook,
            history,
            task_id,
        } = setup;
        if config.depth > config.max_subtask_depth {
            return Err(Error::Invalid(format!(
                "subtask depth {} is over the limit of {}",
                config.depth, config.max_subtask_depth
            )));
        }
        let all_modes = Mode::all(&modes);
        let mode = Mode::find(&config.mode, &modes).ok_or_else(|| {
            let known: Vec<&str> = all_modes.iter().map(|m| m.slug.as_str()).collect();
            Error::Invalid(format!("unknown mode {:?} (known: {})", config.mode, known.join(", ")))
        })?;
        let id = match task_id {
            Some(id) => {
                VaultPath::parse(&id)?;
                id
            }
            None => new_task_id(&*vault, clock.now_ms()).await?,
        };
        let rules = PathRules::load(&*vault).await?;
        let config_dir = vault_info.config_dir.as_deref().unwrap_or(CONFIG_DIR);
        let instructions = VaultInstructions::load(&*vault, config_dir).await?;
        // `new_task` is each task's own (it starts children of this task), or none at the depth
        // limit: neither offered nor known there.
        let mut tools: ToolRegistry = tools.unwrap_or_else(builtin_tools).iter().filter(|t| t.name() != NEW_TASK).fold(
            ToolRegistry::new(),
            |mut registry, tool| {
                registry.register(tool.clone());
                registry
            },
        );
        if let Some(http) = web {
            let sites = WebSites { allow: config.web_allow.clone(), deny: config.web_deny.clone() };
            tools.register(Rc::new(WebFetch::new(http.clone(), sites)));
            if let Some(engine) = &config.web_search {
                tools.register(Rc::new(WebSearch::new(http, engine.clone())));
            }
        }
        let mut registry = tools.clone();
        // A sub-task may narrow its mode, never widen it: its parent chose what it may do (and
        // read-only sub-tasks run in parallel on that promise).
        let switchable: Vec<Mode> = if config.depth == 0 {
            all_modes.clone()
        } else {
            all_modes.iter().filter(|m| m.groups.iter().all(|g| mode.groups.contains(g))).cloned().collect()
        };
        registry.register(Rc::new(SwitchMode::new(&switchable)));
        let Shared { checkpoints, guard } = match shared {
            Some(shared) => shared,
            None => Shared {
                checkpoints: Rc::new(CheckpointStore::new(vault.clone(), &id, clock.now_ms())?),
                guard: config.guard.for_task(),
            },
        };
        let subtasks = (config.depth < config.max_subtask_depth).then(|| {
            // What a child is made from: this task's setup, less its history and hooks.
            let parent = TaskSetup {
                config: config.clone(),
                provider: provider.clone(),
                vault: vault.clone(),
                clock: clock.clone(),
                host: host.clone(),
                cancel: cancel.clone(),
                // The tools hold web_fetch already when this task has it.
                tools: Some(tools),
                web: None,
                modes: modes.clone(),
                vault_info: vault_info.clone(),
                search: search.clone(),
                condense_hook: None,
                end_hook: None,
                history: Vec::new(),
                task_id: None,
            };
            let shared = Shared { checkpoints: checkpoints.clone(), guard: guard.clone() };
            Rc::new(Subtasks::new(parent, shared, mode.clone()))
        });
        if let Some(subtasks) = &subtasks {
            registry.register(Rc::new(NewTask::new(subtasks.clone(), &all_modes)));
        }
        let settings = PipelineSettings {
            policy: ApprovalPolicy::auto_approving(config.auto_approve.iter().copied()),
            allowed_tools: Some(allowed_tools(&registry, &mode)),
            mode: mode.slug.clone(),
            tool_timeout_ms: config.tool_timeout_ms,
            externalize_threshold: config.externalize_threshold,
        };
        let env = PipelineHost {
            vault: vault.clone(),
            search: search.clone(),
            clock: clock.clone(),
            host: host.clone(),
            cancel: cancel.clone(),
            media: provider.media(),
        };
        let mut pipeline =
            ToolExecutionPipeline::new(&id, env, registry, rules, settings)?.with_checkpoints(checkpoints);
        let (guardrails, canary, markers) = guard;
        let task_security = [canary.as_ref().map(|c| c.prompt_line()), markers.as_ref().map(|m| m.rule())]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        pipeline.guard(guardrails.clone(), markers);
        let screener = config
            .guard
            .screening
            .then(|| Rc::new(ModelScreener::new(provider.clone(), config.guard.screening_model.clone())));
        if let Some(screener) = &screener {
            pipeline.screen_with(screener.clone());
        }
        // MCP servers may ask the task's model for a reply (each asked of the user first).
        let sampler = Rc::new(ModelSampler::new(provider.clone(), mode.model.clone(), config.max_tokens));
        pipeline.sample_with(sampler.clone());
        Ok(AgentTask {
            id,
            terms: ModelTerms::of(&config, &*provider, &mode),
            served_checked: false,
            threshold: config.condensing_threshold,
            guardrails,
            task_security,
            config,
            mode,
            modes: all_modes,
            provider,
            vault,
            clock,
            host,
            cancel,
            pipeline,
            prompt: SystemPrompt::new(),
            instructions,
            vault_info,
            condense_hook,
            end_hook,
            estimator: TokenEstimator::new(),
            cut_short: Cell::new(Usage::default()),
            condensations: 0,
            overhead: Usage::default(),
            history,
            request: String::new(),
            snapshots: None,
            deadline_at: None,
            deadline_hit: Cell::new(false),
            suspended: Rc::default(),
            subtasks,
            search,
            start: 0,
            fast: None,
            pending_note: None,
            recipe_charged: false,
            screener,
            sampler,
        })
    }

    /// What the connected MCP servers say about their use, by server name: the prompt gives it
    /// for the servers whose tools the mode offers.
    /// Its sub-tasks are told the same: they are offered the same servers' tools.
    pub fn set_server_notes(&mut self, notes: Vec<(String, String)>) {
        if let Some(subtasks) = &self.subtasks {
            subtasks.set_server_notes(notes.clone());
        }
        self.instructions.servers = notes;
    }

    /// The task's id (names its checkpoint, log and temporary folder).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The conversation so far.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The mode the task is in now.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// The pipeline's approval policy as it stands (with any "always allow" answers).
    pub fn policy(&self) -> ApprovalPolicy {
        self.pipeline.policy()
    }

    /// Runs the task for `request`, the user's message.
    ///
    /// The loop: each step sends the system prompt, the history and the mode's tools to the
    /// model and streams its answer to the host. If the answer holds tool calls, each goes
    /// through the [`ToolExecutionPipeline`] (reads concurrently, writes one at a time), the
    /// results are appended to the history, and the next step begins. The task ends when the
    /// model answers with text only or calls `attempt_completion`, when the host cancels or the
    /// user denies a call, on a fatal error, at the deadline, or at a limit: at the soft limit
    /// (60 % of `max_iterations`) the model is told to wrap up; at `max_iterations` model calls,
    /// at `max_tool_calls` tool calls, or when the model is stuck (the same blocked calls again
    /// and again, or `consecutive_mistake_limit` failing steps in a row), it gets one last call
    /// with tools disabled to answer with what it has — and one more asking for plain prose if
    /// that answer had none. A step's calls past `max_tool_calls_per_step` are not run.
    ///
    /// Before each request the history is sanitised (no call without its result), old tool
    /// results are trimmed when the request nears the window, and above `condensing_threshold`
    /// the older history is condensed into one summary (after the memory-flush hook). A
    /// provider's context-overflow error condenses at once and retries. Every
    /// `power_steering_frequency` steps the model is reminded of its mode. With snapshots on
    /// ([`AgentTask::keep_snapshots`]) the task's state is saved after every step and at every
    /// approval wait. Every end produces a [`RunReport`], also sent to the host as the last event.
    pub async fn run(&mut self, request: &str) -> RunReport {
        self.run_message(Message::user(request)).await
    }

    /// Runs the task for the user's `message`, which may carry images and documents after its
    /// text (see [`AgentTask::run`]).
    pub async fn run_message(&mut self, message: Message) -> RunReport {
        let progress =
            RunProgress { started_ms: self.clock.now_ms(), threshold: self.threshold, ..RunProgress::default() };
        self.host.emit(&AgentEvent::TaskStarted { task_id: self.id.clone(), mode: self.mode.slug.clone() });
        self.request = message.text();
        self.start = self.history.len();
        self.history.push(message);
        self.drive(progress, None, true).await
    }

    /// Goes on with a task stopped by a restart, from its snapshot (make the task with the
    /// snapshot's `task_id`, `config` and `history`, as `Conversation::resume` does). A turn whose calls
    /// were running goes on after the ones that finished, so a call that was waiting for
    /// approval asks again. The deadline counts from now.
    pub async fn resume(&mut self, snapshot: &TaskSnapshot) -> RunReport {
        self.host.emit(&AgentEvent::TaskStarted { task_id: self.id.clone(), mode: self.mode.slug.clone() });
        self.request = snapshot.request.clone();
        let progress = snapshot.progress.clone();
        self.threshold = progress.threshold.max(1);
        self.condensations = progress.condensations;
        self.overhead = progress.overhead;
        let mut pipeline = snapshot.pipeline.clone();
        if let Some(turn) = &snapshot.pending {
            pipeline.next_index = turn.first_index + turn.done.len() as u32;
        }
        if let Err(e) = self.pipeline.restore(&pipeline).await {
            self.host.emit(&AgentEvent::Warning {
                message: format!("the task's checkpoint could not be reopened; undo may miss earlier changes: {e}"),
            });
        }
        let mut pending = snapshot.pending.clone();
        if let Some(turn) = &mut pending {
            turn.prior = turn.done.len();
            for call in &turn.calls[turn.done.len()..] {
                if self.pipeline.registry().get(&call.name).is_none() {
                    self.host.emit(&AgentEvent::Warning {
                        message: format!(
                            "the tool {} no longer exists; the model is told so instead of running it",
                            call.name
                        ),
                    });
                }
            }
        }
        self.drive(progress, pending, false).await
    }

    /// Saves a snapshot of the task after every step and at every approval wait, under
    /// `.obsidian-agent/tasks/<taskId>.json`, for the chat `chat_id`; the snapshot is removed
    /// when the task ends — unless it was cancelled while `suspended` was set (the app is
    /// closing: the task is to be resumed). Off by default (a subtask or a benchmark has
    /// nothing to resume).
    pub fn keep_snapshots(&mut self, chat_id: Option<String>, suspended: Rc<Cell<bool>>) -> Result<()> {
        let snapshot = TaskSnapshot {
            version: SNAPSHOT_VERSION,
            task_id: self.id.clone(),
            chat_id,
            request: String::new(),
            config: self.config.clone(),
            history: Vec::new(),
            progress: RunProgress::default(),
            pending: None,
            approval: None,
            pipeline: PipelineState::default(),
            updated_ms: 0,
        };
        let clock = self.clock.clone();
        let writer = Rc::new(SnapshotWriter::new(
            self.vault.clone(),
            self.host.clone(),
            snapshot,
            Box::new(move || clock.now_ms()),
        )?);
        self.pipeline.set_journal(writer.clone());
        self.snapshots = Some(writer);
        self.suspended = suspended;
        Ok(())
    }

    /// The loop, from `run`'s progress (and the turn whose calls were running, on a resume);
    /// a `fresh` run may take a recipe's fast path first.
    async fn drive(&mut self, mut run: RunProgress, mut pending: Option<PendingTurn>, fresh: bool) -> RunReport {
        let mut final_text = None;
        let mut last_request_ms: Option<u64> = None;
        let mut prepared_step = run.steps.len() as u32;
        let mut overflow_retried = false;
        let mut refused_calls = 0;
        self.deadline_at = (self.config.deadline_ms > 0).then(|| self.clock.now_ms() + self.config.deadline_ms);
        self.recall_memory().await;
        if fresh {
            pending = self.start_fast_path(&mut run).await;
        }

        let end = loop {
            let turn = match pending.take() {
                Some(turn) => turn,
                None => {
                    let step = run.steps.len() as u32 + 1;
                    if self.cancel.is_cancelled() {
                        break self.cancelled();
                    }
                    if let Some(reason) = self.past_deadline() {
                        break reason;
                    }
                    if step > self.config.max_iterations {
                        self.host.emit(&AgentEvent::Warning {
                            message: format!(
                                "The step limit ({}) is reached; asking for a final answer.",
                                self.config.max_iterations
                            ),
                        });
                        final_text = self.final_round(&mut run, "you have used all the steps of this task").await;
                        break EndReason::MaxIterations;
                    }
                    // What is added to the history before a step is added once, even if the step's
                    // request is retried after an overflow.
                    if prepared_step != step {
                        prepared_step = step;
                        overflow_retried = false;
                        self.before_step(step);
                    }
                    if let Err(reason) = self.wait_for_rate_limit(last_request_ms).await {
                        break reason;
                    }
                    if let Some(reason) = self.past_deadline() {
                        break reason;
                    }
                    let tool_choice = self.fast_tool_choice().await;
                    let request = match self.fit_request(tool_choice).await {
                        Ok(request) => request,
                        Err(e) if e.kind == ErrorKind::Cancelled => break self.cancelled(),
                        Err(e) => {
                            self.host.emit(&AgentEvent::provider_error(&e));
                            break EndReason::Failed { kind: Some(e.kind), message: e.message };
                        }
                    };
                    last_request_ms = Some(self.clock.now_ms());
                    self.host.emit(&AgentEvent::StepStarted { step });
                    let turn = match self.within_deadline(self.call_model(&request, true)).await {
                        Ok(turn) => turn,
                        Err(e) if e.kind == ErrorKind::Cancelled => {
                            run.usage += self.cut_short.take();
                            break self.cancelled();
                        }
                        Err(e) if e.kind == ErrorKind::ContextOverflow && !overflow_retried => {
                            // Emergency condensing: whatever the estimate said, the request did not fit.
                            overflow_retried = true;
                            self.threshold = self.threshold.max(EMERGENCY_THRESHOLD);
                            self.host.emit(&AgentEvent::Warning {
                                message: format!("{e}; condensing the conversation and retrying"),
                            });
                            match self.condense(&request, true).await {
                                Ok(true) => continue,
                                Ok(false) => {
                                    let message =
                                        format!("{}; and the conversation is too short to condense", e.message);
                                    self.host.emit(&AgentEvent::Error {
                                        message: "The conversation is too long for the model, and too short to condense. Start a new chat, or attach less.".into(),
                                        kind: Some(e.kind),
                                        detail: Some(e.detail()),
                                        setting: None,
                                    });
                                    break EndReason::Failed { kind: Some(e.kind), message };
                                }
                                Err(c) => {
                                    self.host.emit(&AgentEvent::provider_error(&c));
                                    break EndReason::Failed { kind: Some(c.kind), message: c.message };
                                }
                            }
                        }
                        Err(e) => {
                            self.host.emit(&AgentEvent::provider_error(&e));
                            break EndReason::Failed { kind: Some(e.kind), message: e.message };
                        }
                    };
                    self.estimator.record(&request, &turn.usage);
                    run.usage += turn.usage;
                    // Before the meter: the call loaded the model, and its window is the meter's.
                    if !self.served_checked {
                        self.served_checked = true;
                        self.check_served_window().await;
                    }
                    self.host.emit(&self.step_finished(step, turn.usage, run.usage + self.overhead));
                    run.steps.push(turn.step_report(step));
                    let calls: Vec<ToolCall> = turn
                        .message
                        .tool_uses()
                        .map(|(id, name, input)| ToolCall {
                            id: id.to_string(),
                            name: name.to_string(),
                            input: input.clone(),
                        })
                        .collect();
                    let text = turn.message.text();
                    // A call the output limit cut off is answered as unreadable by the pipeline;
                    // the model is also told why, or it writes the same call again.
                    if turn.stop_reason == StopReason::MaxTokens && calls.iter().any(|c| c.input.is_string()) {
                        let note = format!("{LOOP_NOTE}{CUT_OFF_CALL}");
                        self.pending_note = Some(match self.pending_note.take() {
                            Some(other) => format!("{other}\n\n{note}"),
                            None => note,
                        });
                    }
                    if !turn.message.content.is_empty() {
                        self.history.push(turn.message);
                    }
                    if let Some(error) = turn.refused_call {
                        refused_calls += 1;
                        if refused_calls > CALL_REFUSALS {
                            self.host.emit(&AgentEvent::provider_error(&error));
                            break EndReason::Failed { kind: Some(error.kind), message: error.message };
                        }
                        self.host.emit(&AgentEvent::Warning {
                            message: "The server refused the tool call the model wrote; the model is asked to write it again."
                                .into(),
                        });
                        self.append_user_text(format!("{LOOP_NOTE}{CALL_REFUSED}"));
                        continue;
                    }
                    if calls.is_empty() {
                        final_text = Some(text);
                        break EndReason::Answered;
                    }
                    self.budgeted(calls, &run)
                }
            };

            // The step as it stands (the model's answer, the calls to run) is saved before they
            // run; the pipeline saves again after each batch and at each approval wait.
            self.save_snapshot(&run, Some(&turn)).await;
            let mut outcomes: Vec<CallOutcome> = turn.done.iter().map(DoneCall::outcome).collect();
            let rest = &turn.calls[turn.done.len()..];
            if !rest.is_empty() {
                if let Some(subtasks) = &self.subtasks {
                    subtasks.sync(&self.mode, &self.pipeline.policy());
                }
                outcomes.extend(self.within_deadline(self.pipeline.run(rest)).await);
            }
            run.tool_calls += turn.calls.len() as u32;
            if let Some(report) = run.steps.last_mut() {
                report.tool_calls = outcomes.iter().map(|o| o.report.clone()).collect();
            }
            let subtask_stop = self.roll_up(&mut run);
            self.after_fast_turn(&outcomes).await;
            if let Some(screener) = &self.screener {
                self.overhead += screener.take_used();
            }
            self.overhead += self.sampler.take_used();
            let mut results = tool_results(&outcomes);
            results.content.extend(turn.refused.iter().map(|r| ContentBlock::ToolResult {
                tool_use_id: r.call_id.clone(),
                content: r.content.clone(),
                is_error: true,
            }));
            self.history.push(results);
            if let Some(note) = self.pending_note.take() {
                self.append_user_text(note);
            }

            let controls: Vec<Control> = outcomes.iter().filter_map(|o| o.control.clone()).collect();
            if let Some(result) = controls.iter().find_map(|c| match c {
                Control::Complete { result } => Some(result.clone()),
                _ => None,
            }) {
                final_text = Some(result);
                break EndReason::Completed;
            }
            for control in controls {
                if let Control::SwitchMode { mode } = control {
                    self.switch_mode(&mode);
                }
            }
            if subtask_stop == Some(EndReason::Denied) || outcomes.iter().any(|o| o.status == CallStatus::Denied) {
                break EndReason::Denied;
            }
            let guardrail = outcomes.iter().find_map(|o| match &o.status {
                CallStatus::Guardrail(m) => Some(m.clone()),
                _ => None,
            });
            let guardrail = guardrail.or(match subtask_stop {
                Some(EndReason::Guardrail { message }) => Some(message),
                _ => None,
            });
            if let Some(message) = guardrail {
                self.host.emit(&AgentEvent::error(format!("Stopped by a safety check: {message}.")));
                break EndReason::Guardrail { message };
            }
            if let Some(message) = outcomes.iter().find_map(|o| match &o.status {
                CallStatus::Fatal(m) => Some(m.clone()),
                _ => None,
            }) {
                self.host.emit(&AgentEvent::error(message.clone()));
                break EndReason::Failed { kind: None, message };
            }
            if self.cancel.is_cancelled() || outcomes.iter().any(|o| o.status == CallStatus::Cancelled) {
                break self.cancelled();
            }
            self.save_snapshot(&run, None).await;

            run.mistakes = if outcomes.iter().all(|o| o.is_error) { run.mistakes + 1 } else { 0 };
            run.blocked_streak =
                if outcomes.iter().any(|o| o.status == CallStatus::Blocked) { run.blocked_streak + 1 } else { 0 };
            let budget = self.config.max_tool_calls;
            let stop = if run.blocked_streak >= 2 {
                Some((EndReason::RepetitionLoop, "you keep repeating tool calls that were blocked".to_string()))
            } else if run.mistakes >= self.config.consecutive_mistake_limit {
                Some((EndReason::MistakeLimit, "your last tool calls all failed".to_string()))
            } else if budget > 0 && run.tool_calls >= budget {
                Some((
                    EndReason::ToolBudget { limit: budget },
                    format!("you have used this task's {budget} tool calls"),
                ))
            } else {
                None
            };
            if let Some((reason, why)) = stop {
                let message = match reason {
                    EndReason::ToolBudget { .. } => {
                        format!("The task used its {budget} tool calls; asking for a final answer.")
                    }
                    _ => format!("The model is stuck ({why}); asking for a final answer."),
                };
                self.host.emit(&AgentEvent::Warning { message });
                final_text = self.final_round(&mut run, &why).await;
                break reason;
            }
        };

        // An answer that carries the canary was steered by something the task read.
        let end = match final_text.as_deref().map(|text| self.guardrails.check_output(text)) {
            Some(Verdict::Block(message)) if end.is_success() => {
                self.host.emit(&AgentEvent::error(format!("Stopped by a safety check: {message}.")));
                final_text = None;
                EndReason::Guardrail { message }
            }
            _ => end,
        };

        self.learn_recipe(&end).await;
        // A fast path repeats a kind of task whose earlier runs were extracted already: it
        // makes no extraction call of its own.
        if end.is_success() && !self.cancel.is_cancelled() && self.fast.is_none() {
            self.after_completion().await;
        }

        // Stopped for now (the app is closing): whatever the stop looked like from inside
        // (a cancel, an approval dismissed), the snapshot stays to resume from.
        let suspended = self.suspended.get() && !end.is_success();
        match &self.snapshots {
            Some(snapshots) if !suspended => snapshots.discard().await,
            _ => {}
        }
        let fast_path = self.fast.as_ref().filter(|_| end.is_success()).map(|f| recipe_use(&f.recipe));
        let context = run.steps.last().map(|step| ContextUse::after(&step.usage, self.terms.window));
        let report = RunReport {
            task_id: self.id.clone(),
            ended: end.describe(),
            end,
            final_text,
            tool_calls: run.steps.iter().map(|s| s.tool_calls.len() as u32).sum(),
            tool_errors: run.steps.iter().flat_map(|s| &s.tool_calls).filter(|c| c.error.is_some()).count() as u32,
            steps: run.steps,
            usage: run.usage + self.overhead,
            cost: self.cost(&(run.usage + self.overhead)),
            duration_ms: self.clock.now_ms().saturating_sub(run.started_ms),
            changed_paths: self.pipeline.changed_paths().iter().map(|p| p.to_string()).collect(),
            condensations: self.condensations,
            fast_path,
            context,
        };
        self.host.emit(&AgentEvent::Done { report: report.clone() });
        report
    }

    /// What `usage` costs at the price of the task's model, if it has one.
    fn cost(&self, usage: &Usage) -> Option<f64> {
        self.terms.price.map(|price| price.cost(usage))
    }

    /// The meter's event after a model call: the call's usage, the task's so far, and its cost.
    fn step_finished(&self, step: u32, usage: Usage, total: Usage) -> AgentEvent {
        let context = Some(ContextUse::after(&usage, self.terms.window));
        AgentEvent::StepFinished { step, usage, total, cost: self.cost(&total), context }
    }

    /// Puts the memories relevant to the request into the prompt's context part (once per
    /// run, so the cached prompt stays the same for the whole task).
    async fn recall_memory(&mut self) {
        match MemoryStore::load(&*self.vault).await {
            Ok(store) => {
                self.instructions.memory = render(&recall(store.entries(), &self.request, MEMORY_TOKENS));
            }
            Err(e) => self.host.emit(&AgentEvent::Warning { message: format!("memory could not be read: {e}") }),
        }
    }

    /// Counts `usage` (calls made for this task before it ran: the screening of its message's
    /// attachments) in the task's meter.
    pub(crate) fn add_overhead(&mut self, usage: Usage) {
        self.overhead += usage;
    }

    /// Runs the end hook (the memory extraction); its usage counts as the task's overhead.
    async fn after_completion(&mut self) {
        let Some(hook) = self.end_hook.clone() else { return };
        let request = self.request(ToolChoice::None);
        let ctx = HookContext {
            task_id: &self.id,
            messages: &self.history,
            request: &request,
            provider: &*self.provider,
            vault: &*self.vault,
            clock: &*self.clock,
            cancel: &self.cancel,
        };
        match hook.after_completion(&ctx).await {
            Ok(usage) => self.overhead += usage,
            Err(e) => {
                self.host.emit(&AgentEvent::Warning { message: format!("saving memory after the task failed: {e}") })
            }
        }
    }

    /// Adds what the turn's sub-tasks used to the run's usage, and nests each one's report
    /// under the call that started it. Returns how this task stops because of one of them: the
    /// user denied a call of it, or a guardrail stopped it (as for a call of its own).
    fn roll_up(&self, run: &mut RunProgress) -> Option<EndReason> {
        let subtasks = self.subtasks.as_ref()?;
        let mut stop = None;
        for delegation in subtasks.take() {
            run.usage += delegation.usage;
            stop = stop.or_else(|| stops_parent(&delegation));
            let calls = run.steps.last_mut().map(|s| &mut s.tool_calls);
            if let Some(call) = calls.and_then(|calls| calls.iter_mut().find(|c| c.index == delegation.index)) {
                call.subtask = delegation.report.map(Box::new);
            }
        }
        stop
    }

    /// The turn for `calls`: those within the step's and the task's budgets run; the rest are
    /// answered "not run" with the reason.
    fn budgeted(&self, calls: Vec<ToolCall>, run: &RunProgress) -> PendingTurn {
        // At the depth limit `new_task` is not offered; a call to it anyway is answered here,
        // saying why, rather than as an unknown tool.
        let (nested, mut calls): (Vec<ToolCall>, Vec<ToolCall>) =
            calls.into_iter().partition(|c| self.subtasks.is_none() && c.name == NEW_TASK);
        let too_deep = format!(
            "Not run: {NEW_TASK} is not available here. This task is {} levels deep in sub-tasks, the most \
             max_subtask_depth ({}) allows, so it cannot start sub-tasks of its own; do the work with your own tools.",
            self.config.depth, self.config.max_subtask_depth
        );
        let limit = |n: u32| if n == 0 { usize::MAX } else { n as usize };
        let per_step = limit(self.config.max_tool_calls_per_step);
        let left = limit(self.config.max_tool_calls).saturating_sub(run.tool_calls as usize);
        let over = calls.split_off(calls.len().min(per_step).min(left));
        let reason = if left < per_step {
            format!(
                "Not run: this task may make {} tool calls in all, and they are used up.",
                self.config.max_tool_calls
            )
        } else {
            format!(
                "Not run: a step may make at most {} tool calls. Call it again in your next step if it is still needed.",
                self.config.max_tool_calls_per_step
            )
        };
        let not_run = |call: ToolCall, reason: &String| DoneCall {
            report: ToolCallReport {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                index: 0,
                latency_ms: 0,
                result_chars: reason.chars().count(),
                error: Some(reason.clone()),
                externalized: None,
                label: Some(crate::tools::call_label(&call.name, &call.input, None)),
                outcome: crate::protocol::ToolOutcome::NotRun,
                subtask: None,
            },
            call_id: call.id,
            tool: call.name,
            content: reason.clone(),
            media: Vec::new(),
            is_error: true,
        };
        let refused = over
            .into_iter()
            .map(|call| not_run(call, &reason))
            .chain(nested.into_iter().map(|call| not_run(call, &too_deep)))
            .collect();
        PendingTurn { calls, done: Vec::new(), refused, first_index: self.pipeline.state().next_index, prior: 0 }
    }

    /// Saves the task's snapshot (with snapshots on): the history, the counters, and the turn
    /// whose calls are about to run.
    async fn save_snapshot(&self, run: &RunProgress, turn: Option<&PendingTurn>) {
        let Some(snapshots) = &self.snapshots else { return };
        snapshots.update(|s| {
            s.request = self.request.clone();
            s.config = AgentConfig {
                mode: self.mode.slug.clone(),
                auto_approve: self.pipeline.policy().automatic().collect(),
                ..self.config.clone()
            };
            s.history = self.history.clone();
            s.progress = RunProgress {
                overhead: self.overhead,
                condensations: self.condensations,
                threshold: self.threshold,
                ..run.clone()
            };
            s.pending = turn.map(|t| PendingTurn { prior: t.done.len(), ..t.clone() });
            s.approval = None;
            s.pipeline = self.pipeline.state();
        });
        snapshots.save().await;
    }

    /// Why the task stopped when its token was cancelled: the deadline, or the user.
    fn cancelled(&self) -> EndReason {
        if self.deadline_hit.get() {
            EndReason::Deadline { limit_ms: self.config.deadline_ms }
        } else {
            EndReason::Cancelled
        }
    }

    /// `Deadline` once the deadline has passed.
    fn past_deadline(&self) -> Option<EndReason> {
        let due = self.deadline_at?;
        if self.clock.now_ms() < due {
            return None;
        }
        self.deadline_hit.set(true);
        self.host.emit(&AgentEvent::Warning { message: self.cancelled().describe() });
        Some(self.cancelled())
    }

    /// Runs `fut`; if the deadline passes first, cancels the task's token (so the model call,
    /// the tool or the approval wait ends as a cancel does) and lets `fut` finish.
    async fn within_deadline<T>(&self, fut: impl Future<Output = T>) -> T {
        let Some(due) = self.deadline_at else { return fut.await };
        let timer = async {
            self.clock.sleep(due.saturating_sub(self.clock.now_ms())).await;
            self.deadline_hit.set(true);
            self.host.emit(&AgentEvent::Warning { message: self.cancelled().describe() });
            self.cancel.cancel();
        };
        futures::pin_mut!(fut, timer);
        match select(fut, timer).await {
            Either::Left((value, _)) => value,
            Either::Right(((), fut)) => fut.await,
        }
    }

    /// The last round at a limit: one call with tools disabled asking for an answer now, and
    /// — if it gave no prose — one salvage call asking for a plain answer. Returns the answer.
    async fn final_round(&mut self, run: &mut RunProgress, why: &str) -> Option<String> {
        let notes = [
            format!(
                "{LOOP_NOTE}Stop: {why}. Do not call any more tools. Answer the user now with what you have found so \
                 far, and say plainly what you could not do."
            ),
            format!("{LOOP_NOTE}{SALVAGE_NOTE}"),
        ];
        for (i, note) in notes.into_iter().enumerate() {
            if i > 0 {
                self.host.emit(&AgentEvent::Warning {
                    message: "The final answer had no text; asking once more for a plain answer.".into(),
                });
            }
            let (answer, step_report) = self.force_answer(note, run.steps.len() as u32 + 1).await;
            if let Some(step_report) = step_report {
                run.usage += step_report.usage;
                self.host.emit(&self.step_finished(step_report.step, step_report.usage, run.usage + self.overhead));
                run.steps.push(step_report);
            }
            match answer {
                Some(text) if !text.trim().is_empty() => return Some(text),
                // A failed call is not retried: the salvage is for an answer without prose.
                None => return None,
                Some(_) => {}
            }
        }
        None
    }

    /// What the history gets before step `step`'s request: the soft-limit warning, and the
    /// power-steering reminder.
    fn before_step(&mut self, step: u32) {
        if step == self.config.soft_limit_step() && self.config.max_iterations > 1 {
            let warning = format!(
                "[Step {step} of {max}] You have used {pct}% of the steps for this task. Finish the essential \
                 work now and call attempt_completion soon: at step {max} the task stops.",
                max = self.config.max_iterations,
                pct = self.config.soft_limit_percent
            );
            self.host.emit(&AgentEvent::Warning { message: warning.clone() });
            self.append_user_text(warning);
        }
        let every = self.config.power_steering_frequency;
        if every > 0 && step > 1 && (step - 1).is_multiple_of(every) {
            let skills: Vec<&str> = self.instructions.skills.iter().map(|s| s.name.as_str()).collect();
            let reminder = format!(
                "[Reminder] You are in {} mode. {} Active skills: {}. Keep to the user's request and finish with \
                 attempt_completion.",
                self.mode.name,
                self.mode.role,
                if skills.is_empty() { "none".to_string() } else { skills.join(", ") }
            );
            self.append_user_text(reminder);
        }
    }

    /// The request for the next model call, made to fit the window: sanitised, with old tool
    /// results trimmed near the threshold and the history condensed above it.
    async fn fit_request(&mut self, tool_choice: ToolChoice) -> std::result::Result<ModelRequest, ProviderError> {
        let mut request = self.request(tool_choice);
        if !self.config.condensing_enabled {
            return Ok(request);
        }
        let window = u64::from(self.terms.window);
        let limit = window * u64::from(self.threshold) / 100;
        let trim_at = window * u64::from(self.threshold.saturating_sub(TRIM_MARGIN_PERCENT)) / 100;
        let mut tokens = self.estimator.estimate(&request);
        if tokens > trim_at {
            trim_tool_results(&mut request.messages, &mut tokens, trim_at, 4);
        }
        if tokens > limit && self.condense(&request, false).await? {
            request = self.request(tool_choice);
        }
        Ok(request)
    }

    /// Replaces the older history by one summary message (after the pre-condense hook),
    /// keeping the latest turns — only the last few in an `emergency` (the provider said the
    /// request does not fit). Returns false when the history is too short to condense.
    async fn condense(&mut self, current: &ModelRequest, emergency: bool) -> std::result::Result<bool, ProviderError> {
        let keep = if emergency { 0 } else { u64::from(self.terms.window) * KEEP_RECENT_PERCENT / 100 };
        let Some(cut) = split_point(&self.history, keep) else { return Ok(false) };
        let tokens_before = estimate_request(&self.request(current.tool_choice));
        let older = self.history[..cut].to_vec();
        if let Some(hook) = self.condense_hook.clone() {
            let ctx = HookContext {
                task_id: &self.id,
                messages: &older,
                request: current,
                provider: &*self.provider,
                vault: &*self.vault,
                clock: &*self.clock,
                cancel: &self.cancel,
            };
            if let Err(e) = hook.before_condense(&ctx).await {
                self.host
                    .emit(&AgentEvent::Warning { message: format!("saving memory before condensing failed: {e}") });
            }
        }
        let summary_request = summary_request(current, &older);
        let turn = self.call_model(&summary_request, false).await?;
        self.overhead += turn.usage;
        let summary = turn.message.text();
        if summary.trim().is_empty() {
            return Err(ProviderError::new(ErrorKind::Protocol, "the model returned an empty summary"));
        }
        self.history = condensed(&summary, &tool_ledger(&older), &self.history[cut..]);
        self.condensations += 1;
        self.estimator.reset();
        let tokens_after = estimate_request(&self.request(current.tool_choice));
        self.host.emit(&AgentEvent::ContextCondensed { tokens_before, tokens_after, messages_summarized: cut });
        Ok(true)
    }

    /// Takes the window the server really gives the model, where it says (Ollama serves less
    /// than a model reads when memory is short, and silently drops what does not fit), unless
    /// the user set one. A window too small for an agent is said in the chat's first task.
    async fn check_served_window(&mut self) {
        if self.config.context_window > 0 {
            return;
        }
        let model = called_model(&self.mode, &*self.provider).to_string();
        let Some(served) = self.provider.served_window(&model, &self.cancel).await else { return };
        self.terms.window = served.tokens;
        if let Some(message) = served.too_small(&model).filter(|_| self.start == 0) {
            self.host.emit(&AgentEvent::Warning { message });
        }
    }

    /// Moves the task to the mode `slug` (checked by the tool against the same list).
    fn switch_mode(&mut self, slug: &str) {
        let Some(mode) = self.modes.iter().find(|m| m.slug == slug).cloned() else { return };
        self.pipeline.set_mode(&mode.slug, allowed_tools(self.pipeline.registry(), &mode));
        self.terms = ModelTerms::of(&self.config, &*self.provider, &mode);
        self.sampler.set_model(mode.model.clone());
        self.served_checked = false;
        self.mode = mode;
        self.host.emit(&AgentEvent::ModeChanged { mode: self.mode.slug.clone() });
    }

    fn request(&self, tool_choice: ToolChoice) -> ModelRequest {
        let mut tools = self.pipeline.specs();
        // The fast path's final turns are offered the recipe's tools only.
        if let Some(fast) = &self.fast {
            tools.retain(|t| fast.tools.contains(&t.name));
        }
        let now_ms = self.clock.now_ms();
        let system = self.prompt.assemble(&PromptInputs {
            mode: &self.mode,
            tools: &tools,
            vault: &self.vault_info,
            instructions: &self.instructions,
            custom_instructions: &self.config.custom_instructions,
            task_security: &self.task_security,
            now_ms,
            utc_offset_minutes: self.clock.utc_offset_minutes(now_ms),
        });
        let mut messages = sanitize(&self.history);
        drop_unseen_media(&mut messages, self.provider.media());
        ModelRequest {
            system,
            messages,
            tools,
            max_tokens: self.config.max_tokens,
            thinking_budget: self.config.thinking_budget,
            temperature: self.config.temperature,
            tool_choice,
            model: self.mode.model.clone(),
        }
    }

    /// Adds `text` to the last user message (after its tool results), or as a new user
    /// message, so roles keep alternating.
    fn append_user_text(&mut self, text: String) {
        match self.history.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(ContentBlock::Text { text }),
            _ => self.history.push(Message::user(text)),
        }
    }

    async fn wait_for_rate_limit(&self, last_request_ms: Option<u64>) -> std::result::Result<(), EndReason> {
        let Some(last) = last_request_ms else { return Ok(()) };
        let due = last + self.config.rate_limit_ms;
        let now = self.clock.now_ms();
        if self.config.rate_limit_ms == 0 || now >= due {
            return Ok(());
        }
        with_cancel(&self.cancel, self.clock.sleep(due - now)).await.map_err(|_| EndReason::Cancelled)
    }

    /// One streamed model call; with `to_host`, text and thinking go to the host as they
    /// arrive (not for the context machinery's own calls).
    async fn call_model(&self, request: &ModelRequest, to_host: bool) -> std::result::Result<ModelTurn, ProviderError> {
        let cancelled = || ProviderError::new(ErrorKind::Cancelled, "cancelled");
        let sent = self.clock.now_ms();
        let mut stream =
            with_cancel(&self.cancel, self.provider.stream(request, &self.cancel)).await.map_err(|_| cancelled())?;
        let mut assembler = MessageAssembler::new();
        let mut first_token_ms = None;
        let mut streamed_chars = 0usize;
        loop {
            let event = match with_cancel(&self.cancel, stream.next()).await {
                Err(_) => {
                    self.cut_short.set(self.usage_so_far(request, assembler.usage(), streamed_chars));
                    return Err(cancelled());
                }
                Ok(None) => break,
                Ok(Some(event)) => event,
            };
            if event.is_output() {
                first_token_ms.get_or_insert_with(|| self.clock.now_ms().saturating_sub(sent));
            }
            if let StreamEvent::TextDelta { text } | StreamEvent::ThinkingDelta { text } = &event {
                streamed_chars += text.chars().count();
            }
            match &event {
                StreamEvent::TextDelta { text } if to_host => {
                    self.host.emit(&AgentEvent::TextDelta { text: text.clone() })
                }
                StreamEvent::ThinkingDelta { text } if to_host => {
                    self.host.emit(&AgentEvent::ThinkingDelta { text: text.clone() })
                }
                StreamEvent::Error { error } if error.refused_tool_call() && streamed_chars > 0 => {
                    return Ok(ModelTurn {
                        usage: self.usage_so_far(request, assembler.usage(), streamed_chars),
                        message: assembler.finish(),
                        stop_reason: StopReason::Other("refused tool call".into()),
                        latency_ms: self.clock.now_ms().saturating_sub(sent),
                        first_token_ms,
                        refused_call: Some(error.clone()),
                    });
                }
                StreamEvent::Error { error } => {
                    if error.kind == ErrorKind::Cancelled {
                        // The provider saw the stop first (its transport watches the same token).
                        self.cut_short.set(self.usage_so_far(request, assembler.usage(), streamed_chars));
                    }
                    return Err(error.clone());
                }
                StreamEvent::Retry { attempt, max_attempts, delay_ms, error } => {
                    self.host.emit(&AgentEvent::Retrying {
                        attempt: *attempt,
                        max_attempts: *max_attempts,
                        delay_ms: *delay_ms,
                        problem: error.into(),
                    })
                }
                StreamEvent::Notice { message } => self.host.emit(&AgentEvent::Warning { message: message.clone() }),
                _ => {}
            }
            assembler.push(&event);
        }
        let usage = assembler.usage();
        let stop_reason = assembler.stop_reason().cloned().ok_or_else(|| {
            ProviderError::new(ErrorKind::Protocol, "the model's answer ended before it was complete")
        })?;
        Ok(ModelTurn {
            message: assembler.finish(),
            usage,
            stop_reason,
            latency_ms: self.clock.now_ms().saturating_sub(sent),
            first_token_ms,
            refused_call: None,
        })
    }

    /// The usage of a call stopped mid-way: what the provider reported so far, and where it
    /// reported nothing yet (OpenAI-compatible servers report at the end), the request's
    /// estimate and the streamed text at four characters a token.
    fn usage_so_far(&self, request: &ModelRequest, reported: Usage, streamed_chars: usize) -> Usage {
        let mut usage = reported;
        if usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens == 0 {
            usage.input_tokens = self.estimator.estimate(request);
        }
        if usage.output_tokens == 0 {
            usage.output_tokens = streamed_chars.div_ceil(4) as u64;
        }
        usage
    }

    /// One call with tools disabled, after `note` (asking for an answer now).
    async fn force_answer(&mut self, note: String, step: u32) -> (Option<String>, Option<StepReport>) {
        self.append_user_text(note);
        self.host.emit(&AgentEvent::StepStarted { step });
        let request = match self.fit_request(ToolChoice::None).await {
            Ok(request) => request,
            Err(e) => {
                self.host.emit(&AgentEvent::Warning { message: format!("the final answer failed: {e}") });
                return (None, None);
            }
        };
        match self.within_deadline(self.call_model(&request, true)).await {
            Ok(turn) => {
                let report = turn.step_report(step);
                // Tools were disabled: any call the model made anyway is dropped, so the history
                // never holds a call without a result.
                let content: Vec<ContentBlock> =
                    turn.message.content.into_iter().filter(|b| !matches!(b, ContentBlock::ToolUse { .. })).collect();
                let message = Message { role: Role::Assistant, content };
                let text = message.text();
                if !message.content.is_empty() {
                    self.history.push(message);
                }
                (Some(text), Some(report))
            }
            Err(e) => {
                self.host.emit(&AgentEvent::Warning { message: format!("the final answer failed: {e}") });
                (None, None)
            }
        }
    }
}

/// The names of the tools in `registry` that `mode` grants.
fn allowed_tools(registry: &ToolRegistry, mode: &Mode) -> BTreeSet<String> {
    crate::sort::by_insertion(registry.iter().filter(|t| mode.grants(t.group())).map(|t| t.name().to_string()))
}

/// The user message that answers a turn's tool calls, in call order, then the images and
/// documents the calls gave (Anthropic wants the results first).
fn tool_results(outcomes: &[CallOutcome]) -> Message {
    let mut content: Vec<ContentBlock> = outcomes
        .iter()
        .map(|o| ContentBlock::ToolResult {
            tool_use_id: o.call_id.clone(),
            content: o.content.clone(),
            is_error: o.is_error,
        })
        .collect();
    content.extend(outcomes.iter().flat_map(|o| o.media.iter().cloned()));
    Message { role: Role::User, content }
}

/// A new task id: the UTC time, `YYYYMMDD-HHMMSS`, with `-2`, `-3`… when a task of that second
/// already left a checkpoint or a log.
pub async fn new_task_id(vault: &dyn Vault, now_ms: u64) -> Result<String> {
    let (y, mo, d, h, mi, s) = utc_datetime(now_ms);
    let base = format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}");
    let checkpoints = VaultPath::parse(CHECKPOINT_FOLDER)?;
    let logs = VaultPath::parse(LOG_FOLDER)?;
    for n in 1u32.. {
        let id = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        let taken = vault.stat(&checkpoints.join(&id)?).await?.is_some()
            || vault.stat(&logs.join(&format!("{id}.jsonl"))?).await?.is_some();
        if !taken {
            return Ok(id);
        }
    }
    unreachable!("an unbounded counter always finds a free id")
}
