//! The binding layer: the only module that names `wasm_bindgen`, `js_sys` or `web_sys`.
//!
//! Every exported method does the same three things: turn JS values into core types, call the
//! core, and turn the result (or the error, through [`js_error`]) back into JS values.

mod agent;
mod clock;
mod embed_worker;
mod http;
mod index_worker;
mod inline_edit;
mod process;
mod request_client;
mod search;
mod semantic;
mod suggest;
mod tasks;
mod vault;

use std::cell::RefCell;
use std::rc::Rc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

pub use agent::Chat;
pub use clock::JsClock;
pub use embed_worker::MiniLmWorker;
pub use http::FetchClient;
pub use index_worker::IndexPartWorker;
pub use inline_edit::InlineEdit;
pub use process::{JsLauncher, ProcessHost};
pub use request_client::JsRequestClient;
pub use search::SearchEngine;
pub use suggest::Suggester;
pub use vault::{JsVault, VaultHost};

use crate::agent::{delete_chat, load_chat, mark_undone, rename_chat, ChatArchive};
use crate::cancel::CancelToken;
use crate::host::{Clock, FallbackClient, HttpClient, Transport};
use crate::index::SharedIndex;
use crate::memory::{MemoryKind, MemoryStore};
use crate::pipeline::{
    apply_undo, list_checkpoints, plan_undo, redo_checkpoint, redo_task, sweep_orphans, undo_task, UndoChoices,
    ORPHAN_AGE_MS,
};
use crate::protocol::{ErrorKind, ProviderError};
use crate::provider::{
    build, check_connection, CallPurpose, MeteredProvider, ModelPrice, ModelProvider, ProviderConfig, RetryPolicy,
    Spend, SpendMeter,
};
use crate::vault::Vault;

/// The generated `.d.ts` names what the core's methods take and answer by the types generated
/// from the Rust ones (`js/generated/protocol.ts`, through `js/protocol.ts`, which adds the
/// partial shapes JS writes): each method's `unchecked_return_type` and `unchecked_param_type`
/// say `Protocol.X`, so `tsc` checks both ends of every call instead of trusting casts. The
/// host the core is given is the plugin's `VaultHost` interface.
#[wasm_bindgen(typescript_custom_section)]
const PROTOCOL_TYPES: &str = r#"import type * as Protocol from "../js/protocol";
import type { VaultHost as JsVaultHost } from "../js/host/VaultHost";"#;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The core's version (the crate version).
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// Whether the JS `object` has a method `name` (the host's optional calls).
pub(crate) fn has_method(object: &JsValue, name: &str) -> bool {
    js_sys::Reflect::get(object, &JsValue::from_str(name)).is_ok_and(|f| f.is_function())
}

/// The one place where a core error becomes a JS `Error`.
pub(crate) fn js_error(error: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&error.to_string()).into()
}

/// A core value as the JS value its JSON would parse to: maps as objects, `None` as `null`
/// (js/protocol.ts declares optional values as `T | null`).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(js_error)
}

/// The per-path choices of an undo or redo; none given keeps every changed file.
fn undo_choices(value: JsValue) -> Result<UndoChoices, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(UndoChoices::new())
    } else {
        from_js(value)
    }
}

/// A JS value as a core value, or a JS `Error` saying what did not fit.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| js_error(format!("invalid argument: {e}")))
}

/// How long "test connection" and the models list wait for an answer.
const CONNECTION_TIMEOUT_MS: u64 = 30_000;

/// `work`'s value, or a `Network` error once [`CONNECTION_TIMEOUT_MS`] pass first (and then
/// `cancel` fires, which aborts the request).
async fn within_connection_timeout<T>(
    work: impl std::future::Future<Output = T>,
    cancel: &CancelToken,
) -> Result<T, ProviderError> {
    let timeout = JsClock.sleep(CONNECTION_TIMEOUT_MS);
    futures::pin_mut!(work, timeout);
    match futures::future::select(work, timeout).await {
        futures::future::Either::Left((value, _)) => Ok(value),
        futures::future::Either::Right(_) => {
            cancel.cancel();
            Err(ProviderError::new(ErrorKind::Network, format!("no answer within {} s", CONNECTION_TIMEOUT_MS / 1000)))
        }
    }
}

