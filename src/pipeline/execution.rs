//! The pipeline proper: stages in order, and the scheduling of a turn's calls.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::future::Future;
use std::rc::Rc;

use futures::future::{join_all, select, Either};
use serde_json::Value;

use super::audit::{AuditEntry, AuditLog, Outcome};
use super::{
    ask_user, ApprovalPolicy, CheckpointStore, PipelineState, ResultExternalizer, SchemaValidator,
    ToolRepetitionDetector, TurnJournal,
};
use crate::cancel::{with_cancel, CancelToken};
use crate::guard::{DataMarkers, GuardedCall, Guardrails, Screener, Verdict};
use crate::host::{AgentHost, Clock};
use crate::index::SharedIndex;
use crate::mcp::ModelSampler;
use crate::media::MediaSupport;
use crate::protocol::{
    AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest, ContentBlock, ToolCallReport, ToolOutcome,
    ToolSpec,
};
use crate::tools::{
    call_label, Access, Control, OutputItem, ReadLedger, ToolContext, ToolError, ToolKind, ToolRegistry, UserTime,
};
use crate::vault::{PathRules, Vault, VaultPath};
use crate::Result;

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallStatus {
    Ok,
    /// Refused by a stage or failed in the tool; the model was told why.
    Failed,
    /// Refused by the repetition guard.
    Blocked,
    /// The user skipped it.
    Skipped,
    /// The user denied it: the task stops.
    Denied,
    /// The user denied it and said why: the model is told, and the task goes on.
    Refused,
    /// A fatal error: the task stops.
    Fatal(String),
    /// A guardrail blocked it (an injection's exfiltration or mass edit): the task stops;
    /// the text says which guardrail and why.
    Guardrail(String),
    /// Not run because an earlier call of the turn stopped the task, or the task was cancelled.
    NotRun,
    Cancelled,
}

/// A call's result, in the form the loop needs.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub call_id: String,
    pub tool: String,
    /// What the model is told.
    pub content: String,
    /// Images or documents that follow the turn's results.
    pub media: Vec<ContentBlock>,
    pub is_error: bool,
    pub status: CallStatus,
    pub control: Option<Control>,
    pub report: ToolCallReport,
}

/// The pipeline's knobs.
#[derive(Debug, Clone)]
pub struct PipelineSettings {
    pub policy: ApprovalPolicy,
    /// The mode's tools; `None` allows every registered tool.
    pub allowed_tools: Option<BTreeSet<String>>,
    /// The mode's name, for refusals.
    pub mode: String,
    /// A tool call is stopped after this long (0: never). Control tools, which wait for the
    /// user, are exempt.
    pub tool_timeout_ms: u64,
    pub externalize_threshold: usize,
}

impl Default for PipelineSettings {
    fn default() -> Self {
        PipelineSettings {
            policy: ApprovalPolicy::default(),
            allowed_tools: None,
            mode: "agent".into(),
            tool_timeout_ms: 120_000,
            externalize_threshold: super::DEFAULT_THRESHOLD,
        }
    }
}

/// What the pipeline needs from the host.
#[derive(Clone)]
pub struct PipelineHost {
    pub vault: Rc<dyn Vault>,
    /// The vault's index (the search tools build it on first use when the host has not).
    pub search: SharedIndex,
    pub clock: Rc<dyn Clock>,
    pub host: Rc<dyn AgentHost>,
    pub cancel: CancelToken,
    /// What the model takes besides text.
    pub media: MediaSupport,
}

