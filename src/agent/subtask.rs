//! Sub-tasks: a task hands part of its work to a child task (`new_task`).
//!
//! A child is an [`AgentTask`] of its own — a fresh history holding only the message it was
//! given, its own mode, `depth + 1`, no condensing and no power steering — that shares the
//! parent's vault, index, provider, clock and checkpoint (so one undo of the parent reverts
//! what its children wrote). Its events reach the parent's host wrapped in
//! [`AgentEvent::Subtask`]; its approvals and questions reach it as the parent's own, their ids
//! prefixed with the child's id and their `subtask` field saying who asks. Its token is a child
//! of the parent's, so cancelling the parent cancels it. Its final answer is the call's
//! result, and its usage and report go back to the parent's loop, which adds them to its own
//! ([`Subtasks::take`]).

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use async_trait::async_trait;

use super::task::{AgentTask, TaskSetup};
use super::{AgentConfig, Mode};
use crate::guard::{Canary, DataMarkers, Guardrails};
use crate::host::AgentHost;
use crate::pipeline::{ApprovalPolicy, CheckpointStore};
use crate::protocol::{
    AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest, EndReason, FormAnswer, FormRequest, Question,
    RunReport, SubtaskInfo, Usage,
};
use crate::tools::{subtask_title, Delegate, ToolContext, ToolError, ToolOutput};

/// What the parent's loop gets back from one sub-task.
#[derive(Debug, Clone, Default)]
pub(super) struct Delegation {
    /// The index of the `new_task` call that started it.
    pub index: u32,
    /// Its usage: the report's once it ended, else what it had reported by its last step
    /// (a child dropped mid-way, as a cancel can do, still counts what it used).
    pub usage: Usage,
    pub report: Option<RunReport>,
}

/// What a sub-task shares with its parent: the checkpoint its writes go to (one undo reverts
/// both), and the guard — guardrails with their counters (a write-rate limit counts the
/// children's writes too), the canary and the data markers — for which the user's task is one
/// task, whatever it delegates.
#[derive(Clone)]
pub(super) struct Shared {
    pub checkpoints: Rc<CheckpointStore>,
    pub guard: (Guardrails, Option<Canary>, Option<DataMarkers>),
}

/// The parent task's side of its sub-tasks: what a child is made from, and the children
/// that ran since the loop last looked.
pub(super) struct Subtasks {
    /// The parent's setup: its config (a child's is derived from it), provider, vault, clock,
    /// host, token, tools (without its own `new_task` and `switch_mode`: each task makes its
    /// own), modes, vault info and index; no history, no hook.
    parent: TaskSetup,
    shared: Shared,
    /// The parent's mode and its automatic approval categories, as they stand at each turn.
    state: RefCell<(Mode, Vec<ApprovalCategory>)>,
    delegations: RefCell<Vec<Rc<RefCell<Delegation>>>>,
    /// What the parent's MCP servers say about their tools, which a child is offered too.
    server_notes: RefCell<Vec<(String, String)>>,
}

impl Subtasks {
    /// Sub-tasks of the task set up as `parent`, in `mode`, sharing `shared` with it.
    pub(super) fn new(parent: TaskSetup, shared: Shared, mode: Mode) -> Self {
        let auto = parent.config.auto_approve.clone();
        Subtasks {
            parent,
            shared,
            state: RefCell::new((mode, auto)),
            delegations: RefCell::new(Vec::new()),
            server_notes: RefCell::new(Vec::new()),
        }
    }

    /// Tells the sub-tasks started from now on what the parent's MCP servers say.
    pub(super) fn set_server_notes(&self, notes: Vec<(String, String)>) {
        *self.server_notes.borrow_mut() = notes;
    }

    /// Tells the sub-tasks started from now on the parent's mode and approval policy (with its
    /// "always allow" answers).
    pub(super) fn sync(&self, mode: &Mode, policy: &ApprovalPolicy) {
        *self.state.borrow_mut() = (mode.clone(), policy.automatic().collect());
    }