/// The core as the plugin sees it, bound to one vault host.
#[wasm_bindgen]
pub struct VaultCore {
    vault: Rc<JsVault>,
    request: Option<js_sys::Function>,
    search: SharedIndex,
    /// Starts MCP servers' processes, where the host can (desktop).
    launcher: Option<Rc<JsLauncher>>,
    /// The saved chats as `listChats` read them last, for `searchChats`.
    chats: RefCell<Option<Rc<ChatArchive>>>,
    /// What this session's model calls took, by what asked for them.
    spend: Rc<SpendMeter>,
}

impl VaultCore {
    /// The HTTP client `web_fetch` reads pages with: the request function where the host gave
    /// one (Obsidian's `requestUrl`, which CORS does not stop), else `fetch`.
    pub(crate) fn web_http(&self) -> Rc<dyn HttpClient> {
        match self.request.clone() {
            Some(request) => Rc::new(JsRequestClient::new(request)),
            None => Rc::new(FetchClient),
        }
    }

    /// `provider`'s calls, counted in the session's spending for `purpose` (at the user's own
    /// `price`, else the model's).
    pub(crate) fn metered(
        &self,
        provider: Box<dyn ModelProvider>,
        purpose: CallPurpose,
        price: Option<ModelPrice>,
    ) -> Rc<dyn ModelProvider> {
        Rc::new(MeteredProvider::new(Rc::from(provider), self.spend.clone(), purpose, price))
    }

    /// Reads the saved chats and keeps them for `searchChats`.
    async fn read_chats(&self) -> Result<Rc<ChatArchive>, JsValue> {
        let archive = Rc::new(ChatArchive::load(&*self.vault).await.map_err(js_error)?);
        *self.chats.borrow_mut() = Some(archive.clone());
        Ok(archive)
    }

    /// The HTTP client for `transport`.
    pub(crate) fn http(&self, transport: Transport) -> Result<Rc<dyn HttpClient>, JsValue> {
        let request = self.request.clone().map(|f| Rc::new(JsRequestClient::new(f)) as Rc<dyn HttpClient>);
        Ok(match (transport, request) {
            (Transport::Fetch, _) | (Transport::Auto, None) => Rc::new(FetchClient),
            (Transport::Auto, Some(request)) => Rc::new(FallbackClient::new(Rc::new(FetchClient), request)),
            (Transport::Request, Some(request)) => request,
            (Transport::Request, None) => {
                return Err(js_error("the request transport needs a request function (new VaultCore(host, request))"))
            }
        })
    }
}

