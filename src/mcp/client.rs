//! An MCP client session: the handshake, the server's tools, prompts and resources, calls to
//! its tools, and what it asks of the client meanwhile: forms for the user, replies from the
//! user's model, the folders it may work in.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::ready;

use base64::Engine;
use futures::future::LocalBoxFuture;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use ts_rs::TS;

use super::elicitation;
use super::features::{ClientFeatures, ClientOffer, NoForms};
use super::message::{self, Incoming, RpcError, INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::sampling::{self, SamplingOutcome};
use super::transport::McpTransport;
use crate::cancel::{with_cancel, CancelToken};
use crate::protocol::FormAction;
use crate::{Error, Result};

/// The protocol versions this client speaks, newest first; the first is what it asks for.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How many pages of `tools/list` are read before the list is called endless.
const MAX_PAGES: usize = 100;

/// What the server said about itself at `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerInfo {
    pub protocol_version: String,
    pub name: String,
    pub version: String,
    /// The server's instructions for the model, if it sent any.
    pub instructions: Option<String>,
    pub capabilities: Value,
}

/// One tool a server offers, as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// The JSON Schema of the arguments.
    #[ts(type = "unknown")]
    pub input_schema: Value,
    #[serde(default)]
    pub annotations: Option<ToolAnnotations>,
}

/// A prompt a server offers (`prompts/list`): a request the user can start from, with the
/// values it asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptInfo {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub arguments: Vec<PromptArgument>,
}

/// A resource a server offers (`resources/list`): data read by its URI, such as a file, a
/// page or a record of the service the server fronts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceInfo {
    pub uri: String,
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub mime_type: Option<String>,
    /// The size in bytes, if the server knows it.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub size: Option<u64>,
}

/// Resources a server reads by a URI the reader fills in (`resources/templates/list`): an
/// RFC 6570 template such as `notes://{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceTemplate {
    pub uri_template: String,
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub mime_type: Option<String>,
}

/// One part of a read resource (`resources/read`): text, or bytes (sent as base64).
#[derive(Debug, Clone, PartialEq)]
pub struct ResourcePart {
    pub uri: String,
    pub mime_type: Option<String>,
    pub body: ResourceBody,
}

/// A resource part's content.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceBody {
    Text(String),
    Bytes(Vec<u8>),
}

/// What a server offers, as the settings' test shows it: its tools, and how many prompts and
/// resources beside them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpOffer {
    pub tools: Vec<McpToolInfo>,
    pub prompts: u32,
    pub resources: u32,
}

/// A value a prompt asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    pub name: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
}

/// A server's hints about a tool. Hints, not promises: only the user's trust in the server
/// lets one skip an approval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default)]
    pub read_only_hint: Option<bool>,
    #[serde(default)]
    pub destructive_hint: Option<bool>,
    #[serde(default)]
    pub open_world_hint: Option<bool>,
}

impl McpToolInfo {
    /// Whether the server says the tool only reads.
    pub fn read_only(&self) -> bool {
        self.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false)
    }
}

/// A progress notification for a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// What a tool call returned, as text for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub text: String,
    /// The server marked the result as an error (`isError`): the model should see it and
    /// may try again differently.
    pub is_error: bool,
    /// The result's images, audio and embedded binary resources, decoded, in order (the text
    /// names each): a model that takes images or PDFs gets those.
    pub parts: Vec<ResourcePart>,
}

/// A session with one server. Requests are numbered from 1.
pub struct McpClient {
    server_name: String,
    transport: Box<dyn McpTransport>,
    next_id: Cell<u64>,
    info: ServerInfo,
    tools_changed: Cell<bool>,
    /// A request was refused for want of a sign-in (or one that ended).
    signed_out: Cell<bool>,
    /// Progress reports for the call under way, by its progress token.
    progress: RefCell<Vec<Progress>>,
    /// What the session declared it offers the server.
    offer: ClientOffer,
}

