//! The MCP client against the official reference server (`@modelcontextprotocol/server-everything`,
//! from npm, over Streamable HTTP and stdio) and against a scripted server of ours for the
//! protocol's edges: version refusal, pagination, list changes and resumed streams.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio as ProcessStdio};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use vault_agent::cancel::CancelToken;
use vault_agent::host::{ChildProcess, ManualClock, ReqwestClient};
use vault_agent::mcp::{
    ClientFeatures, ClientOffer, Elicitation, McpClient, McpTransport, NoForms, Progress, ResourceBody, Root,
    SamplingOutcome, SamplingReply, SamplingRequest, Stdio, StreamableHttp,
};
use vault_agent::protocol::{FieldInput, FormAction, FormAnswer, StopReason};
use vault_agent::Error;

/// The reference server's entry point, installed by `npm ci` (scripts/setup.sh).
pub fn everything_js() -> String {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(std::path::Path::new(path).exists(), "{path} is missing: run `npm ci` (scripts/setup.sh installs it)");
    path.to_string()
}

/// The reference server over Streamable HTTP on a free port; killed on drop.
pub struct Everything {
    child: Child,
    pub url: String,
}

impl Everything {
    pub fn start() -> Everything {
        Everything::run(&[&everything_js(), "streamableHttp"])
    }

    /// `node ARGS` serving Streamable HTTP on `$PORT`, which says "listening" once it does.
    fn run(args: &[&str]) -> Everything {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new("node")
            .args(args)
            .env("PORT", port.to_string())
            .stdout(ProcessStdio::null())
            .stderr(ProcessStdio::piped())
            .spawn()
            .expect("node runs");
        // It says so on stderr once it listens.
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while !line.contains("listening") {
            line.clear();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "the reference server ended before listening");
        }
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Everything { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }
}

impl Drop for Everything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn http(url: &str) -> StreamableHttp {
    StreamableHttp::new(Rc::new(ReqwestClient::new()), Rc::new(ManualClock::new(0)), url, Vec::new())
}

fn no_progress(_: &Progress) {}

/// A session with the reference server that offers nothing beyond forms.
async fn plain_client(server: &Everything, cancel: &CancelToken) -> McpClient {
    McpClient::connect("everything", Box::new(http(&server.url)), ClientOffer::default(), cancel).await.unwrap()
}

#[test]
fn reference_server_over_streamable_http() {
    let server = Everything::start();
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client = plain_client(&server, &cancel).await;
        assert_eq!(client.info().name, "mcp-servers/everything");
        assert_eq!(client.info().protocol_version, "2025-11-25");
        assert!(client.info().instructions.as_deref().unwrap_or_default().contains("Everything Server"));

        let tools = client.list_tools(&cancel).await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        for expected in ["echo", "get-sum", "trigger-long-running-operation"] {
            assert!(names.contains(&expected), "{expected} missing from {names:?}");
        }
        let echo = tools.iter().find(|t| t.name == "echo").unwrap();
        assert!(echo.read_only());
        assert_eq!(echo.input_schema["properties"]["message"]["type"], "string");

        let said =
            client.call_tool("echo", json!({"message": "hi there"}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert_eq!(said.text, "Echo: hi there");
        assert!(!said.is_error);

        // Progress arrives on the call's event stream, tagged with our token.
        let seen = RefCell::new(Vec::new());
        let done = client
            .call_tool(
                "trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
                &|p: &Progress| seen.borrow_mut().push((p.progress, p.total)),
                &NoForms,
                &cancel,
            )
            .await
            .unwrap();
        assert!(done.text.contains("Steps: 3"), "{}", done.text);
        assert_eq!(*seen.borrow(), vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);

        // Bad arguments come back as an error result the model can read, not a failure.
        let refused = client.call_tool("get-sum", json!({"a": "x"}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert!(refused.is_error, "{}", refused.text);

        client.close().await;
    });
}

#[test]
fn a_servers_resources_and_templates_are_listed_and_read() {
    let server = Everything::start();
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client = plain_client(&server, &cancel).await;
        assert!(client.has_resources());
        let listed = client.list_resources(&cancel).await.unwrap();
        // The settings' test: the tools, and how many prompts and resources beside them.
        let offer = client.offer(&cancel).await.unwrap();
        assert_eq!(offer.resources as usize, listed.len());
        assert!(
            offer.tools.len() >= 10 && offer.prompts >= 3,
            "{} tools, {} prompts",
            offer.tools.len(),
            offer.prompts
        );
        let features = listed.iter().find(|r| r.name == "features.md").expect("the docs are listed");
        assert_eq!(features.uri, "demo://resource/static/document/features.md");
        assert_eq!(features.mime_type.as_deref(), Some("text/markdown"));
        let templates = client.list_resource_templates(&cancel).await.unwrap();
        let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
        assert!(uris.contains(&"demo://resource/dynamic/text/{resourceId}"), "{uris:?}");

        let read = client.read_resource(&features.uri, &cancel).await.unwrap();
        assert_eq!(read.len(), 1);
        let ResourceBody::Text(text) = &read[0].body else { panic!("text expected: {read:?}") };
        assert!(text.contains("Everything"), "{text}");
        // A template filled in; bytes come decoded.
        let blob = client.read_resource("demo://resource/dynamic/blob/3", &cancel).await.unwrap();
        assert_eq!(blob[0].body, ResourceBody::Bytes(blob_bytes(&blob[0].body)));
        assert!(String::from_utf8(blob_bytes(&blob[0].body)).unwrap().starts_with("Resource 3: This is a base64 blob"));
        // An unknown resource is an error that names the server.
        let missing = client.read_resource("demo://resource/dynamic/text/0", &cancel).await.unwrap_err();
        assert!(
            missing.to_string().starts_with("MCP: everything: resources/read failed: Unknown resource"),
            "{missing}"
        );
        client.close().await;
    });
}

fn blob_bytes(body: &ResourceBody) -> Vec<u8> {
    match body {
        ResourceBody::Bytes(bytes) => bytes.clone(),
        other => panic!("bytes expected: {other:?}"),
    }
}

/// Answers every form with `answer`, keeping what each asked.
struct ScriptedForms {
    answer: FormAnswer,
    asked: RefCell<Vec<Elicitation>>,
}

#[async_trait::async_trait(?Send)]
impl ClientFeatures for ScriptedForms {
    async fn fill(&self, asked: Elicitation) -> FormAnswer {
        self.asked.borrow_mut().push(asked);
        self.answer.clone()
    }
}

