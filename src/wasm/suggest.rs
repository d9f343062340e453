//! Suggestions as the user types, from JS: `suggest` answers the text to show at the cursor.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::{from_js, js_error, JsClock, VaultCore};
use crate::agent::{ChatOptions, SuggestRequest, Suggester as Suggestions};
use crate::provider::{build, CallPurpose};

/// Suggestions for the note editor, one at a time.
#[wasm_bindgen]
pub struct Suggester {
    suggestions: Suggestions,
}

impl Suggester {
    pub(crate) fn new(core: &VaultCore, options: JsValue) -> Result<Suggester, JsValue> {
        let options: ChatOptions = from_js(options)?;
        let http = core.http(options.transport)?;
        let provider = build(&options.provider, http, Rc::new(JsClock)).map_err(js_error)?;
        let provider = core.metered(provider, CallPurpose::Suggestions, options.agent.price);
        Ok(Suggester { suggestions: Suggestions::new(options.agent, provider, core.vault.clone()) })
    }
}

#[wasm_bindgen]
impl Suggester {
    /// What the note might go on with at the cursor of `request` (`{path, before, after}`):
    /// a few words, or `""` when there is nothing clear to suggest, the request was replaced
    /// by a newer one or stopped, or the note is hidden from the agent. Rejects with the
    /// model's error (a refused key) in words.
    pub async fn suggest(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Protocol.SuggestRequest")] request: JsValue,
    ) -> Result<String, JsValue> {
        let request: SuggestRequest = from_js(request)?;
        self.suggestions.suggest(&request).await.map_err(js_error)
    }

    /// Stops the suggestion being asked for: it answers `""`.
    pub fn cancel(&self) {
        self.suggestions.cancel();
    }
}
