//! `vault-agent mcp login|logout`: signing in to an MCP server that asks for it (OAuth). The
//! browser comes back to a one-time address on this machine (`http://127.0.0.1:PORT/callback`),
//! and the credentials are kept in a file of the user's, outside every vault, by the server's
//! URL: `--mcp-http` with that URL then sends them, renewing them as they run out.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{query_params, Clock, ReqwestClient, SystemClock};
use vault_agent::mcp::{
    finish_sign_in, start_sign_in, CredentialsSink, McpCredentials, McpServerConfig, McpServerTransport, OAuthApp,
};
use vault_agent::{Error, Result};

use crate::out::outln;

/// The file the credentials are kept in, one entry per server URL.
pub struct CredentialFile {
    path: PathBuf,
}

impl CredentialFile {
    /// `$VAULT_AGENT_CREDENTIALS`, else `mcp-credentials.json` in the user's configuration
    /// folder for vault-agent (`$XDG_CONFIG_HOME`, `~/.config`, `%APPDATA%`); `None` when
    /// there is no such folder.
    pub fn of_user() -> Option<CredentialFile> {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        if let Some(path) = env("VAULT_AGENT_CREDENTIALS") {
            return Some(CredentialFile { path });
        }
        let dir =
            env("XDG_CONFIG_HOME").or_else(|| env("HOME").map(|h| h.join(".config"))).or_else(|| env("APPDATA"))?;
        Some(CredentialFile { path: dir.join("vault-agent").join("mcp-credentials.json") })
    }

    fn load(&self) -> Result<BTreeMap<String, McpCredentials>> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| Error::Invalid(format!("{} is not a credentials file: {e}", self.path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(io("read", &self.path, e)),
        }
    }

    /// Writes `all` whole, readable by the user alone, through a temporary file so a failed
    /// write leaves the old one.
    fn save(&self, all: &BTreeMap<String, McpCredentials>) -> Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
        }
        let text = serde_json::to_string_pretty(all).map_err(|e| Error::Invalid(e.to_string()))?;
        let temporary = self.path.with_extension("json.tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let write = |options: &std::fs::OpenOptions| -> std::io::Result<()> {
            use std::io::Write;
            let mut file = options.open(&temporary)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()
        };
        write(&options).map_err(|e| io("write", &temporary, e))?;
        std::fs::rename(&temporary, &self.path).map_err(|e| io("write", &self.path, e))
    }

    /// The credentials kept for `url`.
    pub fn get(&self, url: &str) -> Option<McpCredentials> {
        self.load().ok()?.remove(&key(url))
    }

    /// Keeps `credentials` for `url`, in place of any before.
    pub fn put(&self, url: &str, credentials: &McpCredentials) -> Result<()> {
        let mut all = self.load()?;
        all.insert(key(url), credentials.clone());
        self.save(&all)
    }

    /// Forgets `url`'s credentials; whether there were any.
    pub fn remove(&self, url: &str) -> Result<bool> {
        let mut all = self.load()?;
        let had = all.remove(&key(url)).is_some();
        if had {
            self.save(&all)?;
        }
        Ok(had)
    }

    /// Gives each HTTP server of `servers` its kept credentials.
    pub fn sign_in(&self, servers: &mut [McpServerConfig]) {
        for server in servers {
            if let McpServerTransport::Http { url, credentials, .. } = &mut server.transport {
                *credentials = self.get(url).map(Box::new);
            }
        }
    }

    /// A sink that keeps renewed credentials of `servers` (by their names) in this file.
    pub fn sink(self, servers: &[McpServerConfig]) -> CredentialsSink {
        let urls: BTreeMap<String, String> = servers
            .iter()
            .filter_map(|s| match &s.transport {
                McpServerTransport::Http { url, .. } => Some((s.name.clone(), url.clone())),
                McpServerTransport::Stdio { .. } => None,
            })
            .collect();
        Rc::new(move |server: &str, credentials: &McpCredentials| {
            if let Some(url) = urls.get(server) {
                if let Err(e) = self.put(url, credentials) {
                    eprintln!("vault-agent: the renewed sign-in to {server} could not be kept: {e}");
                }
            }
        })
    }
}

