//! An MCP server as the user configures it, and how a session with it is opened.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ClientOffer, CredentialsSink, McpClient, McpCredentials, Stdio, StreamableHttp};
use crate::cancel::CancelToken;
use crate::host::{Clock, HttpClient, ProcessLauncher};
use crate::{Error, Result};

/// One server. In JSON the fields are camelCase, like the plugin's other settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerConfig {
    /// The name its tools are known by: `mcp__<name>__<tool>`. Letters, digits, `-` and `_`.
    pub name: String,
    pub transport: McpServerTransport,
    /// Off: the server is not started and its tools are not offered.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Tools of this server the user turned off, by the server's names for them.
    #[serde(default)]
    pub disabled_tools: Vec<String>,
    /// The user trusts this server's `readOnlyHint`: tools it marks read-only run without
    /// asking. Off by default: a hint is the server's claim, not a promise.
    #[serde(default)]
    pub trust_read_only: bool,
}

fn yes() -> bool {
    true
}

/// How the server is reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum McpServerTransport {
    /// Streamable HTTP at `url`; `headers` go on every request (an `Authorization: Bearer …`
    /// header carries a token). `credentials`: the user's sign-in (OAuth), whose access token
    /// is sent instead; the host keeps them apart from the settings and adds them here.
    Http {
        url: String,
        #[serde(default)]
        headers: Vec<(String, String)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        credentials: Option<Box<McpCredentials>>,
    },
    /// A local command speaking MCP on stdio (desktop only).
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: Vec<(String, String)>,
    },
}

impl McpServerConfig {
    /// Checks the name (it becomes part of tool names, which providers restrict).
    pub fn validate(&self) -> Result<()> {
        let name = &self.name;
        let fine = !name.is_empty()
            && name.len() <= 24
            && !name.contains("__")
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !fine {
            return Err(Error::Invalid(format!(
                "MCP server name {name:?}: use 1 to 24 letters, digits, '-' or '_' (no '__')"
            )));
        }
        match &self.transport {
            McpServerTransport::Http { url, .. } if !(url.starts_with("http://") || url.starts_with("https://")) => {
                Err(Error::Invalid(format!(
                    "MCP server {name}: the URL must start with http:// or https://, not {url:?}"
                )))
            }
            McpServerTransport::Stdio { command, .. } if command.trim().is_empty() => {
                Err(Error::Invalid(format!("MCP server {name}: the command is empty")))
            }
            _ => Ok(()),
        }
    }

    /// Parses the CLI's `NAME=URL` (`--mcp-http`).
    pub fn parse_http(spec: &str) -> Result<McpServerConfig> {
        let (name, url) = split_spec(spec, "--mcp-http NAME=URL")?;
        let config = McpServerConfig::new(
            name,
            McpServerTransport::Http { url: url.to_string(), headers: Vec::new(), credentials: None },
        );
        config.validate()?;
        Ok(config)
    }

    /// Parses the CLI's `NAME=COMMAND ARGS…` (`--mcp-stdio`); words split on whitespace.
    pub fn parse_stdio(spec: &str) -> Result<McpServerConfig> {
        let (name, line) = split_spec(spec, "--mcp-stdio NAME='COMMAND ARGS'")?;
        let mut words = line.split_whitespace().map(str::to_string);
        let command = words.next().unwrap_or_default();
        let config =
            McpServerConfig::new(name, McpServerTransport::Stdio { command, args: words.collect(), env: Vec::new() });
        config.validate()?;
        Ok(config)
    }

    fn new(name: &str, transport: McpServerTransport) -> McpServerConfig {
        McpServerConfig {
            name: name.to_string(),
            transport,
            enabled: true,
            disabled_tools: Vec::new(),
            trust_read_only: false,
        }
    }

