//! `vault-agent mcp tools|call|prompts|prompt|resources|read|login|logout`: what an MCP server
//! offers, one call to it, one prompt or resource of it, without a model; signing in to one
//! that asks for it. The same `--mcp-http` and
//! `--mcp-stdio` options give `run` the servers' tools, with the sign-ins kept.

use std::path::Path;
use std::rc::Rc;

use serde_json::Value;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{NativeLauncher, ReqwestClient, SystemClock};
use vault_agent::mcp::{show_parts, ClientOffer, CredentialsSink, McpClient, McpServerConfig, OAuthApp, Progress};
use vault_agent::media::MediaSupport;
use vault_agent::{Error, Result};

use crate::form::TerminalForms;
use crate::mcp_login::{login, logout, CredentialFile};
use crate::out::outln;
use crate::run::TerminalHost;

/// The MCP servers a command uses; both options repeat.
#[derive(clap::Args, Default)]
pub struct McpArgs {
    /// An MCP server over Streamable HTTP: NAME=URL.
    #[arg(long = "mcp-http", value_name = "NAME=URL")]
    http: Vec<String>,
    /// An MCP server started as a command, speaking on stdio: NAME='COMMAND ARGS'.
    #[arg(long = "mcp-stdio", value_name = "NAME=COMMAND")]
    stdio: Vec<String>,
}

impl McpArgs {
    /// The configured servers, checked, in the order given (HTTP first), with the sign-ins
    /// `vault-agent mcp login` kept for their URLs.
    pub fn servers(&self) -> Result<Vec<McpServerConfig>> {
        let mut servers = Vec::new();
        for spec in &self.http {
            servers.push(McpServerConfig::parse_http(spec)?);
        }
        for spec in &self.stdio {
            servers.push(McpServerConfig::parse_stdio(spec)?);
        }
        let mut names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::Invalid(format!("two MCP servers are named {:?}", pair[0])));
        }
        if let Some(file) = CredentialFile::of_user() {
            file.sign_in(&mut servers);
        }
        Ok(servers)
    }
}

/// Where the renewed sign-ins of `servers` are kept: the file `login` keeps them in.
pub fn renewed_sink(servers: &[McpServerConfig]) -> Option<CredentialsSink> {
    CredentialFile::of_user().map(|file| file.sink(servers))
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// List the tools of each server, with their names as the agent sees them.
    Tools {
        #[command(flatten)]
        servers: McpArgs,
        /// Print the tools as JSON (names, descriptions, input schemas).
        #[arg(long)]
        json: bool,
    },
    /// Call one tool of one server and print its result.
    Call {
        #[command(flatten)]
        servers: McpArgs,
        /// The server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
        /// A form the server asks for mid-call is sent with its defaults, without asking
        /// (cancelled if a required field has none).
        #[arg(long)]
        accept_defaults: bool,
    },
    /// List the prompts of each server (`/` offers them in the plugin's chat), with the values
    /// each takes.
    Prompts {
        #[command(flatten)]
        servers: McpArgs,
    },
    /// Fill in one prompt of one server and print its text.
    Prompt {
        #[command(flatten)]
        servers: McpArgs,
        /// The server's name.
        server: String,
        /// The prompt's name on that server.
        prompt: String,
        /// Its values, a JSON object of strings.
        #[arg(default_value = "{}")]
        arguments: String,
    },
    /// List the resources of each server (the agent reads them with `read_mcp_resource`), and
    /// the templates of URIs each fills in.
    Resources {
        #[command(flatten)]
        servers: McpArgs,
    },
    /// Read one resource of one server and print it (bytes that are not text by their size).
    Read {
        #[command(flatten)]
        servers: McpArgs,
        /// The server's name.
        server: String,
        /// The resource's URI.
        uri: String,
    },
    /// Sign in to a server that asks for it (OAuth, in the browser). The sign-in is kept in
    /// the user's configuration folder ($VAULT_AGENT_CREDENTIALS sets the file) and used by
    /// every command given the same URL.
    Login {
        /// The server: NAME=URL, or its URL.
        server: String,
        /// Print the page to open instead of opening the browser.
        #[arg(long)]
        no_browser: bool,
        /// Sign in as the OAuth app you registered with the server's authorization server
        /// (for one that registers no apps itself), with http://127.0.0.1:PORT/callback as its
        /// redirect URL; its secret, if it has one, from $VAULT_AGENT_CLIENT_SECRET.
        #[arg(long, value_name = "ID")]
        client_id: Option<String>,
        /// The fixed port the browser comes back to, for an app whose redirect URL names one
        /// (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Forget the sign-in to a server.
    Logout {
        /// The server: NAME=URL, or its URL.
        server: String,
    },
}

/// Opens a session with `server` over the CLI's HTTP client and process launcher; a renewed
/// sign-in is kept. It offers sampling, as `run` does, so that the server lists the tools a
/// task gets (a tool called from here has no model to ask: its requests are refused), and no
/// roots, having no vault.
pub async fn connect(server: &McpServerConfig, cancel: &CancelToken) -> Result<McpClient> {
    let renewed = renewed_sink(std::slice::from_ref(server));
    let (http, clock) = (Rc::new(ReqwestClient::new()), Rc::new(SystemClock));
    let offer = ClientOffer { sampling: true, roots: Vec::new() };
    server.connect(http, clock, Some(&NativeLauncher), renewed, offer, cancel).await
}

/// What `run` offers its MCP servers: the task's model (sampling, each request approved at the
/// terminal) and the vault's folder as a root.
pub fn offer(vault: &Path) -> ClientOffer {
    let path = std::fs::canonicalize(vault).ok();
    ClientOffer::for_chat(path.as_ref().and_then(|p| p.to_str()))
}

/// The servers `args` names; at least one.
fn some_servers(args: &McpArgs) -> Result<Vec<McpServerConfig>> {
    let servers = args.servers()?;
    if servers.is_empty() {
        return Err(Error::Invalid("name a server with --mcp-http NAME=URL or --mcp-stdio NAME='COMMAND'".into()));
    }
    Ok(servers)
}

/// The server `args` names `name`.
fn one_server(args: &McpArgs, name: &str) -> Result<McpServerConfig> {
    let servers = args.servers()?;
    servers
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::Invalid(format!("no server named {name:?}: give it with --mcp-http or --mcp-stdio")))
}

