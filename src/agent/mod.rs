//! The agent: [`AgentTask::run`], the loop that calls the model, runs the tools it asks for
//! through the pipeline, and feeds the results back until the task is done.

mod config;
mod conversation;
mod hooks;
mod mode;
mod task;

pub use config::AgentConfig;
pub use conversation::Conversation;
pub use hooks::{CondenseHook, HookContext, MemoryFlush};
pub use mode::Mode;
pub use task::{new_task_id, AgentTask, TaskSetup};
