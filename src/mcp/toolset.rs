//! The MCP servers of a conversation: connected on first use, their tools listed and kept,
//! listed again when a server says they changed; their resources read through two tools of
//! their own (`list_mcp_resources`, `read_mcp_resource`) when any server offers them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{
    resource_attachment, resource_tools, ClientOffer, CredentialsSink, McpClient, McpPromptInfo, McpResourceInfo,
    McpServerConfig, McpTool, ResourcePart, ResourceServer,
};
use crate::cancel::CancelToken;
use crate::host::{Clock, HttpClient, ProcessLauncher};
use crate::tools::DynTool;

/// The longest note a server's `instructions` give the prompt.
const SERVER_NOTE_CHARS: usize = 2_000;

/// A server whose tools a task goes without, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpProblem {
    pub server: String,
    /// "MCP server notes is not available: …"
    pub message: String,
    /// It asks the user to sign in (again): the host can offer the sign-in.
    pub sign_in: bool,
}

/// A prompt and the server that offers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerPrompt {
    /// The server's name, as the user gave it.
    pub server: String,
    #[serde(flatten)]
    pub prompt: McpPromptInfo,
}

/// A resource and the server that offers it, as the chat's `@` picker lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerResource {
    /// The server's name, as the user gave it.
    pub server: String,
    #[serde(flatten)]
    pub resource: McpResourceInfo,
    /// How a message attaches it ([`resource_attachment`]).
    pub attachment: String,
}

