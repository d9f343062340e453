//! The agent from JS: a chat whose events go to a JS callback, answered from JS.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::{from_js, js_error, to_js, JsClock, VaultCore};
use crate::agent::{load_snapshot, ChatOptions, Conversation};
use crate::cancel::CancelToken;
use crate::host::{ChannelHost, ProcessLauncher};
use crate::mcp::McpToolset;
use crate::protocol::{ApprovalDecision, FormAnswer};
use crate::provider::{build, CallPurpose};
use crate::vault::Vault;

/// A chat with the agent. `send` runs one message as a task and resolves with its run report;
/// meanwhile every event goes to the callback given to `newChat`, and approvals and questions
/// are answered with `respond` and `answer`. The core saves the chat (a `chat_saved` event
/// gives its id and title); `VaultCore.chatTranscript` shows it again.
#[wasm_bindgen]
pub struct Chat {
    conversation: Conversation,
    host: Rc<ChannelHost>,
    vault: Rc<dyn Vault>,
    mcp: Rc<McpToolset>,
}

impl Drop for Chat {
    /// A chat that is freed ends its MCP sessions (HTTP servers get their `DELETE`, commands
    /// end).
    fn drop(&mut self) {
        let mcp = self.mcp.clone();
        wasm_bindgen_futures::spawn_local(async move { mcp.close().await });
    }
}

impl Chat {
    pub(crate) fn new(
        core: &VaultCore,
        options: JsValue,
        on_event: js_sys::Function,
        renewed: Option<crate::mcp::CredentialsSink>,
    ) -> Result<Chat, JsValue> {
        let options: ChatOptions = from_js(options)?;
        let vault = core.vault.clone();
        let http = core.http(options.transport)?;
        let provider = build(&options.provider, http.clone(), Rc::new(JsClock)).map_err(js_error)?;
        let provider = core.metered(provider, CallPurpose::Chat, options.agent.price);
        let launcher = core.launcher.clone().map(|l| l as Rc<dyn ProcessLauncher>);
        let offer = options.mcp_offer();
        let mut mcp = McpToolset::new(options.mcp_servers, http, Rc::new(JsClock), launcher).with_offer(offer);
        if let Some(sink) = renewed {
            mcp = mcp.with_credentials_sink(sink);
        }
        let mcp = Rc::new(mcp);
        let host = event_host(on_event);
        let conversation = Conversation::new(options.agent, provider, vault, Rc::new(JsClock), host.clone())
            .saved_in_vault(options.chat_id)
            .with_modes(options.modes)
            .with_search(core.search.clone())
            .with_mcp(mcp.clone())
            .with_web(core.web_http());
        conversation.set_vault_info(options.vault);
        Ok(Chat { conversation, host, vault: core.vault.clone(), mcp })
    }
}

/// The host whose events go to `on_event` and whose answers come from JS later.
pub(crate) fn event_host(on_event: js_sys::Function) -> Rc<ChannelHost> {
    Rc::new(ChannelHost::new(move |event| {
        // A listener that throws must not stop the task; the error is reported where JS
        // errors go.
        if let Ok(value) = to_js(event) {
            if let Err(e) = on_event.call1(&JsValue::NULL, &value) {
                web_sys::console::error_2(&"Vault Agent: the event listener threw".into(), &e);
            }
        }
    }))
}

#[wasm_bindgen]
impl Chat {
    /// Runs `message` as a task, with the notes at `attachments` (vault paths, the user's
    /// `@`-mentions; optional) attached; resolves with its `RunReport`. Rejects only if the
    /// task could not start (another is running, an attachment cannot be read).
    #[wasm_bindgen(unchecked_return_type = "Protocol.RunReport")]
    pub async fn send(&self, message: String, attachments: Option<Vec<String>>) -> Result<JsValue, JsValue> {
        let attachments = attachments.unwrap_or_default();
        let report = self.conversation.send_with_attachments(&message, &attachments).await.map_err(js_error)?;
        to_js(&report)
    }

    /// What the chat's model takes besides text: `{images, documents}` (a `MediaSupport`).
    #[wasm_bindgen(js_name = mediaSupport, unchecked_return_type = "Protocol.MediaSupport")]
    pub fn media_support(&self) -> Result<JsValue, JsValue> {
        to_js(&self.conversation.media())
    }

    /// Runs the last request again from where the chat stood before it (after a provider error,
    /// a stop or a denial); resolves with the new `RunReport`.
    #[wasm_bindgen(unchecked_return_type = "Protocol.RunReport")]
    pub async fn retry(&self) -> Result<JsValue, JsValue> {
        let report = self.conversation.retry_last().await.map_err(js_error)?;
        to_js(&report)
    }

    /// Runs `message` (with the notes at `attachments`) in place of the last request: the
    /// chat goes back to before it first. Resolves with the new `RunReport`.
    #[wasm_bindgen(js_name = editLast, unchecked_return_type = "Protocol.RunReport")]
    pub async fn edit_last(&self, message: String, attachments: Option<Vec<String>>) -> Result<JsValue, JsValue> {
        let attachments = attachments.unwrap_or_default();
        let report = self.conversation.edit_last(&message, &attachments).await.map_err(js_error)?;
        to_js(&report)
    }

