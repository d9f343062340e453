//! `vault-agent undo --vault DIR [TASK]` and `vault-agent checkpoints --vault DIR`: what the
//! agent changed, and putting it back.

use std::rc::Rc;

use vault_agent::host::{utc_datetime, Clock, SystemClock};
use vault_agent::pipeline::{list_checkpoints, undo_task};
use vault_agent::{Error, Result};

use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct UndoArgs {
    #[command(flatten)]
    vault: VaultArg,
    /// The task to undo (default: the newest one not undone yet).
    task: Option<String>,
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    vault: VaultArg,
}

pub async fn undo(args: UndoArgs) -> Result<()> {
    let vault = Rc::new(args.vault.open()?);
    let task = match args.task {
        Some(task) => task,
        None => list_checkpoints(&*vault)
            .await?
            .into_iter()
            .find(|c| c.undone_ms.is_none() && !c.task_id.starts_with("undo-"))
            .map(|c| c.task_id)
            .ok_or_else(|| Error::NotFound("no task to undo".into()))?,
    };
    let report = undo_task(vault, &task, SystemClock.now_ms()).await?;
    for path in &report.restored {
        println!("restored {path}");
    }
    for path in &report.recreated_folders {
        println!("recreated folder {path}");
    }
    for path in &report.trashed {
        println!("moved to the trash {path}");
    }
    for (path, why) in &report.failed {
        eprintln!("could not restore {path}: {why}");
    }
    println!(
        "undid task {task}; to redo it: vault-agent undo --vault {} {}",
        args.vault.vault.display(),
        report.undo_checkpoint
    );
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid(format!("{} paths could not be restored", report.failed.len())))
    }
}

pub async fn list(args: ListArgs) -> Result<()> {
    let vault = args.vault.open()?;
    for checkpoint in list_checkpoints(&vault).await? {
        let (y, mo, d, h, mi, _) = utc_datetime(checkpoint.created_ms);
        let undone = if checkpoint.undone_ms.is_some() { " (undone)" } else { "" };
        println!(
            "{}  {y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC  {} paths{undone}: {}",
            checkpoint.task_id,
            checkpoint.paths.len(),
            checkpoint.paths.join(", ")
        );
    }
    Ok(())
}