#[test]
fn a_page_the_server_asks_the_user_to_open_is_shown_with_its_host_and_accepted() {
    let server = Everything::start();
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client = plain_client(&server, &cancel).await;
        // Offered only to a client that says it opens pages (MCP 2025-11-25's URL mode).
        assert_eq!(client.info().protocol_version, "2025-11-25");
        let tools = client.list_tools(&cancel).await.unwrap();
        assert!(tools.iter().any(|t| t.name == "trigger-url-elicitation"));
        let forms = ScriptedForms {
            answer: FormAnswer { action: FormAction::Accept, content: None },
            asked: RefCell::new(Vec::new()),
        };
        let pay = json!({"url": "https://pay.example.com/checkout/7", "message": "Pay for the order"});
        let done =
            client.call_tool("trigger-url-elicitation", pay.clone(), &no_progress, &forms, &cancel).await.unwrap();
        assert!(done.text.contains("User completed the URL elicitation flow"), "{}", done.text);
        {
            let asked = forms.asked.borrow();
            assert_eq!(asked[0].message, "Pay for the order");
            assert!(asked[0].fields.is_empty());
            let page = asked[0].page.as_ref().expect("a page");
            assert_eq!(
                (page.url.as_str(), page.host.as_str()),
                ("https://pay.example.com/checkout/7", "pay.example.com")
            );
        }
        // A page that is not a web page is refused before anyone sees it.
        let script = json!({"url": "http://example.com/plain", "message": "Open"});
        let refused = client.call_tool("trigger-url-elicitation", script, &no_progress, &forms, &cancel).await.unwrap();
        assert!(refused.is_error && refused.text.contains("not served over https"), "{}", refused.text);
        assert_eq!(forms.asked.borrow().len(), 1);

        // A call refused until a page is opened (error -32042): the page is shown, and the
        // model is told to call again once the user has finished; the next call goes through.
        let first = json!({"url": "https://pay.example.com/checkout/8", "errorPath": true});
        let needs =
            client.call_tool("trigger-url-elicitation", first.clone(), &no_progress, &forms, &cancel).await.unwrap();
        assert!(needs.is_error, "{}", needs.text);
        assert!(
            needs.text.contains("the user opened the page at modelcontextprotocol.io in their browser")
                && needs.text.contains("Call the tool again once the user says they have finished"),
            "{}",
            needs.text
        );
        assert_eq!(forms.asked.borrow()[1].page.as_ref().unwrap().host, "modelcontextprotocol.io");
        let again = client.call_tool("trigger-url-elicitation", first, &no_progress, &forms, &cancel).await.unwrap();
        assert!(again.text.contains("User completed the URL elicitation flow"), "{}", again.text);
        client.close().await;
    });
}

#[test]
fn a_form_the_server_asks_for_mid_call_is_answered_and_the_call_goes_on() {
    let server = Everything::start();
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client = plain_client(&server, &cancel).await;
        // The server offers its form tool only to a client that says it fills in forms.
        let tools = client.list_tools(&cancel).await.unwrap();
        assert!(tools.iter().any(|t| t.name == "trigger-elicitation-request"));

        let content = json!({"name": "Ada", "check": true, "integer": 7, "untitledMultipleSelectEnum": ["Piano"]});
        let forms = ScriptedForms {
            answer: FormAnswer { action: FormAction::Accept, content: content.as_object().cloned() },
            asked: RefCell::new(Vec::new()),
        };
        let done = client.call_tool("trigger-elicitation-request", json!({}), &no_progress, &forms, &cancel).await.unwrap();
        assert!(!done.is_error, "{}", done.text);
        for line in ["- Name: Ada", "- Agreed to terms: true", "- Favorite Integer: 7"] {
            assert!(done.text.contains(line), "{line} missing from {}", done.text);
        }
        {
            let asked = forms.asked.borrow();
            let (message, fields) = (&asked[0].message, &asked[0].fields);
            assert_eq!(message, "Please provide inputs for the following fields:");
            // In the server's order, not its keys' sorted order.
            let names: Vec<&str> = fields.iter().take(4).map(|f| f.name.as_str()).collect();
            assert_eq!(names, ["name", "check", "firstLine", "email"]);
            let name = &fields[0];
            assert_eq!((name.label.as_str(), name.required), ("String", true));
            let pets = fields.iter().find(|f| f.name == "legacyTitledEnum").unwrap();
            assert!(matches!(&pets.input, FieldInput::Choice { options, default: Some(d) } if options[1].label == "Dogs" && d == "pet-1"));
        }

        let declined = ScriptedForms {
            answer: FormAnswer { action: FormAction::Decline, content: None },
            asked: RefCell::new(Vec::new()),
        };
        let done =
            client.call_tool("trigger-elicitation-request", json!({}), &no_progress, &declined, &cancel).await.unwrap();
        assert!(done.text.contains("User declined"), "{}", done.text);
        client.close().await;
    });
}

