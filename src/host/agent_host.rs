//! The user, as the host presents them to a running task: it sees the events and answers
//! approvals and questions.

use std::cell::RefCell;
use std::collections::HashMap;

use async_trait::async_trait;
use futures::channel::oneshot;

use crate::guard::Secrets;
use crate::protocol::{AgentEvent, ApprovalDecision, ApprovalRequest, FormAction, FormAnswer, FormRequest, Question};

/// Receives a task's events and answers for the user. Every method has a safe default: with
/// no answer, a call is denied, a question goes unanswered and a form is cancelled.
#[async_trait(?Send)]
pub trait AgentHost {
    /// Called for every event, in order. `ApprovalRequired`, `QuestionAsked` and
    /// `FormRequested` are emitted before the matching [`AgentHost::approve`] /
    /// [`AgentHost::ask`] / [`AgentHost::fill`] call.
    fn emit(&self, event: &AgentEvent);

    /// Decides whether a tool call may run. The default denies.
    async fn approve(&self, _request: &ApprovalRequest) -> ApprovalDecision {
        ApprovalDecision::Deny
    }

    /// Asks the user a question; `None` when nobody can answer.
    async fn ask(&self, _question: &Question) -> Option<String> {
        None
    }

    /// Has the user fill in an MCP server's form; an accepted answer's content is what
    /// [`crate::guard::Secrets::checked_answer`] gave back. Cancelled when nobody can answer.
    async fn fill(&self, _form: &FormRequest) -> FormAnswer {
        FormAnswer::cancel()
    }

    /// Why the user denied the request `request_id`, when they said. A denial with a reason
    /// goes back to the model, and the task goes on; one without stops the task. Asked once,
    /// after [`AgentHost::approve`] answered `Deny`.
    fn denial_reason(&self, _request_id: &str) -> Option<String> {
        None
    }

    /// The changes (the preview's hunks, from 0) the user kept when they approved
    /// `request_id` with some turned down; `None`: all of them. Asked once, after
    /// [`AgentHost::approve`] answered `Approve`.
    fn accepted_hunks(&self, _request_id: &str) -> Option<Vec<usize>> {
        None
    }
}

/// A host that drops every event and denies every approval.
#[derive(Debug, Default, Clone, Copy)]
pub struct SilentHost;

impl AgentHost for SilentHost {
    fn emit(&self, _event: &AgentEvent) {}
}

/// A host whose answers come later, from outside the task: the plugin's UI, through
/// [`ChannelHost::respond`] and [`ChannelHost::answer`].
///
/// The pending answer is registered when the `ApprovalRequired` / `QuestionAsked` event is
/// emitted, before the listener sees it, so a listener that answers at once is never lost.
pub struct ChannelHost {
    listener: Box<dyn Fn(&AgentEvent)>,
    approvals: RefCell<Pending<ApprovalDecision>>,
    questions: RefCell<Pending<Option<String>>>,
    forms: RefCell<Pending<FormAnswer>>,
    /// The forms waiting for an answer, to check the answer against.
    open_forms: RefCell<HashMap<String, FormRequest>>,
    /// Reasons given with denials, by request id, until the task asks for them.
    reasons: RefCell<HashMap<String, String>>,
    /// The hunks kept by approvals that turned some down, by request id.
    hunks: RefCell<HashMap<String, Vec<usize>>>,
}

struct Pending<T> {
    senders: HashMap<String, oneshot::Sender<T>>,
    receivers: HashMap<String, oneshot::Receiver<T>>,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Pending { senders: HashMap::new(), receivers: HashMap::new() }
    }
}

impl<T> Pending<T> {
    fn open(&mut self, id: &str) {
        let (tx, rx) = oneshot::channel();
        self.senders.insert(id.to_string(), tx);
        self.receivers.insert(id.to_string(), rx);
    }

    fn send(&mut self, id: &str, value: T) -> bool {
        match self.senders.remove(id) {
            Some(tx) => tx.send(value).is_ok(),
            None => false,
        }
    }
}

impl ChannelHost {
    /// A host that passes every event to `listener`.
    pub fn new(listener: impl Fn(&AgentEvent) + 'static) -> Self {
        ChannelHost {
            listener: Box::new(listener),
            approvals: RefCell::new(Pending::default()),
            questions: RefCell::new(Pending::default()),
            forms: RefCell::new(Pending::default()),
            open_forms: RefCell::new(HashMap::new()),
            reasons: RefCell::new(HashMap::new()),
            hunks: RefCell::new(HashMap::new()),
        }
    }