    /// The sub-tasks that ran (or were stopped) since the last call, in the order they started.
    pub(super) fn take(&self) -> Vec<Delegation> {
        self.delegations.borrow_mut().drain(..).map(|d| d.borrow().clone()).collect()
    }
}

#[async_trait(?Send)]
impl Delegate for Subtasks {
    async fn delegate(&self, slug: &str, message: &str, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let (parent_mode, auto_approve) = self.state.borrow().clone();
        let mode = Mode::find(slug, &self.parent.modes)
            .ok_or_else(|| ToolError::model(format!("there is no mode {slug:?}")))?;
        // A child may not do what its parent may not: switching modes is approved by the user,
        // delegating is not.
        if let Some(group) = mode.groups.iter().find(|g| !parent_mode.groups.contains(g)) {
            return Err(ToolError::model(format!(
                "a sub-task in {} mode could use {} tools, which this task in {} mode may not; pick a mode with no \
                 more tools than this one",
                mode.slug,
                serde_json::to_value(group).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                parent_mode.slug
            )));
        }
        if message.trim().is_empty() {
            return Err(ToolError::model("the sub-task's message is empty: say what it should do"));
        }
        let depth = self.parent.config.depth + 1;
        let info = SubtaskInfo {
            task_id: format!("{}.{}", ctx.task_id, ctx.call_index),
            mode: mode.slug.clone(),
            depth,
            title: subtask_title(message),
        };
        let record = Rc::new(RefCell::new(Delegation { index: ctx.call_index, ..Delegation::default() }));
        self.delegations.borrow_mut().push(record.clone());
        let config = AgentConfig {
            depth,
            mode: mode.slug.clone(),
            condensing_enabled: false,
            power_steering_frequency: 0,
            memory_flush: false,
            // The parent's deadline covers its children: it cancels the parent's token.
            deadline_ms: 0,
            auto_approve,
            ..self.parent.config.clone()
        };
        let setup = TaskSetup {
            config,
            host: Rc::new(SubtaskHost::new(self.parent.host.clone(), ctx.call_id, info.clone(), record)),
            cancel: self.parent.cancel.child(),
            task_id: Some(info.task_id.clone()),
            ..self.parent.clone()
        };
        let mut child = AgentTask::child(setup, self.shared.clone())
            .await
            .map_err(|e| ToolError::model(format!("the sub-task could not start: {e}")))?;
        child.set_server_notes(self.server_notes.borrow().clone());
        let report = child.run(message).await;
        answer(&info, &report)
    }
}

/// The call's result from the child's report: its answer, or why it has none.
fn answer(info: &SubtaskInfo, report: &RunReport) -> Result<ToolOutput, ToolError> {
    let text = report.final_text.as_deref().map(str::trim).filter(|t| !t.is_empty());
    match (&report.end, text) {
        (end, Some(text)) if end.is_success() => Ok(ToolOutput::text(text)
            .with_summary(format!("Sub-task {} ({} mode) finished: {}", info.task_id, info.mode, info.title))),
        (end, text) => {
            let mut message = format!("The sub-task {} did not finish: {}", info.task_id, end.describe());
            if let Some(text) = text {
                message.push_str(&format!("\nWhat it answered before it stopped:\n{text}"));
            }
            Err(ToolError::model(message))
        }
    }
}

/// The parent's host as a child sees it: the child's events go up wrapped in
/// [`AgentEvent::Subtask`], its approvals and questions as the parent's own, named for the
/// child; what the child used is recorded for the parent's loop.
struct SubtaskHost {
    parent: Rc<dyn AgentHost>,
    call_id: String,
    info: SubtaskInfo,
    record: Rc<RefCell<Delegation>>,
    /// The ids of this child's own approvals, questions and forms, as it names them (the parent sees
    /// them prefixed with the child's id); a deeper child's arrive named already.
    own: RefCell<HashSet<String>>,
}

impl SubtaskHost {
    fn new(parent: Rc<dyn AgentHost>, call_id: &str, info: SubtaskInfo, record: Rc<RefCell<Delegation>>) -> Self {
        SubtaskHost { parent, call_id: call_id.to_string(), info, record, own: RefCell::new(HashSet::new()) }
    }

