//! `vault-agent run --vault DIR --provider … --model M [--approve read,write,delete|--yes] "task"`:
//! the agent loop over a folder. The answer streams to stdout; one line per tool call, warnings,
//! approvals and the summary go to stderr. Without a task it is a chat: each line of the
//! terminal (or of piped input) a message, answered in turn, saved as the plugin saves its chats.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::rc::Rc;

use async_trait::async_trait;
use futures::future::{select, Either};
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use vault_agent::agent::list_interrupted;
use vault_agent::agent::{mark_undone, AgentConfig, Conversation};
use vault_agent::host::{AgentHost, Clock, NativeLauncher, ReqwestClient, SystemClock};
use vault_agent::index::SharedIndex;
use vault_agent::mcp::{McpToolset, SAMPLING_APPROVAL};
use vault_agent::pipeline::{
    apply_undo, prune_tasks, sweep_orphans, ApprovalPolicy, RetentionPolicy, UndoChoices, ORPHAN_AGE_MS,
};
use vault_agent::prompt::VaultInfo;
use vault_agent::protocol::{
    AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest, ChangePreview, EndReason, FormAnswer, FormRequest,
    Question, RunReport,
};
use vault_agent::provider::build;
use vault_agent::tools::WebSearchConfig;
use vault_agent::vault::{list_notes, FsVault, Vault};
use vault_agent::{Error, Result};

use crate::provider_args::ProviderArgs;
use crate::vault_index::current_index;

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
    #[command(flatten)]
    provider: ProviderArgs,
    /// Categories of tool call to allow without asking: read, write, delete, web, memory
    /// (default: read).
    #[arg(long, value_name = "LIST", default_value = "read", conflicts_with = "yes")]
    approve: String,
    /// Allow every tool call without asking.
    #[arg(long)]
    yes: bool,
    /// ask (read-only) or agent (may change notes).
    #[arg(long, default_value = "agent")]
    mode: String,
    /// Model calls at most.
    #[arg(long, default_value_t = 25)]
    max_iterations: u32,
    /// After the task, do not ask the model for facts and preferences to remember.
    #[arg(long)]
    no_memory_extraction: bool,
    /// Do not take a learned recipe's fast path; always run the normal loop.
    #[arg(long)]
    no_fast_path: bool,
    /// Show the model's thinking (where it streams any) on stderr, before its answer.
    #[arg(long)]
    thinking: bool,
    #[command(flatten)]
    mcp: crate::mcp::McpArgs,
    /// A domain web_fetch may read without asking (with its subdomains); repeatable.
    #[arg(long, value_name = "DOMAIN")]
    web_allow: Vec<String>,
    /// A domain web_fetch never reads; repeatable.
    #[arg(long, value_name = "DOMAIN")]
    web_deny: Vec<String>,
    /// Offer web_search through a SearXNG instance at this address (its JSON format on).
    #[arg(long, value_name = "URL", conflicts_with_all = ["brave_search", "tavily"])]
    searxng: Option<String>,
    /// Offer web_search through Brave Search's API, with the key in BRAVE_SEARCH_API_KEY.
    #[arg(long, conflicts_with = "tavily")]
    brave_search: bool,
    /// Offer web_search through Tavily's API, with the key in TAVILY_API_KEY.
    #[arg(long)]
    tavily: bool,
    /// A note, image or PDF (vault path) to attach to the request; repeatable. Images and PDFs
    /// go as the model takes them; a folder (`Trips/`) brings its notes, an http(s) address its
    /// page, `mcp:SERVER:URI` one of an MCP server's resources (see `vault-agent mcp resources`).
    #[arg(long, value_name = "PATH")]
    attach: Vec<String>,
    /// Go on with the saved chat ID (as `vault-agent chats` lists it) instead of a new one: its
    /// history is the model's, and what is said now is added to it.
    #[arg(long, value_name = "ID", conflicts_with = "task")]
    chat: Option<String>,
    /// What to do. Without it: a chat, one message a line, until an empty line or the input's
    /// end (saved in the vault's chats, which the plugin's history lists); a line `/attach PATH`
    /// attaches a file to the next message, `/undo` puts back the last changes.
    task: Option<String>,
}