pub async fn run(command: Command) -> Result<()> {
    let cancel = CancelToken::new();
    match command {
        Command::Login { server, no_browser, client_id, port } => {
            let app = client_id.map(|client_id| OAuthApp {
                client_id,
                client_secret: std::env::var("VAULT_AGENT_CLIENT_SECRET").ok().filter(|s| !s.is_empty()),
            });
            login(&server, !no_browser, app.as_ref(), port).await
        }
        Command::Logout { server } => logout(&server),
        Command::Tools { servers, json } => {
            let servers = some_servers(&servers)?;
            let mut listed = Vec::new();
            for server in &servers {
                let client = connect(server, &cancel).await?;
                let tools = client.list_tools(&cancel).await;
                client.close().await;
                for tool in tools? {
                    let name = format!("mcp__{}__{}", server.name, tool.name);
                    if json {
                        listed.push(serde_json::json!({
                            "name": name, "server": server.name, "tool": tool.name,
                            "description": tool.description, "readOnly": tool.read_only(),
                            "inputSchema": tool.input_schema,
                        }));
                    } else {
                        let read_only = if tool.read_only() { " (read-only)" } else { "" };
                        let about = tool.description.as_deref().unwrap_or("").lines().next().unwrap_or("");
                        outln!("{name}{read_only}\t{about}");
                    }
                }
            }
            if json {
                outln!("{}", serde_json::to_string_pretty(&listed).unwrap_or_default());
            }
            Ok(())
        }
        Command::Prompts { servers } => {
            let servers = some_servers(&servers)?;
            for server in &servers {
                let client = connect(server, &cancel).await?;
                let prompts = client.list_prompts(&cancel).await;
                client.close().await;
                for prompt in prompts? {
                    let values: Vec<String> = prompt
                        .arguments
                        .iter()
                        .map(|a| if a.required { a.name.clone() } else { format!("[{}]", a.name) })
                        .collect();
                    let about = prompt.description.as_deref().or(prompt.title.as_deref()).unwrap_or("");
                    outln!("{} {}\t{}\t{about}", server.name, prompt.name, values.join(" "));
                }
            }
            Ok(())
        }
        Command::Prompt { servers, server, prompt, arguments } => {
            let config = one_server(&servers, &server)?;
            let arguments: std::collections::BTreeMap<String, String> = serde_json::from_str(&arguments)
                .map_err(|e| Error::Invalid(format!("the values are not a JSON object of strings: {e}")))?;
            let client = connect(&config, &cancel).await?;
            let text = client.get_prompt(&prompt, &arguments, &cancel).await;
            client.close().await;
            outln!("{}", text?);
            Ok(())
        }
        Command::Resources { servers } => {
            for server in &some_servers(&servers)? {
                let client = connect(server, &cancel).await?;
                let listed = client.list_resources(&cancel).await;
                let templates = client.list_resource_templates(&cancel).await;
                client.close().await;
                for r in listed? {
                    let name = r.title.as_deref().unwrap_or(&r.name);
                    let about = r.description.as_deref().unwrap_or("");
                    outln!("{} {}\t{}\t{name}\t{about}", server.name, r.uri, r.mime_type.as_deref().unwrap_or("-"));
                }
                for t in templates? {
                    let name = t.title.as_deref().unwrap_or(&t.name);
                    let about = t.description.as_deref().unwrap_or("");
                    outln!("{} {}\ttemplate\t{name}\t{about}", server.name, t.uri_template);
                }
            }
            Ok(())
        }
        Command::Read { servers, server, uri } => {
            let client = connect(&one_server(&servers, &server)?, &cancel).await?;
            let parts = client.read_resource(&uri, &cancel).await;
            client.close().await;
            // Text as it is; images and PDFs are named, a terminal shows neither.
            let shown = show_parts(&parts?, MediaSupport { images: false, documents: false });
            outln!("{}", shown.text);
            Ok(())
        }
        Command::Call { servers, server, tool, arguments, accept_defaults } => {
            let config = one_server(&servers, &server)?;
            let arguments: Value = serde_json::from_str(&arguments)
                .map_err(|e| Error::Invalid(format!("the arguments are not JSON: {e}")))?;
            let client = connect(&config, &cancel).await?;
            let report = |p: &Progress| match p.total {
                Some(total) => eprintln!("progress {}/{total}", p.progress),
                None => eprintln!("progress {}", p.progress),
            };
            let forms = TerminalForms { host: TerminalHost::new(), server: server.clone(), accept_defaults };
            let outcome = client.call_tool(&tool, arguments, &report, &forms, &cancel).await;
            client.close().await;
            let outcome = outcome?;
            outln!("{}", outcome.text);
            if outcome.is_error {
                return Err(Error::Mcp(format!("{server}: {tool} returned an error")));
            }
            Ok(())
        }
    }
}
