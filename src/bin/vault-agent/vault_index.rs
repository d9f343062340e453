//! The vault's saved index, as the commands that search use it.

use vault_agent::host::SystemClock;
use vault_agent::search::{LoadOutcome, SearchIndex};
use vault_agent::vault::FsVault;

/// The saved index brought up to date with the vault (built when missing, stale or corrupt),
/// saved again when anything changed. Saving is a convenience for the next run: a read-only
/// vault still gets its index.
pub async fn current_index(vault: &FsVault) -> vault_agent::Result<SearchIndex> {
    let (mut index, outcome) = SearchIndex::load_or_build(vault, &SystemClock, &mut |_| {}).await?;
    let changed = index.sync(vault, &SystemClock, &mut |_| {}).await?;
    if let LoadOutcome::Built { reason } = &outcome {
        eprintln!("vault-agent: indexed the vault ({reason})");
    }
    if changed > 0 || outcome != LoadOutcome::Loaded {
        if let Err(e) = index.persist(vault).await {
            eprintln!("vault-agent: could not save the index: {e}");
        }
    }
    Ok(index)
}
