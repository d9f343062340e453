//! A conversation: the user's messages one after another, each run as its own task over the
//! history so far.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::{AgentConfig, AgentTask, CondenseHook, MemoryFlush, Mode, TaskSetup};
use crate::cancel::CancelToken;
use crate::host::{AgentHost, Clock};
use crate::prompt::VaultInfo;
use crate::protocol::{Message, RunReport};
use crate::provider::ModelProvider;
use crate::search::SharedIndex;
use crate::tools::ToolRegistry;
use crate::vault::Vault;
use crate::{Error, Result};

/// A chat with the agent. Every [`Conversation::send`] is a task of its own (its own id,
/// checkpoint and undo) that starts from the history of the earlier ones; "always allow"
/// answers carry over from one to the next. Only one task runs at a time.
pub struct Conversation {
    config: RefCell<AgentConfig>,
    provider: Rc<dyn ModelProvider>,
    vault: Rc<dyn Vault>,
    clock: Rc<dyn Clock>,
    host: Rc<dyn AgentHost>,
    tools: Option<ToolRegistry>,
    modes: Vec<Mode>,
    search: Option<SharedIndex>,
    vault_info: RefCell<VaultInfo>,
    history: RefCell<Vec<Message>>,
    cancel: RefCell<CancelToken>,
    running: Cell<bool>,
}

impl Conversation {
    /// An empty conversation. `tools` and `mode` default as in [`TaskSetup`].
    pub fn new(
        config: AgentConfig,
        provider: Rc<dyn ModelProvider>,
        vault: Rc<dyn Vault>,
        clock: Rc<dyn Clock>,
        host: Rc<dyn AgentHost>,
    ) -> Self {
        Conversation {
            config: RefCell::new(config),
            provider,
            vault,
            clock,
            host,
            tools: None,
            modes: Vec::new(),
            search: None,
            vault_info: RefCell::new(VaultInfo::default()),
            history: RefCell::new(Vec::new()),
            cancel: RefCell::new(CancelToken::new()),
            running: Cell::new(false),
        }
    }

    /// Offers `tools` instead of the built-in ones.
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = Some(tools);
        self
    }

    /// The user's own modes, beside the built-in ones (`config.mode` may name one).
    pub fn with_modes(mut self, modes: Vec<Mode>) -> Self {
        self.modes = modes;
        self
    }

    /// Lets the search tools use the vault's full-text index.
    pub fn with_search(mut self, search: SharedIndex) -> Self {
        self.search = Some(search);
        self
    }

    /// Continues an earlier conversation (restored from the host's chat history).
    pub fn with_history(self, history: Vec<Message>) -> Self {
        *self.history.borrow_mut() = history;
        self
    }

    /// What the next task's prompt says about the vault (its name, the active note).
    pub fn set_vault_info(&self, info: VaultInfo) {
        *self.vault_info.borrow_mut() = info;
    }

    /// The conversation so far.
    pub fn history(&self) -> Vec<Message> {
        self.history.borrow().clone()
    }

    /// Whether a task is running.
    pub fn is_running(&self) -> bool {
        self.running.get()
    }

    /// Cancels the running task, if any.
    pub fn cancel(&self) {
        self.cancel.borrow().cancel();
    }

    /// Runs `message` as a new task and returns its report. An error means the task could not
    /// start (a task is already running, an unknown mode, an unreadable rules file); what goes
    /// wrong once it runs is in the report.
    pub async fn send(&self, message: &str) -> Result<RunReport> {
        if self.running.replace(true) {
            return Err(Error::Invalid("a task is already running in this conversation".into()));
        }
        let result = self.run(message).await;
        self.running.set(false);
        result
    }

    async fn run(&self, message: &str) -> Result<RunReport> {
        let cancel = CancelToken::new();
        *self.cancel.borrow_mut() = cancel.clone();
        let config = self.config.borrow().clone();
        let setup = TaskSetup {
            config: config.clone(),
            provider: self.provider.clone(),
            vault: self.vault.clone(),
            clock: self.clock.clone(),
            host: self.host.clone(),
            cancel,
            tools: self.tools.clone(),
            modes: self.modes.clone(),
            condense_hook: config.memory_flush.then(|| Rc::new(MemoryFlush) as Rc<dyn CondenseHook>),
            vault_info: self.vault_info.borrow().clone(),
            search: self.search.clone(),
            history: self.history.borrow().clone(),
            task_id: None,
        };
        let mut task = AgentTask::new(setup).await?;
        let report = task.run(message).await;
        *self.history.borrow_mut() = task.history().to_vec();
        self.config.borrow_mut().auto_approve = task.policy().automatic().collect();
        Ok(report)
    }
}