/// Runs a task's tool calls. No tool is reached except through [`ToolExecutionPipeline::run`].
pub struct ToolExecutionPipeline {
    task_id: String,
    env: PipelineHost,
    registry: ToolRegistry,
    rules: PathRules,
    settings: PipelineSettings,
    /// The mode's tools and name; a mode switch changes them.
    mode: RefCell<(Option<BTreeSet<String>>, String)>,
    policy: RefCell<ApprovalPolicy>,
    validator: SchemaValidator,
    repetition: RefCell<ToolRepetitionDetector>,
    ledger: ReadLedger,
    checkpoints: Rc<CheckpointStore>,
    externalizer: ResultExternalizer,
    audit: AuditLog,
    next_index: Cell<u32>,
    audit_warned: Cell<bool>,
    journal: RefCell<Option<Rc<dyn TurnJournal>>>,
    guardrails: Guardrails,
    /// Where results of tools that read others' words are wrapped as data; `None`: off.
    markers: Option<DataMarkers>,
    /// Reads web and MCP results for injected instructions first; `None`: off.
    screener: Option<Rc<dyn Screener>>,
    /// The task's model, for MCP servers' sampling requests.
    sampler: Option<Rc<ModelSampler>>,
    /// While set (a fast path's plan runs), results are cut to this many characters instead
    /// of being externalized.
    digest_chars: Cell<Option<usize>>,
}

/// The result of the stages, before reporting.
struct Staged {
    status: CallStatus,
    content: String,
    control: Option<Control>,
    result_chars: usize,
    externalized: Option<String>,
    approval: &'static str,
    /// The tool's one-line summary of a successful result.
    summary: Option<String>,
    /// A successful result's entries (what the card lists).
    items: Vec<OutputItem>,
    media: Vec<ContentBlock>,
}

impl Staged {
    /// Whether the model is told the call failed (a skip is not a failure).
    fn is_error(&self) -> bool {
        !matches!(self.status, CallStatus::Ok | CallStatus::Skipped)
    }

    /// How the call ended, in the user's terms.
    fn outcome(&self) -> ToolOutcome {
        match self.status {
            CallStatus::Ok => ToolOutcome::Done,
            CallStatus::Failed | CallStatus::Fatal(_) => ToolOutcome::Failed,
            CallStatus::Blocked | CallStatus::Guardrail(_) => ToolOutcome::Blocked,
            CallStatus::Skipped => ToolOutcome::Skipped,
            CallStatus::Denied | CallStatus::Refused => ToolOutcome::Denied,
            CallStatus::NotRun | CallStatus::Cancelled => ToolOutcome::NotRun,
        }
    }

    fn refused(status: CallStatus, message: impl Into<String>) -> Self {
        let content = message.into();
        Staged {
            status,
            result_chars: content.chars().count(),
            content,
            control: None,
            externalized: None,
            approval: "none",
            summary: None,
            items: Vec::new(),
            media: Vec::new(),
        }
    }
}

impl ToolExecutionPipeline {
    /// A pipeline for the task `task_id`.
    pub fn new(
        task_id: &str,
        env: PipelineHost,
        registry: ToolRegistry,
        rules: PathRules,
        settings: PipelineSettings,
    ) -> Result<Self> {
        let now = env.clock.now_ms();
        Ok(ToolExecutionPipeline {
            task_id: task_id.to_string(),
            checkpoints: Rc::new(CheckpointStore::new(env.vault.clone(), task_id, now)?),
            externalizer: ResultExternalizer::new(env.vault.clone(), task_id, settings.externalize_threshold)?,
            audit: AuditLog::new(env.vault.clone(), task_id)?,
            policy: RefCell::new(settings.policy.clone()),
            mode: RefCell::new((settings.allowed_tools.clone(), settings.mode.clone())),
            env,
            registry,
            rules,
            settings,
            validator: SchemaValidator::new(),
            repetition: RefCell::new(ToolRepetitionDetector::new()),
            ledger: ReadLedger::new(),
            next_index: Cell::new(0),
            audit_warned: Cell::new(false),
            journal: RefCell::new(None),
            guardrails: Guardrails::default(),
            markers: None,
            screener: None,
            sampler: None,
            digest_chars: Cell::new(None),
        })
    }

    /// Checks every call with `guardrails` before it is planned or approved, and wraps the
    /// results of tools that read others' words (notes, web, MCP) between `markers`.
    pub fn guard(&mut self, guardrails: Guardrails, markers: Option<DataMarkers>) {
        self.guardrails = guardrails;
        self.markers = markers;
    }

    /// Lets MCP servers ask `sampler` (the task's model) for replies while their tools run.
    pub fn sample_with(&mut self, sampler: Rc<ModelSampler>) {
        self.sampler = Some(sampler);
    }

