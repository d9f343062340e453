//! `vault-agent`: the core as a terminal program, over a folder on disk.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use std::path::PathBuf;
    use std::process::ExitCode;

    use clap::{Parser, Subcommand};
    use vault_agent::vault::{walk_files, FsVault, Vault, VaultPath};

    #[derive(Parser)]
    #[command(name = "vault-agent", version, about = "An AI agent for an Obsidian vault, in the terminal")]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Subcommand)]
    enum Command {
        /// List the vault's Markdown notes (hidden folders are skipped).
        Notes {
            /// The vault folder.
            #[arg(long)]
            vault: PathBuf,
        },
    }

    pub fn main() -> ExitCode {
        let cli = Cli::parse();
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                eprintln!("vault-agent: cannot start the async runtime: {e}");
                return ExitCode::FAILURE;
            }
        };
        match runtime.block_on(run(cli)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vault-agent: {e}");
                ExitCode::FAILURE
            }
        }
    }

    async fn run(cli: Cli) -> vault_agent::Result<()> {
        match cli.command {
            Command::Notes { vault } => {
                let vault = FsVault::open(&vault)?;
                let skip_hidden = |p: &VaultPath| p.name().is_some_and(|n| n.starts_with('.'));
                let files = walk_files(&vault as &dyn Vault, &VaultPath::root(), &skip_hidden).await?;
                for note in files.iter().filter(|p| p.extension() == Some("md")) {
                    println!("{note}");
                }
                Ok(())
            }
        }
    }
}