#[test]
fn a_form_the_server_asks_for_on_the_sessions_own_stream_is_answered_too() {
    // The SDK's `server.elicitInput` asks on the session's GET stream, not in the call's answer.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/servers/mcp-forms.mjs");
    let server = Everything::run(&[script]);
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client =
            McpClient::connect("forms", Box::new(http(&server.url)), ClientOffer::default(), &cancel).await.unwrap();
        let forms = ScriptedForms {
            answer: FormAnswer { action: FormAction::Accept, content: json!({"guests": 4}).as_object().cloned() },
            asked: RefCell::new(Vec::new()),
        };
        let done = client.call_tool("book_table", json!({}), &no_progress, &forms, &cancel).await.unwrap();
        assert_eq!(done.text, r#"Booking: {"action":"accept","content":{"guests":4}}"#);
        {
            let asked = forms.asked.borrow();
            assert_eq!(asked[0].message, "How many guests, and which day?");
            assert_eq!(asked[0].fields.iter().map(|f| f.label.as_str()).collect::<Vec<_>>(), ["Guests", "Day"]);
        }
        // The stream stays open for the next call.
        let again = client.call_tool("book_table", json!({}), &no_progress, &forms, &cancel).await.unwrap();
        assert!(again.text.contains(r#""guests":4"#), "{}", again.text);
        assert_eq!(forms.asked.borrow().len(), 2);
        client.close().await;
    });
}

/// Answers every sampling request with `reply` (or declines it), keeping what each asked.
struct ScriptedModel {
    reply: Option<&'static str>,
    asked: RefCell<Vec<SamplingRequest>>,
}

#[async_trait::async_trait(?Send)]
impl ClientFeatures for ScriptedModel {
    async fn fill(&self, _asked: Elicitation) -> FormAnswer {
        FormAnswer::cancel()
    }
    async fn sample(&self, request: SamplingRequest) -> SamplingOutcome {
        self.asked.borrow_mut().push(request);
        match self.reply {
            Some(text) => SamplingOutcome::Reply(SamplingReply {
                text: text.into(),
                model: "scripted-model".into(),
                stop_reason: StopReason::EndTurn,
            }),
            None => SamplingOutcome::Declined,
        }
    }
}

#[test]
fn a_server_asks_the_clients_model_for_a_reply_and_is_told_the_vaults_folder() {
    let server = Everything::start();
    runtime().block_on(async {
        let cancel = CancelToken::new();
        // Without the offer the server keeps both tools to itself.
        let plain = plain_client(&server, &cancel).await;
        let names: Vec<String> = plain.list_tools(&cancel).await.unwrap().into_iter().map(|t| t.name).collect();
        assert!(!names.iter().any(|n| n == "trigger-sampling-request" || n == "get-roots-list"), "{names:?}");
        plain.close().await;

        let offer = ClientOffer { sampling: true, roots: vec![Root::folder("/home/ada/My Vault").unwrap()] };
        let client = McpClient::connect("everything", Box::new(http(&server.url)), offer, &cancel).await.unwrap();
        let names: Vec<String> = client.list_tools(&cancel).await.unwrap().into_iter().map(|t| t.name).collect();
        assert!(names.iter().any(|n| n == "trigger-sampling-request"), "{names:?}");

        let model = ScriptedModel { reply: Some("Three short lines."), asked: RefCell::new(Vec::new()) };
        let args = json!({"prompt": "a haiku about notes", "maxTokens": 60});
        let done =
            client.call_tool("trigger-sampling-request", args.clone(), &no_progress, &model, &cancel).await.unwrap();
        assert!(!done.is_error, "{}", done.text);
        for part in ["Three short lines.", "scripted-model", "endTurn"] {
            assert!(done.text.contains(part), "{part} missing from {}", done.text);
        }
        {
            let asked = model.asked.borrow();
            assert_eq!(asked[0].system.as_deref(), Some("You are a helpful test server."));
            assert_eq!(asked[0].max_tokens, 60);
            assert!(asked[0].messages[0].text().ends_with("a haiku about notes"), "{:?}", asked[0].messages);
        }

        // Declined by the user: the server hears so, and the call ends with its error.
        let declined = ScriptedModel { reply: None, asked: RefCell::new(Vec::new()) };
        let done = client.call_tool("trigger-sampling-request", args, &no_progress, &declined, &cancel).await.unwrap();
        assert!(done.is_error && done.text.contains("The user declined the request"), "{}", done.text);

        let roots = client.call_tool("get-roots-list", json!({}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert!(roots.text.contains("URI: file:///home/ada/My%20Vault"), "{}", roots.text);
        assert!(roots.text.contains("1. My Vault"), "{}", roots.text);
        client.close().await;
    });
}

#[test]
fn a_servers_prompts_are_listed_with_their_arguments_and_filled_in() {
    use std::collections::BTreeMap;

    use vault_agent::host::SystemClock;
    use vault_agent::mcp::{McpServerConfig, McpToolset};

    let server = Everything::start();
    let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
    let toolset = McpToolset::new(vec![config], Rc::new(ReqwestClient::new()), Rc::new(SystemClock), None);
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let (prompts, problems) = toolset.prompts(&cancel).await;
        assert!(problems.is_empty(), "{problems:?}");
        let args = prompts.iter().find(|p| p.prompt.name == "args-prompt").expect("listed");
        assert_eq!(args.server, "everything");
        assert_eq!(args.prompt.title.as_deref(), Some("Arguments Prompt"));
        let wanted: Vec<(&str, bool)> = args.prompt.arguments.iter().map(|a| (a.name.as_str(), a.required)).collect();
        assert_eq!(wanted, [("city", true), ("state", false)]);

        let filled = BTreeMap::from([("city".to_string(), "Paris".to_string())]);
        assert_eq!(
            toolset.prompt("everything", "args-prompt", &filled, &cancel).await.unwrap(),
            "What's weather in Paris?"
        );
        let unknown = toolset.prompt("elsewhere", "args-prompt", &filled, &cancel).await.unwrap_err();
        assert!(unknown.to_string().contains("MCP server elsewhere is not connected"), "{unknown}");
        toolset.close().await;
    });
}

#[test]
fn cancelling_a_call_tells_the_server_and_returns_at_once() {
    let server = Everything::start();
    runtime().block_on(async {
        let client =
            McpClient::connect("everything", Box::new(http(&server.url)), ClientOffer::default(), &CancelToken::new())
                .await
                .unwrap();
        let cancel = CancelToken::new();
        let stop = cancel.clone();
        let started = std::time::Instant::now();
        let result = client
            .call_tool(
                "trigger-long-running-operation",
                json!({"duration": 30, "steps": 30}),
                &move |p: &Progress| {
                    if p.progress >= 1.0 {
                        stop.cancel();
                    }
                },
                &NoForms,
                &cancel,
            )
            .await;
        assert!(matches!(result, Err(Error::Cancelled)), "{result:?}");
        assert!(started.elapsed().as_secs() < 10, "the call did not end when cancelled");
        // The session is still usable afterwards.
        let said = client
            .call_tool("echo", json!({"message": "again"}), &no_progress, &NoForms, &CancelToken::new())
            .await
            .unwrap();
        assert_eq!(said.text, "Echo: again");
    });
}

#[test]
fn closing_ends_the_session_on_the_server() {
    let server = Everything::start();
    runtime().block_on(async {
        let transport = Rc::new(http(&server.url));
        let client = McpClient::connect(
            "everything",
            Box::new(SharedTransport(transport.clone())),
            ClientOffer::default(),
            &CancelToken::new(),
        )
        .await
        .unwrap();
        let session = transport.session_id().expect("the server assigned a session");
        // A second connection naming that session is served while it lives, and refused once
        // the client closed it.
        let reuse = StreamableHttp::new(
            Rc::new(ReqwestClient::new()),
            Rc::new(ManualClock::new(0)),
            &server.url,
            vec![("mcp-session-id".into(), session)],
        );
        reuse.set_protocol_version("2025-06-18");
        let list = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        let nothing = |_| -> LocalBoxFuture<'_, Option<Value>> { Box::pin(std::future::ready(None)) };
        let before = reuse.request(9, list(9), &nothing, &CancelToken::new()).await.unwrap();
        assert!(before.unwrap()["tools"].is_array());
        client.close().await;
        let after = reuse.request(10, list(10), &nothing, &CancelToken::new()).await;
        assert!(matches!(&after, Err(Error::Mcp(m)) if m.contains("No valid session")), "{after:?}");
    });
}

#[test]
fn reference_server_over_stdio() {
    runtime().block_on(async {
        let process = ChildProcess::spawn("node", &[everything_js(), "stdio".into()], &[]).unwrap();
        let cancel = CancelToken::new();
        let client =
            McpClient::connect("local", Box::new(Stdio::new(Rc::new(process))), ClientOffer::default(), &cancel)
                .await
                .unwrap();
        assert_eq!(client.info().name, "mcp-servers/everything");
        let tools = client.list_tools(&cancel).await.unwrap();
        assert!(tools.iter().any(|t| t.name == "get-sum"));
        let sum = client.call_tool("get-sum", json!({"a": 2, "b": 40}), &no_progress, &NoForms, &cancel).await.unwrap();
        assert!(sum.text.contains("42"), "{}", sum.text);
        client.close().await;
    });
}

/// A transport the test keeps a handle on.
struct SharedTransport(Rc<StreamableHttp>);

#[async_trait::async_trait(?Send)]
impl McpTransport for SharedTransport {
    async fn request(
        &self,
        id: u64,
        message: Value,
        inbox: vault_agent::mcp::Inbox<'_>,
        cancel: &CancelToken,
    ) -> vault_agent::Result<Result<Value, vault_agent::mcp::RpcError>> {
        self.0.request(id, message, inbox, cancel).await
    }
    async fn send(&self, message: Value) -> vault_agent::Result<()> {
        self.0.send(message).await
    }
    fn set_protocol_version(&self, version: &str) {
        self.0.set_protocol_version(version)
    }
    async fn close(&self) {
        self.0.close().await
    }
}

// ---------------------------------------------------------------------------------------
// A scripted server for the protocol's edges.

/// One request as the scripted server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
    pub fn rpc_method(&self) -> &str {
        self.body.get("method").and_then(Value::as_str).unwrap_or_default()
    }
}

