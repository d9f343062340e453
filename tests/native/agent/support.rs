//! What the agent tests share: a host that records events and answers by rule, a vault that
//! yields to the executor on every call (so concurrency shows), and task builders.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use async_trait::async_trait;
use vault_agent::agent::{AgentConfig, AgentTask, CondenseHook, EndHook, Mode, TaskSetup};
use vault_agent::cancel::CancelToken;
use vault_agent::host::{AgentHost, HttpClient, ManualClock};
use vault_agent::index::SharedIndex;
use vault_agent::prompt::VaultInfo;
use vault_agent::protocol::{AgentEvent, ApprovalDecision, ApprovalRequest, ErrorKind, ModelRequest, Question};
use vault_agent::provider::{ModelProvider, ScriptedProvider, Turn};
use vault_agent::vault::{walk_files, Listing, MemoryVault, Stat, Vault, VaultPath};

pub fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

type Decide = Box<dyn Fn(&ApprovalRequest) -> ApprovalDecision>;
type Listener = Box<dyn Fn(&AgentEvent)>;

/// Records every event; answers approvals with `decide` (default: approve) and questions from
/// a queue; runs `listener` on each event (to cancel, or edit the vault mid-task).
pub struct TestHost {
    pub events: RefCell<Vec<AgentEvent>>,
    decide: RefCell<Decide>,
    answers: RefCell<VecDeque<Option<String>>>,
    listener: RefCell<Option<Listener>>,
    /// The reason given with the next denial.
    reason: RefCell<Option<String>>,
    /// The hunks the next approval keeps (`None`: all).
    hunks: RefCell<Option<Vec<usize>>>,
}

impl TestHost {
    pub fn new() -> Rc<Self> {
        Rc::new(TestHost {
            events: RefCell::new(Vec::new()),
            decide: RefCell::new(Box::new(|_| ApprovalDecision::Approve)),
            answers: RefCell::new(VecDeque::new()),
            listener: RefCell::new(None),
            reason: RefCell::new(None),
            hunks: RefCell::new(None),
        })
    }

    /// The next approval keeps only the changes `hunks` of its preview.
    pub fn keeping_hunks(&self, hunks: &[usize]) {
        *self.hunks.borrow_mut() = Some(hunks.to_vec());
    }

    pub fn deciding(&self, decide: impl Fn(&ApprovalRequest) -> ApprovalDecision + 'static) {
        *self.decide.borrow_mut() = Box::new(decide);
    }

    /// Denies the first approval and says why; approves the later ones.
    pub fn denying_first_because(&self, reason: &str) {
        let asked = std::cell::Cell::new(false);
        self.deciding(move |_| if asked.replace(true) { ApprovalDecision::Approve } else { ApprovalDecision::Deny });
        *self.reason.borrow_mut() = Some(reason.to_string());
    }

    pub fn answering(&self, answer: Option<&str>) {
        self.answers.borrow_mut().push_back(answer.map(str::to_string));
    }

    pub fn on_event(&self, listener: impl Fn(&AgentEvent) + 'static) {
        *self.listener.borrow_mut() = Some(Box::new(listener));
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.borrow().clone()
    }

    /// Names of the events, in order (`tool_started:read_file`, `text_delta`…).
    pub fn trace(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .map(|e| match e {
                AgentEvent::ToolStarted { tool, .. } => format!("tool_started:{tool}"),
                AgentEvent::ToolFinished { tool, .. } => format!("tool_finished:{tool}"),
                other => serde_json::to_value(other).unwrap()["type"].as_str().unwrap().to_string(),
            })
            .collect()
    }

    pub fn warnings(&self) -> Vec<String> {
        self.events
            .borrow()
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Warning { message } => Some(message.clone()),
                _ => None,
            })
            .collect()
    }
}

#[async_trait(?Send)]
impl AgentHost for TestHost {
    fn emit(&self, event: &AgentEvent) {
        self.events.borrow_mut().push(event.clone());
        if let Some(listener) = &*self.listener.borrow() {
            listener(event);
        }
    }

    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        (self.decide.borrow())(request)
    }

    async fn ask(&self, _question: &Question) -> Option<String> {
        self.answers.borrow_mut().pop_front().flatten()
    }

    fn denial_reason(&self, _request_id: &str) -> Option<String> {
        self.reason.borrow_mut().take()
    }

    fn accepted_hunks(&self, _request_id: &str) -> Option<Vec<usize>> {
        self.hunks.borrow_mut().take()
    }
}

/// A [`MemoryVault`] that yields to the executor before every call, as a host's promises do,
/// so that concurrent tool calls interleave.
pub struct YieldingVault(pub MemoryVault);

async fn yield_now() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await
}

#[async_trait(?Send)]
impl Vault for YieldingVault {
    async fn read(&self, path: &VaultPath) -> vault_agent::Result<String> {
        yield_now().await;
        self.0.read(path).await
    }
    async fn read_binary(&self, path: &VaultPath) -> vault_agent::Result<Vec<u8>> {
        yield_now().await;
        self.0.read_binary(path).await
    }
    async fn write(&self, path: &VaultPath, content: &str) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.write(path, content).await
    }
    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.write_binary(path, data).await
    }
    async fn list(&self, dir: &VaultPath) -> vault_agent::Result<Listing> {
        yield_now().await;
        self.0.list(dir).await
    }
    async fn stat(&self, path: &VaultPath) -> vault_agent::Result<Option<Stat>> {
        yield_now().await;
        self.0.stat(path).await
    }
    async fn mkdir(&self, path: &VaultPath) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.mkdir(path).await
    }
    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.rename(from, to).await
    }
    async fn trash(&self, path: &VaultPath) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.trash(path).await
    }
    async fn remove(&self, path: &VaultPath) -> vault_agent::Result<()> {
        yield_now().await;
        self.0.remove(path).await
    }
}