impl McpClient {
    /// Opens a session: `initialize` with version negotiation, then `notifications/initialized`.
    /// A server that answers with a version this client does not speak is refused and closed.
    /// `offer`: the client features declared beside forms (sampling, roots).
    pub async fn connect(
        server_name: impl Into<String>,
        transport: Box<dyn McpTransport>,
        offer: ClientOffer,
        cancel: &CancelToken,
    ) -> Result<McpClient> {
        let server_name = server_name.into();
        let answer = |incoming| -> LocalBoxFuture<'_, Option<Value>> { Box::pin(ready(answer_ping(incoming))) };
        let outcome = transport.request(1, initialize_request(1, &offer), &answer, cancel).await;
        let result = match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => return Err(Error::Mcp(format!("{server_name}: initialize failed: {e}"))),
            Err(Error::Mcp(e)) => return Err(Error::Mcp(format!("{server_name}: {e}"))),
            Err(e) => return Err(e),
        };
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default().to_string();
        if !PROTOCOL_VERSIONS.contains(&version.as_str()) {
            transport.close().await;
            return Err(Error::Mcp(format!(
                "{server_name}: the server speaks MCP version {version:?}; this client speaks {}",
                PROTOCOL_VERSIONS.join(", ")
            )));
        }
        transport.set_protocol_version(&version);
        let server = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        let info = ServerInfo {
            protocol_version: version,
            name: server.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
            version: server.get("version").and_then(Value::as_str).unwrap_or_default().to_string(),
            instructions: result.get("instructions").and_then(Value::as_str).map(str::to_string),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
        };
        transport.send(message::notification("notifications/initialized", json!({}))).await?;
        Ok(McpClient {
            server_name,
            transport,
            next_id: Cell::new(2),
            info,
            tools_changed: Cell::new(false),
            signed_out: Cell::new(false),
            progress: RefCell::new(Vec::new()),
            offer,
        })
    }

    /// The name the user gave this server.
    pub fn server_name(&self) -> &str {
        &self.server_name
    }

    /// What the server said about itself.
    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    /// Whether the server said its tools changed (`notifications/tools/list_changed`) since
    /// the last [`McpClient::list_tools`].
    pub fn tools_changed(&self) -> bool {
        self.tools_changed.get()
    }

    /// Whether a request was refused for want of a sign-in since the session opened: a new
    /// session is needed (after the user signs in).
    pub fn signed_out(&self) -> bool {
        self.signed_out.get()
    }

    /// Every tool the server offers, all pages read.
    pub async fn list_tools(&self, cancel: &CancelToken) -> Result<Vec<McpToolInfo>> {
        self.tools_changed.set(false);
        self.list("tools", cancel).await
    }

    /// Every prompt the server offers (none when it says it has no prompts), all pages read.
    pub async fn list_prompts(&self, cancel: &CancelToken) -> Result<Vec<McpPromptInfo>> {
        if self.info.capabilities.get("prompts").is_none() {
            return Ok(Vec::new());
        }
        self.list("prompts", cancel).await
    }

    /// The prompt `name` filled in with `arguments`: the text of its messages, in order.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        cancel: &CancelToken,
    ) -> Result<String> {
        let got = self.call("prompts/get", json!({ "name": name, "arguments": arguments }), cancel).await?;
        let messages = got.get("messages").and_then(Value::as_array).into_iter().flatten();
        let parts: Vec<String> = messages
            .filter_map(|m| m.get("content"))
            .flat_map(|c| if let Value::Array(all) = c { all.clone() } else { vec![c.clone()] })
            .map(|content| render_result(&json!({ "content": [content] })).text)
            .filter(|text| !text.trim().is_empty())
            .collect();
        Ok(parts.join("\n\n"))
    }

    /// Whether the server offers resources (it declared the capability).
    pub fn has_resources(&self) -> bool {
        self.info.capabilities.get("resources").is_some()
    }

    /// Every resource the server lists (none when it offers none), all pages read.
    pub async fn list_resources(&self, cancel: &CancelToken) -> Result<Vec<McpResourceInfo>> {
        if !self.has_resources() {
            return Ok(Vec::new());
        }
        self.list_of("resources/list", "resources", cancel).await
    }

    /// Every resource template the server lists (none when it offers no resources). A server
    /// that has resources but no templates may not know the method: that reads as none.
    pub async fn list_resource_templates(&self, cancel: &CancelToken) -> Result<Vec<McpResourceTemplate>> {
        if !self.has_resources() {
            return Ok(Vec::new());
        }
        match self.list_of("resources/templates/list", "resourceTemplates", cancel).await {
            // `call`'s error says the code as `RpcError` displays it.
            Err(Error::Mcp(e)) if e.ends_with(&format!("(code {METHOD_NOT_FOUND})")) => Ok(Vec::new()),
            other => other,
        }
    }

    /// The resource at `uri`: its parts, in the server's order. Bytes that are not valid base64
    /// are an error, as is a part with neither text nor bytes.
    pub async fn read_resource(&self, uri: &str, cancel: &CancelToken) -> Result<Vec<ResourcePart>> {
        let read = self.call("resources/read", json!({ "uri": uri }), cancel).await?;
        let contents = read.get("contents").and_then(Value::as_array).into_iter().flatten();
        contents.map(|part| self.resource_part(uri, part)).collect()
    }

    fn resource_part(&self, asked: &str, part: &Value) -> Result<ResourcePart> {
        let malformed =
            |why: &str| Error::Mcp(format!("{}: resources/read of {asked} is malformed: {why}", self.server_name));
        let text = |key: &str| part.get(key).and_then(Value::as_str);
        let body = match (text("text"), text("blob")) {
            (Some(body), _) => ResourceBody::Text(body.to_string()),
            (None, Some(blob)) => ResourceBody::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(blob.trim())
                    .map_err(|e| malformed(&format!("its bytes are not base64 ({e})")))?,
            ),
            (None, None) => return Err(malformed("a part has neither text nor blob")),
        };
        Ok(ResourcePart {
            uri: text("uri").unwrap_or(asked).to_string(),
            mime_type: text("mimeType").map(str::to_string),
            body,
        })
    }

    /// The server's tools, and how many prompts and resources it lists beside them. A server
    /// that fails to list its prompts or resources offers none of them here: the tools are what
    /// the test is for.
    pub async fn offer(&self, cancel: &CancelToken) -> Result<McpOffer> {
        let tools = self.list_tools(cancel).await?;
        let prompts = self.list_prompts(cancel).await.map_or(0, |p| p.len());
        let resources = self.list_resources(cancel).await.map_or(0, |r| r.len());
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(McpOffer { tools, prompts: count(prompts), resources: count(resources) })
    }

    /// Every item of `what`'s list (`tools/list`, `prompts/list`), all pages read.
    async fn list<T: serde::de::DeserializeOwned>(&self, what: &str, cancel: &CancelToken) -> Result<Vec<T>> {
        self.list_of(&format!("{what}/list"), what, cancel).await
    }

    /// Every item under `key` of `method`'s pages, all pages read.
    async fn list_of<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        key: &str,
        cancel: &CancelToken,
    ) -> Result<Vec<T>> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let page = self.call(method, params, cancel).await?;
            let listed = page.get(key).cloned().unwrap_or(Value::Array(Vec::new()));
            let listed: Vec<T> = serde_json::from_value(listed)
                .map_err(|e| Error::Mcp(format!("{}: {method} is malformed: {e}", self.server_name)))?;
            items.extend(listed);
            cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_string);
            if cursor.is_none() {
                return Ok(items);
            }
        }
        Err(Error::Mcp(format!("{}: {method} did not end after {MAX_PAGES} pages", self.server_name)))
    }

    /// Calls the tool `name`. Progress reports go to `on_progress` as they arrive, and a form
    /// or a reply from the model that the server asks for meanwhile to `forms`. When `cancel`
    /// fires the server is told (`notifications/cancelled`) and the call ends with
    /// [`Error::Cancelled`].
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
        on_progress: &dyn Fn(&Progress),
        forms: &dyn ClientFeatures,
        cancel: &CancelToken,
    ) -> Result<CallOutcome> {
        let id = self.take_id();
        let token = format!("vault-agent-{id}");
        let params = json!({ "name": name, "arguments": arguments, "_meta": { "progressToken": token } });
        let inbox = |incoming: Incoming| -> LocalBoxFuture<'_, Option<Value>> {
            if let Incoming::Notification { method, params } = &incoming {
                if method == "notifications/progress"
                    && params.get("progressToken").and_then(Value::as_str) == Some(&token)
                {
                    let progress = Progress {
                        progress: params.get("progress").and_then(Value::as_f64).unwrap_or(0.0),
                        total: params.get("total").and_then(Value::as_f64),
                        message: params.get("message").and_then(Value::as_str).map(str::to_string),
                    };
                    on_progress(&progress);
                    self.progress.borrow_mut().push(progress);
                    return Box::pin(ready(None));
                }
            }
            Box::pin(self.respond(incoming, forms))
        };
        let request = message::request(id, "tools/call", params);
        let outcome =
            match with_cancel(cancel, self.transport.request(id, request, &inbox, cancel)).await.and_then(|r| r) {
                Ok(outcome) => outcome,
                Err(Error::Cancelled) => {
                    let cancelled = json!({ "requestId": id, "reason": "The user stopped the task" });
                    let _ = self.transport.send(message::notification("notifications/cancelled", cancelled)).await;
                    return Err(Error::Cancelled);
                }
                Err(e) => return Err(self.mcp_error(e)),
            };
        match outcome {
            Ok(result) => Ok(render_result(&result)),
            // The call needs the user to open a page first (a sign-in to a service the server
            // fronts, say): they are shown it now, and the model may call again once they are done.
            Err(e) if e.code == elicitation::URL_REQUIRED => Ok(pages_first(&e, forms).await),
            // A protocol-level error (unknown tool, invalid arguments) is something the
            // model can act on, like a tool's own error.
            Err(e) => Ok(CallOutcome {
                text: format!("The MCP server refused the call: {e}"),
                is_error: true,
                parts: Vec::new(),
            }),
        }
    }

    /// Ends the session.
    pub async fn close(&self) {
        self.transport.close().await;
    }

    fn take_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    fn mcp_error(&self, error: Error) -> Error {
        match error {
            Error::Mcp(e) => Error::Mcp(format!("{}: {e}", self.server_name)),
            Error::McpSignIn(e) => {
                self.signed_out.set(true);
                Error::McpSignIn(e)
            }
            other => other,
        }
    }

    async fn call(&self, method: &str, params: Value, cancel: &CancelToken) -> Result<Value> {
        let id = self.take_id();
        // Only a tool call has a user to fill in a form.
        let inbox =
            |incoming: Incoming| -> LocalBoxFuture<'_, Option<Value>> { Box::pin(self.respond(incoming, &NoForms)) };
        let outcome = self.transport.request(id, message::request(id, method, params), &inbox, cancel).await;
        match outcome.map_err(|e| self.mcp_error(e))? {
            Ok(result) => Ok(result),
            Err(e) => Err(Error::Mcp(format!("{}: {method} failed: {e}", self.server_name))),
        }
    }

    /// Notifications and server requests that arrive while we wait for a response; a form or
    /// a reply from the model that the server asks for goes to `forms`.
    async fn respond(&self, incoming: Incoming, forms: &dyn ClientFeatures) -> Option<Value> {
        match incoming {
            Incoming::Notification { method, .. } if method == "notifications/tools/list_changed" => {
                self.tools_changed.set(true);
                None
            }
            Incoming::Request { id, method, params, field_order } if method == elicitation::FORM_METHOD => {
                let result = match elicitation::read_request(&params, &field_order) {
                    Ok(asked) => Ok(elicitation::reply(&asked, &forms.fill(asked.clone()).await)),
                    Err(message) => Err(RpcError { code: INVALID_PARAMS, message, data: None }),
                };
                Some(message::response(&id, result))
            }
            Incoming::Request { id, method, params, .. } if method == sampling::METHOD && self.offer.sampling => {
                let result = match sampling::read_request(&params) {
                    Ok(request) => match forms.sample(request).await {
                        SamplingOutcome::Reply(reply) => Ok(sampling::reply(&reply)),
                        SamplingOutcome::Declined => Err(RpcError {
                            code: sampling::USER_DECLINED,
                            message: "The user declined the request".into(),
                            data: None,
                        }),
                        SamplingOutcome::Failed(message) => Err(RpcError { code: INTERNAL_ERROR, message, data: None }),
                    },
                    Err(message) => Err(RpcError { code: INVALID_PARAMS, message, data: None }),
                };
                Some(message::response(&id, result))
            }
            Incoming::Request { id, method, .. } if method == "roots/list" && !self.offer.roots.is_empty() => {
                Some(message::response(&id, Ok(self.offer.roots_list())))
            }
            other => answer_ping(other),
        }
    }
}