    /// Has `screener` read every web and MCP result before the model does.
    pub fn screen_with(&mut self, screener: Rc<dyn Screener>) {
        self.screener = Some(screener);
    }

    /// Records this task's writes in `checkpoints` instead of a checkpoint of its own: a
    /// sub-task's writes belong to its parent's, so one undo reverts both.
    pub fn with_checkpoints(mut self, checkpoints: Rc<CheckpointStore>) -> Self {
        self.checkpoints = checkpoints;
        self
    }

    /// With `Some(chars)`, results are no longer externalized: each is cut to `chars`
    /// characters, saying so (the fast path's plan, whose results go to the final turn as a
    /// digest); with `None`, large results are externalized again.
    pub fn set_digest(&self, chars: Option<usize>) {
        self.digest_chars.set(chars);
    }

    /// The checkpoint this task's writes are recorded in.
    pub fn checkpoints(&self) -> Rc<CheckpointStore> {
        self.checkpoints.clone()
    }

    /// The tools the model may call, as it sees them.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.registry.iter().filter(|t| self.is_allowed(t.name())).map(|t| t.spec()).collect()
    }

    /// The paths the task has changed so far (what `undo_task` would restore).
    pub fn changed_paths(&self) -> Vec<VaultPath> {
        self.checkpoints.changed_paths()
    }

    /// The approval policy as it stands (with any "always allow" answers).
    pub fn policy(&self) -> ApprovalPolicy {
        self.policy.borrow().clone()
    }

    /// Tells `journal` of each turn's progress from now on (the task's snapshot).
    pub fn set_journal(&self, journal: Rc<dyn TurnJournal>) {
        *self.journal.borrow_mut() = Some(journal);
    }

    /// What a resumed task's pipeline needs (see [`ToolExecutionPipeline::restore`]).
    pub fn state(&self) -> PipelineState {
        let seen = self.ledger.entries().into_iter().map(|(path, hash)| (path, format!("{hash:016x}"))).collect();
        PipelineState { next_index: self.next_index.get(), seen }
    }

    /// Takes up a stopped task's pipeline: its call numbering, what it had read, and its
    /// checkpoint (later writes add to it).
    pub async fn restore(&self, state: &PipelineState) -> Result<()> {
        self.next_index.set(state.next_index);
        // A hash that does not parse is left out: the note is then read again before a write.
        let seen: Vec<(String, u64)> = state
            .seen
            .iter()
            .filter_map(|(path, hash)| u64::from_str_radix(hash, 16).ok().map(|h| (path.clone(), h)))
            .collect();
        self.ledger.restore(&seen);
        self.checkpoints.reopen().await
    }

    fn journal(&self) -> Option<Rc<dyn TurnJournal>> {
        self.journal.borrow().clone()
    }

    /// Removes the task's externalized results. Call once, when the task ends.
    pub async fn finish(&self) -> Result<()> {
        self.externalizer.cleanup().await
    }

    /// Runs one turn's calls and returns their outcomes in call order. Consecutive read-only
    /// calls run concurrently; writes and control calls run one at a time, so a read that
    /// follows a write sees it. After a denial, a fatal error, a completion or a cancel, the
    /// remaining calls are not run.
    pub async fn run(&self, calls: &[ToolCall]) -> Vec<CallOutcome> {
        let base = self.next_index.get();
        self.next_index.set(base + calls.len() as u32);
        let mut outcomes: Vec<CallOutcome> = Vec::with_capacity(calls.len());
        let mut stop: Option<String> = None;
        let mut i = 0;
        while i < calls.len() {
            if stop.is_none() && self.env.cancel.is_cancelled() {
                stop = Some("the task was cancelled".into());
            }
            if let Some(reason) = &stop {
                outcomes.push(self.not_run(&calls[i], base + i as u32, reason));
                i += 1;
                continue;
            }
            let mut end = i + 1;
            if self.is_parallel_safe(&calls[i]) {
                while end < calls.len() && self.is_parallel_safe(&calls[end]) {
                    end += 1;
                }
            }
            let batch = join_all((i..end).map(|k| self.run_one(&calls[k], base + k as u32))).await;
            for outcome in batch {
                stop = stop.or_else(|| match (&outcome.status, &outcome.control) {
                    (CallStatus::Denied, _) => Some("the user denied an earlier call of this turn".into()),
                    (CallStatus::Fatal(_), _) => Some("an earlier call of this turn failed fatally".into()),
                    (CallStatus::Guardrail(_), _) => Some("a guardrail stopped the task".into()),
                    (CallStatus::Cancelled, _) => Some("the task was cancelled".into()),
                    (_, Some(Control::Complete { .. })) => Some("the task was completed".into()),
                    (_, Some(Control::SwitchMode { .. })) => {
                        Some("the mode changed; call the tool again if it is still needed".into())
                    }
                    _ => None,
                });
                outcomes.push(outcome);
            }
            if let (None, Some(journal)) = (&stop, self.journal()) {
                journal.calls_done(&outcomes, &self.state()).await;
            }
            i = end;
        }
        outcomes
    }

    fn is_allowed(&self, name: &str) -> bool {
        self.mode.borrow().0.as_ref().is_none_or(|allowed| allowed.contains(name))
    }

    /// Moves to another mode: from now on only `allowed` tools are offered and allowed.
    pub fn set_mode(&self, mode: &str, allowed: BTreeSet<String>) {
        *self.mode.borrow_mut() = (Some(allowed), mode.to_string());
    }

    /// The registered tools (whatever the mode allows).
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    fn is_parallel_safe(&self, call: &ToolCall) -> bool {
        self.registry.get(&call.name).is_some_and(|t| t.parallel_safe(&call.input))
    }

    fn context<'a>(&'a self, call_id: &'a str, index: u32, user_time: &'a UserTime) -> ToolContext<'a> {
        ToolContext {
            vault: &*self.env.vault,
            clock: &*self.env.clock,
            host: &*self.env.host,
            cancel: &self.env.cancel,
            rules: &self.rules,
            ledger: &self.ledger,
            search: &self.env.search,
            task_id: &self.task_id,
            call_id,
            call_index: index,
            media: self.env.media,
            sampler: self.sampler.as_deref(),
            policy: &self.policy,
            user_time,
        }
    }

    /// `work`'s value, or why `tool` was stopped: the task was cancelled, or `timeout_ms` passed
    /// (0: no limit).
    async fn within_limits<T>(
        &self,
        tool: &str,
        timeout_ms: u64,
        user_time: &UserTime,
        work: impl Future<Output = T>,
    ) -> Result<T, Staged> {
        match with_cancel(&self.env.cancel, timeout(&*self.env.clock, timeout_ms, user_time, work)).await {
            Err(_) => Err(Staged::refused(CallStatus::Cancelled, "Cancelled while the tool was running.")),
            Ok(None) => Err(Staged::refused(
                CallStatus::Failed,
                format!("{tool} did not finish within {} s and was stopped.", timeout_ms / 1000),
            )),
            Ok(Some(value)) => Ok(value),
        }
    }

    fn not_run(&self, call: &ToolCall, index: u32, reason: &str) -> CallOutcome {
        outcome(call, index, Staged::refused(CallStatus::NotRun, format!("Not run: {reason}.")), 0)
    }

    async fn run_one(&self, call: &ToolCall, index: u32) -> CallOutcome {
        let started = self.env.clock.now_ms();
        self.env.host.emit(&AgentEvent::ToolStarted {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            input: call.input.clone(),
            label: call_label(&call.name, &call.input, None),
        });
        let staged = self.stages(call, index).await;
        let duration_ms = self.env.clock.now_ms().saturating_sub(started);
        let is_error = staged.is_error();
        let logged = match &staged.status {
            CallStatus::Ok => Outcome::Ok,
            CallStatus::Skipped => Outcome::Skipped,
            CallStatus::Denied | CallStatus::Refused => Outcome::Denied,
            CallStatus::Fatal(_) | CallStatus::Guardrail(_) => Outcome::Fatal,
            _ => Outcome::Error,
        };
        let error = is_error.then(|| staged.content.clone());
        let entry = AuditEntry {
            ts_ms: started,
            task_id: self.task_id.clone(),
            index,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            input: call.input.clone(),
            approval: staged.approval.to_string(),
            outcome: logged,
            error: error.clone(),
            result_chars: staged.result_chars,
            duration_ms,
            externalized: staged.externalized.clone(),
        };
        if let Err(e) = self.audit.record(entry).await {
            if !self.audit_warned.replace(true) {
                self.env.host.emit(&AgentEvent::Warning {
                    message: format!("could not write the audit log {}: {e}", self.audit.path()),
                });
            }
        }
        let label = call_label(&call.name, &call.input, (staged.status == CallStatus::Ok).then_some(&staged.items[..]));
        self.env.host.emit(&AgentEvent::ToolFinished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            is_error,
            summary: staged
                .summary
                .clone()
                .unwrap_or_else(|| staged.content.lines().next().unwrap_or("").chars().take(200).collect()),
            duration_ms,
            label: label.clone(),
            outcome: staged.outcome(),
            result: cut(&staged.content, RESULT_SHOWN_CHARS),
        });
        let tool = self.registry.get(&call.name);
        let untrusted = tool.is_some_and(|t| reads_others_words(t.category()));
        let mut done = outcome(call, index, staged, duration_ms);
        done.report.label = Some(label);
        // Where the words come from, not what approving the call meant: a server the user
        // trusts to only read still speaks for itself.
        let outside =
            tool.is_some_and(|t| matches!(t.group(), crate::tools::ToolGroup::Web | crate::tools::ToolGroup::Mcp));
        if let (Some(screener), CallStatus::Ok, true) = (&self.screener, &done.status, outside) {
            if let Some(reason) = screener.screen(&call.name, &done.content, &self.env.cancel).await {
                let (told, warning) =
                    crate::guard::withheld(&format!("{}'s result", call.name), "this result", &reason);
                self.env.host.emit(&AgentEvent::Warning { message: warning });
                done.content = told;
            }
        }
        // What the model is told, not what the card shows: the card is for the user.
        if let (Some(markers), CallStatus::Ok, true) = (&self.markers, &done.status, untrusted) {
            done.content = markers.wrap(&call.name, &done.content);
        }
        done
    }

    /// The stages, in order; the first that refuses ends the call.
    async fn stages(&self, call: &ToolCall, index: u32) -> Staged {
        use CallStatus::{Blocked, Cancelled, Denied, Failed, Fatal, Skipped};
        let available = || self.specs().iter().map(|s| s.name.clone()).collect::<Vec<_>>().join(", ");

        let Some(tool) = self.registry.get(&call.name).cloned() else {
            return Staged::refused(Failed, format!("Unknown tool {:?}. Available tools: {}.", call.name, available()));
        };
        let input = &call.input;
        if let Err(message) = self.validator.check(&*tool, input) {
            return Staged::refused(Failed, message);
        }
        let parsed = match tool.parse(input) {
            Ok(parsed) => parsed,
            Err(e) => return Staged::refused(Failed, e.to_string()),
        };
        let query = parsed.search_query();
        if let Err(message) = self.repetition.borrow_mut().check(tool.name(), input, query.as_deref()) {
            self.env.host.emit(&AgentEvent::Warning { message: format!("{}: {message}", tool.name()) });
            return Staged::refused(Blocked, message);
        }
        let uses = parsed.paths();
        let preapproved = parsed.preapproved();
        for u in &uses {
            if self.rules.is_ignored(&u.path) {
                return Staged::refused(Failed, format!("not found: {}", u.path));
            }
            if u.access == Access::Write && self.rules.is_protected(&u.path) {
                return Staged::refused(
                    Failed,
                    format!("{} is protected: the agent may read it but not change it.", u.path),
                );
            }
        }
        if !self.is_allowed(tool.name()) {
            return Staged::refused(
                Failed,
                format!(
                    "The tool {} is not available in {} mode. Available tools: {}.",
                    tool.name(),
                    self.mode.borrow().1,
                    available()
                ),
            );
        }

        // Before anything is planned or asked: a call an injection steered (the canary, a
        // secret going out, a burst of writes) is not even offered for approval.
        let guarded =
            GuardedCall { tool: tool.name(), category: tool.category(), args: input, now_ms: self.env.clock.now_ms() };
        if let Verdict::Block(why) = self.guardrails.check_tool_call(&guarded) {
            return Staged::refused(
                CallStatus::Guardrail(why.clone()),
                format!("Blocked: {why}. The task stops here."),
            );
        }

        let user_time = UserTime::default();
        let ctx = self.context(&call.id, index, &user_time);
        let timeout_ms = if tool.kind() == ToolKind::Control { 0 } else { self.settings.tool_timeout_ms };
        // The call's one plan: the approval shows it, and execution applies it.
        let mut planned = match self.within_limits(tool.name(), timeout_ms, &user_time, parsed.plan(&ctx)).await {
            Err(staged) => return staged,
            Ok(Ok(planned)) => planned,
            Ok(Err(e)) => return refused_by_tool(e),
        };
        let category = tool.category();
        let mut approval = if preapproved { "allow_listed" } else { "auto" };
        if !preapproved && !self.policy.borrow().is_automatic(category) {
            let request = ApprovalRequest {
                id: format!("a{index}"),
                call_id: call.id.clone(),
                tool: tool.name().to_string(),
                category,
                summary: summarize(tool.name(), input),
                input: input.clone(),
                preview: planned.preview(),
                subtask: None,
            };
            let noted = async {
                if let Some(journal) = self.journal() {
                    journal.awaiting_approval(&request, &self.state()).await;
                }
            };
            // Not the call's user time: the approval comes before its time limit starts.
            let answer = self.env.host.approve(&request);
            let asked = ask_user(&*self.env.host, &self.env.cancel, &self.policy, &request, noted, answer);
            let Some(decision) = asked.await else {
                return Staged::refused(Cancelled, "Cancelled while waiting for approval.");
            };
            approval = match decision {
                ApprovalDecision::Approve => match self.env.host.accepted_hunks(&request.id) {
                    None => "approved",
                    Some(hunks) if hunks.is_empty() => {
                        let mut staged = Staged::refused(
                            Skipped,
                            "The user turned down every change of this call; it did not run. Continue the task without it.",
                        );
                        staged.approval = "skipped";
                        return staged;
                    }
                    Some(hunks) => {
                        if !planned.keep_hunks(&hunks) {
                            return Staged::refused(
                                Failed,
                                "The approval named changes this call does not have; nothing was changed.",
                            );
                        }
                        "approved_in_part"
                    }
                },
                ApprovalDecision::AlwaysAllow => "always_allow",
                ApprovalDecision::Skip => {
                    let mut staged = Staged::refused(
                        Skipped,
                        "The user skipped this call; it did not run. Continue the task without it.",
                    );
                    staged.approval = "skipped";
                    return staged;
                }
                ApprovalDecision::Deny => {
                    let mut staged = match self.env.host.denial_reason(&request.id) {
                        Some(reason) => Staged::refused(
                            CallStatus::Refused,
                            format!(
                                "The user denied this call; it did not run. Their reason: {reason}\nTake it into account and continue the task."
                            ),
                        ),
                        None => Staged::refused(
                            Denied,
                            "The user denied this call; it did not run, and the task stops here.",
                        ),
                    };
                    staged.approval = "denied";
                    return staged;
                }
            };
        }

        if tool.kind() == ToolKind::Write {
            for u in uses.iter().filter(|u| u.access == Access::Write) {
                if let Err(e) = self.checkpoints.record(&u.path).await {
                    let message = format!(
                        "could not save a checkpoint of {} before changing it, so nothing was changed: {e}",
                        u.path
                    );
                    return Staged::refused(Fatal(message.clone()), message);
                }
            }
        }

        let executed = self.within_limits(tool.name(), timeout_ms, &user_time, planned.apply(&ctx)).await;
        if tool.kind() == ToolKind::Write {
            // What the write left, whatever its outcome (a failed write changed nothing; one
            // cut short may have changed part): undo compares it with later changes.
            for u in uses.iter().filter(|u| u.access == Access::Write) {
                if let Err(e) = self.checkpoints.record_created(&u.path).await {
                    self.env.host.emit(&AgentEvent::Warning {
                        message: format!("undo may not tell later changes from this one under {}: {e}", u.path),
                    });
                }
            }
        }
        let output = match executed {
            Err(staged) => return staged,
            Ok(Err(e)) => return refused_by_tool(e),
            Ok(Ok(output)) => output,
        };

        if tool.kind() == ToolKind::Write {
            for u in uses.iter().filter(|u| u.access == Access::Write) {
                // Later searches in this task (and the user's) see what the write changed.
                if let Err(e) = self.env.search.refresh(&*self.env.vault, &u.path).await {
                    self.env.host.emit(&AgentEvent::Warning {
                        message: format!("the search index could not follow the change to {}: {e}", u.path),
                    });
                }
            }
        }

        let result_chars = output.content.chars().count();
        let summary = output.summary.clone();
        let items = output.items.clone();
        let mut externalized = None;
        let content = if let Some(limit) = self.digest_chars.get() {
            digest(output.content, tool.name(), limit)
        } else if tool.externalizable() {
            match self.externalizer.externalize(tool.name(), index, &output).await {
                Ok(Some(ext)) => {
                    self.env.host.emit(&AgentEvent::Externalized {
                        call_id: call.id.clone(),
                        path: ext.path.to_string(),
                        chars: result_chars,
                    });
                    externalized = Some(ext.path.to_string());
                    ext.reference
                }
                Ok(None) => output.content,
                Err(e) => {
                    // The history is better served by a cut result than by none.
                    self.env.host.emit(&AgentEvent::Warning { message: format!("could not save a large result: {e}") });
                    let cut: String = output.content.chars().take(self.settings.externalize_threshold * 4).collect();
                    format!("{cut}\n[result cut at {} characters]", cut.chars().count())
                }
            }
        } else {
            output.content
        };
        Staged {
            status: CallStatus::Ok,
            content,
            control: output.control,
            result_chars,
            externalized,
            approval,
            summary,
            items,
            media: output.media,
        }
    }
}