/// A task's parts, kept for the assertions.
pub struct Harness {
    pub vault: Rc<dyn Vault>,
    pub provider: Rc<ScriptedProvider>,
    pub host: Rc<TestHost>,
    pub clock: Rc<ManualClock>,
    pub cancel: CancelToken,
    /// The index the search tools use (empty: they build it on first use).
    pub search: SharedIndex,
    /// The hook before condensing; `None` turns it off.
    pub condense_hook: Option<Rc<dyn CondenseHook>>,
    pub end_hook: Option<Rc<dyn EndHook>>,
    /// The user's own modes.
    pub modes: Vec<Mode>,
    /// The HTTP client `web_fetch` reads with; `None`: no web tool.
    pub web: Option<Rc<dyn HttpClient>>,
}

impl Harness {
    pub fn new(vault: impl Vault + 'static, turns: impl IntoIterator<Item = Turn>) -> Self {
        Harness {
            vault: Rc::new(vault),
            provider: Rc::new(ScriptedProvider::new(turns)),
            host: TestHost::new(),
            clock: Rc::new(ManualClock::new(1_795_392_000_000)),
            cancel: CancelToken::new(),
            search: SharedIndex::new(),
            condense_hook: None,
            end_hook: None,
            modes: Vec::new(),
            web: None,
        }
    }

    pub fn task(&self, config: AgentConfig) -> AgentTask {
        self.task_named(config, "t1")
    }

    /// A task with the id `id` (tasks of one harness that must be told apart: undo, recipes).
    pub fn task_named(&self, config: AgentConfig, id: &str) -> AgentTask {
        self.task_through(config, id, self.provider.clone())
    }

    /// A task `id` whose model calls go through `provider` (one wrapping the scripted model).
    pub fn task_through(&self, config: AgentConfig, id: &str, provider: Rc<dyn ModelProvider>) -> AgentTask {
        block_on(AgentTask::new(TaskSetup {
            config,
            provider,
            vault: self.vault.clone(),
            clock: self.clock.clone(),
            host: self.host.clone(),
            cancel: self.cancel.clone(),
            tools: None,
            web: self.web.clone(),
            modes: self.modes.clone(),
            vault_info: VaultInfo { name: "Test".into(), note_count: None, active_note: None, ..VaultInfo::default() },
            search: self.search.clone(),
            condense_hook: self.condense_hook.clone(),
            end_hook: self.end_hook.clone(),
            history: Vec::new(),
            task_id: Some(id.into()),
        }))
        .unwrap()
    }
}

/// Every file outside the agent's folder and the trash, with its bytes.
pub fn snapshot(vault: &dyn Vault) -> BTreeMap<String, Vec<u8>> {
    block_on(async {
        let skip = |p: &VaultPath| p.as_str() == ".obsidian-agent" || p.as_str() == ".trash";
        let files = walk_files(vault, &VaultPath::root(), &skip).await.unwrap();
        let mut out = BTreeMap::new();
        for f in files {
            out.insert(f.to_string(), vault.read_binary(&f).await.unwrap());
        }
        out
    })
}

/// The text of the last user message a request carried (tool results and any warnings).
pub fn last_user_text(request: &vault_agent::protocol::ModelRequest) -> String {
    use vault_agent::protocol::{ContentBlock, Role};
    let last = request.messages.iter().rev().find(|m| m.role == Role::User).unwrap();
    last.content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::ToolResult { content, .. } => unwrap_data(content),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A tool result without the task's data markers around it (`guard::DataMarkers::wrap`): the
/// tool's own words, the same in every task.
pub fn unwrap_data(content: &str) -> String {
    let Some(rest) = content.strip_prefix("<<<data ") else { return content.to_string() };
    let Some((_, body)) = rest.split_once(">>>\n") else { return content.to_string() };
    let body = body.split_once('\n').map_or(body, |(_, after_source)| after_source);
    match body.rfind("\n<<<end data ") {
        Some(end) => body[..end].to_string(),
        None => body.to_string(),
    }
}

/// Whether `request` is the context machinery's own call: the condensing summary or the
/// memory flush.
pub fn is_summary_request(request: &ModelRequest) -> bool {
    request.system.first().is_some_and(|s| s.text.starts_with("You summarise"))
}

pub fn is_flush_request(request: &ModelRequest) -> bool {
    request.system.first().is_some_and(|s| s.text.contains("long-term memory"))
}

/// A script where the summary and memory-flush calls get `summary` and `facts` whenever they
/// come, and every other call the next of `steps` (then a protocol error).
pub fn routed(steps: Vec<Turn>, summary: &str, facts: &str) -> Vec<Turn> {
    let queue = Rc::new(RefCell::new(VecDeque::from(steps)));
    (0..60)
        .map(|_| {
            let (queue, summary, facts) = (queue.clone(), summary.to_string(), facts.to_string());
            Turn::Dynamic(Box::new(move |request: &ModelRequest| {
                if is_summary_request(request) {
                    Turn::text(summary.clone())
                } else if is_flush_request(request) {
                    Turn::text(facts.clone())
                } else {
                    queue
                        .borrow_mut()
                        .pop_front()
                        .unwrap_or_else(|| Turn::fail(ErrorKind::Protocol, "script exhausted"))
                }
            }))
        })
        .collect()
}
