//! The editor's inline edit from JS: `run` rewrites a selection, its write's approval arrives as
//! an event and is answered with `respond`.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::agent::event_host;
use super::{from_js, js_error, to_js, JsClock, VaultCore};
use crate::agent::{ChatOptions, InlineEdit as Edit, InlineEditRequest};
use crate::host::ChannelHost;
use crate::protocol::ApprovalDecision;
use crate::provider::{build, CallPurpose};

/// Inline edits of one editor, one at a time.
#[wasm_bindgen]
pub struct InlineEdit {
    edit: Edit,
    host: Rc<ChannelHost>,
}

impl InlineEdit {
    pub(crate) fn new(core: &VaultCore, options: JsValue, on_event: js_sys::Function) -> Result<InlineEdit, JsValue> {
        let options: ChatOptions = from_js(options)?;
        let http = core.http(options.transport)?;
        let provider = build(&options.provider, http, Rc::new(JsClock)).map_err(js_error)?;
        let provider = core.metered(provider, CallPurpose::InlineEdit, options.agent.price);
        let host = event_host(on_event);
        let edit = Edit::new(options.agent, provider, core.vault.clone(), Rc::new(JsClock), host.clone())
            .with_search(core.search.clone());
        Ok(InlineEdit { edit, host })
    }
}

#[wasm_bindgen]
impl InlineEdit {
    /// Rewrites the selection `request` names (`{path, from, to, instruction}`, offsets as the
    /// editor counts them) and resolves with an `InlineEditReport` once the user accepted or
    /// rejected the diff. Rejects only when the edit cannot start (no such note, a range that
    /// is not in it).
    #[wasm_bindgen(unchecked_return_type = "Protocol.InlineEditReport")]
    pub async fn run(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.InlineEditRequest")] request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request: InlineEditRequest = from_js(request)?;
        let report = self.edit.run(&request).await.map_err(js_error)?;
        to_js(&report)
    }

    /// Answers the write's approval `requestId`: `approve` (accept) or `deny` (reject).
    /// Returns false if no such request is waiting.
    pub fn respond(
        &self,
        #[wasm_bindgen(js_name = requestId)] request_id: &str,
        #[wasm_bindgen(unchecked_param_type = "Protocol.ApprovalDecision")] decision: &str,
    ) -> Result<bool, JsValue> {
        let decision: ApprovalDecision = from_js(JsValue::from_str(decision))?;
        Ok(self.host.respond(request_id, decision))
    }

    /// Stops the running edit; nothing is written.
    pub fn cancel(&self) {
        self.edit.cancel();
        self.host.dismiss_all();
    }
}
