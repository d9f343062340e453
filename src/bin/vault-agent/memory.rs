//! `vault-agent memory list|forget --vault DIR`: what the agent remembers about the user and
//! the vault, and forgetting it.

use vault_agent::host::utc_datetime;
use vault_agent::memory::MemoryStore;
use vault_agent::{Error, Result};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Subcommand)]
pub enum Command {
    /// List the memories: id, kind, date saved, text.
    List(ListArgs),
    /// Forget one memory by its id, or every memory with --all.
    Forget(ForgetArgs),
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    vault: VaultArg,
}

#[derive(clap::Args)]
pub struct ForgetArgs {
    #[command(flatten)]
    vault: VaultArg,
    /// The memory to forget (as `memory list` shows it).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    id: Option<String>,
    /// Forget everything.
    #[arg(long)]
    all: bool,
}

pub async fn run(command: Command) -> Result<()> {
    match command {
        Command::List(args) => {
            let vault = args.vault.open()?;
            let store = MemoryStore::load(&vault).await?;
            if store.entries().is_empty() {
                outln!("no memories");
            }
            for entry in store.entries() {
                let date = match entry.created_ms {
                    0 => "-".to_string(),
                    ms => {
                        let (y, mo, d, ..) = utc_datetime(ms);
                        format!("{y:04}-{mo:02}-{d:02}")
                    }
                };
                outln!("{}\t{}\t{date}\t{}", entry.id, entry.kind.as_str(), entry.text);
            }
            Ok(())
        }
        Command::Forget(args) => {
            let vault = args.vault.open()?;
            let forgotten = MemoryStore::update(&vault, |store| match (&args.id, args.all) {
                (_, true) => {
                    let n = store.entries().len();
                    store.forget_all();
                    Ok(format!("forgot {n} memories"))
                }
                (Some(id), false) => Ok(format!("forgot {id}: {}", store.delete(id)?.text)),
                (None, false) => Err(Error::Invalid("name a memory to forget, or --all".into())),
            })
            .await?;
            outln!("{forgotten}");
            Ok(())
        }
    }
}