/// `content` cut to `limit` characters, saying so.
fn digest(content: String, tool: &str, limit: usize) -> String {
    let chars = content.chars().count();
    if chars <= limit {
        return content;
    }
    let cut: String = content.chars().take(limit).collect();
    format!(
        "{cut}\n[… {tool}'s result cut at {limit} of {chars} characters for the fast path; call it again for the rest]"
    )
}

/// Whether a tool of `category` hands the model words the user did not write this turn:
/// notes, web pages, MCP results.
fn reads_others_words(category: ApprovalCategory) -> bool {
    matches!(category, ApprovalCategory::Read | ApprovalCategory::Mcp | ApprovalCategory::Web)
}

/// A call the tool refused: the model is told why; a fatal error ends the task.
fn refused_by_tool(error: ToolError) -> Staged {
    match error {
        ToolError::RespondToModel(m) => Staged::refused(CallStatus::Failed, m),
        ToolError::Fatal(m) => Staged::refused(CallStatus::Fatal(m.clone()), m),
    }
}

/// How much of what the model was told a tool card's details show.
const RESULT_SHOWN_CHARS: usize = 4000;

/// `text` cut at `max` characters, saying so.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}\n[… {} more characters]", &text[..at], text[at..].chars().count()),
        None => text.to_string(),
    }
}