/// The engine `--searxng`, `--brave-search` or `--tavily` names, if one does.
fn web_search(args: &Args) -> Result<Option<WebSearchConfig>> {
    if let Some(base_url) = &args.searxng {
        return Ok(Some(WebSearchConfig::Searxng { base_url: base_url.clone() }));
    }
    let (flag, variable, engine): (_, _, fn(String) -> WebSearchConfig) = match (args.brave_search, args.tavily) {
        (true, _) => ("--brave-search", "BRAVE_SEARCH_API_KEY", |api_key| WebSearchConfig::Brave { api_key }),
        (_, true) => ("--tavily", "TAVILY_API_KEY", |api_key| WebSearchConfig::Tavily { api_key }),
        _ => return Ok(None),
    };
    match std::env::var(variable) {
        Ok(api_key) if !api_key.trim().is_empty() => Ok(Some(engine(api_key))),
        _ => Err(Error::Invalid(format!("{flag} needs the API key in {variable}"))),
    }
}

pub async fn run(args: Args) -> Result<()> {
    let vault = Rc::new(args.vault.open()?);
    let clock = Rc::new(SystemClock);
    tidy(&*vault, clock.now_ms()).await?;
    let policy = if args.yes {
        ApprovalPolicy::auto_approving(ApprovalCategory::ALL)
    } else {
        ApprovalPolicy::from_list(&args.approve).map_err(Error::Invalid)?
    };
    let config = AgentConfig {
        auto_approve: policy.automatic().collect(),
        mode: args.mode.clone(),
        max_iterations: args.max_iterations,
        web_allow: args.web_allow.clone(),
        web_deny: args.web_deny.clone(),
        web_search: web_search(&args)?,
        memory_extraction: !args.no_memory_extraction,
        fast_path: !args.no_fast_path,
        ..AgentConfig::default()
    };
    let host = Rc::new(TerminalHost::new().showing_thinking(args.thinking));
    let servers = args.mcp.servers()?;
    let renewed = crate::mcp::renewed_sink(&servers);
    let mut mcp = McpToolset::new(servers, Rc::new(ReqwestClient::new()), clock.clone(), Some(Rc::new(NativeLauncher)))
        .with_offer(crate::mcp::offer(&args.vault.vault));
    if let Some(sink) = renewed {
        mcp = mcp.with_credentials_sink(sink);
    }
    let mcp = Rc::new(mcp);
    let conversation = open_conversation(&args.vault, &args.provider, config, vault.clone(), clock, host.clone())
        .await?
        .with_mcp(mcp.clone());
    let Some(task) = &args.task else {
        if let Some(id) = &args.chat {
            let saved = crate::chats::saved_chat(&*vault, id).await?;
            let requests = saved.summary().requests;
            let plural = if requests == 1 { "" } else { "s" };
            eprintln!("Going on with the chat “{}” ({requests} earlier request{plural}).", saved.title);
        }
        let outcome = chat(&conversation.saved_in_vault(args.chat.clone()), vault, &host, &args).await;
        mcp.close().await;
        return outcome;
    };
    let outcome = interruptible(&conversation, conversation.send_with_attachments(task, &args.attach), true).await;
    mcp.close().await;
    let (report, suspended) = outcome?;
    finish(&report, &host, &args.vault.vault, suspended)
}

/// A chat: each line of the input a message (the first with `--attach`'s files), answered
/// before the next is read, until an empty line, the input's end or Ctrl-C at the prompt. A line
/// `/attach PATH` attaches a note, image or PDF to the next message instead, and `/undo` puts
/// back what the chat's last task that changed notes did (the one before it next time). Ctrl-C
/// during an answer stops that task, as the plugin's Stop does; a task that ends without its
/// answer is said, and the chat goes on.
async fn chat(conversation: &Conversation, files: Rc<FsVault>, host: &TerminalHost, args: &Args) -> Result<()> {
    let vault = &args.vault.vault;
    if host.interactive {
        eprintln!(
            "Chat with the agent over {}: a message a line (`/attach PATH` attaches a note to the next, `/undo` \
             puts back the last changes); an empty line ends it.",
            vault.display()
        );
    }
    let mut attach = args.attach.clone();
    // The chat's tasks that changed notes and are not undone, oldest first.
    let mut changes: Vec<String> = Vec::new();
    let mut sent = false;
    loop {
        let line = {
            let read = host.prompt(if host.interactive { "\n› " } else { "" });
            let interrupt = tokio::signal::ctrl_c();
            futures::pin_mut!(read, interrupt);
            match select(read, interrupt).await {
                Either::Left((line, _)) => line,
                Either::Right(_) => None,
            }
        };
        let message = line.as_deref().map(str::trim).unwrap_or_default();
        if message.is_empty() {
            break;
        }
        if message == "/undo" {
            undo_last(conversation, files.clone(), &mut changes, vault).await;
            continue;
        }
        if let Some(path) = attach_command(message) {
            if path.is_empty() {
                eprintln!(
                    "/attach PATH attaches a note, image, PDF or folder (its vault path, a folder's ending in /), a web \
                     page (its address) or mcp:SERVER:URI a server's resource to your next message"
                );
                if !attach.is_empty() {
                    eprintln!("{}", attached(&attach));
                }
                continue;
            }
            match conversation.check_attachment(path).await {
                Ok(()) => {
                    attach.push(path.to_string());
                    eprintln!("{}", attached(&attach));
                }
                Err(e) => eprintln!("cannot attach {path}: {e}"),
            }
            continue;
        }
        let (report, _) =
            interruptible(conversation, conversation.send_with_attachments(message, &attach), false).await?;
        attach.clear();
        sent = true;
        if !report.changed_paths.is_empty() {
            changes.push(report.task_id.clone());
        }
        if let Err(ended) = finish(&report, host, vault, false) {
            eprintln!("{ended}");
        }
    }
    if sent {
        eprintln!("The chat is saved in the vault: Vault Agent's chat history in Obsidian lists it.");
    }
    Ok(())
}