    /// Approves the request `id` with only the changes `hunks` (the preview's hunks, from 0);
    /// the others are turned down. Returns false if no such request is waiting.
    pub fn approve_hunks(&self, id: &str, hunks: Vec<usize>) -> bool {
        self.hunks.borrow_mut().insert(id.to_string(), hunks);
        let sent = self.respond(id, ApprovalDecision::Approve);
        if !sent {
            self.hunks.borrow_mut().remove(id);
        }
        sent
    }

    /// Answers the approval request `id`. Returns false if no such request is waiting.
    pub fn respond(&self, id: &str, decision: ApprovalDecision) -> bool {
        self.approvals.borrow_mut().send(id, decision)
    }

    /// Denies the approval request `id`, telling the model `reason` (a blank reason is a plain
    /// denial). Returns false if no such request is waiting.
    pub fn deny_with_reason(&self, id: &str, reason: &str) -> bool {
        let reason = reason.trim();
        if !reason.is_empty() {
            self.reasons.borrow_mut().insert(id.to_string(), reason.to_string());
        }
        let sent = self.respond(id, ApprovalDecision::Deny);
        if !sent {
            self.reasons.borrow_mut().remove(id);
        }
        sent
    }

    /// Answers the question `id` (`None`: the user declined). Returns false if no such
    /// question is waiting.
    pub fn answer(&self, id: &str, answer: Option<String>) -> bool {
        self.questions.borrow_mut().send(id, answer)
    }

    /// Answers the form `id`. An accepted answer is checked against the form first: if it does
    /// not fit, the error says why, in the user's words, and the form still waits. Returns
    /// false if no such form is waiting.
    pub fn answer_form(&self, id: &str, answer: FormAnswer) -> Result<bool, String> {
        let answer = match answer.action {
            FormAction::Accept => {
                let forms = self.open_forms.borrow();
                let Some(form) = forms.get(id) else { return Ok(false) };
                let content = Secrets::checked_answer(form, &answer.content.unwrap_or_default())?;
                FormAnswer { action: FormAction::Accept, content: Some(content) }
            }
            action => FormAnswer { action, content: None },
        };
        self.open_forms.borrow_mut().remove(id);
        Ok(self.forms.borrow_mut().send(id, answer))
    }

    /// Denies every waiting approval, declines every waiting question and cancels every
    /// waiting form (the task is going away, e.g. the view was closed).
    pub fn dismiss_all(&self) {
        let approvals: Vec<_> = self.approvals.borrow_mut().senders.drain().collect();
        for (_, tx) in approvals {
            let _ = tx.send(ApprovalDecision::Deny);
        }
        let questions: Vec<_> = self.questions.borrow_mut().senders.drain().collect();
        for (_, tx) in questions {
            let _ = tx.send(None);
        }
        self.open_forms.borrow_mut().clear();
        let forms: Vec<_> = self.forms.borrow_mut().senders.drain().collect();
        for (_, tx) in forms {
            let _ = tx.send(FormAnswer::cancel());
        }
    }
}

#[async_trait(?Send)]
impl AgentHost for ChannelHost {
    fn emit(&self, event: &AgentEvent) {
        match event {
            AgentEvent::ApprovalRequired { request } => self.approvals.borrow_mut().open(&request.id),
            AgentEvent::QuestionAsked { question } => self.questions.borrow_mut().open(&question.id),
            AgentEvent::FormRequested { form } => {
                self.forms.borrow_mut().open(&form.id);
                self.open_forms.borrow_mut().insert(form.id.clone(), form.clone());
            }
            _ => {}
        }
        (self.listener)(event);
    }

    fn denial_reason(&self, request_id: &str) -> Option<String> {
        self.reasons.borrow_mut().remove(request_id)
    }