/// A call's outcome from what its stages gave.
fn outcome(call: &ToolCall, index: u32, staged: Staged, duration_ms: u64) -> CallOutcome {
    let is_error = staged.is_error();
    CallOutcome {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        report: ToolCallReport {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            index,
            latency_ms: duration_ms,
            result_chars: staged.result_chars,
            error: is_error.then(|| staged.content.clone()),
            outcome: staged.outcome(),
            externalized: staged.externalized,
            label: None,
            subtask: None,
        },
        content: staged.content,
        media: staged.media,
        is_error,
        status: staged.status,
        control: staged.control,
    }
}

/// `fut`'s value, or `None` if `ms` pass first (`ms == 0`: no limit), not counting the time
/// `user_time` says the call waited for the user.
async fn timeout<T>(clock: &dyn Clock, ms: u64, user_time: &UserTime, fut: impl Future<Output = T>) -> Option<T> {
    if ms == 0 {
        return Some(fut.await);
    }
    let start = clock.now_ms();
    futures::pin_mut!(fut);
    loop {
        let now = clock.now_ms();
        // While the user is being asked the deadline moves with the clock: what is left of the
        // limit is what was left when the asking began.
        let left = (start + ms + user_time.spent_ms(now)).saturating_sub(now);
        if left == 0 && !user_time.waiting() {
            // Done by now, though its wake-up lost the race with the timer's: still in time.
            return futures::FutureExt::now_or_never(fut.as_mut());
        }
        match select(fut.as_mut(), clock.sleep(left.max(1))).await {
            Either::Left((value, _)) => return Some(value),
            Either::Right(_) => {}
        }
    }
}

