//! How long what tasks leave behind is kept: checkpoints and audit logs are pruned by age and
//! count; externalized results live as long as their chat is open.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{CHECKPOINT_FOLDER, LOG_FOLDER, TMP_FOLDER};
use crate::vault::{Vault, VaultPath};
use crate::Result;

/// What is kept of finished tasks' checkpoints and audit logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct RetentionPolicy {
    /// A task older than this (by its newest file) is pruned. 0: no age limit.
    pub max_age_days: u32,
    /// Only the newest this many tasks are kept. 0: no count limit.
    pub max_tasks: u32,
}

impl Default for RetentionPolicy {
    fn default() -> Self {
        RetentionPolicy { max_age_days: 30, max_tasks: 200 }
    }
}

const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// Which of `tasks` (task id, last activity in ms) to prune at `now_ms`: those older than the
/// age limit, and those past the newest `max_tasks` — never one in `keep` (the open chat's
/// tasks, interrupted ones), nor the undo checkpoint (`undo-<id>`) of one kept. Pure; the
/// result is sorted.
pub fn plan_prune(tasks: &[(String, u64)], now_ms: u64, policy: RetentionPolicy, keep: &[String]) -> Vec<String> {
    let kept = |id: &str| keep.iter().any(|k| k == id || id.strip_prefix("undo-") == Some(k.as_str()));
    let mut newest_first: Vec<&(String, u64)> = tasks.iter().collect();
    crate::sort::sort_by(&mut newest_first, |a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    let cutoff = (policy.max_age_days > 0).then(|| now_ms.saturating_sub(u64::from(policy.max_age_days) * DAY_MS));
    let mut pruned: Vec<String> = newest_first
        .iter()
        .enumerate()
        .filter(|(rank, (_, at))| {
            let too_many = policy.max_tasks > 0 && *rank >= policy.max_tasks as usize;
            let too_old = cutoff.is_some_and(|cutoff| *at < cutoff);
            too_many || too_old
        })
        .map(|(_, (id, _))| id.clone())
        .filter(|id| !kept(id))
        .collect();
    crate::sort::sort(&mut pruned);
    pruned
}

/// Applies [`plan_prune`] to the vault: every task with a checkpoint
/// (`.obsidian-agent/checkpoints/<id>/`) or an audit log (`.obsidian-agent/logs/<id>.jsonl`),
/// dated by its newest file; the pruned ones' checkpoint folders and logs are removed. Returns
/// the pruned task ids.
pub async fn prune_tasks(
    vault: &dyn Vault,
    now_ms: u64,
    policy: RetentionPolicy,
    keep: &[String],
) -> Result<Vec<String>> {
    let checkpoints = VaultPath::parse(CHECKPOINT_FOLDER)?;
    let logs = VaultPath::parse(LOG_FOLDER)?;
    let mut tasks: Vec<(String, u64)> = Vec::new();
    let mut note = |id: &str, at: u64| match tasks.iter_mut().find(|(t, _)| t == id) {
        Some(entry) => entry.1 = entry.1.max(at),
        None => tasks.push((id.to_string(), at)),
    };
    if vault.stat(&checkpoints).await?.is_some() {
        for folder in vault.list(&checkpoints).await?.folders {
            let Some(id) = folder.name() else { continue };
            let listing = vault.list(&folder).await?;
            let mut newest = vault.stat(&folder).await?.map_or(0, |s| s.mtime);
            for file in &listing.files {
                newest = newest.max(vault.stat(file).await?.map_or(0, |s| s.mtime));
            }
            note(id, newest);
        }
    }
    if vault.stat(&logs).await?.is_some() {
        for file in vault.list(&logs).await?.files {
            let Some(id) = file.name().and_then(|n| n.strip_suffix(".jsonl")) else { continue };
            note(id, vault.stat(&file).await?.map_or(0, |s| s.mtime));
        }
    }
    let pruned = plan_prune(&tasks, now_ms, policy, keep);
    for id in &pruned {
        for path in [checkpoints.join(id)?, logs.join(&format!("{id}.jsonl"))?] {
            if vault.stat(&path).await?.is_some() {
                vault.remove(&path).await?;
            }
        }
    }
    Ok(pruned)
}

/// Removes the externalized results of `task_ids` (`.obsidian-agent/tmp/<id>/`, and their
/// sub-tasks' `<id>.<n>/`): their chat was closed or deleted, so no answer points to them any
/// more. Missing folders are fine.
pub async fn release_results(vault: &dyn Vault, task_ids: &[String]) -> Result<()> {
    let tmp = VaultPath::parse(TMP_FOLDER)?;
    let folders = match vault.list(&tmp).await {
        Ok(listing) => listing.folders,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(e),
    };
    for folder in folders {
        let Some(name) = folder.name() else { continue };
        let released = task_ids
            .iter()
            .any(|id| name == id.as_str() || name.strip_prefix(id.as_str()).is_some_and(|rest| rest.starts_with('.')));
        if released {
            vault.remove(&folder).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn old_tasks_and_those_past_the_count_are_pruned_but_never_kept_ones() {
        let now = 100 * DAY_MS;
        let tasks = vec![
            ("a".to_string(), now - 40 * DAY_MS),
            ("b".to_string(), now - 20 * DAY_MS),
            ("c".to_string(), now - 2 * DAY_MS),
            ("d".to_string(), now - DAY_MS),
            ("undo-a".to_string(), now - 45 * DAY_MS),
        ];
        let policy = RetentionPolicy { max_age_days: 30, max_tasks: 2 };
        assert_eq!(plan_prune(&tasks, now, policy, &[]), ids(&["a", "b", "undo-a"]));
        assert_eq!(plan_prune(&tasks, now, policy, &ids(&["a"])), ids(&["b"]), "a kept task and its undo stay");
        let no_limits = RetentionPolicy { max_age_days: 0, max_tasks: 0 };
        assert!(plan_prune(&tasks, now, no_limits, &[]).is_empty());
        assert_eq!(plan_prune(&tasks, now, RetentionPolicy::default(), &[]), ids(&["a", "undo-a"]));
    }
}