    /// Resumes the interrupted task `taskId` (see `VaultCore.interruptedTasks`) in this chat:
    /// it goes on where it stopped — a call that was waiting for approval asks again.
    /// Resolves with its `RunReport`; rejects if the snapshot cannot be resumed.
    #[wasm_bindgen(unchecked_return_type = "Protocol.RunReport")]
    pub async fn resume(&self, #[wasm_bindgen(js_name = taskId)] task_id: String) -> Result<JsValue, JsValue> {
        let snapshot = load_snapshot(&*self.vault, &task_id).await.map_err(js_error)?;
        let report = self.conversation.resume(&snapshot).await.map_err(js_error)?;
        to_js(&report)
    }

    /// After a task stopped at a limit (steps, tool calls, deadline): a new task with a fresh
    /// budget, asked to continue. Resolves with its `RunReport`.
    #[wasm_bindgen(js_name = continueTask, unchecked_return_type = "Protocol.RunReport")]
    pub async fn continue_task(&self) -> Result<JsValue, JsValue> {
        let report = self.conversation.continue_last().await.map_err(js_error)?;
        to_js(&report)
    }

    /// Stops the running task for now (the view or the app is closing): its snapshot stays,
    /// so it is offered for resuming next time. Waiting approvals stay unanswered.
    pub fn suspend(&self) {
        self.conversation.suspend();
    }

    /// Answers the approval request `requestId` with `approve`, `always_allow`, `skip` or
    /// `deny`; a `deny` with a `reason` tells the model why, and the task goes on. An
    /// `approve` with `hunks` (indices of the preview's hunks, from 0) applies only those
    /// changes of a note. Returns false if no such request is waiting.
    pub fn respond(
        &self,
        #[wasm_bindgen(js_name = requestId)] request_id: &str,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ApprovalDecision")] decision: &str,
        reason: Option<String>,
        #[wasm_bindgen(unchecked_param_type = "number[] | null | undefined")] hunks: JsValue,
    ) -> Result<bool, JsValue> {
        let decision: ApprovalDecision = from_js(JsValue::from_str(decision))?;
        let hunks: Option<Vec<usize>> =
            if hunks.is_undefined() || hunks.is_null() { None } else { Some(from_js(hunks)?) };
        Ok(match (decision, reason, hunks) {
            (ApprovalDecision::Deny, Some(reason), _) => self.host.deny_with_reason(request_id, &reason),
            (ApprovalDecision::Approve, _, Some(hunks)) => self.host.approve_hunks(request_id, hunks),
            (decision, _, _) => self.host.respond(request_id, decision),
        })
    }

    /// Answers the question `questionId`; `null` declines. Returns false if no such question is
    /// waiting.
    pub fn answer(&self, #[wasm_bindgen(js_name = questionId)] question_id: &str, answer: Option<String>) -> bool {
        self.host.answer(question_id, answer)
    }

    /// Answers the form `formId` (an MCP server's, `form_requested`) with `answer`. An accepted
    /// answer that does not fit the form rejects with what is wrong, in the user's words, and
    /// the form still waits. Resolves false if no such form is waiting.
    #[wasm_bindgen(js_name = answerForm)]
    pub fn answer_form(
        &self,
        #[wasm_bindgen(js_name = formId)] form_id: &str,
        #[wasm_bindgen(unchecked_param_type = "Protocol.FormAnswer")] answer: JsValue,
    ) -> Result<bool, JsValue> {
        let answer: FormAnswer = from_js(answer)?;
        self.host.answer_form(form_id, answer).map_err(js_error)
    }

    /// The prompts the chat's MCP servers offer (`ServerPrompt[]`), each with its server's
    /// name; a server that does not answer offers none (the chat's next task says why).
    #[wasm_bindgen(js_name = mcpPrompts, unchecked_return_type = "Protocol.ServerPrompt[]")]
    pub async fn mcp_prompts(&self) -> Result<JsValue, JsValue> {
        let (prompts, _) = self.mcp.prompts(&CancelToken::new()).await;
        to_js(&prompts)
    }

    /// The resources the chat's MCP servers offer (`ServerResource[]`), each with its server's
    /// name and the attachment that sends it with a message; a server that does not answer
    /// offers none.
    #[wasm_bindgen(js_name = mcpResources, unchecked_return_type = "Protocol.ServerResource[]")]
    pub async fn mcp_resources(&self) -> Result<JsValue, JsValue> {
        let (resources, _) = self.mcp.resources(&CancelToken::new()).await;
        to_js(&resources)
    }

    /// The text of the prompt `name` of the MCP server `server`, filled in with `args` (its
    /// arguments by name); rejects, in words, when the server refuses.
    #[wasm_bindgen(js_name = mcpPrompt)]
    pub async fn mcp_prompt(
        &self,
        server: String,
        name: String,
        #[wasm_bindgen(unchecked_param_type = "Record<string, string>")] args: JsValue,
    ) -> Result<String, JsValue> {
        let args: std::collections::BTreeMap<String, String> = from_js(args)?;
        self.mcp.prompt(&server, &name, &args, &CancelToken::new()).await.map_err(js_error)
    }

    /// Stops the running task: the model call or tool is aborted, waiting approvals are denied.
    pub fn cancel(&self) {
        self.conversation.cancel();
        self.host.dismiss_all();
    }

    /// Whether a task is running.
    #[wasm_bindgen(js_name = isRunning)]
    pub fn is_running(&self) -> bool {
        self.conversation.is_running()
    }

    /// Sets what the next task is told about the vault (`{name, noteCount, activeNote}`).
    #[wasm_bindgen(js_name = setVaultInfo)]
    pub fn set_vault_info(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Partial<Protocol.VaultInfo>")] info: JsValue,
    ) -> Result<(), JsValue> {
        self.conversation.set_vault_info(from_js(info)?);
        Ok(())
    }
}
