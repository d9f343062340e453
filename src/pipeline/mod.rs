//! The ToolExecutionPipeline: the one road from a model's tool call to a tool, and the rules on
//! it. Each call passes, in order: schema validation, the repetition guard, path validation
//! (sandbox, ignore and protect lists), the mode's allow-list, approval, a checkpoint before any
//! write, execution with a timeout and cancellation, externalization of large results, and the
//! audit log.

mod approval;
mod audit;
mod checkpoint;
mod execution;
mod externalizer;
mod journal;
mod json_schema;
mod repetition;
mod retention;
mod undo;
mod validate;

pub(crate) use approval::ask_user;
pub use approval::ApprovalPolicy;
pub use audit::{AuditEntry, AuditLog, Outcome};
pub use checkpoint::{list_checkpoints, CheckpointStore, CheckpointSummary};
pub use execution::{CallOutcome, CallStatus, PipelineHost, PipelineSettings, ToolCall, ToolExecutionPipeline};
pub use externalizer::{sweep_orphans, Externalized, ResultExternalizer, DEFAULT_THRESHOLD, ORPHAN_AGE_MS};
pub use journal::{PipelineState, TurnJournal};
pub use json_schema::{JsonSchema, SchemaError};
pub use repetition::ToolRepetitionDetector;
pub use retention::{plan_prune, prune_tasks, release_results, RetentionPolicy};
pub use undo::{
    apply_undo, plan_undo, redo_checkpoint, redo_task, undo_task, KeptPath, SavedCopy, UndoChoice, UndoChoices,
    UndoConflict, UndoPlan, UndoReport,
};
pub use validate::SchemaValidator;

/// The agent's own folder in the vault.
pub const AGENT_FOLDER: &str = ".obsidian-agent";
/// Externalized tool results, one folder per task.
pub const TMP_FOLDER: &str = ".obsidian-agent/tmp";
/// Pre-write snapshots, one folder per task.
pub const CHECKPOINT_FOLDER: &str = ".obsidian-agent/checkpoints";
/// Audit logs, one JSONL file per task.
pub const LOG_FOLDER: &str = ".obsidian-agent/logs";