fn key(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

fn io(op: &'static str, path: &std::path::Path, e: std::io::Error) -> Error {
    Error::Io { op, path: path.display().to_string(), message: e.to_string() }
}

fn credential_file() -> Result<CredentialFile> {
    CredentialFile::of_user().ok_or_else(|| {
        Error::Invalid("no folder to keep the sign-in in: set VAULT_AGENT_CREDENTIALS to a file's path".into())
    })
}

/// The URL of a `NAME=URL` (or a bare URL).
fn server_url(spec: &str) -> Result<(String, String)> {
    let spec = if spec.contains("://") && !spec.split("://").next().unwrap_or("").contains('=') {
        format!("server={spec}")
    } else {
        spec.to_string()
    };
    let config = McpServerConfig::parse_http(&spec)?;
    match config.transport {
        McpServerTransport::Http { url, .. } => Ok((config.name, url)),
        McpServerTransport::Stdio { .. } => unreachable!("parse_http gives HTTP servers"),
    }
}

/// Signs in to the server of `spec` (`NAME=URL` or a URL) in the browser — as `app` when given —
/// and keeps the credentials; the browser comes back to `port` on this machine (0: any free
/// one). With `open_browser` off, only prints the page to open.
pub async fn login(spec: &str, open_browser: bool, app: Option<&OAuthApp>, port: u16) -> Result<()> {
    let (name, url) = server_url(spec)?;
    let file = credential_file()?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| Error::Network(format!("cannot listen on this machine for the browser's return: {e}")))?;
    let port = listener.local_addr().map_err(|e| Error::Network(e.to_string()))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let http = ReqwestClient::new();
    let cancel = CancelToken::new();
    // After a step-up the kept sign-in says what more to ask for.
    let more = file.get(&url).and_then(|kept| kept.step_up_scope);
    let sign_in = start_sign_in(&http, &url, &redirect, app, more.as_deref(), &cancel).await?;
    eprintln!("Sign in to {name} in your browser:\n  {}", sign_in.url);
    if open_browser {
        open(&sign_in.url);
    }
    eprintln!("Waiting for the browser to come back (Ctrl-C gives up)…");
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| Error::Network(e.to_string()))?;
        let (reader, mut writer) = stream.into_split();
        let mut line = String::new();
        BufReader::new(reader).read_line(&mut line).await.map_err(|e| Error::Network(e.to_string()))?;
        // `GET /callback?code=…&state=… HTTP/1.1`
        let target = line.split_whitespace().nth(1).unwrap_or("");
        let Some(query) = target.strip_prefix("/callback") else {
            let _ = writer.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
            continue;
        };
        let answer = query_params(query);
        let outcome = finish_sign_in(&http, &sign_in, &answer, SystemClock.now_ms(), &cancel).await;
        let page = match &outcome {
            Ok(_) => format!("Signed in to {name}. You can close this tab and go back to the terminal."),
            Err(e) => format!("The sign-in to {name} failed: {e}"),
        };
        let page = format!("<!doctype html><meta charset=utf-8><title>Vault Agent</title><p>{}</p>", escape(&page));
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            page.len()
        );
        let _ = writer.write_all((head + &page).as_bytes()).await;
        let _ = writer.shutdown().await;
        let credentials = outcome?;
        file.put(&url, &credentials)?;
        let scope = credentials.scope.as_deref().map(|s| format!(" (scope: {s})")).unwrap_or_default();
        outln!("Signed in to {name}{scope}; kept in {}", file.path.display());
        return Ok(());
    }
}

/// Forgets the sign-in to the server of `spec`.
pub fn logout(spec: &str) -> Result<()> {
    let (name, url) = server_url(spec)?;
    let file = credential_file()?;
    if file.remove(&url)? {
        outln!("Signed out of {name}: its credentials are gone from {}", file.path.display());
    } else {
        outln!("No sign-in to {name} was kept in {}", file.path.display());
    }
    Ok(())
}

/// Opens `url` in the user's browser, where this system says how; nothing happens where it
/// does not (the address was printed).
pub(crate) fn open(url: &str) {
    let command: &[&str] = if cfg!(target_os = "macos") {
        &["open"]
    } else if cfg!(windows) {
        // `cmd /c start` would read the URL's `&` as its own.
        &["rundll32", "url.dll,FileProtocolHandler"]
    } else {
        &["xdg-open"]
    };
    let _ = std::process::Command::new(command[0])
        .args(&command[1..])
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