/// A call refused until the user opens the pages of `error` (`URLElicitationRequiredError`):
/// each is shown to the user through `forms`, and the model is told what they chose.
async fn pages_first(error: &RpcError, forms: &dyn ClientFeatures) -> CallOutcome {
    let asked = error.data.as_ref().and_then(|d| d.get("elicitations")).and_then(Value::as_array);
    let mut told = Vec::new();
    // A few pages at most: a server cannot bury the chat in cards.
    for params in asked.into_iter().flatten().take(3) {
        let said = match elicitation::read_request(params, &[]) {
            Ok(asked) => match asked.page.as_ref().map(|page| page.host.clone()) {
                Some(host) => match forms.fill(asked).await.action {
                    FormAction::Accept => format!("the user opened the page at {host} in their browser"),
                    FormAction::Decline => format!("the user declined to open the page at {host}"),
                    FormAction::Cancel => format!("the page at {host} was not opened"),
                },
                None => "the server asked for a form where only a page may be asked".to_string(),
            },
            Err(why) => format!("the server's page could not be offered: {why}"),
        };
        told.push(said);
    }
    if told.is_empty() {
        told.push("the server named no page".to_string());
    }
    CallOutcome {
        text: format!(
            "The MCP server needs the user to finish a step in their browser before this call ({}). {}: {}. \
             Call the tool again once the user says they have finished there.",
            error.message,
            if told.len() == 1 { "Its page" } else { "Its pages" },
            told.join("; ")
        ),
        is_error: true,
        parts: Vec::new(),
    }
}