/// The chat's `/undo`: undoes the newest of `changes` (as `vault-agent undo` does, keeping a
/// note changed since), marks it undone in the saved chat, and says what it did.
async fn undo_last(conversation: &Conversation, files: Rc<FsVault>, changes: &mut Vec<String>, dir: &std::path::Path) {
    let Some(task) = changes.pop() else {
        eprintln!("nothing to undo: no task of this chat changed a note (vault-agent checkpoints lists older ones)");
        return;
    };
    let now = SystemClock.now_ms();
    match apply_undo(files.clone(), &task, &UndoChoices::new(), now).await {
        Ok(report) => {
            let (done, failed) = crate::undo::report_lines(&report);
            for line in done.iter().chain(&failed) {
                eprintln!("{line}");
            }
            if let Some(chat) = conversation.chat_id() {
                if let Err(e) = mark_undone(&*files, &chat, &task, true, now).await {
                    eprintln!("the saved chat could not record the undo: {e}");
                }
            }
            eprintln!("undid task {task}; to redo it: vault-agent redo --vault {} {task}", dir.display());
        }
        Err(e) => {
            eprintln!("could not undo task {task}: {e}");
            changes.push(task);
        }
    }
}

/// The path of a chat line `/attach PATH` (empty for `/attach` alone).
fn attach_command(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("/attach")?;
    // `/attachment` is a message, not the command.
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// What goes with the next message: "attached to your next message: A.md, B.png".
fn attached(paths: &[String]) -> String {
    format!("attached to your next message: {}", paths.join(", "))
}

/// Start-up housekeeping: temporary files of chats that were never closed, and checkpoints
/// and logs past the retention policy (never an interrupted task's).
pub(crate) async fn tidy(vault: &dyn Vault, now_ms: u64) -> Result<()> {
    for swept in sweep_orphans(vault, now_ms, ORPHAN_AGE_MS).await? {
        eprintln!("removed leftover temporary files {swept}");
    }
    let interrupted: Vec<String> = list_interrupted(vault).await?.into_iter().map(|t| t.task_id).collect();
    let pruned = prune_tasks(vault, now_ms, RetentionPolicy::default(), &interrupted).await?;
    if !pruned.is_empty() {
        eprintln!("pruned the checkpoints and logs of {} old tasks", pruned.len());
    }
    Ok(())
}

/// A conversation over the vault with the provider, the vault's index and the terminal.
pub(crate) async fn open_conversation(
    vault_arg: &VaultArg,
    provider: &ProviderArgs,
    config: AgentConfig,
    vault: Rc<FsVault>,
    clock: Rc<SystemClock>,
    host: Rc<TerminalHost>,
) -> Result<Conversation> {
    let http = Rc::new(ReqwestClient::new());
    let provider = build(&provider.config()?, http.clone(), clock.clone())?;
    let search = SharedIndex::new();
    search.replace(current_index(&vault).await?);
    let conversation =
        Conversation::new(config, Rc::from(provider), vault.clone(), clock, host).with_search(search).with_web(http);
    conversation.set_vault_info(vault_info(&vault_arg.vault, &*vault).await?);
    Ok(conversation)
}

/// Runs `task` to its end; Ctrl-C stops it — for now with `suspend` (its snapshot stays, to
/// resume), else for good. Returns the report and whether it was stopped that way.
pub(crate) async fn interruptible(
    conversation: &Conversation,
    task: impl std::future::Future<Output = Result<RunReport>>,
    suspend: bool,
) -> Result<(RunReport, bool)> {
    // Ctrl-C stops the task; the loop then ends cleanly (report, snapshot kept).
    let interrupt = async {
        match tokio::signal::ctrl_c().await {
            Ok(()) => {
                eprintln!("\nstopping…");
                if suspend {
                    conversation.suspend();
                } else {
                    conversation.cancel();
                }
            }
            Err(_) => futures::future::pending::<()>().await,
        }
    };
    futures::pin_mut!(task, interrupt);
    match select(task, interrupt).await {
        Either::Left((report, _)) => Ok((report?, false)),
        Either::Right(((), task)) => Ok((task.await?, true)),
    }
}

/// Prints how the task ended; an end without the answer asked for is an error naming why.
pub(crate) fn finish(report: &RunReport, host: &TerminalHost, vault: &std::path::Path, suspended: bool) -> Result<()> {
    host.finish_line();
    // attempt_completion's result is a tool argument, not streamed text: print it now.
    if let (EndReason::Completed, Some(result)) = (&report.end, &report.final_text) {
        outln!("{result}");
    }
    eprintln!("{}", summary(report, vault));
    match &report.end {
        EndReason::Completed | EndReason::Answered => Ok(()),
        EndReason::Denied if host.asked_without_terminal.get() => Err(Error::Stopped(
            "Stopped: a tool call needed approval and there is no terminal to ask: pass --approve read,write,delete \
             or --yes"
                .into(),
        )),
        EndReason::Cancelled if suspended => Err(Error::Stopped(format!(
            "Stopped. Resume with: vault-agent resume --vault {} {}",
            vault.display(),
            report.task_id
        ))),
        end if end.can_continue() => Err(Error::Stopped(format!(
            "{}\nhint: to go on with a fresh budget, run again with a higher --max-iterations, asking it to continue \
             where it stopped",
            end.describe()
        ))),
        end => Err(Error::Stopped(end.describe())),
    }
}

async fn vault_info(dir: &std::path::Path, vault: &dyn Vault) -> Result<VaultInfo> {
    let notes = list_notes(vault).await?;
    let name = dir.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
    Ok(VaultInfo {
        name: name.unwrap_or_else(|| "vault".into()),
        note_count: Some(notes.len()),
        active_note: None,
        ..VaultInfo::default()
    })
}

fn summary(report: &RunReport, vault: &std::path::Path) -> String {
    let mut line = format!(
        "task {}: {} steps, {} tool calls ({} failed), {} tokens in ({} cached), {} out, {:.1} s",
        report.task_id,
        report.steps.len(),
        report.tool_calls,
        report.tool_errors,
        report.usage.total_input(),
        report.usage.cache_read_tokens,
        report.usage.output_tokens,
        report.duration_ms as f64 / 1000.0
    );
    if !report.changed_paths.is_empty() {
        line.push_str(&format!(
            "\nchanged: {}\nundo with: vault-agent undo --vault {} {}",
            report.changed_paths.join(", "),
            vault.display(),
            report.task_id
        ));
    }
    line
}

/// The terminal as the user: the answer on stdout, everything else on stderr, approvals and
/// questions asked on stdin when it is a terminal (denied and unanswered when it is not).
pub(crate) struct TerminalHost {
    /// Each running call's tool and arguments, by `scope/call id`.
    inputs: RefCell<HashMap<String, (String, Value)>>,
    at_line_start: Cell<bool>,
    /// Thinking goes to stderr (`--thinking`).
    show_thinking: bool,
    /// Thinking is being shown, its line not yet ended.
    thinking: Cell<bool>,
    interactive: bool,
    asked_without_terminal: Cell<bool>,
    /// The input's lines, read through one buffer: piped input is read ahead of the line asked for.
    lines: tokio::sync::Mutex<tokio::io::Lines<tokio::io::BufReader<tokio::io::Stdin>>>,
}

impl TerminalHost {
    pub(crate) fn new() -> Self {
        TerminalHost {
            inputs: RefCell::new(HashMap::new()),
            at_line_start: Cell::new(true),
            show_thinking: false,
            thinking: Cell::new(false),
            interactive: std::io::stdin().is_terminal(),
            asked_without_terminal: Cell::new(false),
            lines: tokio::sync::Mutex::new(tokio::io::BufReader::new(tokio::io::stdin()).lines()),
        }
    }

    /// Shows the model's thinking on stderr, faint on a terminal.
    pub(crate) fn showing_thinking(mut self, show: bool) -> Self {
        self.show_thinking = show;
        self
    }

    /// Ends the streamed answer's line, and the thinking shown, so that stderr lines do not
    /// run into them.
    fn finish_line(&self) {
        self.end_thinking();
        if !self.at_line_start.replace(true) {
            outln!();
        }
    }

    fn end_thinking(&self) {
        if self.thinking.replace(false) {
            let reset = if std::io::stderr().is_terminal() { "\x1b[0m" } else { "" };
            eprintln!("{reset}");
        }
    }

    /// Whether the user can be asked: stdin is a terminal.
    pub(crate) fn interactive(&self) -> bool {
        self.interactive
    }

    /// Asks `text` and reads the answer's line; `None` when the input ended.
    pub(crate) async fn prompt(&self, text: &str) -> Option<String> {
        eprint!("{text}");
        let _ = std::io::stderr().flush();
        self.lines.lock().await.next_line().await.ok().flatten()
    }
}

/// `tool path` or `tool path → new_path`, from a call's arguments.
fn describe(tool: &str, input: Option<&Value>) -> String {
    let field = |name: &str| input.and_then(|i| i.get(name)).and_then(Value::as_str);
    match (field("path"), field("new_path"), field("query")) {
        (Some(path), Some(to), _) => format!("{tool} {path} → {to}"),
        (Some(path), None, _) => format!("{tool} {path}"),
        (None, _, Some(query)) => format!("{tool} {query:?}"),
        _ => tool.to_string(),
    }
}

impl TerminalHost {
    /// Shows `event` of the user's task (`depth` 0) or, indented, of a sub-task (`scope` its id).
    fn show(&self, event: &AgentEvent, depth: usize, scope: &str) {
        let indent = "  ".repeat(depth);
        match event {
            // Only the user's task answers on stdout; a sub-task's answer is its call's result.
            AgentEvent::ThinkingDelta { text } if depth == 0 && self.show_thinking => {
                if !self.thinking.get() {
                    self.finish_line();
                    self.thinking.set(true);
                    let faint = if std::io::stderr().is_terminal() { "\x1b[2m" } else { "" };
                    eprint!("{faint}thinking: ");
                }
                eprint!("{text}");
            }
            AgentEvent::TextDelta { text } if depth == 0 => {
                self.end_thinking();
                crate::out::write(text);
                self.at_line_start.set(text.ends_with('\n'));
            }
            AgentEvent::ToolStarted { call_id, tool, input, .. } => {
                self.end_thinking();
                self.inputs.borrow_mut().insert(format!("{scope}/{call_id}"), (tool.clone(), input.clone()));
            }
            // How far a long call is, as its MCP server says (at most four times a second).
            AgentEvent::ToolProgress { call_id, progress, total, message } => {
                self.finish_line();
                let count = match total {
                    Some(total) if *total > 0.0 => format!("{progress} of {total}"),
                    _ => progress.to_string(),
                };
                let about = message.as_deref().map(|m| format!(" · {m}")).unwrap_or_default();
                let call = self
                    .inputs
                    .borrow()
                    .get(&format!("{scope}/{call_id}"))
                    .map(|(tool, input)| describe(tool, Some(input)));
                eprintln!("{indent}… {}: {count}{about}", call.as_deref().unwrap_or(call_id));
            }
            AgentEvent::ToolFinished { call_id, tool, is_error, summary, duration_ms, .. } => {
                self.finish_line();
                let input = self.inputs.borrow_mut().remove(&format!("{scope}/{call_id}")).map(|(_, input)| input);
                let mark = if *is_error { "✗" } else { "✓" };
                eprintln!("{indent}{mark} {} ({duration_ms} ms): {summary}", describe(tool, input.as_ref()));
            }
            AgentEvent::Warning { message } => {
                self.finish_line();
                eprintln!("{indent}warning: {message}");
            }
            AgentEvent::McpSignInNeeded { server, message } => {
                self.finish_line();
                eprintln!("{indent}warning: {message}");
                eprintln!("{indent}  sign in with: vault-agent mcp login {server}=URL (the URL given to --mcp-http)");
            }
            AgentEvent::FastPath { recipe } => {
                self.finish_line();
                eprintln!(
                    "{indent}fast path: recipe {} (\"{}\", {} successes, {} failures)",
                    recipe.id, recipe.request, recipe.successes, recipe.failures
                );
            }
            AgentEvent::FastPathFallback { recipe, reason } => {
                self.finish_line();
                eprintln!(
                    "{indent}fast path of recipe {} given up: {reason}; going on with the normal loop",
                    recipe.id
                );
            }
            AgentEvent::Retrying { attempt, max_attempts, delay_ms, problem } => {
                self.finish_line();
                eprintln!(
                    "{indent}{} ({}); retrying in {:.1} s (attempt {} of {max_attempts})",
                    problem.message,
                    problem.detail,
                    *delay_ms as f64 / 1000.0,
                    attempt + 1
                );
            }
            AgentEvent::Error { message, detail, .. } => {
                self.finish_line();
                match detail {
                    Some(detail) => eprintln!("{indent}error: {message} ({detail})"),
                    None => eprintln!("{indent}error: {message}"),
                }
            }
            AgentEvent::Subtask { task_id, event, .. } => match &**event {
                AgentEvent::TaskStarted { mode, .. } => {
                    self.finish_line();
                    eprintln!("{indent}→ sub-task {task_id} ({mode} mode)");
                }
                AgentEvent::Done { report } => {
                    self.finish_line();
                    eprintln!("{indent}← sub-task {task_id}: {}", report.ended);
                }
                inner => self.show(inner, depth + 1, task_id),
            },
            _ => {}
        }
    }
}

#[async_trait(?Send)]
impl AgentHost for TerminalHost {
    fn emit(&self, event: &AgentEvent) {
        self.show(event, 0, "");
    }

    async fn approve(&self, request: &ApprovalRequest) -> ApprovalDecision {
        self.finish_line();
        if !self.interactive {
            self.asked_without_terminal.set(true);
            eprintln!("denied: {} (needs {} approval; no terminal to ask)", request.summary, request.category.as_str());
            return ApprovalDecision::Deny;
        }
        match &request.subtask {
            Some(sub) => eprintln!(
                "\nApproval needed ({}) for sub-task {} ({}): {}",
                request.category.as_str(),
                sub.task_id,
                sub.title,
                request.summary
            ),
            None => eprintln!("\nApproval needed ({}): {}", request.category.as_str(), request.summary),
        }
        match &request.preview {
            Some(ChangePreview::Write { diff, .. }) => eprintln!("{diff}"),
            Some(ChangePreview::Move { from, to }) => eprintln!("move {from} → {to}"),
            Some(ChangePreview::Delete { path }) => eprintln!("move {path} to the trash"),
            Some(ChangePreview::CreateFolder { path }) => eprintln!("create folder {path}"),
            // What an MCP server would have the model read.
            None if request.tool == SAMPLING_APPROVAL => {
                eprintln!("{}", serde_json::to_string_pretty(&request.input).unwrap_or_default())
            }
            None => {}
        }
        let question = if request.tool == SAMPLING_APPROVAL {
            // Declining fails the server's tool; the task goes on.
            format!("Allow? [y]es, [a]lways for {}, [n]o: ", request.category.as_str())
        } else {
            format!("Allow? [y]es, [a]lways for {}, [s]kip, [n]o and stop: ", request.category.as_str())
        };
        match self.prompt(&question).await.as_deref().map(str::trim) {
            Some("y" | "Y" | "yes") => ApprovalDecision::Approve,
            Some("a" | "A" | "always") => ApprovalDecision::AlwaysAllow,
            Some("s" | "S" | "skip") => ApprovalDecision::Skip,
            _ => ApprovalDecision::Deny,
        }
    }

    async fn fill(&self, form: &FormRequest) -> FormAnswer {
        self.finish_line();
        crate::form::fill(self, form).await
    }

    async fn ask(&self, question: &Question) -> Option<String> {
        self.finish_line();
        if !self.interactive {
            eprintln!("question (no terminal to answer): {}", question.question);
            return None;
        }
        match &question.subtask {
            Some(sub) => eprintln!("\nSub-task {} ({}) asks: {}", sub.task_id, sub.title, question.question),
            None => eprintln!("\n{}", question.question),
        }
        for (i, suggestion) in question.suggestions.iter().enumerate() {
            eprintln!("  {}. {suggestion}", i + 1);
        }
        let answer = self.prompt("> ").await?;
        let answer = answer.trim();
        let picked = answer.parse::<usize>().ok().and_then(|n| question.suggestions.get(n.wrapping_sub(1)));
        match picked {
            Some(suggestion) => Some(suggestion.clone()),
            None if answer.is_empty() => None,
            None => Some(answer.to_string()),
        }
    }
}
