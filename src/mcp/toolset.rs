//! The MCP servers of a conversation: connected on first use, their tools listed and kept,
//! listed again when a server says they changed.

use std::cell::RefCell;
use std::rc::Rc;

use super::{CredentialsSink, McpClient, McpServerConfig, McpTool};
use crate::cancel::CancelToken;
use crate::host::{Clock, HttpClient, ProcessLauncher};
use crate::tools::DynTool;

/// A server whose tools a task goes without, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpProblem {
    pub server: String,
    /// "MCP server notes is not available: …"
    pub message: String,
    /// It asks the user to sign in (again): the host can offer the sign-in.
    pub sign_in: bool,
}

/// The configured servers and their open sessions.
pub struct McpToolset {
    servers: Vec<McpServerConfig>,
    http: Rc<dyn HttpClient>,
    clock: Rc<dyn Clock>,
    launcher: Option<Rc<dyn ProcessLauncher>>,
    renewed: Option<CredentialsSink>,
    sessions: RefCell<Vec<Option<Session>>>,
}

#[derive(Clone)]
struct Session {
    client: Rc<McpClient>,
    tools: Vec<Rc<dyn DynTool>>,
}

impl McpToolset {
    /// The enabled servers of `servers`. Without `launcher` (mobile), stdio servers fail to
    /// connect with an error that says they run on desktop only.
    pub fn new(
        servers: Vec<McpServerConfig>,
        http: Rc<dyn HttpClient>,
        clock: Rc<dyn Clock>,
        launcher: Option<Rc<dyn ProcessLauncher>>,
    ) -> McpToolset {
        let servers = servers.into_iter().filter(|s| s.enabled).collect();
        McpToolset { servers, http, clock, launcher, renewed: None, sessions: RefCell::new(Vec::new()) }
    }

    /// Hands the credentials a session renews (a signed-in server's) to `sink`, for the host
    /// to keep.
    pub fn with_credentials_sink(mut self, sink: CredentialsSink) -> McpToolset {
        self.renewed = Some(sink);
        self
    }

    /// Whether any server is configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Every enabled tool of every server that answers, and a problem for each server that
    /// does not (it is tried again next time). A server whose list changed is listed again.
    pub async fn tools(&self, cancel: &CancelToken) -> (Vec<Rc<dyn DynTool>>, Vec<McpProblem>) {
        let mut problems = Vec::new();
        for (index, server) in self.servers.iter().enumerate() {
            let stale = match self.sessions.borrow().get(index) {
                Some(Some(session)) => session.client.tools_changed() || session.client.signed_out(),
                _ => true,
            };
            if !stale {
                continue;
            }
            match self.open(server, index, cancel).await {
                Ok(session) => self.put(index, Some(session)),
                Err(e) => {
                    let (message, sign_in) = match e {
                        crate::Error::McpSignIn(what) => (what, true),
                        e => (e.to_string(), false),
                    };
                    problems.push(McpProblem {
                        server: server.name.clone(),
                        message: format!("MCP server {} is not available: {message}", server.name),
                        sign_in,
                    });
                    self.put(index, None);
                }
            }
        }
        let tools = self.sessions.borrow().iter().flatten().flat_map(|s| s.tools.iter().cloned()).collect();
        (tools, problems)
    }

    async fn open(&self, server: &McpServerConfig, index: usize, cancel: &CancelToken) -> crate::Result<Session> {
        // A session whose sign-in ended is not used again: a new one asks, and says so.
        let existing =
            self.sessions.borrow().get(index).cloned().flatten().map(|s| s.client).filter(|c| !c.signed_out());
        let client = match existing {
            Some(client) => client,
            None => {
                let (http, clock, launcher) = (self.http.clone(), self.clock.clone(), self.launcher.as_deref());
                Rc::new(server.connect(http, clock, launcher, self.renewed.clone(), cancel).await?)
            }
        };
        let listed = client.list_tools(cancel).await?;
        let tools = listed
            .iter()
            .filter(|t| !server.disabled_tools.contains(&t.name))
            .map(|t| Rc::new(McpTool::new(client.clone(), t, server.trust_read_only)) as Rc<dyn DynTool>)
            .collect();
        Ok(Session { client, tools })
    }

    fn put(&self, index: usize, session: Option<Session>) {
        let mut sessions = self.sessions.borrow_mut();
        if sessions.len() <= index {
            sessions.resize_with(index + 1, || None);
        }
        sessions[index] = session;
    }

    /// Ends every open session.
    pub async fn close(&self) {
        let sessions: Vec<Session> = self.sessions.borrow_mut().drain(..).flatten().collect();
        for session in sessions {
            session.client.close().await;
        }
    }
}
