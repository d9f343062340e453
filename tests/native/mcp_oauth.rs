//! Signing in to an MCP server that asks for it (OAuth 2.1): against the test server's protected
//! MCP endpoint and its authorization server (`tests/servers/routes/oauth.mjs`), which checks
//! PKCE, the redirect, the resource and the client as a real one does.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::rc::Rc;

use serde_json::{json, Value};
use vault_agent::cancel::CancelToken;
use vault_agent::host::{query_params, ManualClock, ReqwestClient};
use vault_agent::mcp::{
    finish_sign_in, start_sign_in, McpCredentials, McpServerConfig, McpServerTransport, McpSignIn, NoForms, OAuthApp,
    Progress,
};

const REDIRECT: &str = "obsidian://vault-agent-mcp-auth";

/// The project's test server (`tests/servers/server.mjs`) on a free port; killed on drop.
pub struct TestServer {
    child: Child,
    pub base: String,
}

impl TestServer {
    pub fn start() -> TestServer {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/servers/server.mjs");
        let mut child = Command::new("node")
            .args([script, "--port", &port.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("listening") {
            line.clear();
            assert!(stdout.read_line(&mut line).unwrap() > 0, "the test server ended before listening");
        }
        TestServer { child, base: format!("http://127.0.0.1:{port}") }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// A session of the OAuth routes of its own.
struct Oauth {
    base: String,
    sid: String,
    web: reqwest::Client,
}

impl Oauth {
    fn new(server: &TestServer, name: &str) -> Oauth {
        let web = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Oauth { base: server.base.clone(), sid: format!("{name}-{}", std::process::id()), web }
    }

    fn mcp_url(&self) -> String {
        format!("{}/oauth/{}/mcp", self.base, self.sid)
    }

    async fn control(&self, what: &str, body: Value) {
        let url = format!("{}/oauth/{}/{what}", self.base, self.sid);
        let response =
            self.web.post(url).header("content-type", "application/json").body(body.to_string()).send().await.unwrap();
        assert!(response.status().is_success(), "{what}: {}", response.status());
    }

    async fn log(&self) -> Vec<Value> {
        let url = format!("{}/oauth/{}/log", self.base, self.sid);
        serde_json::from_str(&self.web.get(url).send().await.unwrap().text().await.unwrap()).unwrap()
    }

    /// What the browser does: opens the authorization page, which (the user having agreed)
    /// sends it back to the redirect address; the parameters it comes back with.
    async fn browser(&self, sign_in: &McpSignIn) -> BTreeMap<String, String> {
        let response = self.web.get(&sign_in.url).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 302, "{}", response.text().await.unwrap());
        let location = response.headers()["location"].to_str().unwrap().to_string();
        let (address, query) = location.split_once('?').unwrap();
        assert_eq!(address, REDIRECT);
        query_params(query)
    }

    /// Registers an app as its user would by hand, named `name`, coming back to `redirect`;
    /// the registration (`client_id`, `client_secret` when confidential).
    async fn register_app(&self, name: &str, redirect: &str) -> Value {
        let url = format!("{}/oauth/{}/register", self.base, self.sid);
        let body = json!({"client_name": name, "redirect_uris": [redirect]}).to_string();
        let response = self.web.post(url).header("content-type", "application/json").body(body).send().await.unwrap();
        serde_json::from_str(&response.text().await.unwrap()).unwrap()
    }

    fn config(&self, credentials: Option<McpCredentials>) -> McpServerConfig {
        let mut config = McpServerConfig::parse_http(&format!("notes={}", self.mcp_url())).unwrap();
        if let McpServerTransport::Http { credentials: slot, .. } = &mut config.transport {
            *slot = credentials.map(Box::new);
        }
        config
    }
}

fn no_progress(_: &Progress) {}

/// The page `vault-agent mcp login --no-browser`, running as `login`, prints for the browser,
/// and the rest of its stderr, to keep open while it runs (it writes there after the page).
fn page_to_open(login: &mut Child) -> (String, BufReader<std::process::ChildStderr>) {
    let mut stderr = BufReader::new(login.stderr.take().unwrap());
    let mut line = String::new();
    while !line.trim_start().starts_with("http") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "login ended before printing the page");
    }
    (line.trim().to_string(), stderr)
}

#[test]
fn sign_in_then_tools_with_the_token_renewed_when_the_server_refuses_it() {
    let server = TestServer::start();
    runtime().block_on(async {
        let oauth = Oauth::new(&server, "flow");
        let http = ReqwestClient::new();
        let cancel = CancelToken::new();

        // Without a sign-in the server refuses, and the error says what to do.
        let clock = Rc::new(ManualClock::new(1_000_000));
        let refused = oauth
            .config(None)
            .connect(Rc::new(http.clone()), clock.clone(), None, None, Default::default(), &cancel)
            .await;
        let message = refused.err().expect("refused").to_string();
        assert!(message.contains("asks you to sign in"), "{message}");

        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap();
        let issuer = format!("{}/oauth/{}", oauth.base, oauth.sid);
        assert!(sign_in.url.starts_with(&format!("{issuer}/authorize?response_type=code&")), "{}", sign_in.url);
        let asked = query_params(sign_in.url.split_once('?').unwrap().1);
        assert_eq!(asked["code_challenge_method"], "S256");
        assert_eq!(asked["redirect_uri"], REDIRECT);
        assert_eq!(asked["resource"], oauth.mcp_url());
        assert_eq!(asked["scope"], "notes:read", "the scope the 401 asked for");
        assert_eq!(asked["state"], sign_in.state);
        assert_eq!((sign_in.issuer.as_str(), sign_in.client.auth_method.as_str()), (issuer.as_str(), "none"));

        let answer = oauth.browser(&sign_in).await;
        assert_eq!(answer["iss"], issuer);
        let credentials = finish_sign_in(&http, &sign_in, &answer, 1_000_000, &cancel).await.unwrap();
        assert_eq!(credentials.access_token, format!("at-{}-1", oauth.sid));
        assert_eq!(credentials.expires_at, Some(1_000_000.0 + 3_600_000.0));
        assert_eq!(credentials.scope.as_deref(), Some("notes:read"));
        assert!(credentials.refresh_token.is_some());
        // A code is good once.
        let again = finish_sign_in(&http, &sign_in, &answer, 1_000_000, &cancel).await.unwrap_err().to_string();
        assert!(again.contains("gave no tokens (HTTP 400)"), "{again}");

        let renewed: Rc<RefCell<Vec<(String, McpCredentials)>>> = Rc::default();
        let kept = renewed.clone();
        let sink: vault_agent::mcp::CredentialsSink =
            Rc::new(move |server: &str, c: &McpCredentials| kept.borrow_mut().push((server.to_string(), c.clone())));
        let config = oauth.config(Some(credentials.clone()));
        let client = config
            .connect(Rc::new(http.clone()), clock.clone(), None, Some(sink.clone()), Default::default(), &cancel)
            .await
            .unwrap();
        let tools = client.list_tools(&cancel).await.unwrap();
        assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["whoami"]);
        let said = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert_eq!(said.text, "signed in as Vault Agent, token 1, scope notes:read");

        // The server ends the token early: the call is refused once, the token renewed, the
        // call made again; the host is handed the new refresh token.
        oauth.control("expire", json!({})).await;
        let said = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert_eq!(said.text, "signed in as Vault Agent, token 2, scope notes:read");
        let (server_name, fresh) = renewed.borrow().last().cloned().expect("renewed credentials kept");
        assert_eq!(server_name, "notes");
        assert_ne!(fresh.refresh_token, credentials.refresh_token, "the server rotates refresh tokens");

        // Near its end the token is renewed before the request, not after a refusal.
        assert_eq!(fresh.expires_at, Some(1_000_000.0 + 3_600_000.0));
        clock.advance(3_600_000 - 30_000);
        let said = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert_eq!(said.text, "signed in as Vault Agent, token 3, scope notes:read");
        assert_eq!(renewed.borrow().len(), 2);

        // A sign-in goes only to the server it is for: not to another URL put in its place.
        let elsewhere = Oauth::new(&server, "elsewhere");
        let mut moved = oauth.config(Some(credentials.clone()));
        if let McpServerTransport::Http { url, .. } = &mut moved.transport {
            *url = elsewhere.mcp_url();
        }
        let refused =
            moved.connect(Rc::new(http.clone()), clock.clone(), None, None, Default::default(), &cancel).await;
        assert!(refused.err().expect("refused").to_string().contains("asks you to sign in"));
        assert!(elsewhere.log().await.iter().all(|r| r["headers"].get("authorization").is_none()));

        // Once the sign-in is gone for good, the error says to sign in again.
        oauth.control("revoke", json!({})).await;
        let ended =
            client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap_err().to_string();
        assert!(ended.contains("sign in again"), "{ended}");
        client.close().await;

        // What the server saw: the client registered as a public native app, the code
        // exchanged with its verifier and the resource, and the MCP calls with the token.
        let log = oauth.log().await;
        let register = log.iter().find(|r| r["path"].as_str().unwrap().ends_with("/register")).unwrap();
        assert_eq!(register["json"]["token_endpoint_auth_method"], "none");
        assert_eq!(register["json"]["redirect_uris"], json!([REDIRECT]));
        let exchange = log.iter().find(|r| r["form"]["grant_type"] == "authorization_code").unwrap();
        assert_eq!(exchange["form"]["resource"], oauth.mcp_url());
        assert_eq!(exchange["form"]["code_verifier"], sign_in.code_verifier.as_str());
        let refreshes = log.iter().filter(|r| r["form"]["grant_type"] == "refresh_token").count();
        assert_eq!(refreshes, 3, "two renewals, and the one after the revocation");
    });
}