    /// Whether the server runs on this machine: a command, or a URL on the loopback address.
    /// Only such a server is told the vault's folder (MCP's roots): the path names the user's
    /// account and folders, and a server elsewhere could not read it anyway.
    pub fn is_local(&self) -> bool {
        match &self.transport {
            McpServerTransport::Stdio { .. } => true,
            McpServerTransport::Http { url, .. } => crate::provider::address::is_loopback(url),
        }
    }

    /// Opens a session declaring `offer` (its roots only to a server on this machine). A stdio
    /// server needs `launcher`; a host without one (mobile) gets an error that says stdio is
    /// for desktop. Credentials the session renews go to `renewed`.
    pub async fn connect(
        &self,
        http: Rc<dyn HttpClient>,
        clock: Rc<dyn Clock>,
        launcher: Option<&dyn ProcessLauncher>,
        renewed: Option<CredentialsSink>,
        mut offer: ClientOffer,
        cancel: &CancelToken,
    ) -> Result<McpClient> {
        self.validate()?;
        let transport: Box<dyn super::McpTransport> = match &self.transport {
            McpServerTransport::Http { url, headers, credentials } => {
                let transport = StreamableHttp::new(http, clock, url.clone(), headers.clone());
                // A sign-in is sent only to the server it is for: not after the URL changed.
                Box::new(match credentials {
                    Some(credentials) if super::oauth_discovery::covers(&credentials.resource, url) => {
                        transport.signed_in((**credentials).clone(), &self.name, renewed)
                    }
                    _ => transport,
                })
            }
            McpServerTransport::Stdio { command, args, env } => {
                let launcher = launcher.ok_or_else(|| {
                    Error::Mcp(format!("{}: servers started by a command run on desktop only", self.name))
                })?;
                Box::new(Stdio::new(launcher.launch(command, args, env).await?))
            }
        };
        if !self.is_local() {
            offer.roots.clear();
        }
        McpClient::connect(self.name.clone(), transport, offer, cancel).await
    }
}

fn split_spec<'a>(spec: &'a str, form: &str) -> Result<(&'a str, &'a str)> {
    spec.split_once('=')
        .map(|(name, rest)| (name.trim(), rest.trim()))
        .filter(|(name, rest)| !name.is_empty() && !rest.is_empty())
        .ok_or_else(|| Error::Invalid(format!("{spec:?}: expected {form}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cli_specs_and_refuses_bad_names() {
        let http = McpServerConfig::parse_http("docs=http://127.0.0.1:3001/mcp").unwrap();
        assert_eq!(http.name, "docs");
        assert!(
            matches!(http.transport, McpServerTransport::Http { ref url, .. } if url == "http://127.0.0.1:3001/mcp")
        );
        let stdio = McpServerConfig::parse_stdio("fs=npx -y server-everything stdio").unwrap();
        assert!(matches!(stdio.transport, McpServerTransport::Stdio { ref command, ref args, .. }
            if command == "npx" && args == &["-y", "server-everything", "stdio"]));
        for bad in ["=http://x", "a b=http://x", "a__b=http://x", "docs=ftp://x", "docs"] {
            assert!(McpServerConfig::parse_http(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn json_is_camel_case_with_defaults() {
        let config: McpServerConfig = serde_json::from_str(
            r#"{"name":"web","transport":{"type":"http","url":"https://x/mcp","headers":[["authorization","Bearer k"]]}}"#,
        )
        .unwrap();
        assert!(config.enabled && !config.trust_read_only && config.disabled_tools.is_empty());
    }

    #[test]
    fn only_servers_on_this_machine_are_local() {
        assert!(McpServerConfig::parse_stdio("fs=npx server").unwrap().is_local());
        assert!(McpServerConfig::parse_http("a=http://127.0.0.1:3001/mcp").unwrap().is_local());
        assert!(McpServerConfig::parse_http("b=http://localhost:3001/mcp").unwrap().is_local());
        assert!(!McpServerConfig::parse_http("c=https://mcp.notion.com/mcp").unwrap().is_local());
    }
}