#[wasm_bindgen]
impl VaultCore {
    /// Binds the core to `host`, a `VaultHost` (see `js/host/VaultHost.ts`). `request`, if
    /// given, sends an HTTP request without streaming and without CORS (Obsidian's
    /// `requestUrl`; see `JsRequestClient`): the fallback when `fetch` cannot reach a server.
    /// A host with `processStart` (desktop) can run MCP servers that are commands.
    #[wasm_bindgen(constructor)]
    pub fn new(
        host: VaultHost,
        #[wasm_bindgen(
            unchecked_optional_param_type = "(request: Protocol.HttpRequest) => Promise<Protocol.HttpAnswer>"
        )]
        request: Option<js_sys::Function>,
    ) -> VaultCore {
        let launcher = JsLauncher::of(&host).map(Rc::new);
        VaultCore {
            vault: Rc::new(JsVault::new(host)),
            request,
            search: SharedIndex::new(),
            launcher,
            chats: RefCell::default(),
            spend: Rc::default(),
        }
    }

    /// The HTTP client for a settings check's `transport` argument (absent or null: `Auto`).
    fn settings_http(&self, transport: JsValue) -> Result<Rc<dyn HttpClient>, JsValue> {
        let transport: Transport =
            if transport.is_undefined() || transport.is_null() { Transport::Auto } else { from_js(transport)? };
        self.http(transport)
    }

    /// Connects to the MCP server `server` (an `McpServerConfig`) over `transport` and
    /// resolves with what it offers (`McpOffer`: its tools, and how many prompts and resources),
    /// for the settings' test. Rejects with what
    /// went wrong in words (unreachable, refused credentials, a command on mobile). A signed-in
    /// server's renewed credentials go to `onCredentials`. `vaultPath`, the vault's folder on
    /// disk where there is one, is offered as a chat offers it.
    #[wasm_bindgen(js_name = mcpTools, unchecked_return_type = "Protocol.McpOffer")]
    pub async fn mcp_tools(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.McpServerConfig")] server: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Transport | undefined")] transport: JsValue,
        #[wasm_bindgen(
            js_name = onCredentials,
            unchecked_param_type = "((server: string, credentials: Protocol.McpCredentials) => void) | undefined"
        )]
        on_credentials: Option<js_sys::Function>,
        #[wasm_bindgen(js_name = vaultPath)] vault_path: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let server: crate::mcp::McpServerConfig = from_js(server)?;
        let launcher = self.launcher.as_deref().map(|l| l as &dyn crate::host::ProcessLauncher);
        let cancel = CancelToken::new();
        let http = self.settings_http(transport)?;
        let sink = on_credentials.map(credentials_sink);
        // The offer a chat makes, so that the test lists the tools a task gets (a server may
        // offer some only to a client that samples or has roots).
        let offer = crate::mcp::ClientOffer::for_chat(vault_path.as_deref());
        let client = server.connect(http, Rc::new(JsClock), launcher, sink, offer, &cancel).await.map_err(js_error)?;
        let offer = client.offer(&cancel).await;
        client.close().await;
        to_js(&offer.map_err(js_error)?)
    }

    /// Starts signing in to the MCP server at `serverUrl` (OAuth): resolves with an
    /// `McpSignIn` whose `url` is the page to open in the browser, which comes back to
    /// `redirectUri` with the answer for `mcpFinishSignIn`. `app`: the OAuth app the user
    /// registered there, for a server that registers none itself; `moreScope`: a step-up's
    /// scope to ask for too (the kept sign-in's `stepUpScope`). Rejects, in words, when the
    /// server asks nobody to sign in or cannot be signed in to.
    #[wasm_bindgen(js_name = mcpSignIn, unchecked_return_type = "Protocol.McpSignIn")]
    pub async fn mcp_sign_in(
        &self,
        #[wasm_bindgen(js_name = serverUrl)] server_url: String,
        #[wasm_bindgen(js_name = redirectUri)] redirect_uri: String,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Transport | undefined")] transport: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Protocol.OAuthApp | undefined")] app: JsValue,
        #[wasm_bindgen(js_name = moreScope)] more_scope: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let http = self.settings_http(transport)?;
        let app: Option<crate::mcp::OAuthApp> = if app.is_undefined() || app.is_null() { None } else { from_js(app)? };
        let cancel = CancelToken::new();
        let more = more_scope.as_deref();
        let sign_in = crate::mcp::start_sign_in(&*http, &server_url, &redirect_uri, app.as_ref(), more, &cancel).await;
        to_js(&sign_in.map_err(js_error)?)
    }

    /// Ends the sign-in `signIn` with `answer`, the parameters the browser came back with
    /// (`code`, `state`, `iss`, or `error` and `error_description`); resolves with the
    /// `McpCredentials` to keep.
    #[wasm_bindgen(js_name = mcpFinishSignIn, unchecked_return_type = "Protocol.McpCredentials")]
    pub async fn mcp_finish_sign_in(
        &self,
        #[wasm_bindgen(js_name = signIn, unchecked_param_type = "Protocol.McpSignIn")] sign_in: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string>")] answer: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Transport | undefined")] transport: JsValue,
    ) -> Result<JsValue, JsValue> {
        let sign_in: crate::mcp::McpSignIn = from_js(sign_in)?;
        let answer: std::collections::BTreeMap<String, String> = from_js(answer)?;
        let http = self.settings_http(transport)?;
        let now = crate::host::Clock::now_ms(&JsClock);
        let credentials = crate::mcp::finish_sign_in(&*http, &sign_in, &answer, now, &CancelToken::new()).await;
        to_js(&credentials.map_err(js_error)?)
    }

    /// The core's wasm memory, in bytes: what the worker holds for the index, the vectors and
    /// the running tasks. It grows to the largest need so far and never shrinks; restarting the
    /// core gives it back.
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes(&self) -> f64 {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64
    }

    /// The vault's search engine. Every engine a core hands out shares one index, and the
    /// agent's tools search that index once it is built or loaded. Model downloads and
    /// embeddings APIs go through `fetch`, falling back to the request function (see `new`).
    #[wasm_bindgen(js_name = searchEngine)]
    pub fn search_engine(&self) -> SearchEngine {
        let http = self.http(Transport::Auto).unwrap_or_else(|_| Rc::new(FetchClient));
        SearchEngine::shared(self.vault.clone(), self.search.clone(), http)
    }

    /// A new chat with the agent: `options` is `{provider, agent?, vault?, modes?, transport?,
    /// chatId?, mcpServers?}` (`ChatOptions`; with `chatId` it continues that saved chat, whose
    /// history the core reads); `onEvent` receives every `AgentEvent`.
    #[wasm_bindgen(js_name = newChat)]
    pub fn new_chat(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ChatOptions")] options: JsValue,
        #[wasm_bindgen(js_name = onEvent, unchecked_param_type = "(event: Protocol.AgentEvent) => void")]
        on_event: js_sys::Function,
        #[wasm_bindgen(
            js_name = onCredentials,
            unchecked_param_type = "((server: string, credentials: Protocol.McpCredentials) => void) | undefined"
        )]
        on_credentials: Option<js_sys::Function>,
    ) -> Result<Chat, JsValue> {
        Chat::new(self, options, on_event, on_credentials.map(credentials_sink))
    }

    /// An inline editor for the note editor's selections: `options` as `newChat`'s (the
    /// provider, agent settings and transport are used); `onEvent` receives the write's events,
    /// its `approval_required` among them (answered with `InlineEdit.respond`).
    #[wasm_bindgen(js_name = newInlineEdit)]
    pub fn new_inline_edit(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ChatOptions")] options: JsValue,
        #[wasm_bindgen(js_name = onEvent, unchecked_param_type = "(event: Protocol.AgentEvent) => void")]
        on_event: js_sys::Function,
    ) -> Result<InlineEdit, JsValue> {
        InlineEdit::new(self, options, on_event)
    }

    /// Suggestions as the user types in the note editor: `options` as `newChat`'s (the
    /// provider, agent settings and transport are used).
    #[wasm_bindgen(js_name = newSuggester)]
    pub fn new_suggester(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ChatOptions")] options: JsValue,
    ) -> Result<Suggester, JsValue> {
        Suggester::new(self, options)
    }

    /// What the model calls made since the core started took, by what asked for them (chat
    /// tasks, suggestions, inline edits): `Spend[]`, each `{purpose, requests, usage, cost}`.
    #[wasm_bindgen(unchecked_return_type = "Protocol.Spend[]")]
    pub fn spending(&self) -> Result<JsValue, JsValue> {
        to_js(&self.spend.totals())
    }

    /// Adds `earlier` (`spending()` of the core this one replaces) to this session's totals.
    #[wasm_bindgen(js_name = carrySpending)]
    pub fn carry_spending(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Spend[]")] earlier: JsValue,
    ) -> Result<(), JsValue> {
        let earlier: Vec<Spend> = from_js(earlier)?;
        self.spend.carry(&earlier);
        Ok(())
    }

    /// Sends one tiny request with `provider` (a `ProviderConfig`), a single attempt, and
    /// resolves with a `ConnectionCheck`: `{ok, model, latencyMs, firstTokenMs?, reply, usage,
    /// error?: {kind, message, status}}`. Rejects only for a configuration that cannot work
    /// (no model, no key where one is needed, a bad URL).
    #[wasm_bindgen(js_name = testConnection, unchecked_return_type = "Protocol.ConnectionCheck")]
    pub async fn test_connection(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ProviderConfig")] provider: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Transport | null | undefined")] transport: JsValue,
    ) -> Result<JsValue, JsValue> {
        let mut config: ProviderConfig = from_js(provider)?;
        config.retry = RetryPolicy { max_attempts: 1, ..RetryPolicy::default() };
        let provider = build(&config, self.settings_http(transport)?, Rc::new(JsClock)).map_err(js_error)?;
        let cancel = CancelToken::new();
        match within_connection_timeout(check_connection(&*provider, &JsClock, &cancel), &cancel).await {
            Ok(check) => to_js(&check),
            Err(error) => {
                let mut check = crate::provider::ConnectionCheck::new(config.model);
                check.latency_ms = CONNECTION_TIMEOUT_MS;
                check.fail(error);
                to_js(&check)
            }
        }
    }

    /// The chat models the server of `provider` (a `ProviderConfig`; its model may be empty)
    /// offers, for the model picker: resolves with a `ModelList`, `{models: [{id, name?,
    /// contextWindow?, price?}], problem?}`, where `problem` says in plain words why there are none.
    /// Rejects only for a configuration that cannot be sent (no key where one is needed, a bad
    /// URL).
    /// Asks the search engine `engine` (a `WebSearchConfig`) one test query through the web
    /// client `web_search` uses, and resolves with `{ok, message}`.
    #[wasm_bindgen(js_name = testWebSearch, unchecked_return_type = "Protocol.WebSearchCheck")]
    pub async fn test_web_search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.WebSearchConfig")] engine: JsValue,
    ) -> Result<JsValue, JsValue> {
        let engine: crate::tools::WebSearchConfig = from_js(engine)?;
        let cancel = CancelToken::new();
        let http = self.web_http();
        let check = crate::tools::check_web_search(&*http, &engine, &cancel);
        match within_connection_timeout(check, &cancel).await {
            Ok(check) => to_js(&check),
            Err(error) => to_js(&crate::tools::WebSearchCheck { ok: false, message: format!("{}.", error.message) }),
        }
    }

    #[wasm_bindgen(js_name = listModels, unchecked_return_type = "Protocol.ModelList")]
    pub async fn list_models(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ProviderConfig")] provider: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Protocol.Transport | null | undefined")] transport: JsValue,
    ) -> Result<JsValue, JsValue> {
        let config: ProviderConfig = from_js(provider)?;
        let http = self.settings_http(transport)?;
        let cancel = CancelToken::new();
        match within_connection_timeout(crate::provider::list_models(&config, &*http, &cancel), &cancel).await {
            Ok(list) => to_js(&list.map_err(js_error)?),
            Err(error) => to_js(&crate::provider::ModelList::failed(&error)),
        }
    }

    /// The saved chat `id`, turn by turn (a `Transcript`), to show it.
    #[wasm_bindgen(js_name = chatTranscript, unchecked_return_type = "Protocol.Transcript")]
    pub async fn chat_transcript(&self, id: String) -> Result<JsValue, JsValue> {
        to_js(&load_chat(&*self.vault, &id).await.map_err(js_error)?.transcript())
    }

    /// Renames the saved chat `id` (an empty title: its first request's first line); resolves
    /// with the title it has now.
    #[wasm_bindgen(js_name = renameChat)]
    pub async fn rename_chat(&self, id: String, title: String) -> Result<String, JsValue> {
        rename_chat(&*self.vault, &id, &title, JsClock.now_ms()).await.map_err(js_error)
    }

    /// Marks the task `taskId` of the saved chat `chatId` undone (or, `false`, redone).
    #[wasm_bindgen(js_name = markUndone)]
    pub async fn mark_undone(
        &self,
        #[wasm_bindgen(js_name = chatId)] chat_id: String,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        undone: bool,
    ) -> Result<(), JsValue> {
        mark_undone(&*self.vault, &chat_id, &task_id, undone, JsClock.now_ms()).await.map_err(js_error)
    }

    /// Saved chats, most recent first, read again from the vault (and kept for `searchChats`).
    #[wasm_bindgen(js_name = listChats, unchecked_return_type = "Protocol.ChatSummary[]")]
    pub async fn list_chats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.read_chats().await?.summaries())
    }

    /// The saved chats that hold every word of `query`, with the passage where they were said,
    /// among the chats as `listChats` read them last (read now if it never did): the history's
    /// search box calls this for each key without reading every chat again.
    #[wasm_bindgen(js_name = searchChats, unchecked_return_type = "Protocol.ChatMatch[]")]
    pub async fn search_chats(&self, query: String) -> Result<JsValue, JsValue> {
        let kept = self.chats.borrow().clone();
        let archive = match kept {
            Some(archive) => archive,
            None => self.read_chats().await?,
        };
        to_js(&archive.search(&query))
    }

    /// Drops the chats `listChats` kept for `searchChats` (the history closed): their text is
    /// not held while nobody searches it.
    #[wasm_bindgen(js_name = closeChatSearch)]
    pub fn close_chat_search(&self) {
        self.chats.borrow_mut().take();
    }

    /// The saved chat `id` as a note's Markdown: requests, answers, and the tool calls in words.
    #[wasm_bindgen(js_name = exportChat)]
    pub async fn export_chat(&self, id: String) -> Result<String, JsValue> {
        Ok(load_chat(&*self.vault, &id).await.map_err(js_error)?.to_markdown())
    }

    /// Deletes the saved chat `id`; the history's search (if open) no longer finds it.
    #[wasm_bindgen(js_name = deleteChat)]
    pub async fn delete_chat(&self, id: String) -> Result<(), JsValue> {
        delete_chat(&*self.vault, &id).await.map_err(js_error)?;
        let mut kept = self.chats.borrow_mut();
        // Nobody holds the archive between calls; if somebody did, the next search reads again.
        match kept.as_mut().map(Rc::get_mut) {
            Some(Some(archive)) => {
                archive.forget(&id);
            }
            Some(None) => *kept = None,
            None => {}
        }
        Ok(())
    }

    /// Restores what the task `taskId` changed, keeping every file changed since (see
    /// `applyUndo`); resolves with an `UndoReport`.
    #[wasm_bindgen(js_name = undoTask, unchecked_return_type = "Protocol.UndoReport")]
    pub async fn undo_task(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<JsValue, JsValue> {
        let report = undo_task(self.vault.clone(), &task_id, JsClock.now_ms()).await.map_err(js_error)?;
        to_js(&report)
    }

    /// What undoing `taskId` would do, changing nothing: an `UndoPlan` (`restore`, `remove`,
    /// `unchanged`, `kept`, and `conflicts`: files changed since the task, each with its
    /// reason, the later tasks that touched it, its `choices` and the `copy_path` a copy would
    /// get).
    #[wasm_bindgen(js_name = planUndo, unchecked_return_type = "Protocol.UndoPlan")]
    pub async fn plan_undo(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<JsValue, JsValue> {
        to_js(&plan_undo(&*self.vault, &task_id).await.map_err(js_error)?)
    }

    /// Undoes `taskId` with a choice per conflicting path (`{path: "keep_mine" | "restore" |
    /// "save_copy"}`; a path not named keeps what is there); resolves with an `UndoReport`.
    #[wasm_bindgen(js_name = applyUndo, unchecked_return_type = "Protocol.UndoReport")]
    pub async fn apply_undo(
        &self,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        #[wasm_bindgen(unchecked_param_type = "Protocol.UndoChoices")] choices: JsValue,
    ) -> Result<JsValue, JsValue> {
        to_js(
            &apply_undo(self.vault.clone(), &task_id, &undo_choices(choices)?, JsClock.now_ms())
                .await
                .map_err(js_error)?,
        )
    }

    /// What redoing the undone task `taskId` would do: the plan of its undo's checkpoint.
    #[wasm_bindgen(js_name = planRedo, unchecked_return_type = "Protocol.UndoPlan")]
    pub async fn plan_redo(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<JsValue, JsValue> {
        to_js(&plan_undo(&*self.vault, &redo_checkpoint(&task_id)).await.map_err(js_error)?)
    }

    /// Applies the undone task `taskId` again (its undo's checkpoint, with the same choices as
    /// `applyUndo`); resolves with an `UndoReport`.
    #[wasm_bindgen(js_name = redoTask, unchecked_return_type = "Protocol.UndoReport")]
    pub async fn redo_task(
        &self,
        #[wasm_bindgen(js_name = taskId)] task_id: String,
        #[wasm_bindgen(unchecked_param_type = "Protocol.UndoChoices")] choices: JsValue,
    ) -> Result<JsValue, JsValue> {
        to_js(
            &redo_task(self.vault.clone(), &task_id, &undo_choices(choices)?, JsClock.now_ms())
                .await
                .map_err(js_error)?,
        )
    }

    /// What the agent remembers (`MemoryEntry[]`, oldest first).
    #[wasm_bindgen(js_name = memoryList, unchecked_return_type = "Protocol.MemoryEntry[]")]
    pub async fn memory_list(&self) -> Result<JsValue, JsValue> {
        to_js(MemoryStore::load(&*self.vault).await.map_err(js_error)?.entries())
    }

    /// Replaces memory `id`'s kind (`"fact"` or `"preference"`) and text.
    #[wasm_bindgen(js_name = memoryEdit)]
    pub async fn memory_edit(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "Protocol.MemoryKind")] kind: JsValue,
        text: String,
    ) -> Result<(), JsValue> {
        let kind: MemoryKind = from_js(kind)?;
        MemoryStore::update(&*self.vault, |store| store.edit(&id, kind, &text)).await.map_err(js_error)
    }

    /// Forgets memory `id`.
    #[wasm_bindgen(js_name = memoryDelete)]
    pub async fn memory_delete(&self, id: String) -> Result<(), JsValue> {
        MemoryStore::update(&*self.vault, |store| store.delete(&id).map(drop)).await.map_err(js_error)
    }

    /// Forgets everything the agent remembers.
    #[wasm_bindgen(js_name = memoryForgetAll)]
    pub async fn memory_forget_all(&self) -> Result<(), JsValue> {
        MemoryStore::update(&*self.vault, |store| {
            store.forget_all();
            Ok(())
        })
        .await
        .map_err(js_error)
    }

    /// The tasks that can be undone, newest first.
    #[wasm_bindgen(js_name = listCheckpoints, unchecked_return_type = "Protocol.CheckpointSummary[]")]
    pub async fn list_checkpoints(&self) -> Result<JsValue, JsValue> {
        to_js(&list_checkpoints(&*self.vault).await.map_err(js_error)?)
    }

    /// Removes temporary task folders left over from tasks that ended more than an hour ago
    /// without cleaning up (a crash, a closed app). Resolves with the folders removed.
    #[wasm_bindgen(js_name = sweepTemporaryFiles, unchecked_return_type = "string[]")]
    pub async fn sweep_temporary_files(&self) -> Result<JsValue, JsValue> {
        let removed = sweep_orphans(&*self.vault, JsClock.now_ms(), ORPHAN_AGE_MS).await.map_err(js_error)?;
        to_js(&removed)
    }

    /// The number of Markdown notes in the vault, outside hidden folders.
    #[wasm_bindgen(js_name = noteCount)]
    pub async fn note_count(&self) -> Result<u32, JsValue> {
        let notes = crate::vault::list_notes(&*self.vault as &dyn Vault).await.map_err(js_error)?;
        Ok(notes.len() as u32)
    }
}

/// A sink for an MCP server's renewed credentials that hands them to the JS callback
/// `callback(server, credentials)`, for the host to keep.
fn credentials_sink(callback: js_sys::Function) -> crate::mcp::CredentialsSink {
    Rc::new(move |server: &str, credentials: &crate::mcp::McpCredentials| {
        if let Ok(value) = to_js(credentials) {
            if let Err(e) = callback.call2(&JsValue::NULL, &JsValue::from_str(server), &value) {
                web_sys::console::error_2(&"Vault Agent: keeping renewed MCP credentials failed".into(), &e);
            }
        }
    })
}