#[test]
fn a_sign_in_is_refused_where_it_would_not_be_safe_or_was_not_this_one() {
    let server = TestServer::start();
    runtime().block_on(async {
        let http = ReqwestClient::new();
        let cancel = CancelToken::new();

        // An answer from another sign-in (its state differs), or a refusal, is not taken.
        let oauth = Oauth::new(&server, "answers");
        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap();
        let mut answer = oauth.browser(&sign_in).await;
        answer.insert("state".into(), "someone-else".into());
        let error = finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap_err().to_string();
        assert!(error.contains("another sign-in"), "{error}");
        let mut answer = oauth.browser(&sign_in).await;
        answer.insert("iss".into(), "https://evil.example".into());
        let error = finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap_err().to_string();
        assert!(error.contains("came back from https://evil.example"), "{error}");
        oauth.control("config", json!({"deny": true})).await;
        let answer = oauth.browser(&sign_in).await;
        let error = finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap_err().to_string();
        assert_eq!(error, "MCP: the server did not sign you in: The user said no");

        // No PKCE, no registration: refused before the browser is opened.
        let oauth = Oauth::new(&server, "nopkce");
        oauth.control("config", json!({"noPkce": true})).await;
        let error =
            start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap_err().to_string();
        assert!(error.contains("PKCE"), "{error}");
        let oauth = Oauth::new(&server, "noreg");
        oauth.control("config", json!({"noRegistration": true})).await;
        let error =
            start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap_err().to_string();
        assert!(error.contains("registers no new apps"), "{error}");
        assert!(error.contains(&format!("with {REDIRECT} as its redirect URL")), "says what to register: {error}");

        // Without a scope in the challenge, the resource's scopes are asked for; a confidential
        // client proves itself with its secret.
        let oauth = Oauth::new(&server, "confidential");
        oauth.control("config", json!({"noScopeInHeader": true, "confidential": true})).await;
        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap();
        assert_eq!(sign_in.scope.as_deref(), Some("notes:read notes:write"));
        assert_eq!(sign_in.client.auth_method, "client_secret_basic");
        let answer = oauth.browser(&sign_in).await;
        let credentials = finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap();
        assert_eq!(credentials.scope.as_deref(), Some("notes:read notes:write"));
        let log = oauth.log().await;
        let exchange = log.iter().find(|r| r["form"]["grant_type"] == "authorization_code").unwrap();
        assert!(exchange["headers"]["authorization"].as_str().unwrap().starts_with("Basic "));

        // A server that asks nobody to sign in says so.
        let nothing = format!("{}/nothing-here", server.base);
        let error = start_sign_in(&http, &nothing, REDIRECT, None, None, &cancel).await.unwrap_err().to_string();
        assert_eq!(error, format!("MCP: there is no MCP endpoint at {nothing} (HTTP 404)"));
        let everything = super::mcp::Everything::start();
        let error = start_sign_in(&http, &everything.url, REDIRECT, None, None, &cancel).await.unwrap_err().to_string();
        assert!(error.ends_with("lets Vault Agent in without signing in: no sign-in is needed"), "{error}");
    });
}

