//! A child process the host started, spoken to in lines: what MCP's stdio transport runs
//! over. Only desktop hosts have one (the CLI, and Obsidian on desktop through Node's
//! `child_process`); mobile hosts do not.

use async_trait::async_trait;

use crate::Result;

/// The stdin and stdout of one child process, line by line.
#[async_trait(?Send)]
pub trait LineProcess {
    /// Writes `line` and a newline to the process's stdin.
    async fn send_line(&self, line: &str) -> Result<()>;
    /// The next line the process wrote to stdout, without its newline; `None` once the
    /// process closed stdout (it ended).
    async fn next_line(&self) -> Result<Option<String>>;
    /// Ends the process: closes stdin, and kills it if it does not exit soon.
    async fn close(&self);
}

/// Starts child processes: the desktop host's power that mobile hosts lack.
#[async_trait(?Send)]
pub trait ProcessLauncher {
    /// Starts `command` with `args`, `env` added to the host's environment.
    async fn launch(
        &self,
        command: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<std::rc::Rc<dyn LineProcess>>;
}
