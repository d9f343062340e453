//! How MCP messages travel: the one interface the client talks through, whatever carries
//! the bytes (Streamable HTTP, or a child process's stdio).

use async_trait::async_trait;
use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::message::{Incoming, RpcError};
use crate::cancel::CancelToken;
use crate::Result;

/// What the client does with a message that is not the response it waits for: notifications
/// and the server's own requests. For a request it returns the reply to send back, which may
/// take a while (a form the user fills in).
pub type Inbox<'a> = &'a dyn Fn(Incoming) -> LocalBoxFuture<'a, Option<Value>>;

/// A connection to one MCP server.
#[async_trait(?Send)]
pub trait McpTransport {
    /// Sends `message`, a request whose id is `id`, and waits for its response. Messages the
    /// server sends meanwhile go to `inbox`, and a reply it returns is sent back. When
    /// `cancel` fires the wait ends with [`crate::Error::Cancelled`].
    async fn request(
        &self,
        id: u64,
        message: Value,
        inbox: Inbox<'_>,
        cancel: &CancelToken,
    ) -> Result<std::result::Result<Value, RpcError>>;

    /// Sends a notification or a reply; nothing answers it.
    async fn send(&self, message: Value) -> Result<()>;

    /// Tells the transport which protocol version the session speaks (HTTP sends it as
    /// `MCP-Protocol-Version` on every later request).
    fn set_protocol_version(&self, _version: &str) {}

    /// Ends the session: HTTP sends `DELETE`, stdio ends the process. Best effort.
    async fn close(&self);
}

/// Whether `incoming` is the response to request `id` (ids compare as JSON: `1` is not
/// `"1"`).
pub(crate) fn response_to(id: u64, incoming: &Incoming) -> bool {
    matches!(incoming, Incoming::Response { id: got, .. } if got.as_u64() == Some(id))
}
