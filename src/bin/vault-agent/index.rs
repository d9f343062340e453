//! `vault-agent index --vault DIR`: builds the search index and saves it to
//! `<vault>/.obsidian-agent/index/`.

use std::io::Write;

use vault_agent::host::SystemClock;
use vault_agent::search::{SearchIndex, ThreadParts};
use vault_agent::vault::skip_summary;

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    vault: VaultArg,
}

pub async fn run(args: Args) -> vault_agent::Result<()> {
    let vault = args.vault.open()?;
    let start = std::time::Instant::now();
    let mut last = 0;
    // A large vault is built in parts, one per spare core.
    let mut index = SearchIndex::build_in_parts(
        &vault,
        &SystemClock,
        &mut |p| {
            // A progress line on stderr at most every 10 %.
            if p.total > 0 && (p.done * 10 / p.total > last || p.done == p.total) {
                last = p.done * 10 / p.total;
                eprint!("\rindexing {}/{}", p.done, p.total);
                let _ = std::io::stderr().flush();
            }
        },
        Some(&ThreadParts),
    )
    .await?;
    eprintln!();
    index.persist(&vault).await?;
    for skipped in index.skipped() {
        eprintln!("skipped {skipped}");
    }
    let summary = skip_summary(index.skipped());
    outln!(
        "indexed {} notes in {:.2} s into {}{}",
        index.note_count(),
        start.elapsed().as_secs_f64(),
        args.vault.vault.join(vault_agent::search::INDEX_DIR).display(),
        if summary.is_empty() { String::new() } else { format!("; {summary}") }
    );
    Ok(())
}