/// One line for the approval view, in words: what the call would do, and to which notes (or
/// URL, or server).
fn summarize(tool: &str, input: &Value) -> String {
    let field = |name: &str| input.get(name).and_then(Value::as_str).unwrap_or("?");
    if let Some((server, remote)) = crate::mcp::split_tool_name(tool) {
        return format!("Call {remote} on the MCP server {server}: the arguments below leave the vault");
    }
    let path = field("path");
    match tool {
        "write_file" => format!("Write {path}"),
        "edit_file" => format!("Edit {path}"),
        "append_to_file" => format!("Add to the end of {path}"),
        "update_frontmatter" => format!("Change the properties of {path}"),
        "move_file" => format!("Move {path} to {}", field("new_path")),
        "delete_file" => format!("Move {path} to the trash"),
        "create_folder" => format!("Create the folder {path}"),
        "web_fetch" => format!("Fetch {}", field("url")),
        "web_search" => format!("Search the web for ‘{}’: the query leaves the vault", field("query")),
        "remember" => format!("Remember, as a {}: {}", field("kind"), field("text")),
        _ if input.get("path").is_some() => format!("{tool} {path}"),
        _ => tool.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use futures::executor::block_on;

    use super::*;
    use crate::host::ManualClock;

    /// Ready once `clock` shows `at`; wakes itself until then (the manual clock moves only
    /// when the time limit sleeps).
    struct Until<'a> {
        clock: &'a ManualClock,
        at: u64,
    }

    impl Future for Until<'_> {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.clock.now_ms() >= self.at {
                return Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn the_time_limit_does_not_count_the_time_the_user_takes_to_answer() {
        // The user answers after 20 s, then the tool works 3 s: within a 5 s limit.
        let clock = ManualClock::new(0);
        let user = UserTime::default();
        let call = async {
            user.during(&clock, Until { clock: &clock, at: 20_000 }).await;
            Until { clock: &clock, at: clock.now_ms() + 3_000 }.await;
            "done"
        };
        assert_eq!(block_on(timeout(&clock, 5_000, &user, call)), Some("done"));
        assert!(user.spent_ms(clock.now_ms()) >= 20_000 && !user.waiting());

        // The same answer, then 6 s of the tool's own: over the limit.
        let clock = ManualClock::new(0);
        let user = UserTime::default();
        let call = async {
            user.during(&clock, Until { clock: &clock, at: 20_000 }).await;
            Until { clock: &clock, at: clock.now_ms() + 6_000 }.await;
        };
        assert_eq!(block_on(timeout(&clock, 5_000, &user, call)), None);
        // Without the user, 6 s of work is over the limit too.
        let clock = ManualClock::new(0);
        let call = Until { clock: &clock, at: 6_000 };
        assert_eq!(block_on(timeout(&clock, 5_000, &UserTime::default(), call)), None);
    }
}
