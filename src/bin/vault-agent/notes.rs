//! `vault-agent notes --vault DIR`: lists the vault's Markdown notes.

use vault_agent::vault::{walk_files, Vault, VaultPath};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = args.vault.open()?;
    let skip_hidden = |p: &VaultPath| p.name().is_some_and(|n| n.starts_with('.'));
    let files = walk_files(&vault as &dyn Vault, &VaultPath::root(), &skip_hidden).await?;
    for note in files.iter().filter(|p| p.extension() == Some("md")) {
        outln!("{note}");
    }
    Ok(())
}