#[test]
fn the_cli_signs_in_through_the_browser_and_keeps_the_renewed_sign_in() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let kept = home.path().join("credentials.json");
    let cli = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vault-agent"));
        command.args(args).env("VAULT_AGENT_CREDENTIALS", &kept);
        command
    };
    runtime().block_on(async {
        let oauth = Oauth::new(&server, "cli");
        let spec = format!("notes={}", oauth.mcp_url());
        let mut login = cli(&["mcp", "login", "--no-browser", &spec])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // It prints the page to open; the browser (here: a client that follows redirects)
        // signs in and comes back to the CLI's address on this machine.
        let (page, _stderr) = page_to_open(&mut login);
        assert!(query_params(page.split_once('?').unwrap().1)["redirect_uri"].starts_with("http://127.0.0.1:"));
        let browser = reqwest::Client::new();
        let back = browser.get(&page).send().await.unwrap().text().await.unwrap();
        assert!(back.contains("Signed in to notes."), "{back}");
        let done = login.wait_with_output().unwrap();
        assert!(done.status.success());
        assert!(String::from_utf8_lossy(&done.stdout).starts_with("Signed in to notes (scope: notes:read)"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let refresh_token = |path: &std::path::Path| {
            let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            all[oauth.mcp_url()]["refreshToken"].as_str().unwrap().to_string()
        };
        let first = refresh_token(&kept);

        let whoami = || cli(&["mcp", "call", "--mcp-http", &spec, "notes", "whoami"]).output().unwrap();
        let said = whoami();
        assert_eq!(String::from_utf8_lossy(&said.stdout).trim(), "signed in as Vault Agent, token 1, scope notes:read");
        // The server ends the token: the next command renews it and keeps the new refresh token.
        oauth.control("expire", json!({})).await;
        let said = whoami();
        assert_eq!(String::from_utf8_lossy(&said.stdout).trim(), "signed in as Vault Agent, token 2, scope notes:read");
        assert_ne!(refresh_token(&kept), first);
        let said = whoami();
        assert!(said.status.success(), "{}", String::from_utf8_lossy(&said.stderr));

        let out = cli(&["mcp", "logout", &spec]).output().unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("Signed out of notes"));
        let said = whoami();
        assert!(!said.status.success());
        assert!(String::from_utf8_lossy(&said.stderr).contains("asks you to sign in"));
    });
}

