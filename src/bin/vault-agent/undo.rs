//! `vault-agent undo|redo --vault DIR [TASK]` and `vault-agent checkpoints --vault DIR`: what
//! the agent changed, and putting it back (or again).
//!
//! A file changed since the task left it is kept as it is unless `--restore PATH` (the version
//! from before the task) or `--copy PATH` (kept, and the version from before the task saved
//! beside it) says otherwise; `--plan` shows all of it without changing anything.

use std::rc::Rc;

use vault_agent::host::{utc_datetime, Clock, SystemClock};
use vault_agent::pipeline::{
    apply_undo, list_checkpoints, plan_undo, redo_checkpoint, redo_task, UndoChoice, UndoChoices, UndoPlan, UndoReport,
};
use vault_agent::{Error, Result};

use crate::out::outln;
use crate::vault_arg::VaultArg;

#[derive(clap::Args)]
pub struct UndoArgs {
    #[command(flatten)]
    vault: VaultArg,
    /// The task (default: the newest one not undone yet; for redo, the newest one undone).
    task: Option<String>,
    /// Only show what would happen, and which files changed since the task.
    #[arg(long)]
    plan: bool,
    /// A file changed since the task: put the version from before back anyway.
    #[arg(long = "restore", value_name = "PATH")]
    restore: Vec<String>,
    /// A file changed since the task: keep it, and save the version from before beside it.
    #[arg(long = "copy", value_name = "PATH")]
    copy: Vec<String>,
}

#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    vault: VaultArg,
}

/// `undo`, or with `redo` the undo of the task's undo.
pub async fn undo(args: UndoArgs, redo: bool) -> Result<()> {
    let vault = Rc::new(args.vault.open()?);
    let checkpoints = list_checkpoints(&*vault).await?;
    let task = match args.task {
        Some(task) => task,
        None => checkpoints
            .iter()
            .find(|c| !c.task_id.starts_with("undo-") && c.undone_ms.is_some() == redo)
            .map(|c| c.task_id.clone())
            .ok_or_else(|| Error::NotFound(if redo { "no undone task to redo" } else { "no task to undo" }.into()))?,
    };
    let checkpoint = if redo { redo_checkpoint(&task) } else { task.clone() };
    let verb = if redo { "redo" } else { "undo" };
    if args.plan {
        print_plan(&plan_undo(&*vault, &checkpoint).await?, verb);
        return Ok(());
    }
    let mut choices = UndoChoices::new();
    choices.extend(args.restore.into_iter().map(|p| (p, UndoChoice::Restore)));
    choices.extend(args.copy.into_iter().map(|p| (p, UndoChoice::SaveCopy)));
    let now = SystemClock.now_ms();
    let report = if redo {
        redo_task(vault, &task, &choices, now).await?
    } else {
        apply_undo(vault, &task, &choices, now).await?
    };
    print_report(&report);
    let dir = args.vault.vault.display();
    if redo {
        outln!("redid task {task}; to undo it again: vault-agent undo --vault {dir} {task}");
    } else {
        outln!("undid task {task}; to redo it: vault-agent redo --vault {dir} {task}");
    }
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(Error::Invalid(format!("{} paths could not be restored", report.failed.len())))
    }
}

fn print_plan(plan: &UndoPlan, verb: &str) {
    for path in &plan.restore {
        outln!("would restore {path}");
    }
    for path in &plan.remove {
        outln!("would move to the trash {path}");
    }
    for kept in &plan.kept {
        outln!("would keep {}: {}", kept.path, kept.reason);
    }
    for conflict in &plan.conflicts {
        let copy = conflict.copy_path.as_deref().map(|c| format!(", or --copy to save it as {c}")).unwrap_or_default();
        outln!("changed since: {} ({}); kept unless --restore{copy}", conflict.path, conflict.reason);
    }
    if plan.restore.is_empty() && plan.remove.is_empty() && plan.conflicts.is_empty() {
        outln!("nothing to {verb}: every path already is as it was");
    }
}

fn print_report(report: &UndoReport) {
    let (done, failed) = report_lines(report);
    for line in done {
        outln!("{line}");
    }
    for line in failed {
        eprintln!("{line}");
    }
}

/// What an undo did, a line per path ("restored Plan.md"), and the paths it could not restore.
pub(crate) fn report_lines(report: &UndoReport) -> (Vec<String>, Vec<String>) {
    let mut done = Vec::new();
    done.extend(report.restored.iter().map(|path| format!("restored {path}")));
    done.extend(report.recreated_folders.iter().map(|path| format!("recreated folder {path}")));
    done.extend(report.trashed.iter().map(|path| format!("moved to the trash {path}")));
    done.extend(report.kept.iter().map(|kept| format!("kept {}: {}", kept.path, kept.reason)));
    let failed = report.failed.iter().map(|(path, why)| format!("could not restore {path}: {why}")).collect();
    (done, failed)
}

pub async fn list(args: ListArgs) -> Result<()> {
    let vault = args.vault.open()?;
    for checkpoint in list_checkpoints(&vault).await? {
        let (y, mo, d, h, mi, _) = utc_datetime(checkpoint.created_ms);
        let undone = if checkpoint.undone_ms.is_some() { " (undone)" } else { "" };
        outln!(
            "{}  {y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC  {} paths{undone}: {}",
            checkpoint.task_id,
            checkpoint.paths.len(),
            checkpoint.paths.join(", ")
        );
    }
    Ok(())
}
