//! The `--vault DIR` option every command that works on a vault takes.

use std::path::PathBuf;

use vault_agent::vault::FsVault;

#[derive(clap::Args)]
pub struct VaultArg {
    /// The vault folder.
    #[arg(long)]
    pub vault: PathBuf,
}

impl VaultArg {
    /// The vault, opened.
    pub fn open(&self) -> vault_agent::Result<FsVault> {
        FsVault::open(&self.vault)
    }
}
