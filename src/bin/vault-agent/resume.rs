//! `vault-agent resume --vault DIR [TASK_ID] [--provider … --model M]`: the tasks that did not
//! finish (a crash, a closed terminal, Ctrl-C), or one of them resumed where it stopped — at
//! the approval it was waiting for, if it was.

use std::rc::Rc;

use vault_agent::agent::{list_interrupted, load_snapshot, AgentConfig};
use vault_agent::host::{Clock, SystemClock};
use vault_agent::pipeline::ApprovalPolicy;
use vault_agent::protocol::ApprovalCategory;
use vault_agent::{Error, Result};

use crate::provider_args::{Provider, ProviderArgs};
use crate::run::{finish, interruptible, open_conversation, tidy, TerminalHost};
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
    /// Which API to call (as `run`); needed to resume, not to list.
    #[arg(long, value_enum, requires = "model")]
    provider: Option<Provider>,
    /// The model id.
    #[arg(long)]
    model: Option<String>,
    /// Where the API lives (as `run`).
    #[arg(long)]
    base_url: Option<String>,
    /// The API key (as `run`).
    #[arg(long)]
    api_key: Option<String>,
    /// The output limit in tokens per model call.
    #[arg(long, default_value_t = vault_agent::provider::DEFAULT_MAX_TOKENS)]
    max_tokens: u32,
    /// A header sent with every request (as `run`; repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Categories of tool call to allow without asking (default: what the task allowed).
    #[arg(long, value_name = "LIST", conflicts_with = "yes")]
    approve: Option<String>,
    /// Allow every tool call without asking.
    #[arg(long)]
    yes: bool,
    /// Discard the task instead of resuming it (its changes stay undoable).
    #[arg(long, requires = "task")]
    discard: bool,
    /// The task to resume; without it, the interrupted tasks are listed.
    task: Option<String>,
}

pub async fn run(args: Args) -> Result<()> {
    let vault = Rc::new(args.vault.open()?);
    let clock = Rc::new(SystemClock);
    let Some(task_id) = &args.task else {
        let tasks = list_interrupted(&*vault).await?;
        if tasks.is_empty() {
            eprintln!("no interrupted tasks");
        }
        for task in tasks {
            let state = match (&task.problem, &task.waiting_for) {
                (Some(problem), _) => format!("cannot resume: {problem}"),
                (None, Some(waiting)) => format!("{} steps, waiting for approval: {waiting}", task.steps),
                (None, None) => format!("{} steps", task.steps),
            };
            println!("{}\t{}\t{state}", task.task_id, task.title);
        }
        return Ok(());
    };
    if args.discard {
        vault_agent::agent::discard_snapshot(&*vault, task_id).await?;
        eprintln!(
            "discarded task {task_id} (undo its changes with: vault-agent undo --vault {} {task_id})",
            args.vault.vault.display()
        );
        return Ok(());
    }
    let (Some(kind), Some(model)) = (args.provider, args.model.clone()) else {
        return Err(Error::Invalid("resuming a task needs --provider and --model, as `run` does".into()));
    };
    let provider = &ProviderArgs::new(kind, model, args.base_url.clone(), args.api_key.clone(), args.max_tokens)
        .with_headers(args.headers.clone());
    let mut snapshot = load_snapshot(&*vault, task_id).await?;
    if args.yes {
        snapshot.config.auto_approve = ApprovalCategory::ALL.to_vec();
    } else if let Some(list) = &args.approve {
        snapshot.config.auto_approve = ApprovalPolicy::from_list(list).map_err(Error::Invalid)?.automatic().collect();
    }
    tidy(&*vault, clock.now_ms()).await?;
    let host = Rc::new(TerminalHost::new());
    let conversation =
        open_conversation(&args.vault, provider, AgentConfig::default(), vault, clock, host.clone()).await?;
    eprintln!("resuming task {task_id}: {}", snapshot.request.lines().next().unwrap_or(""));
    let (report, suspended) = interruptible(&conversation, conversation.resume(&snapshot), true).await?;
    finish(&report, &host, &args.vault.vault, suspended)
}
