//! AgentTask: the loop.

use std::collections::BTreeSet;
use std::rc::Rc;

use futures::StreamExt;

use super::hooks::{CondenseHook, HookContext};
use super::{AgentConfig, Mode};
use crate::cancel::{with_cancel, CancelToken};
use crate::context::{
    condensed, estimate_request, sanitize, split_point, summary_request, tool_ledger, trim_tool_results, TokenEstimator,
};
use crate::host::{utc_datetime, AgentHost, Clock};
use crate::index::SharedIndex;
use crate::pipeline::{
    ApprovalPolicy, CallOutcome, CallStatus, PipelineHost, PipelineSettings, ToolCall, ToolExecutionPipeline,
    CHECKPOINT_FOLDER, LOG_FOLDER,
};
use crate::prompt::{PromptInputs, SystemPrompt, VaultInfo, VaultInstructions};
use crate::protocol::{
    AgentEvent, ContentBlock, EndReason, ErrorKind, Message, MessageAssembler, ModelRequest, ProviderError, Role,
    RunReport, StepReport, StopReason, StreamEvent, ToolChoice, Usage,
};
use crate::provider::ModelProvider;
use crate::tools::{builtin_tools, Control, SwitchMode, ToolRegistry};
use crate::vault::{PathRules, Vault, VaultPath};
use crate::{Error, Result};

/// Everything a task needs from its host.
pub struct TaskSetup {
    pub config: AgentConfig,
    pub provider: Rc<dyn ModelProvider>,
    pub vault: Rc<dyn Vault>,
    pub clock: Rc<dyn Clock>,
    pub host: Rc<dyn AgentHost>,
    pub cancel: CancelToken,
    /// The tools on offer before the mode filters them; `None`: the built-in tools.
    pub tools: Option<ToolRegistry>,
    /// The user's own modes; `config.mode` names one of them or a built-in one.
    pub modes: Vec<Mode>,
    /// What the prompt says about the vault.
    pub vault_info: VaultInfo,
    /// The vault's index, for the search tools (built on their first use if it is empty).
    pub search: SharedIndex,
    /// Runs before condensing (the memory flush, for one); `None`: nothing runs.
    pub condense_hook: Option<Rc<dyn CondenseHook>>,
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
    estimator: TokenEstimator,
    /// Condense above this share (in %) of the window; an overflow raises it to 80.
    threshold: u32,
    condensations: u32,
    /// Model calls the context machinery made (summaries, memory flush), for the report.
    overhead: Usage,
    history: Vec<Message>,
}