#[test]
fn a_chat_says_which_server_asks_to_sign_in_and_goes_on_without_its_tools() {
    use vault_agent::agent::{AgentConfig, Conversation};
    use vault_agent::host::SystemClock;
    use vault_agent::mcp::McpToolset;
    use vault_agent::protocol::AgentEvent;
    use vault_agent::provider::{ScriptedProvider, Turn};
    use vault_agent::vault::MemoryVault;

    let server = TestServer::start();
    let oauth = Oauth::new(&server, "chat");
    let mut gone = McpServerConfig::parse_http(&format!("gone={}/nothing-here", server.base)).unwrap();
    gone.enabled = true;
    let servers = vec![oauth.config(None), gone];
    let provider = Rc::new(ScriptedProvider::new(vec![Turn::text("Without the notes server, then.")]));
    let host = crate::agent::support::TestHost::new();
    let clock = Rc::new(SystemClock);
    let toolset = Rc::new(McpToolset::new(servers, Rc::new(ReqwestClient::new()), clock.clone(), None));
    let chat =
        Conversation::new(AgentConfig::default(), provider.clone(), Rc::new(MemoryVault::new()), clock, host.clone())
            .with_mcp(toolset);
    runtime().block_on(async { chat.send("Who am I on the notes server?").await.unwrap() });
    let events = host.events();
    let sign_in: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::McpSignInNeeded { server, message } => Some((server.clone(), message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(sign_in.len(), 1, "{events:?}");
    assert_eq!(sign_in[0].0, "notes");
    assert_eq!(sign_in[0].1, "MCP server notes is not available: the server asks you to sign in");
    // A server that is not there is a plain warning: signing in would not help.
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Warning { message } if message.contains("MCP server gone"))));
    assert!(provider.requests()[0].tools.iter().all(|t| !t.name.starts_with("mcp__")));
}