    /// The id the parent knows the request `id` by.
    fn outer(&self, id: &str) -> String {
        if self.own.borrow().contains(id) {
            format!("{}/{id}", self.info.task_id)
        } else {
            id.to_string()
        }
    }

    /// `subtask` unset: the request is this child's own (a deeper child's is named already).
    fn claim(&self, id: &str, subtask: &Option<SubtaskInfo>) -> Option<(String, Option<SubtaskInfo>)> {
        if subtask.is_some() {
            return None;
        }
        self.own.borrow_mut().insert(id.to_string());
        Some((self.outer(id), Some(self.info.clone())))
    }

    fn request(&self, request: &ApprovalRequest) -> ApprovalRequest {
        let mut request = request.clone();
        if let Some((id, subtask)) = self.claim(&request.id, &request.subtask) {
            (request.id, request.subtask) = (id, subtask);
        }
        request
    }

    fn form(&self, form: &FormRequest) -> FormRequest {
        let mut form = form.clone();
        if let Some((id, subtask)) = self.claim(&form.id, &form.subtask) {
            (form.id, form.subtask) = (id, subtask);
        }
        form
    }

    fn question(&self, question: &Question) -> Question {
        let mut question = question.clone();
        if let Some((id, subtask)) = self.claim(&question.id, &question.subtask) {
            (question.id, question.subtask) = (id, subtask);
        }
        question
    }
}

#[async_trait(?Send)]
impl AgentHost for SubtaskHost {
    fn emit(&self, event: &AgentEvent) {
        match event {
            AgentEvent::ApprovalRequired { request } => {
                self.parent.emit(&AgentEvent::ApprovalRequired { request: self.request(request) })
            }
            AgentEvent::ApprovalResolved { request_id, decision } => self
                .parent
                .emit(&AgentEvent::ApprovalResolved { request_id: self.outer(request_id), decision: *decision }),
            AgentEvent::QuestionAsked { question } => {
                self.parent.emit(&AgentEvent::QuestionAsked { question: self.question(question) })
            }
            AgentEvent::FormRequested { form } => {
                self.parent.emit(&AgentEvent::FormRequested { form: self.form(form) })
            }
            other => {
                match other {
                    AgentEvent::StepFinished { total, .. } => self.record.borrow_mut().usage = *total,
                    AgentEvent::Done { report } => {
                        let mut record = self.record.borrow_mut();
                        record.usage = report.usage;
                        record.report = Some(report.clone());
                    }
                    _ => {}
                }
                self.parent.emit(&AgentEvent::Subtask {
                    call_id: self.call_id.clone(),
                    task_id: self.info.task_id.clone(),
                    event: Box::new(other.clone()),
                });
            }
        }
    }

    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.parent.approve(&self.request(request)).await
    }

    async fn ask(&self, question: &Question) -> Option<String> {
        self.parent.ask(&self.question(question)).await
    }

    async fn fill(&self, form: &FormRequest) -> FormAnswer {
        self.parent.fill(&self.form(form)).await
    }

    fn denial_reason(&self, request_id: &str) -> Option<String> {
        self.parent.denial_reason(&self.outer(request_id))
    }

    fn accepted_hunks(&self, request_id: &str) -> Option<Vec<usize>> {
        self.parent.accepted_hunks(&self.outer(request_id))
    }
}

/// Whether a sub-task stopped because the user denied one of its calls: the parent stops too,
/// as it would for its own call.
pub(super) fn stops_parent(delegation: &Delegation) -> Option<EndReason> {
    match delegation.report.as_ref().map(|r| &r.end) {
        Some(EndReason::Denied) => Some(EndReason::Denied),
        // A sub-task steered by what it read is the whole task's problem: the parent does not
        // carry on as if the child had merely failed.
        Some(EndReason::Guardrail { message }) => {
            Some(EndReason::Guardrail { message: format!("in a sub-task, {message}") })
        }
        _ => None,
    }
}