/// What the scripted server writes back: the status line's code, headers and body.
pub(crate) type Reply = (u16, Vec<(&'static str, String)>, String);

/// Serves each connection with `answer` (one request per connection) and records them all.
pub(crate) fn scripted(answer: impl Fn(&Seen, usize) -> Reply + Send + 'static) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let stream = stream.unwrap();
            let request = crate::local_server::read_request(&stream);
            let seen = Seen {
                method: request.line.split(' ').next().unwrap().to_string(),
                body: serde_json::from_str(&request.body).unwrap_or(Value::Null),
                headers: request.headers,
            };
            let (status, headers, body) = answer(&seen, n);
            log.lock().unwrap().push(seen);
            let mut out = stream;
            let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            out.write_all(head.as_bytes()).unwrap();
            out.write_all(body.as_bytes()).unwrap();
        }
    });
    (url, seen)
}

pub(crate) fn json_reply(body: Value) -> Reply {
    (200, vec![("content-type", "application/json".into())], body.to_string())
}

fn sse_reply(events: &str) -> Reply {
    (200, vec![("content-type", "text/event-stream".into())], events.to_string())
}

fn initialize_result(id: &Value, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": version, "capabilities": {"tools": {"listChanged": true}},
        "serverInfo": {"name": "scripted", "version": "1"}}})
}

/// The usual answers: initialize (with a session id), 202 for notifications, 405 for the
/// session's own stream (this server offers none).
pub(crate) fn handshake(seen: &Seen) -> Option<Reply> {
    if seen.method == "GET" && seen.header("last-event-id").is_none() {
        return Some((405, vec![("allow", "POST, DELETE".into())], String::new()));
    }
    match seen.rpc_method() {
        "initialize" => {
            let (status, mut headers, body) = json_reply(initialize_result(&seen.body["id"], "2025-06-18"));
            headers.push(("mcp-session-id", "session-1".into()));
            Some((status, headers, body))
        }
        m if m.starts_with("notifications/") => Some((202, vec![], String::new())),
        _ => None,
    }
}

#[test]
fn a_server_speaking_an_unknown_version_is_refused() {
    let (url, seen) = scripted(|seen, _| match seen.rpc_method() {
        "initialize" => json_reply(initialize_result(&seen.body["id"], "1999-01-01")),
        _ => (202, vec![], String::new()),
    });
    let result = runtime().block_on(McpClient::connect(
        "old",
        Box::new(http(&url)),
        ClientOffer::default(),
        &CancelToken::new(),
    ));
    let Err(Error::Mcp(message)) = result else { panic!("expected a refusal") };
    assert!(message.contains("old") && message.contains("1999-01-01") && message.contains("2025-11-25"), "{message}");
    // Asked for the newest version it speaks; sent nothing after the refusal but the close.
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].body["params"]["protocolVersion"], "2025-11-25");
    assert!(seen.iter().all(|s| s.rpc_method() != "notifications/initialized"));
}

#[test]
fn tools_are_read_across_pages_and_list_changes_are_noticed() {
    let (url, seen) = scripted(|seen, _| {
        if let Some(reply) = handshake(seen) {
            return reply;
        }
        let id = &seen.body["id"];
        let page = |names: &[&str], next: Option<&str>| {
            let tools: Vec<Value> =
                names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect();
            let mut result = json!({ "tools": tools });
            if let Some(next) = next {
                result["nextCursor"] = json!(next);
            }
            result
        };
        match seen.body["params"]["cursor"].as_str() {
            None => json_reply(json!({"jsonrpc": "2.0", "id": id, "result": page(&["a", "b"], Some("p2"))})),
            // The second page comes as an event stream, after a notification that the list
            // changed.
            Some("p2") => sse_reply(&format!(
                "event: message\ndata: {}\n\nevent: message\ndata: {}\n\n",
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                json!({"jsonrpc": "2.0", "id": id, "result": page(&["c"], None)})
            )),
            Some(other) => panic!("unexpected cursor {other}"),
        }
    });
    runtime().block_on(async {
        let cancel = CancelToken::new();
        let client = McpClient::connect("paged", Box::new(http(&url)), ClientOffer::default(), &cancel).await.unwrap();
        let tools = client.list_tools(&cancel).await.unwrap();
        assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(client.tools_changed());
    });
    // Every request after initialize carries the session and the negotiated version.
    let seen = seen.lock().unwrap();
    for later in &seen[1..] {
        assert_eq!(later.header("mcp-session-id"), Some("session-1"), "{later:?}");
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-06-18"));
    }
}

