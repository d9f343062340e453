//! `vault-agent notes --vault DIR`: lists the vault's Markdown notes.

use vault_agent::vault::{list_notes, Vault};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = args.vault.open()?;
    for note in list_notes(&vault as &dyn Vault).await? {
        outln!("{note}");
    }
    Ok(())
}
