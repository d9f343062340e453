//! `vault-agent notes --vault DIR`: lists the vault's Markdown notes.

use std::path::PathBuf;

use vault_agent::vault::{walk_files, FsVault, Vault, VaultPath};

#[derive(clap::Args)]
pub struct Args {
    /// The vault folder.
    #[arg(long)]
    vault: PathBuf,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = FsVault::open(&args.vault)?;
    let skip_hidden = |p: &VaultPath| p.name().is_some_and(|n| n.starts_with('.'));
    let files = walk_files(&vault as &dyn Vault, &VaultPath::root(), &skip_hidden).await?;
    for note in files.iter().filter(|p| p.extension() == Some("md")) {
        println!("{note}");
    }
    Ok(())
}
