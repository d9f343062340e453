//! `vault-agent index --vault DIR`: builds the search index and saves it to
//! `<vault>/.obsidian-agent/index/`.

use std::io::Write;
use std::path::PathBuf;

use vault_agent::host::SystemClock;
use vault_agent::search::SearchIndex;
use vault_agent::vault::FsVault;

#[derive(clap::Args)]
pub struct Args {
    /// The vault folder.
    #[arg(long)]
    vault: PathBuf,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = FsVault::open(&args.vault)?;
    let start = std::time::Instant::now();
    let mut last = 0;
    let mut index = SearchIndex::build(&vault, &SystemClock, &mut |p| {
        // A progress line on stderr at most every 10 %.
        if p.total > 0 && (p.done * 10 / p.total > last || p.done == p.total) {
            last = p.done * 10 / p.total;
            eprint!("\rindexing {}/{}", p.done, p.total);
            let _ = std::io::stderr().flush();
        }
    })
    .await?;
    eprintln!();
    index.persist(&vault).await?;
    println!(
        "indexed {} notes in {:.2} s into {}",
        index.note_count(),
        start.elapsed().as_secs_f64(),
        args.vault.join(vault_agent::search::INDEX_DIR).display()
    );
    Ok(())
}