#[test]
fn a_broken_stream_is_resumed_from_the_last_event_after_the_servers_retry() {
    let (url, seen) = scripted(|seen, _| {
        if let Some(reply) = handshake(seen) {
            return reply;
        }
        match (seen.method.as_str(), seen.header("last-event-id")) {
            // The call's stream sets a retry, sends one event, answers a ping, then breaks.
            ("POST", _) if seen.rpc_method() == "tools/call" => sse_reply(&format!(
                "retry: 250\nid: e1\ndata: {}\n\nid: e2\ndata: {}\n\n",
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": seen.body["params"]["_meta"]["progressToken"], "progress": 1}}),
                json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
            )),
            ("POST", _) => (202, vec![], String::new()),
            ("GET", Some("e2")) => sse_reply(&format!(
                "id: e3\ndata: {}\n\n",
                json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "resumed"}]}})
            )),
            other => panic!("unexpected {other:?}"),
        }
    });
    let clock = Rc::new(ManualClock::new(0));
    let progress = RefCell::new(0);
    runtime().block_on(async {
        let transport = StreamableHttp::new(
            Rc::new(ReqwestClient::new()),
            clock.clone(),
            &url,
            vec![("authorization".into(), "Bearer t0ken".into())],
        );
        let client = McpClient::connect("flaky", Box::new(transport), ClientOffer::default(), &CancelToken::new())
            .await
            .unwrap();
        let outcome = client
            .call_tool("slow", json!({}), &|_: &Progress| *progress.borrow_mut() += 1, &NoForms, &CancelToken::new())
            .await
            .unwrap();
        assert_eq!(outcome.text, "resumed");
    });
    assert_eq!(*progress.borrow(), 1);
    assert_eq!(clock.sleeps(), vec![250], "waited the server's retry before resuming");
    let seen = seen.lock().unwrap();
    // The ping was answered, the resume named the last event, and every request carried the
    // configured header.
    let pong = seen.iter().find(|s| s.body.get("id") == Some(&json!("srv-1"))).expect("ping answered");
    assert_eq!(pong.body["result"], json!({}));
    assert!(seen.iter().any(|s| s.method == "GET" && s.header("last-event-id") == Some("e2")));
    assert!(seen.iter().all(|s| s.header("authorization") == Some("Bearer t0ken")));
}

// ---------------------------------------------------------------------------------------
// The agent calling server tools through the pipeline.

mod agent {
    use std::rc::Rc;

    use serde_json::json;
    use std::cell::RefCell;
    use vault_agent::agent::{AgentConfig, Conversation};

    use vault_agent::host::{AgentHost, ChannelHost, ReqwestClient, SystemClock};
    use vault_agent::mcp::{ClientOffer, McpServerConfig, McpToolset, SAMPLING_APPROVAL};
    use vault_agent::protocol::{
        AgentEvent, ApprovalCategory, ApprovalDecision, EndReason, FormAction, FormAnswer, FormRequest, Role,
        RunReport, ToolChoice,
    };
    use vault_agent::provider::{ScriptedProvider, Turn};
    use vault_agent::vault::MemoryVault;

    use super::{runtime, Everything};
    use crate::agent::support::TestHost;

    struct Run {
        provider: Rc<ScriptedProvider>,
        host: Rc<TestHost>,
        end: EndReason,
    }

    fn run(server: McpServerConfig, turns: Vec<Turn>, decide: ApprovalDecision) -> Run {
        let provider = Rc::new(ScriptedProvider::new(turns));
        let host = TestHost::new();
        host.deciding(move |_| decide);
        let end = send(server, provider.clone(), host.clone(), "Ask the server to echo something");
        Run { provider, host, end }
    }

    /// Sends `message` in a chat with `server`'s tools, the model playing `provider`'s turns and
    /// `host` answering for the user; how the task ended.
    fn send(
        server: McpServerConfig,
        provider: Rc<ScriptedProvider>,
        host: Rc<dyn AgentHost>,
        message: &str,
    ) -> EndReason {
        send_for_report(server, provider, host, message).end
    }

    /// [`send`], for the whole report. The chat offers sampling, as the plugin's and the CLI's do.
    fn send_for_report(
        server: McpServerConfig,
        provider: Rc<ScriptedProvider>,
        host: Rc<dyn AgentHost>,
        message: &str,
    ) -> RunReport {
        // The real clock: a manual one's sleeps end at once, so the tool timeout would win
        // every race with the network.
        let clock = Rc::new(SystemClock);
        let offer = ClientOffer { sampling: true, roots: Vec::new() };
        let toolset = McpToolset::new(vec![server], Rc::new(ReqwestClient::new()), clock.clone(), None);
        let toolset = Rc::new(toolset.with_offer(offer));
        let chat = Conversation::new(AgentConfig::default(), provider, Rc::new(MemoryVault::new()), clock, host)
            .with_mcp(toolset.clone());
        runtime().block_on(async {
            let report = chat.send(message).await.unwrap();
            toolset.close().await;
            report
        })
    }

