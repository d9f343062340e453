//! MCP's stdio transport: one JSON-RPC message per line on a child process's stdin and
//! stdout.

use std::rc::Rc;

use async_trait::async_trait;
use futures::lock::Mutex;
use serde_json::Value;

use super::message::{Incoming, RpcError};
use super::transport::{response_to, Inbox, McpTransport};
use crate::cancel::{with_cancel, CancelToken};
use crate::host::LineProcess;
use crate::{Error, Result};

/// A server running as a child process.
pub struct Stdio {
    process: Rc<dyn LineProcess>,
    /// One request at a time owns stdout: it reads until its response, handing everything
    /// else to its inbox.
    turn: Mutex<()>,
}

impl Stdio {
    pub fn new(process: Rc<dyn LineProcess>) -> Self {
        Stdio { process, turn: Mutex::new(()) }
    }
}

#[async_trait(?Send)]
impl McpTransport for Stdio {
    async fn request(
        &self,
        id: u64,
        message: Value,
        inbox: Inbox<'_>,
        cancel: &CancelToken,
    ) -> Result<std::result::Result<Value, RpcError>> {
        let _turn = with_cancel(cancel, self.turn.lock()).await?;
        self.process.send_line(&message.to_string()).await?;
        loop {
            let line = with_cancel(cancel, self.process.next_line())
                .await??
                .ok_or_else(|| Error::Mcp(format!("the server process ended before answering request {id}")))?;
            let line = line.trim();
            // Servers must not print anything else on stdout, but some log there anyway: a
            // line that is not a JSON-RPC message is skipped, not fatal.
            if !line.starts_with(['{', '[']) {
                continue;
            }
            let Ok(messages) = Incoming::parse_all(line) else { continue };
            for incoming in messages {
                if response_to(id, &incoming) {
                    let Incoming::Response { outcome, .. } = incoming else { unreachable!() };
                    return Ok(outcome);
                }
                if let Some(reply) = inbox(incoming).await {
                    self.process.send_line(&reply.to_string()).await?;
                }
            }
        }
    }

    async fn send(&self, message: Value) -> Result<()> {
        self.process.send_line(&message.to_string()).await
    }

    async fn close(&self) {
        self.process.close().await;
    }
}