#[test]
fn a_sign_in_that_ends_mid_chat_is_offered_again_at_the_next_message() {
    use vault_agent::agent::{AgentConfig, Conversation};
    use vault_agent::host::SystemClock;
    use vault_agent::mcp::McpToolset;
    use vault_agent::protocol::AgentEvent;
    use vault_agent::provider::{ScriptedProvider, Turn};
    use vault_agent::vault::MemoryVault;

    let server = TestServer::start();
    let oauth = Oauth::new(&server, "ended");
    let http = ReqwestClient::new();
    let cancel = CancelToken::new();
    let credentials = runtime().block_on(async {
        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap();
        let answer = oauth.browser(&sign_in).await;
        finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap()
    });
    let mut config = oauth.config(Some(credentials));
    config.trust_read_only = true;
    let whoami = || Turn::tools([("mcp__notes__whoami", json!({}))]);
    let provider = Rc::new(ScriptedProvider::new(vec![
        whoami(),
        Turn::text("First."),
        whoami(),
        Turn::text("Second."),
        Turn::text("Third."),
    ]));
    let host = crate::agent::support::TestHost::new();
    let clock = Rc::new(SystemClock);
    let toolset = Rc::new(McpToolset::new(vec![config], Rc::new(http.clone()), clock.clone(), None));
    let chat = Conversation::new(
        AgentConfig { memory_extraction: false, ..AgentConfig::default() },
        provider.clone(),
        Rc::new(MemoryVault::new()),
        clock,
        host.clone(),
    )
    .with_mcp(toolset);
    let asked = |host: &crate::agent::support::TestHost| {
        host.events().iter().filter(|e| matches!(e, AgentEvent::McpSignInNeeded { .. })).count()
    };
    runtime().block_on(async {
        chat.send("Who am I?").await.unwrap();
        let sent = serde_json::to_string(&provider.requests()[1].messages).unwrap();
        assert!(sent.contains("signed in as Vault Agent"), "{sent}");
        // The sign-in ends on the server's side (revoked): the call fails with words the model
        // reads, and the chat offers the sign-in at once.
        oauth.control("revoke", json!({})).await;
        chat.send("And now?").await.unwrap();
        let sent = serde_json::to_string(&provider.requests()[3].messages).unwrap();
        assert!(sent.contains("sign in again"), "{sent}");
        assert_eq!(asked(&host), 1);
        // The next message: the server is asked afresh, and the chat offers it again.
        chat.send("Once more").await.unwrap();
    });
    assert_eq!(asked(&host), 2);
    assert!(provider.requests()[4].tools.iter().all(|t| !t.name.starts_with("mcp__")));
}

#[test]
fn a_server_that_registers_no_apps_is_signed_in_to_as_the_users_own() {
    let server = TestServer::start();
    runtime().block_on(async {
        let http = ReqwestClient::new();
        let cancel = CancelToken::new();
        let oauth = Oauth::new(&server, "preregistered");
        oauth.control("config", json!({"noRegistration": true, "confidential": true})).await;
        // The user registers an app by hand (the server's own page, here its endpoint).
        let made = oauth.register_app("My vault", REDIRECT).await;
        let app = OAuthApp {
            client_id: made["client_id"].as_str().unwrap().into(),
            client_secret: made["client_secret"].as_str().map(Into::into),
        };

        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, Some(&app), None, &cancel).await.unwrap();
        assert_eq!(sign_in.client.client_id, app.client_id);
        // The server lists every method: the secret goes as HTTP Basic.
        assert_eq!(sign_in.client.auth_method, "client_secret_basic");
        let asked = query_params(sign_in.url.split_once('?').unwrap().1);
        assert_eq!(asked["client_id"], app.client_id);
        let answer = oauth.browser(&sign_in).await;
        let credentials = finish_sign_in(&http, &sign_in, &answer, 0, &cancel).await.unwrap();
        assert_eq!(credentials.client.client_secret, app.client_secret);

        let clock = Rc::new(ManualClock::new(0));
        let client = oauth
            .config(Some(credentials))
            .connect(Rc::new(http.clone()), clock, None, None, Default::default(), &cancel)
            .await
            .unwrap();
        let said = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert!(said.text.starts_with("signed in as My vault"), "{}", said.text);
        client.close().await;
        // Only the user's registration reached the server: Vault Agent registered nothing.
        let log = oauth.log().await;
        assert_eq!(log.iter().filter(|r| r["path"].as_str().unwrap().ends_with("/register")).count(), 1);
        let exchange = log.iter().find(|r| r["form"]["grant_type"] == "authorization_code").unwrap();
        assert!(exchange["headers"]["authorization"].as_str().unwrap().starts_with("Basic "));
    });
}

