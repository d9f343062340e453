//! AgentTask: the loop.

use std::collections::BTreeSet;
use std::rc::Rc;

use futures::StreamExt;

use super::{AgentConfig, Mode};
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{utc_datetime, AgentHost, Clock};
use crate::pipeline::{
    ApprovalPolicy, CallOutcome, CallStatus, PipelineHost, PipelineSettings, ToolCall, ToolExecutionPipeline,
    CHECKPOINT_FOLDER, LOG_FOLDER,
};
use crate::prompt::{system_prompt, VaultInfo};
use crate::protocol::{
    AgentEvent, ContentBlock, EndReason, ErrorKind, Message, MessageAssembler, ModelRequest, ProviderError, Role,
    RunReport, StepReport, StopReason, StreamEvent, SystemPart, ToolChoice, Usage,
};
use crate::provider::ModelProvider;
use crate::search::SharedIndex;
use crate::tools::{builtin_tools, Control, ToolRegistry};
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
    /// The mode; `None`: the built-in mode named by `config.mode`.
    pub mode: Option<Mode>,
    /// What the prompt says about the vault.
    pub vault_info: VaultInfo,
    /// The vault's full-text index, for the search tools.
    pub search: Option<SharedIndex>,
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
    provider: Rc<dyn ModelProvider>,
    clock: Rc<dyn Clock>,
    host: Rc<dyn AgentHost>,
    cancel: CancelToken,
    pipeline: ToolExecutionPipeline,
    system: Vec<SystemPart>,
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

impl AgentTask {
    /// Prepares a task: picks its id, loads the vault's ignore/protect lists and builds the
    /// pipeline with the mode's tools.
    pub async fn new(setup: TaskSetup) -> Result<Self> {
        let TaskSetup {
            config,
            provider,
            vault,
            clock,
            host,
            cancel,
            tools,
            mode,
            vault_info,
            search,
            history,
            task_id,
        } = setup;
        if config.depth > config.max_subtask_depth {
            return Err(Error::Invalid(format!(
                "subtask depth {} is over the limit of {}",
                config.depth, config.max_subtask_depth
            )));
        }
        let mode = match mode {
            Some(mode) => mode,
            None => Mode::builtin(&config.mode)
                .ok_or_else(|| Error::Invalid(format!("unknown mode {:?} (built-in: ask, agent)", config.mode)))?,
        };
        let id = match task_id {
            Some(id) => {
                VaultPath::parse(&id)?;
                id
            }
            None => new_task_id(&*vault, clock.now_ms()).await?,
        };
        let rules = PathRules::load(&*vault).await?;
        let registry = tools.unwrap_or_else(builtin_tools);
        let allowed: BTreeSet<String> =
            registry.iter().filter(|t| mode.allows(&***t)).map(|t| t.name().to_string()).collect();
        let settings = PipelineSettings {
            policy: ApprovalPolicy::auto_approving(config.auto_approve.iter().copied()),
            allowed_tools: Some(allowed),
            mode: mode.slug.clone(),
            tool_timeout_ms: config.tool_timeout_ms,
            externalize_threshold: config.externalize_threshold,
        };
        let env = PipelineHost { vault, search, clock: clock.clone(), host: host.clone(), cancel: cancel.clone() };
        let pipeline = ToolExecutionPipeline::new(&id, env, registry, rules, settings)?;
        let system = system_prompt(&mode, &vault_info, clock.now_ms());
        Ok(AgentTask { id, config, mode, provider, clock, host, cancel, pipeline, system, history })
    }

    /// The task's id (names its checkpoint, log and temporary folder).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The conversation so far.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The pipeline's approval policy as it stands (with any "always allow" answers).
    pub fn policy(&self) -> ApprovalPolicy {
        self.pipeline.policy()
    }

    /// Runs the task for `request`, the user's message.
    ///
    /// The loop: each step sends the history to the model and streams its answer to the host.
    /// If the answer holds tool calls, each goes through the [`ToolExecutionPipeline`] (reads
    /// concurrently, writes one at a time), the results are appended to the history, and the
    /// next step begins. The task ends when the model answers with text only or calls
    /// `attempt_completion`, when the host cancels or the user denies a call, on a fatal error,
    /// or at a limit: at the soft limit (60 % of `max_iterations`) the model is told to wrap
    /// up, at `max_iterations` the loop stops. A model that is stuck (the same blocked calls
    /// again and again, or `consecutive_mistake_limit` failing steps in a row) gets one last
    /// call with tools disabled, to answer with what it has. Every end produces a
    /// [`RunReport`], also sent to the host as the last event.
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
            if let Err(reason) = self.wait_for_rate_limit(last_request_ms).await {
                break reason;
            }
            last_request_ms = Some(self.clock.now_ms());
            self.host.emit(&AgentEvent::StepStarted { step });

            let request = self.request(ToolChoice::Auto);
            let turn = match self.call_model(&request).await {
                Ok(turn) => turn,
                Err(e) if e.kind == ErrorKind::Cancelled => break EndReason::Cancelled,
                Err(e) => {
                    self.host.emit(&AgentEvent::Error { message: e.to_string(), kind: Some(e.kind) });
                    break EndReason::Failed { kind: Some(e.kind), message: e.message };
                }
            };
            usage += turn.usage;
            self.host.emit(&AgentEvent::StepFinished { step, usage: turn.usage, total: usage });
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

            if let Some(Control::Complete { result }) = outcomes.iter().find_map(|o| o.control.clone()) {
                final_text = Some(result);
                break EndReason::Completed;
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
                        total: usage,
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
            usage,
            duration_ms: self.clock.now_ms().saturating_sub(started),
            changed_paths: self.pipeline.changed_paths().iter().map(|p| p.to_string()).collect(),
        };
        self.host.emit(&AgentEvent::Done { report: report.clone() });
        report
    }

    fn request(&self, tool_choice: ToolChoice) -> ModelRequest {
        ModelRequest {
            system: self.system.clone(),
            messages: self.history.clone(),
            tools: self.pipeline.specs(),
            max_tokens: self.config.max_tokens,
            thinking_budget: self.config.thinking_budget,
            temperature: None,
            tool_choice,
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

    /// One streamed model call: text and thinking go to the host as they arrive.
    async fn call_model(&self, request: &ModelRequest) -> std::result::Result<ModelTurn, ProviderError> {
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
                StreamEvent::TextDelta { text } => self.host.emit(&AgentEvent::TextDelta { text: text.clone() }),
                StreamEvent::ThinkingDelta { text } => {
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
        let request = self.request(ToolChoice::None);
        match self.call_model(&request).await {
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
