//! `vault-agent memory list|forget --vault DIR`: what the agent remembers about the user and
//! the vault, the recipes it learned from finished tasks, and forgetting them.

use vault_agent::host::utc_datetime;
use vault_agent::memory::{MemoryStore, RecipeStore};
use vault_agent::{Error, Result};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Subcommand)]
pub enum Command {
    /// List the memories (id, kind, date saved, text), then the recipes (id, `recipe`, date
    /// last used, the request learned from, successes and failures, tools).
    List(ListArgs),
    /// Forget one memory or recipe by its id, or every memory and recipe with --all.
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
    /// The memory or recipe to forget (as `memory list` shows it).
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
            let recipes = RecipeStore::load(&vault).await?;
            if store.entries().is_empty() && recipes.recipes().is_empty() {
                outln!("no memories");
            }
            for entry in store.entries() {
                outln!("{}\t{}\t{}\t{}", entry.id, entry.kind.as_str(), date(entry.created_ms), entry.text);
            }
            for recipe in recipes.recipes() {
                outln!(
                    "{}\trecipe\t{}\t{}\t{} successes, {} failures\t{}",
                    recipe.id,
                    date(recipe.updated_ms),
                    recipe.request,
                    recipe.successes,
                    recipe.failures,
                    recipe.tools().join(", ")
                );
            }
            Ok(())
        }
        Command::Forget(args) => {
            let vault = args.vault.open()?;
            let recipe = args.id.as_ref().filter(|id| id.starts_with('r'));
            if let Some(id) = recipe {
                let mut recipes = RecipeStore::load(&vault).await?;
                let gone = recipes.delete(id).ok_or_else(|| Error::NotFound(format!("no recipe {id}")))?;
                recipes.save(&vault).await?;
                outln!("forgot {id}: {}", gone.request);
                return Ok(());
            }
            if args.all {
                let mut recipes = RecipeStore::load(&vault).await?;
                let n = recipes.recipes().len();
                recipes.forget_all();
                recipes.save(&vault).await?;
                outln!("forgot {n} recipes");
            }
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

/// `YYYY-MM-DD` of `ms`, or `-` when unknown (0).
fn date(ms: u64) -> String {
    match ms {
        0 => "-".to_string(),
        ms => {
            let (y, mo, d, ..) = utc_datetime(ms);
            format!("{y:04}-{mo:02}-{d:02}")
        }
    }
}