#[test]
fn the_cli_signs_in_as_the_users_app_on_the_port_it_names() {
    let server = TestServer::start();
    let home = tempfile::tempdir().unwrap();
    let kept = home.path().join("credentials.json");
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    runtime().block_on(async {
        let oauth = Oauth::new(&server, "cli-app");
        oauth.control("config", json!({"noRegistration": true, "confidential": true})).await;
        let redirect = format!("http://127.0.0.1:{port}/callback");
        let made = oauth.register_app("My CLI app", &redirect).await;
        let spec = format!("notes={}", oauth.mcp_url());
        let (id, port) = (made["client_id"].as_str().unwrap(), port.to_string());
        let mut login = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
            .args(["mcp", "login", "--no-browser", "--client-id", id, "--port", &port, &spec])
            .env("VAULT_AGENT_CREDENTIALS", &kept)
            .env("VAULT_AGENT_CLIENT_SECRET", made["client_secret"].as_str().unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (page, _stderr) = page_to_open(&mut login);
        let asked = query_params(page.split_once('?').unwrap().1);
        assert_eq!((asked["client_id"].as_str(), asked["redirect_uri"].as_str()), (id, redirect.as_str()));
        let back = reqwest::Client::new().get(&page).send().await.unwrap().text().await.unwrap();
        assert!(back.contains("Signed in to notes."), "{back}");
        assert!(login.wait_with_output().unwrap().status.success());
        let said = Command::new(env!("CARGO_BIN_EXE_vault-agent"))
            .args(["mcp", "call", "--mcp-http", &spec, "notes", "whoami"])
            .env("VAULT_AGENT_CREDENTIALS", &kept)
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&said.stdout).starts_with("signed in as My CLI app"), "{said:?}");
    });
}

#[test]
fn a_call_that_needs_more_scope_asks_the_next_sign_in_for_it() {
    let server = TestServer::start();
    runtime().block_on(async {
        let http = ReqwestClient::new();
        let cancel = CancelToken::new();
        let oauth = Oauth::new(&server, "step-up");
        // Listing needs notes:read; a call needs notes:write too.
        oauth.control("config", json!({"callScope": "notes:write"})).await;
        let sign_in = start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, None, &cancel).await.unwrap();
        assert_eq!(sign_in.scope.as_deref(), Some("notes:read"));
        let credentials = finish_sign_in(&http, &sign_in, &oauth.browser(&sign_in).await, 0, &cancel).await.unwrap();

        let kept: Rc<RefCell<Vec<McpCredentials>>> = Rc::default();
        let keep = kept.clone();
        let sink: vault_agent::mcp::CredentialsSink = Rc::new(move |_, c: &McpCredentials| keep.borrow_mut().push(c.clone()));
        let clock = Rc::new(ManualClock::new(0));
        let connect = |credentials: McpCredentials| {
            let config = oauth.config(Some(credentials));
            let (http, clock, sink) = (Rc::new(http.clone()), clock.clone(), Some(sink.clone()));
            async move { config.connect(http, clock, None, sink, Default::default(), &CancelToken::new()).await }
        };
        let client = connect(credentials).await.unwrap();
        assert_eq!(client.list_tools(&cancel).await.unwrap().len(), 1);
        let refused = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap_err();
        assert!(
            matches!(&refused, vault_agent::Error::McpSignIn(what)
                if what == "the server asks for more access (notes:read notes:write) than the sign-in gave: sign in again"),
            "{refused}"
        );
        client.close().await;
        // The host keeps what the next sign-in must ask for.
        let stepped = kept.borrow().last().cloned().expect("kept");
        assert_eq!(stepped.step_up_scope.as_deref(), Some("notes:read notes:write"));

        let again =
            start_sign_in(&http, &oauth.mcp_url(), REDIRECT, None, stepped.step_up_scope.as_deref(), &cancel).await.unwrap();
        assert_eq!(query_params(again.url.split_once('?').unwrap().1)["scope"], "notes:read notes:write");
        let fresh = finish_sign_in(&http, &again, &oauth.browser(&again).await, 0, &cancel).await.unwrap();
        assert_eq!((fresh.scope.as_deref(), fresh.step_up_scope.as_deref()), (Some("notes:read notes:write"), None));
        let client = connect(fresh).await.unwrap();
        let said = client.call_tool("whoami", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert_eq!(said.text, "signed in as Vault Agent, token 2, scope notes:read notes:write");
        client.close().await;
    });
}
