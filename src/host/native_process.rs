//! [`LineProcess`] over a real child process (tokio), for the CLI and native tests.

use std::cell::RefCell;
use std::process::Stdio;

use async_trait::async_trait;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::Mutex;

use super::LineProcess;
use crate::{Error, Result};

/// A child process started from a command line. Its stderr goes to ours, where a server's
/// log lines belong.
pub struct ChildProcess {
    child: RefCell<Option<Child>>,
    stdin: Mutex<Option<ChildStdin>>,
    stdout: Mutex<Lines<BufReader<ChildStdout>>>,
}

impl ChildProcess {
    /// Starts `program` with `args` (and `env` added to ours).
    pub fn spawn(program: &str, args: &[String], env: &[(String, String)]) -> Result<Self> {
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::Io { op: "start", path: program.to_string(), message: e.to_string() })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Io { op: "start", path: program.to_string(), message: "no pipe to the process".into() });
        };
        Ok(ChildProcess {
            child: RefCell::new(Some(child)),
            stdin: Mutex::new(Some(stdin)),
            stdout: Mutex::new(BufReader::new(stdout).lines()),
        })
    }
}

fn broken(op: &'static str, e: std::io::Error) -> Error {
    Error::Io { op, path: "child process".into(), message: e.to_string() }
}

#[async_trait(?Send)]
impl LineProcess for ChildProcess {
    async fn send_line(&self, line: &str) -> Result<()> {
        let mut stdin = self.stdin.lock().await;
        let stdin = stdin.as_mut().ok_or_else(|| Error::Mcp("the server process was closed".into()))?;
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        written.await.map_err(|e| broken("write to", e))
    }

    async fn next_line(&self) -> Result<Option<String>> {
        self.stdout.lock().await.next_line().await.map_err(|e| broken("read from", e))
    }

    async fn close(&self) {
        drop(self.stdin.lock().await.take());
        let child = self.child.borrow_mut().take();
        if let Some(mut child) = child {
            let waited = tokio::time::timeout(std::time::Duration::from_secs(2), child.wait()).await;
            if waited.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

/// Launches [`ChildProcess`]es.
pub struct NativeLauncher;

#[async_trait(?Send)]
impl super::ProcessLauncher for NativeLauncher {
    async fn launch(
        &self,
        command: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<std::rc::Rc<dyn LineProcess>> {
        Ok(std::rc::Rc::new(ChildProcess::spawn(command, args, env)?))
    }
}
