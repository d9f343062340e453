//! `vault-agent`: the core as a terminal program, over a folder on disk.
//!
//! Each subcommand lives in its own module; `main` only parses arguments, starts a
//! single-threaded runtime (the core's futures are not `Send`) and reports a fatal error.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod chat;
#[cfg(not(target_arch = "wasm32"))]
mod chats;
#[cfg(not(target_arch = "wasm32"))]
mod form;
#[cfg(not(target_arch = "wasm32"))]
mod index;
#[cfg(not(target_arch = "wasm32"))]
mod list_models;
#[cfg(not(target_arch = "wasm32"))]
mod mcp;
#[cfg(not(target_arch = "wasm32"))]
mod mcp_login;
#[cfg(not(target_arch = "wasm32"))]
mod memory;
#[cfg(not(target_arch = "wasm32"))]
mod model;
#[cfg(not(target_arch = "wasm32"))]
mod notes;
#[cfg(not(target_arch = "wasm32"))]
mod out;
#[cfg(not(target_arch = "wasm32"))]
mod provider_args;
#[cfg(not(target_arch = "wasm32"))]
mod resume;
#[cfg(not(target_arch = "wasm32"))]
mod run;
#[cfg(not(target_arch = "wasm32"))]
mod search;
#[cfg(not(target_arch = "wasm32"))]
mod undo;
#[cfg(not(target_arch = "wasm32"))]
mod vault_arg;
#[cfg(not(target_arch = "wasm32"))]
mod vault_index;

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use std::process::ExitCode;

    use clap::{Parser, Subcommand};

    #[derive(Parser)]
    #[command(name = "vault-agent", version, about = "An AI agent for an Obsidian vault, in the terminal")]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// List the vault's Markdown notes (hidden folders are skipped).
        Notes(crate::notes::Args),
        /// Ask a model one question and stream its answer to stdout.
        Chat(crate::chat::Args),
        /// List the saved chats, or find the ones that said some words (`run --chat ID` goes on
        /// with one).
        Chats(crate::chats::Args),
        /// List the chat models a provider's server has (to pick one for --model).
        ListModels(crate::list_models::Args),
        /// Run the agent on a task over the vault: it searches, reads and (with approval)
        /// changes notes.
        // Boxed: its options are many times the other commands'.
        Run(Box<crate::run::Args>),
        /// List the tasks that did not finish, or resume one where it stopped.
        Resume(crate::resume::Args),
        /// Restore everything a task changed (default: the newest task); files changed since
        /// the task are kept unless --restore or --copy says otherwise.
        Undo(crate::undo::UndoArgs),
        /// Apply a task's changes again after an undo (default: the newest undone task).
        Redo(crate::undo::UndoArgs),
        /// List the tasks that can be undone.
        Checkpoints(crate::undo::ListArgs),
        /// Build the search index and save it to <vault>/.obsidian-agent/index/.
        Index(crate::index::Args),
        /// Search the vault: ranked paths, or JSON with --json.
        Search(crate::search::Args),
        /// What the agent remembers about you and the vault: list it, forget it.
        #[command(subcommand)]
        Memory(crate::memory::Command),
        /// Make or install the local embedding models.
        #[command(subcommand)]
        Model(crate::model::Command),
        /// Talk to MCP servers without a model: list their tools, call one, sign in.
        #[command(subcommand)]
        Mcp(crate::mcp::Command),
    }

    pub fn main() -> ExitCode {
        // While the process has one thread, the only time the time zone can be read safely.
        vault_agent::host::SystemClock::local_utc_offset();
        let cli = Cli::parse();
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("vault-agent: cannot start the async runtime: {e}");
                return ExitCode::FAILURE;
            }
        };
        let result = runtime.block_on(async {
            match cli.command {
                Command::Notes(args) => crate::notes::run(args).await,
                Command::Chat(args) => crate::chat::run(args).await,
                Command::Chats(args) => crate::chats::run(args).await,
                Command::ListModels(args) => crate::list_models::run(args).await,
                Command::Run(args) => crate::run::run(*args).await,
                Command::Resume(args) => crate::resume::run(args).await,
                Command::Undo(args) => crate::undo::undo(args, false).await,
                Command::Redo(args) => crate::undo::undo(args, true).await,
                Command::Checkpoints(args) => crate::undo::list(args).await,
                Command::Index(args) => crate::index::run(args).await,
                Command::Search(args) => crate::search::run(args).await,
                Command::Memory(command) => crate::memory::run(command).await,
                Command::Model(command) => crate::model::run(command).await,
                Command::Mcp(command) => crate::mcp::run(command).await,
            }
        });
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vault-agent: {e}");
                ExitCode::FAILURE
            }
        }
    }
}