    fn accepted_hunks(&self, request_id: &str) -> Option<Vec<usize>> {
        self.hunks.borrow_mut().remove(request_id)
    }

    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        let receiver = self.approvals.borrow_mut().receivers.remove(&request.id);
        match receiver {
            // A dropped sender means nobody will answer: deny.
            Some(rx) => rx.await.unwrap_or(ApprovalDecision::Deny),
            None => ApprovalDecision::Deny,
        }
    }

    async fn ask(&self, question: &Question) -> Option<String> {
        let receiver = self.questions.borrow_mut().receivers.remove(&question.id);
        match receiver {
            Some(rx) => rx.await.unwrap_or(None),
            None => None,
        }
    }

    async fn fill(&self, form: &FormRequest) -> FormAnswer {
        let receiver = self.forms.borrow_mut().receivers.remove(&form.id);
        match receiver {
            Some(rx) => rx.await.unwrap_or_else(|_| FormAnswer::cancel()),
            None => FormAnswer::cancel(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::protocol::ApprovalCategory;

    fn request(id: &str) -> ApprovalRequest {
        ApprovalRequest {
            id: id.into(),
            call_id: "c".into(),
            tool: "write_file".into(),
            category: ApprovalCategory::Write,
            summary: "write_file a.md".into(),
            input: serde_json::Value::Null,
            preview: None,
            subtask: None,
        }
    }

    #[test]
    fn an_answer_given_inside_the_listener_is_not_lost() {
        let host: Rc<RefCell<Option<Rc<ChannelHost>>>> = Rc::new(RefCell::new(None));
        let slot = host.clone();
        let channel = Rc::new(ChannelHost::new(move |event| {
            if let AgentEvent::ApprovalRequired { request } = event {
                let host = slot.borrow().clone().unwrap();
                assert!(host.respond(&request.id, ApprovalDecision::Skip));
            }
        }));
        *host.borrow_mut() = Some(channel.clone());
        let req = request("a1");
        channel.emit(&AgentEvent::ApprovalRequired { request: req.clone() });
        let decision = futures::executor::block_on(channel.approve(&req));
        assert_eq!(decision, ApprovalDecision::Skip);
        *host.borrow_mut() = None;
    }

    #[test]
    fn unknown_or_dismissed_requests_are_denied() {
        let channel = ChannelHost::new(|_| {});
        assert!(!channel.respond("nope", ApprovalDecision::Approve));
        let req = request("a2");
        assert_eq!(futures::executor::block_on(channel.approve(&req)), ApprovalDecision::Deny);
        channel.emit(&AgentEvent::ApprovalRequired { request: req.clone() });
        channel.dismiss_all();
        assert_eq!(futures::executor::block_on(channel.approve(&req)), ApprovalDecision::Deny);
    }

    #[test]
    fn questions_are_answered_by_id() {
        let channel = ChannelHost::new(|_| {});
        let q = Question { id: "q1".into(), question: "Which folder?".into(), suggestions: vec![], subtask: None };
        channel.emit(&AgentEvent::QuestionAsked { question: q.clone() });
        assert!(channel.answer("q1", Some("Projects".into())));
        assert_eq!(futures::executor::block_on(channel.ask(&q)), Some("Projects".into()));
    }

    #[test]
    fn a_form_waits_until_its_answer_fits_it() {
        use crate::protocol::{FieldInput, FormField, TextFormat};
        let channel = ChannelHost::new(|_| {});
        let form = FormRequest {
            id: "f1".into(),
            server: "tickets".into(),
            message: "Your email?".into(),
            fields: vec![FormField {
                name: "email".into(),
                label: "Email".into(),
                description: String::new(),
                required: true,
                input: FieldInput::Text {
                    format: TextFormat::Email,
                    min_length: None,
                    max_length: None,
                    default: None,
                },
            }],
            page: None,
            subtask: None,
        };
        assert_eq!(channel.answer_form("f1", FormAnswer::cancel()), Ok(false));
        channel.emit(&AgentEvent::FormRequested { form: form.clone() });
        let accept = |email: &str| FormAnswer {
            action: FormAction::Accept,
            content: Some(serde_json::json!({ "email": email }).as_object().unwrap().clone()),
        };
        assert_eq!(channel.answer_form("f1", accept("nope")), Err("Email: expected an email address.".into()));
        // A form is no way for a server to get the user's keys.
        let key = "sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAA@example.org";
        assert_eq!(
            channel.answer_form("f1", accept(key)),
            Err("Email: this looks like a secret (sk-ant-…). Vault Agent does not send keys or tokens to an MCP server."
                .into())
        );
        assert_eq!(channel.answer_form("f1", accept("ada@example.org")), Ok(true));
        assert_eq!(futures::executor::block_on(AgentHost::fill(&channel, &form)), accept("ada@example.org"));

        // A dismissed form is cancelled.
        channel.emit(&AgentEvent::FormRequested { form: form.clone() });
        channel.dismiss_all();
        assert_eq!(futures::executor::block_on(AgentHost::fill(&channel, &form)), FormAnswer::cancel());
    }
}