/// The configured servers and their open sessions.
pub struct McpToolset {
    servers: Vec<McpServerConfig>,
    http: Rc<dyn HttpClient>,
    clock: Rc<dyn Clock>,
    launcher: Option<Rc<dyn ProcessLauncher>>,
    renewed: Option<CredentialsSink>,
    offer: ClientOffer,
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
        McpToolset {
            servers,
            http,
            clock,
            launcher,
            renewed: None,
            offer: ClientOffer::default(),
            sessions: RefCell::new(Vec::new()),
        }
    }

    /// Hands the credentials a session renews (a signed-in server's) to `sink`, for the host
    /// to keep.
    pub fn with_credentials_sink(mut self, sink: CredentialsSink) -> McpToolset {
        self.renewed = Some(sink);
        self
    }

    /// Declares `offer` to the servers (sampling by the task's model; the vault's folder as a
    /// root, to servers on this machine) from their next session on.
    pub fn with_offer(mut self, offer: ClientOffer) -> McpToolset {
        self.offer = offer;
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
        let mut tools: Vec<Rc<dyn DynTool>> =
            self.sessions.borrow().iter().flatten().flat_map(|s| s.tools.iter().cloned()).collect();
        if let Some((list, read)) = resource_tools(self.resource_servers()) {
            tools.push(Rc::new(list));
            tools.push(Rc::new(read));
        }
        (tools, problems)
    }

    /// What each connected server says about using it (its `instructions` at `initialize`),
    /// by server name, each cut at `SERVER_NOTE_CHARS` (2,000) characters.
    pub fn server_notes(&self) -> Vec<(String, String)> {
        let open = self.open_sessions().into_iter();
        open.filter_map(|(name, client)| {
            let text = client.info().instructions.as_deref()?.trim();
            let cut: String = text.chars().take(SERVER_NOTE_CHARS).collect();
            (!cut.is_empty()).then_some((name, cut))
        })
        .collect()
    }

    /// The connected servers that offer resources.
    fn resource_servers(&self) -> Vec<ResourceServer> {
        let trusted = |name: &str| self.servers.iter().any(|s| s.name == name && s.trust_read_only);
        let open = self.open_sessions().into_iter().filter(|(_, client)| client.has_resources());
        open.map(|(name, client)| ResourceServer { trusted: trusted(&name), name, client }).collect()
    }

    async fn open(&self, server: &McpServerConfig, index: usize, cancel: &CancelToken) -> crate::Result<Session> {
        // A session whose sign-in ended is not used again: a new one asks, and says so.
        let existing =
            self.sessions.borrow().get(index).cloned().flatten().map(|s| s.client).filter(|c| !c.signed_out());
        let client = match existing {
            Some(client) => client,
            None => {
                let (http, clock, launcher) = (self.http.clone(), self.clock.clone(), self.launcher.as_deref());
                let offer = self.offer.clone();
                Rc::new(server.connect(http, clock, launcher, self.renewed.clone(), offer, cancel).await?)
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

    /// Every prompt of every server that answers, with its server's name; a server that does
    /// not answer is a problem, as for [`McpToolset::tools`].
    pub async fn prompts(&self, cancel: &CancelToken) -> (Vec<ServerPrompt>, Vec<McpProblem>) {
        let list = |client: Rc<McpClient>| async move { client.list_prompts(cancel).await };
        let (listed, problems) = self.listed_by_each("prompts", cancel, list).await;
        let prompts = listed.into_iter().map(|(server, prompt)| ServerPrompt { server, prompt }).collect();
        (prompts, problems)
    }

    /// Every resource of every server that answers (templates aside: a person picks a
    /// resource, the model fills in templates), with how a message attaches it.
    pub async fn resources(&self, cancel: &CancelToken) -> (Vec<ServerResource>, Vec<McpProblem>) {
        let list = |client: Rc<McpClient>| async move { client.list_resources(cancel).await };
        let (listed, problems) = self.listed_by_each("resources", cancel, list).await;
        let resources = listed.into_iter().map(|(server, resource)| ServerResource {
            attachment: resource_attachment(&server, &resource.uri),
            server,
            resource,
        });
        (resources.collect(), problems)
    }

    /// What `list` gives for each server that answers, with the server's name; a server that
    /// does not answer, or fails to list its `what`, is a problem.
    async fn listed_by_each<T, F>(
        &self,
        what: &str,
        cancel: &CancelToken,
        list: impl Fn(Rc<McpClient>) -> F,
    ) -> (Vec<(String, T)>, Vec<McpProblem>)
    where
        F: std::future::Future<Output = crate::Result<Vec<T>>>,
    {
        let (_, mut problems) = self.tools(cancel).await;
        let mut items = Vec::new();
        for (server, client) in self.open_sessions() {
            match list(client).await {
                Ok(listed) => items.extend(listed.into_iter().map(|item| (server.clone(), item))),
                Err(e) => problems.push(McpProblem {
                    message: format!("MCP server {server} did not list its {what}: {e}"),
                    sign_in: matches!(e, crate::Error::McpSignIn(_)),
                    server,
                }),
            }
        }
        (items, problems)
    }

    /// The text of the prompt `name` of `server`, filled in with `arguments`.
    pub async fn prompt(
        &self,
        server: &str,
        name: &str,
        arguments: &BTreeMap<String, String>,
        cancel: &CancelToken,
    ) -> crate::Result<String> {
        self.client(server, cancel).await?.get_prompt(name, arguments, cancel).await
    }

    /// The resource at `uri` of `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: &CancelToken,
    ) -> crate::Result<Vec<ResourcePart>> {
        self.client(server, cancel).await?.read_resource(uri, cancel).await
    }

    /// The session with `server`, opened first if it is not (a chat restored from disk picks
    /// from lists an earlier session gave).
    async fn client(&self, server: &str, cancel: &CancelToken) -> crate::Result<Rc<McpClient>> {
        let open = |toolset: &McpToolset| toolset.open_sessions().into_iter().find(|(s, _)| s == server);
        let found = match open(self) {
            Some(found) => Some(found),
            None => {
                self.tools(cancel).await;
                open(self)
            }
        };
        let (_, client) = found.ok_or_else(|| crate::Error::Mcp(format!("MCP server {server} is not connected")))?;
        Ok(client)
    }

    /// The servers connected now, by name.
    fn open_sessions(&self) -> Vec<(String, Rc<McpClient>)> {
        let sessions = self.sessions.borrow();
        let open = sessions.iter().enumerate().filter_map(|(i, s)| Some((self.servers.get(i)?, s.as_ref()?)));
        open.map(|(server, session)| (server.name.clone(), session.client.clone())).collect()
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