/// The session's first request, `id`: the newest protocol version, the client features of
/// `offer`, who we are.
/// The sign-in's probe (`oauth_discovery`) opens its session with the same.
pub(crate) fn initialize_request(id: u64, offer: &ClientOffer) -> Value {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSIONS[0],
        "capabilities": offer.capabilities(),
        "clientInfo": { "name": "vault-agent", "title": "Vault Agent", "version": crate::VERSION },
    });
    message::request(id, "initialize", params)
}

/// Answers `ping`; refuses every other server request (sampling and roots when the session
/// did not offer them); drops notifications.
fn answer_ping(incoming: Incoming) -> Option<Value> {
    match incoming {
        Incoming::Request { id, method, .. } if method == "ping" => Some(message::response(&id, Ok(json!({})))),
        Incoming::Request { id, method, .. } => Some(message::response(
            &id,
            Err(RpcError {
                code: METHOD_NOT_FOUND,
                message: format!("{method} is not supported by this client"),
                data: None,
            }),
        )),
        _ => None,
    }
}

/// A `tools/call` result as text: text parts as they are, resources by their text or URI,
/// images and audio named by type and size; structured content as JSON when no text part
/// carries it.
fn render_result(result: &Value) -> CallOutcome {
    let is_error = result.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let mut parts = Vec::new();
    let mut binary = Vec::new();
    let decoded = |data: Option<&Value>| {
        let data = data.and_then(Value::as_str).unwrap_or_default();
        base64::engine::general_purpose::STANDARD.decode(data.trim()).ok()
    };
    for item in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        match kind {
            "text" => parts.push(text("text")),
            "image" | "audio" => {
                let size = item.get("data").and_then(Value::as_str).map_or(0, |d| d.len() * 3 / 4);
                parts.push(format!("[{kind}: {}, about {size} bytes]", text("mimeType")));
                if let Some(bytes) = decoded(item.get("data")) {
                    let mime_type = Some(text("mimeType")).filter(|m| !m.is_empty());
                    binary.push(ResourcePart { uri: String::new(), mime_type, body: ResourceBody::Bytes(bytes) });
                }
            }
            "resource" => {
                let resource = item.get("resource").cloned().unwrap_or(Value::Null);
                let uri = resource.get("uri").and_then(Value::as_str).unwrap_or_default();
                match resource.get("text").and_then(Value::as_str) {
                    Some(body) => parts.push(format!("[resource {uri}]\n{body}")),
                    None => {
                        parts.push(format!("[binary resource {uri}]"));
                        if let Some(bytes) = decoded(resource.get("blob")) {
                            let mime_type = resource.get("mimeType").and_then(Value::as_str).map(str::to_string);
                            binary.push(ResourcePart { uri: uri.into(), mime_type, body: ResourceBody::Bytes(bytes) });
                        }
                    }
                }
            }
            "resource_link" => parts.push(format!("[resource link: {} {}]", text("name"), text("uri"))),
            other => parts.push(format!("[{other} content]")),
        }
    }
    if let Some(structured) = result.get("structuredContent") {
        if parts.is_empty() {
            parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
        }
    }
    CallOutcome { text: parts.join("\n"), is_error, parts: binary }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_each_content_kind() {
        let outcome = render_result(&json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://a", "text": "body"}},
                {"type": "resource_link", "name": "b", "uri": "test://b"}
            ],
            "isError": true
        }));
        assert!(outcome.is_error);
        assert_eq!(
            outcome.text,
            "hello\n[image: image/png, about 3 bytes]\n[resource test://a]\nbody\n[resource link: b test://b]"
        );
        // The image's bytes come along, for a model that sees images.
        let image = ResourcePart {
            uri: String::new(),
            mime_type: Some("image/png".into()),
            body: ResourceBody::Bytes(vec![0; 3]),
        };
        assert_eq!(outcome.parts, [image]);
        let blob = render_result(&json!({"content": [
            {"type": "resource", "resource": {"uri": "test://c.pdf", "mimeType": "application/pdf", "blob": "JVBE"}}
        ]}));
        assert_eq!(blob.text, "[binary resource test://c.pdf]");
        assert_eq!(blob.parts[0].body, ResourceBody::Bytes(b"%PD".to_vec()));
        let structured = render_result(&json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(structured.text, "{\n  \"sum\": 3\n}");
    }
}