    fn approvals(host: &TestHost) -> Vec<(String, ApprovalCategory)> {
        host.events()
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::ApprovalRequired { request } => Some((request.tool, request.category)),
                _ => None,
            })
            .collect()
    }

    fn echo_then_answer() -> Vec<Turn> {
        vec![Turn::tools([("mcp__everything__echo", json!({"message": "from the agent"}))]), Turn::text("Done.")]
    }

    #[test]
    fn a_server_tool_is_offered_asked_for_and_its_result_reaches_the_model() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let run = run(config, echo_then_answer(), ApprovalDecision::Approve);
        assert_eq!(run.end, EndReason::Answered);
        let requests = run.provider.requests();
        let echo = requests[0].tools.iter().find(|t| t.name == "mcp__everything__echo").expect("offered");
        assert_eq!(echo.input_schema["properties"]["message"]["type"], "string");
        assert!(echo.description.contains("MCP server \"everything\""));
        // The server's own instructions reach the prompt, under its name.
        let system: String = requests[0].system.iter().map(|p| p.text.as_str()).collect();
        assert!(
            system.contains("## MCP servers\n") && system.contains("### everything\n# Everything Server"),
            "{system}"
        );
        // Asked first, in its own category, then run; the model saw the server's answer.
        assert_eq!(approvals(&run.host), [("mcp__everything__echo".to_string(), ApprovalCategory::Mcp)]);
        let sent = serde_json::to_string(&requests[1].messages).unwrap();
        assert!(sent.contains("Echo: from the agent"), "{sent}");
    }

    #[test]
    fn a_sub_task_is_told_what_the_servers_say_about_their_tools_too() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let delegate = json!({"mode": "agent", "message": "Echo something through the server"});
        let turns = vec![Turn::tools([("new_task", delegate)]), Turn::text("Echoed."), Turn::text("Done.")];
        let run = run(config, turns, ApprovalDecision::Approve);
        assert_eq!(run.end, EndReason::Answered);
        // The second request is the child's: the same servers' tools, and their instructions.
        let requests = run.provider.requests();
        assert!(requests[1].tools.iter().any(|t| t.name == "mcp__everything__echo"));
        let system: String = requests[1].system.iter().map(|p| p.text.as_str()).collect();
        assert!(system.contains("### everything\n# Everything Server"), "{system}");
    }

    fn ask_for_a_haiku() -> Turn {
        Turn::tools([(
            "mcp__everything__trigger-sampling-request",
            json!({"prompt": "a haiku about notes", "maxTokens": 60}),
        )])
    }

    #[test]
    fn a_server_asks_the_tasks_model_with_the_users_approval_and_the_reply_is_counted() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        // The model's turns: the call; the reply the server asks for; the answer.
        let turns = vec![ask_for_a_haiku(), Turn::text("Notes pile up softly."), Turn::text("Done.")];
        let provider = Rc::new(ScriptedProvider::new(turns));
        let host = TestHost::new();
        host.deciding(|_| ApprovalDecision::Approve);
        let report = send_for_report(config, provider.clone(), host.clone(), "Get a haiku from the server");
        assert_eq!(report.end, EndReason::Answered);
        // Asked twice: the call, then the server's request for the model, with what it sends.
        let tool = "mcp__everything__trigger-sampling-request".to_string();
        assert_eq!(
            approvals(&host),
            [(tool, ApprovalCategory::Mcp), (SAMPLING_APPROVAL.to_string(), ApprovalCategory::Mcp)]
        );
        let asked = host
            .events()
            .into_iter()
            .find_map(|e| match e {
                AgentEvent::ApprovalRequired { request } if request.tool == SAMPLING_APPROVAL => Some(request),
                _ => None,
            })
            .unwrap();
        assert!(asked.summary.contains("“everything” asks your model") && asked.summary.contains("60 tokens"));
        assert_eq!(asked.input["systemPrompt"], "You are a helpful test server.");
        assert!(asked.input["messages"][0]["text"].as_str().unwrap().ends_with("a haiku about notes"));

        // The model got the server's messages alone: its system prompt, no tools, no history.
        let requests = provider.requests();
        let sampled = &requests[1];
        assert_eq!(sampled.system[0].text, "You are a helpful test server.");
        assert!(sampled.tools.is_empty() && sampled.tool_choice == ToolChoice::None);
        assert_eq!(sampled.messages.len(), 1);
        assert_eq!(sampled.messages[0].role, Role::User);
        assert_eq!(sampled.max_tokens, 60);
        // The server got the reply, and the task's model read the server's result.
        let sent = serde_json::to_string(&requests[2].messages).unwrap();
        assert!(sent.contains("Notes pile up softly."), "{sent}");
        // The reply's tokens are in the task's meter, beside the steps'.
        let steps: u64 = report.steps.iter().map(|s| s.usage.output_tokens).sum();
        assert_eq!(report.usage.output_tokens, steps + "Notes pile up softly.".len().div_ceil(4) as u64);
    }

    #[test]
    fn an_image_a_tool_returns_reaches_a_model_that_sees_images_and_is_named_to_one_that_does_not() {
        use vault_agent::media::MediaSupport;
        use vault_agent::protocol::ContentBlock;

        let server = Everything::start();
        let image_then_answer =
            || vec![Turn::tools([("mcp__everything__get-tiny-image", json!({}))]), Turn::text("A logo.")];
        for sees in [true, false] {
            let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
            let media = MediaSupport { images: sees, documents: sees };
            let provider = Rc::new(ScriptedProvider::new(image_then_answer()).with_media(media));
            let host = TestHost::new();
            host.deciding(|_| ApprovalDecision::Approve);
            let report = send_for_report(config, provider.clone(), host, "Show me the server's image");
            assert_eq!(report.end, EndReason::Answered);
            let sent = &provider.requests()[1].messages;
            let images: Vec<&ContentBlock> = sent
                .iter()
                .flat_map(|m| &m.content)
                .filter(|b| matches!(b, ContentBlock::Image { media_type, .. } if media_type == "image/png"))
                .collect();
            let text = serde_json::to_string(sent).unwrap();
            assert!(text.contains("[image: image/png, about"), "the text names it: {text}");
            assert!(text.contains("The image above is the MCP logo."), "{text}");
            if sees {
                assert_eq!(images.len(), 1, "{text}");
                assert!(text.contains("What the result shows follows this text."), "{text}");
            } else {
                assert!(images.is_empty(), "{text}");
            }
        }
    }

    #[test]
    fn a_long_calls_progress_reaches_the_host_a_few_times_a_second_and_its_end_always() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let long = json!({"duration": 0.6, "steps": 12});
        let turns = vec![Turn::tools([("mcp__everything__trigger-long-running-operation", long)]), Turn::text("Done.")];
        let run = run(config, turns, ApprovalDecision::Approve);
        assert_eq!(run.end, EndReason::Answered);
        let shown: Vec<(f64, Option<f64>)> = run
            .host
            .events()
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::ToolProgress { progress, total, .. } => Some((progress, total)),
                _ => None,
            })
            .collect();
        // Twelve reports 50 ms apart, shown at most every 250 ms: the first, a few, the last.
        assert_eq!(shown.first(), Some(&(1.0, Some(12.0))), "{shown:?}");
        assert_eq!(shown.last(), Some(&(12.0, Some(12.0))), "{shown:?}");
        assert!((2..12).contains(&shown.len()), "{shown:?}");
        assert!(shown.windows(2).all(|w| w[0].0 < w[1].0), "in order: {shown:?}");
    }

    #[test]
    fn a_server_gets_ten_replies_a_call_at_most_each_no_longer_than_the_tasks_own() {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/servers/mcp-forms.mjs");
        let server = Everything::run(&[script]);
        let config = McpServerConfig::parse_http(&format!("forms={}", server.url)).unwrap();
        let mut turns = vec![Turn::tools([("mcp__forms__ask_model_often", json!({"count": 12}))])];
        turns.extend((0..10).map(|_| Turn::text("Reply.")));
        turns.push(Turn::text("Done."));
        let provider = Rc::new(ScriptedProvider::new(turns));
        let host = TestHost::new();
        host.deciding(|_| ApprovalDecision::Approve);
        let report = send_for_report(config, provider.clone(), host, "Let the server ask");
        assert_eq!(report.end, EndReason::Answered);
        let requests = provider.requests();
        // It asked for 100,000 tokens each time; the task's own limit (8,192) is what it got.
        let limit = AgentConfig::default().max_tokens;
        assert!(requests[1..=10].iter().all(|r| r.max_tokens == limit && r.tools.is_empty()));
        let sent = serde_json::to_string(&requests[11].messages).unwrap();
        assert!(sent.contains("answered 10; refused 2: "), "{sent}");
        assert!(sent.contains("this client answers at most 10 requests for the model in one tool call"), "{sent}");
    }

    #[test]
    fn a_declined_request_for_the_model_fails_the_servers_tool_and_the_task_goes_on() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let provider = Rc::new(ScriptedProvider::new(vec![ask_for_a_haiku(), Turn::text("The server got no haiku.")]));
        let host = TestHost::new();
        host.deciding(|request| {
            if request.tool == SAMPLING_APPROVAL {
                ApprovalDecision::Deny
            } else {
                ApprovalDecision::Approve
            }
        });
        let report = send_for_report(config, provider.clone(), host, "Get a haiku from the server");
        assert_eq!(report.end, EndReason::Answered);
        // No model call for the server.
        let requests = provider.requests();
        assert!(requests.iter().all(|r| r.system.iter().all(|p| p.text != "You are a helpful test server.")));
        let sent = serde_json::to_string(&requests[1].messages).unwrap();
        assert!(sent.contains("The user declined the request"), "{sent}");
    }

    #[test]
    fn a_denied_call_never_reaches_the_server_and_the_schema_still_guards_arguments() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let run = run(config, echo_then_answer(), ApprovalDecision::Deny);
        assert_eq!(run.end, EndReason::Denied);
        assert_eq!(run.provider.requests().len(), 1);

        // Arguments the server's schema refuses never reach the approval.
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let bad = vec![Turn::tools([("mcp__everything__echo", json!({"text": 3}))]), Turn::text("Sorry.")];
        let run = super::agent::run(config, bad, ApprovalDecision::Approve);
        assert!(approvals(&run.host).is_empty());
        let sent = serde_json::to_string(&run.provider.requests()[1].messages).unwrap();
        assert!(sent.contains("message"), "the model is told what the schema wants: {sent}");
    }

    #[test]
    fn trusted_read_only_tools_run_without_asking_and_others_still_ask() {
        let server = Everything::start();
        let mut config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        config.trust_read_only = true;
        config.disabled_tools = vec!["get-env".into()];
        let turns = vec![
            Turn::tools([("mcp__everything__echo", json!({"message": "a"}))]),
            Turn::tools([("mcp__everything__toggle-simulated-logging", json!({}))]),
            Turn::text("Done."),
        ];
        let run = run(config, turns, ApprovalDecision::Approve);
        assert_eq!(run.end, EndReason::Answered);
        assert_eq!(
            approvals(&run.host),
            [("mcp__everything__toggle-simulated-logging".to_string(), ApprovalCategory::Mcp)]
        );
        let sent = serde_json::to_string(&run.provider.requests()[1].messages).unwrap();
        assert!(sent.contains("Echo: a"), "{sent}");
        // A tool the user turned off is not offered.
        assert!(run.provider.requests()[0].tools.iter().all(|t| t.name != "mcp__everything__get-env"));
    }

    #[test]
    fn the_model_lists_a_servers_resources_and_reads_one_with_the_users_approval() {
        let server = Everything::start();
        let uri = "demo://resource/static/document/features.md";
        let turns = || {
            vec![
                Turn::tools([("list_mcp_resources", json!({}))]),
                Turn::tools([("read_mcp_resource", json!({"server": "everything", "uri": uri}))]),
                Turn::text("Done."),
            ]
        };
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let asked = run(config.clone(), turns(), ApprovalDecision::Approve);
        assert_eq!(asked.end, EndReason::Answered);
        let requests = asked.provider.requests();
        let read = requests[0].tools.iter().find(|t| t.name == "read_mcp_resource").expect("offered");
        assert_eq!(read.input_schema["properties"]["server"]["enum"], json!(["everything"]));
        // Listing sends nothing of the vault and asks nothing; the read asks first.
        assert_eq!(approvals(&asked.host), [("read_mcp_resource".to_string(), ApprovalCategory::Mcp)]);
        let listed = serde_json::to_string(&requests[1].messages).unwrap();
        assert!(listed.contains(&format!("- {uri} — features.md (text/markdown;")), "{listed}");
        assert!(listed.contains("- template demo://resource/dynamic/text/{resourceId}"), "{listed}");
        // The resource reached the model as data from outside, between the task's markers (its
        // beginning: the whole of a long one is saved to a file the model reads on).
        let sent = serde_json::to_string(&requests[2].messages).unwrap();
        let data = sent.split("<<<data").last().unwrap();
        assert!(data.contains("(from read_mcp_resource)"), "{sent}");
        assert!(data.contains(&format!("[resource {uri} (text/markdown)]\\n# Everything Server - Features")), "{sent}");

        // A denied read never reaches the server; a server the user trusts is read unasked.
        let denied = run(config.clone(), turns(), ApprovalDecision::Deny);
        assert_eq!(denied.end, EndReason::Denied);
        let mut trusted = config;
        trusted.trust_read_only = true;
        let unasked = run(trusted, turns(), ApprovalDecision::Deny);
        assert_eq!(unasked.end, EndReason::Answered);
        assert!(approvals(&unasked.host).is_empty());
        let sent = serde_json::to_string(&unasked.provider.requests()[2].messages).unwrap();
        assert!(sent.contains("[resource demo://"), "{sent}");
    }

    #[test]
    fn a_resource_the_user_attaches_is_read_into_the_message_as_data_and_comes_back_as_a_chip() {
        let server = Everything::start();
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let clock = Rc::new(SystemClock);
        let toolset = Rc::new(McpToolset::new(vec![config], Rc::new(ReqwestClient::new()), clock.clone(), None));
        let provider = Rc::new(ScriptedProvider::new(vec![Turn::text("It lists the features.")]));
        let vault = Rc::new(MemoryVault::new());
        let chat = Conversation::new(AgentConfig::default(), provider.clone(), vault, clock, TestHost::new())
            .with_mcp(toolset.clone());
        runtime().block_on(async {
            // The picker's list: each resource with how a message attaches it.
            let (listed, problems) = toolset.resources(&vault_agent::cancel::CancelToken::new()).await;
            assert!(problems.is_empty(), "{problems:?}");
            let features = listed.iter().find(|r| r.resource.name == "features.md").expect("listed");
            let attachment = "mcp:everything:demo://resource/static/document/features.md";
            assert_eq!(features.attachment, attachment);

            let report = chat.send_with_attachments("What does it offer?", &[attachment.into()]).await.unwrap();
            assert_eq!(report.end, EndReason::Answered);
            let sent = provider.requests()[0].messages[0].text();
            let block =
                "<resource server=\"everything\" uri=\"demo://resource/static/document/features.md\">\n<<<data ";
            assert!(sent.contains(block), "{sent}");
            assert!(sent.contains("(from the MCP server everything)\n[resource demo://"), "{sent}");
            assert!(sent.contains("# Everything Server - Features"), "{sent}");
            assert!(sent.contains("data written by others"), "{sent}");
            // The transcript gives the attachment back as the user attached it.
            let (request, attached) = vault_agent::agent::split_request(&sent);
            assert_eq!((request, attached), ("What does it offer?", vec![attachment.to_string()]));

            // A resource the server does not have stops before the task, in words.
            let asked = provider.requests().len();
            let missing = "mcp:everything:demo://resource/dynamic/text/0".to_string();
            let refused = chat.send_with_attachments("And this?", &[missing]).await.unwrap_err();
            assert!(refused.to_string().contains("Unknown resource"), "{refused}");
            assert_eq!(provider.requests().len(), asked, "no model call");
            toolset.close().await;
        });
    }

    #[test]
    fn a_server_that_fails_to_list_its_resources_does_not_hide_the_others() {
        use super::{handshake, json_reply, scripted};
        let everything = Everything::start();
        // Says it has resources, then fails to list them.
        let (broken, _) = scripted(|seen, _| {
            let id = &seen.body["id"];
            match seen.rpc_method() {
                "initialize" => json_reply(json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-06-18", "capabilities": {"resources": {}},
                    "serverInfo": {"name": "broken", "version": "1"}}})),
                "resources/list" => json_reply(json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": "the index is down"}})),
                "tools/list" => json_reply(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}})),
                _ => handshake(seen).unwrap_or_else(|| json_reply(json!({"jsonrpc": "2.0", "id": id, "result": {}}))),
            }
        });
        let servers = vec![
            McpServerConfig::parse_http(&format!("broken={broken}")).unwrap(),
            McpServerConfig::parse_http(&format!("everything={}", everything.url)).unwrap(),
        ];
        let provider = Rc::new(ScriptedProvider::new(vec![
            Turn::tools([("list_mcp_resources", json!({}))]),
            Turn::text("Listed."),
        ]));
        let clock = Rc::new(SystemClock);
        let toolset = Rc::new(McpToolset::new(servers, Rc::new(ReqwestClient::new()), clock.clone(), None));
        let chat = Conversation::new(
            AgentConfig::default(),
            provider.clone(),
            Rc::new(MemoryVault::new()),
            clock,
            TestHost::new(),
        )
        .with_mcp(toolset.clone());
        runtime().block_on(async {
            chat.send("What can the servers give me?").await.unwrap();
            toolset.close().await;
        });
        let requests = provider.requests();
        let list = requests[0].tools.iter().find(|t| t.name == "list_mcp_resources").expect("offered");
        assert_eq!(list.input_schema["properties"]["server"]["enum"], json!(["broken", "everything"]));
        let told = serde_json::to_string(&requests[1].messages).unwrap();
        assert!(told.contains("MCP server \\\"broken\\\":\\n(could not list its resources:"), "{told}");
        assert!(told.contains("the index is down"), "{told}");
        assert!(told.contains("demo://resource/static/document/features.md"), "{told}");
    }

    /// Sends `message` with the plugin's host, which approves every call and hands each form
    /// to `fill` (the user answering at once); the forms asked for, and how the task ended.
    fn send_filling(
        server: &Everything,
        turns: Vec<Turn>,
        message: &str,
        fill: impl Fn(&ChannelHost, &FormRequest) + 'static,
    ) -> (Rc<ScriptedProvider>, Vec<FormRequest>, EndReason) {
        let config = McpServerConfig::parse_http(&format!("everything={}", server.url)).unwrap();
        let provider = Rc::new(ScriptedProvider::new(turns));
        let slot: Rc<RefCell<Option<Rc<ChannelHost>>>> = Rc::default();
        let forms: Rc<RefCell<Vec<FormRequest>>> = Rc::default();
        let (answering, seen) = (slot.clone(), forms.clone());
        let host = Rc::new(ChannelHost::new(move |event| {
            let host = answering.borrow().clone().unwrap();
            match event {
                AgentEvent::ApprovalRequired { request } => {
                    host.respond(&request.id, ApprovalDecision::Approve);
                }
                AgentEvent::FormRequested { form } => {
                    seen.borrow_mut().push(form.clone());
                    fill(&host, form);
                }
                _ => {}
            }
        }));
        *slot.borrow_mut() = Some(host.clone());
        let end = send(config, provider.clone(), host, message);
        *slot.borrow_mut() = None;
        let forms = forms.borrow().clone();
        (provider, forms, end)
    }

    fn accept(content: serde_json::Value) -> FormAnswer {
        FormAnswer { action: FormAction::Accept, content: content.as_object().cloned() }
    }

    fn ask_for_form() -> Turn {
        Turn::tools([("mcp__everything__trigger-elicitation-request", json!({}))])
    }

    #[test]
    fn a_form_a_server_asks_for_is_shown_to_the_user_checked_and_sent() {
        let server = Everything::start();
        let problems: Rc<RefCell<Vec<String>>> = Rc::default();
        let told = problems.clone();
        let turns = vec![ask_for_form(), Turn::text("Thanks.")];
        let (provider, forms, end) = send_filling(&server, turns, "Ask me for my details", move |host, form| {
            // A value that does not fit is refused, in words, and the form still waits.
            let wrong = host.answer_form(&form.id, accept(json!({"name": "Ada", "email": "ada at home"})));
            told.borrow_mut().push(wrong.unwrap_err());
            assert_eq!(host.answer_form(&form.id, accept(json!({"name": "Ada", "integer": 7}))), Ok(true));
        });
        assert_eq!(end, EndReason::Answered);
        assert_eq!(forms.len(), 1);
        assert_eq!((forms[0].server.as_str(), forms[0].id.as_str()), ("everything", "form0-1"));
        assert_eq!(*problems.borrow(), ["String with email format: expected an email address."]);
        // The server got the checked answer, and the model read what the server made of it.
        let sent = serde_json::to_string(&provider.requests()[1].messages).unwrap();
        assert!(sent.contains("- Name: Ada") && sent.contains("- Favorite Integer: 7"), "{sent}");
    }

    #[test]
    fn a_sub_tasks_form_reaches_the_user_saying_which_sub_task_asks() {
        let server = Everything::start();
        let turns = vec![
            Turn::tools([("new_task", json!({"mode": "agent", "message": "Get my details from the server"}))]),
            ask_for_form(),
            Turn::text("The server has them."),
            Turn::text("Done: the sub-task gave the server your details."),
        ];
        let (provider, forms, end) = send_filling(&server, turns, "Delegate it", |host, form| {
            assert_eq!(host.answer_form(&form.id, accept(json!({"name": "Ada"}))), Ok(true));
        });
        assert_eq!(end, EndReason::Answered);
        assert_eq!(forms.len(), 1);
        let who = forms[0].subtask.as_ref().expect("says which sub-task asks");
        assert_eq!((who.mode.as_str(), who.depth, who.title.as_str()), ("agent", 1, "Get my details from the server"));
        assert_eq!(forms[0].id, format!("{}/form0-1", who.task_id), "named for the child");
        // The child's model read the server's answer.
        let sent = serde_json::to_string(&provider.requests()[2].messages).unwrap();
        assert!(sent.contains("- Name: Ada"), "{sent}");
    }

    #[test]
    fn a_server_that_does_not_answer_is_skipped_with_a_warning() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let config = McpServerConfig::parse_http(&format!("gone=http://127.0.0.1:{port}/mcp")).unwrap();
        let run = run(config, vec![Turn::text("Fine without it.")], ApprovalDecision::Approve);
        assert_eq!(run.end, EndReason::Answered);
        assert!(
            run.host.warnings().iter().any(|w| w.contains("MCP server gone is not available")),
            "{:?}",
            run.host.warnings()
        );
        assert!(run.provider.requests()[0].tools.iter().all(|t| !t.name.starts_with("mcp__")));
    }
}