/// One streamed model response, assembled.
struct ModelTurn {
    message: Message,
    usage: Usage,
    stop_reason: StopReason,
    latency_ms: u64,
    first_token_ms: Option<u64>,
}

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
        let TaskSetup {
            config,
            provider,
            vault,
            clock,
            host,
            cancel,
            tools,
            modes,
            vault_info,
            search,
            condense_hook,
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
        let instructions = VaultInstructions::load(&*vault).await?;
        let mut registry = tools.unwrap_or_else(builtin_tools);
        let choices = all_modes.iter().map(|m| (m.slug.clone(), m.name.clone())).collect();
        registry.register(Rc::new(SwitchMode::new(choices)));
        let settings = PipelineSettings {
            policy: ApprovalPolicy::auto_approving(config.auto_approve.iter().copied()),
            allowed_tools: Some(allowed_tools(&registry, &mode)),
            mode: mode.slug.clone(),
            tool_timeout_ms: config.tool_timeout_ms,
            externalize_threshold: config.externalize_threshold,
        };
        let env = PipelineHost {
            vault: vault.clone(),
            search,
            clock: clock.clone(),
            host: host.clone(),
            cancel: cancel.clone(),
        };
        let pipeline = ToolExecutionPipeline::new(&id, env, registry, rules, settings)?;
        Ok(AgentTask {
            id,
            threshold: config.condensing_threshold,
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
            estimator: TokenEstimator::new(),
            condensations: 0,
            overhead: Usage::default(),
            history,
        })
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
    /// user denies a call, on a fatal error, or at a limit: at the soft limit (60 % of
    /// `max_iterations`) the model is told to wrap up, at `max_iterations` the loop stops. A
    /// model that is stuck (the same blocked calls again and again, or
    /// `consecutive_mistake_limit` failing steps in a row) gets one last call with tools
    /// disabled, to answer with what it has.
    ///
    /// Before each request the history is sanitised (no call without its result), old tool
    /// results are trimmed when the request nears the window, and above `condensing_threshold`
    /// the older history is condensed into one summary (after the memory-flush hook). A
    /// provider's context-overflow error condenses at once and retries. Every
    /// `power_steering_frequency` steps the model is reminded of its mode. Every end produces
    /// a [`RunReport`], also sent to the host as the last event.
    pub async fn run(&mut self, request: &str) -> RunReport {
        let started = self.clock.now_ms();
        self.host.emit(&AgentEvent::TaskStarted { task_id: self.id.clone(), mode: self.mode.slug.clone() });
        self.history.push(Message::user(request));

        let mut steps: Vec<StepReport> = Vec::new();
        let mut usage = Usage::default();
        let mut final_text = None;
        let mut mistakes = 0u32;
        let mut blocked_streak = 0u32;
        let mut last_request_ms: Option<u64> = None;
        let mut prepared_step = 0u32;
        let mut overflow_retried = false;

        let end = loop {
            let step = steps.len() as u32 + 1;
            if self.cancel.is_cancelled() {
                break EndReason::Cancelled;
            }
            if step > self.config.max_iterations {
                self.host.emit(&AgentEvent::Warning {
                    message: format!("Stopped after {} steps (the limit).", self.config.max_iterations),
                });
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
            let request = match self.fit_request(ToolChoice::Auto).await {
                Ok(request) => request,
                Err(e) if e.kind == ErrorKind::Cancelled => break EndReason::Cancelled,
                Err(e) => {
                    self.host.emit(&AgentEvent::Error { message: e.to_string(), kind: Some(e.kind) });
                    break EndReason::Failed { kind: Some(e.kind), message: e.message };
                }
            };
            last_request_ms = Some(self.clock.now_ms());
            self.host.emit(&AgentEvent::StepStarted { step });
            let turn = match self.call_model(&request, true).await {
                Ok(turn) => turn,
                Err(e) if e.kind == ErrorKind::Cancelled => break EndReason::Cancelled,
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
                            let message = format!("{}; and the conversation is too short to condense", e.message);
                            self.host.emit(&AgentEvent::Error { message: message.clone(), kind: Some(e.kind) });
                            break EndReason::Failed { kind: Some(e.kind), message };
                        }
                        Err(c) => {
                            self.host.emit(&AgentEvent::Error { message: c.to_string(), kind: Some(c.kind) });
                            break EndReason::Failed { kind: Some(c.kind), message: c.message };
                        }
                    }
                }
                Err(e) => {
                    self.host.emit(&AgentEvent::Error { message: e.to_string(), kind: Some(e.kind) });
                    break EndReason::Failed { kind: Some(e.kind), message: e.message };
                }
            };
            self.estimator.record(&request, &turn.usage);
            usage += turn.usage;
            self.host.emit(&AgentEvent::StepFinished { step, usage: turn.usage, total: usage + self.overhead });
            let mut report = StepReport {
                step,
                model_latency_ms: turn.latency_ms,
                first_token_ms: turn.first_token_ms,
                usage: turn.usage,
                stop_reason: Some(turn.stop_reason.clone()),
                tool_calls: Vec::new(),
            };
            let calls: Vec<ToolCall> = turn
                .message
                .tool_uses()
                .map(|(id, name, input)| ToolCall { id: id.to_string(), name: name.to_string(), input: input.clone() })
                .collect();
            let text = turn.message.text();
            if !turn.message.content.is_empty() {
                self.history.push(turn.message);
            }
            if calls.is_empty() {
                steps.push(report);
                final_text = Some(text);
                break EndReason::Answered;
            }

            let outcomes = self.pipeline.run(&calls).await;
            report.tool_calls = outcomes.iter().map(|o| o.report.clone()).collect();
            steps.push(report);
            self.history.push(tool_results(&outcomes));

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
            if outcomes.iter().any(|o| o.status == CallStatus::Denied) {
                break EndReason::Denied;
            }
            if let Some(message) = outcomes.iter().find_map(|o| match &o.status {
                CallStatus::Fatal(m) => Some(m.clone()),
                _ => None,
            }) {
                self.host.emit(&AgentEvent::Error { message: message.clone(), kind: None });
                break EndReason::Failed { kind: None, message };
            }
            if self.cancel.is_cancelled() || outcomes.iter().any(|o| o.status == CallStatus::Cancelled) {
                break EndReason::Cancelled;
            }

            mistakes = if outcomes.iter().all(|o| o.is_error) { mistakes + 1 } else { 0 };
            blocked_streak =
                if outcomes.iter().any(|o| o.status == CallStatus::Blocked) { blocked_streak + 1 } else { 0 };
            let stuck = if blocked_streak >= 2 {
                Some((EndReason::RepetitionLoop, "you keep repeating tool calls that were blocked"))
            } else if mistakes >= self.config.consecutive_mistake_limit {
                Some((EndReason::MistakeLimit, "your last tool calls all failed"))
            } else {
                None
            };
            if let Some((reason, why)) = stuck {
                self.host.emit(&AgentEvent::Warning {
                    message: format!("The model is stuck ({why}); asking for a final answer."),
                });
                let (answer, step_report) = self.force_answer(why, steps.len() as u32 + 1).await;
                if let Some(step_report) = step_report {
                    usage += step_report.usage;
                    self.host.emit(&AgentEvent::StepFinished {
                        step: step_report.step,
                        usage: step_report.usage,
                        total: usage + self.overhead,
                    });
                    steps.push(step_report);
                }
                final_text = answer;
                break reason;
            }
        };

        if let Err(e) = self.pipeline.finish().await {
            self.host
                .emit(&AgentEvent::Warning { message: format!("could not remove the task's temporary files: {e}") });
        }
        let report = RunReport {
            task_id: self.id.clone(),
            end,
            final_text,
            tool_calls: steps.iter().map(|s| s.tool_calls.len() as u32).sum(),
            tool_errors: steps.iter().flat_map(|s| &s.tool_calls).filter(|c| c.error.is_some()).count() as u32,
            steps,
            usage: usage + self.overhead,
            duration_ms: self.clock.now_ms().saturating_sub(started),
            changed_paths: self.pipeline.changed_paths().iter().map(|p| p.to_string()).collect(),
            condensations: self.condensations,
        };
        self.host.emit(&AgentEvent::Done { report: report.clone() });
        report
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
        let window = u64::from(self.config.context_window);
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
        let keep = if emergency { 0 } else { u64::from(self.config.context_window) * KEEP_RECENT_PERCENT / 100 };
        let Some(cut) = split_point(&self.history, keep) else { return Ok(false) };
        let tokens_before = estimate_request(&self.request(current.tool_choice));
        let older = self.history[..cut].to_vec();
        if let Some(hook) = self.condense_hook.clone() {
            let ctx = HookContext {
                task_id: &self.id,
                older: &older,
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

    /// Moves the task to the mode `slug` (checked by the tool against the same list).
    fn switch_mode(&mut self, slug: &str) {
        let Some(mode) = self.modes.iter().find(|m| m.slug == slug).cloned() else { return };
        self.pipeline.set_mode(&mode.slug, allowed_tools(self.pipeline.registry(), &mode));
        self.mode = mode;
        self.host.emit(&AgentEvent::ModeChanged { mode: self.mode.slug.clone() });
    }

    fn request(&self, tool_choice: ToolChoice) -> ModelRequest {
        let tools = self.pipeline.specs();
        let system = self.prompt.assemble(&PromptInputs {
            mode: &self.mode,
            tools: &tools,
            vault: &self.vault_info,
            instructions: &self.instructions,
            custom_instructions: &self.config.custom_instructions,
            now_ms: self.clock.now_ms(),
        });
        ModelRequest {
            system,
            messages: sanitize(&self.history),
            tools,
            max_tokens: self.config.max_tokens,
            thinking_budget: self.config.thinking_budget,
            temperature: None,
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
        loop {
            let event = match with_cancel(&self.cancel, stream.next()).await {
                Err(_) => return Err(cancelled()),
                Ok(None) => break,
                Ok(Some(event)) => event,
            };
            if event.is_output() {
                first_token_ms.get_or_insert_with(|| self.clock.now_ms().saturating_sub(sent));
            }
            match &event {
                StreamEvent::TextDelta { text } if to_host => {
                    self.host.emit(&AgentEvent::TextDelta { text: text.clone() })
                }
                StreamEvent::ThinkingDelta { text } if to_host => {
                    self.host.emit(&AgentEvent::ThinkingDelta { text: text.clone() })
                }
                StreamEvent::Error { error } => return Err(error.clone()),
                StreamEvent::Retry { attempt, max_attempts, delay_ms, error } => self.host.emit(&AgentEvent::Warning {
                    message: format!(
                        "{error}; retrying in {:.1} s (attempt {} of {max_attempts})",
                        *delay_ms as f64 / 1000.0,
                        attempt + 1
                    ),
                }),
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
        })
    }

    /// The loop-breaker: one more call with tools disabled, asking for an answer now.
    async fn force_answer(&mut self, why: &str, step: u32) -> (Option<String>, Option<StepReport>) {
        self.append_user_text(format!(
            "Stop: {why}. Do not call any more tools. Answer the user now with what you have found so far, \
             and say plainly what you could not do."
        ));
        self.host.emit(&AgentEvent::StepStarted { step });
        let request = match self.fit_request(ToolChoice::None).await {
            Ok(request) => request,
            Err(e) => {
                self.host.emit(&AgentEvent::Warning { message: format!("the final answer failed: {e}") });
                return (None, None);
            }
        };
        match self.call_model(&request, true).await {
            Ok(turn) => {
                // Tools were disabled: any call the model made anyway is dropped, so the history
                // never holds a call without a result.
                let content: Vec<ContentBlock> =
                    turn.message.content.into_iter().filter(|b| !matches!(b, ContentBlock::ToolUse { .. })).collect();
                let message = Message { role: Role::Assistant, content };
                let text = message.text();
                if !message.content.is_empty() {
                    self.history.push(message);
                }
                let report = StepReport {
                    step,
                    model_latency_ms: turn.latency_ms,
                    first_token_ms: turn.first_token_ms,
                    usage: turn.usage,
                    stop_reason: Some(turn.stop_reason),
                    tool_calls: Vec::new(),
                };
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
    registry.iter().filter(|t| mode.allows(&***t)).map(|t| t.name().to_string()).collect()
}

/// The user message that answers a turn's tool calls, in call order.
fn tool_results(outcomes: &[CallOutcome]) -> Message {
    let content = outcomes
        .iter()
        .map(|o| ContentBlock::ToolResult {
            tool_use_id: o.call_id.clone(),
            content: o.content.clone(),
            is_error: o.is_error,
        })
        .collect();
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
