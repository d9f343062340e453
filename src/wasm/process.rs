//! Child processes through the JS host (`processStart` and friends on a `VaultHost`, which
//! Obsidian's desktop app implements with Node's `child_process`): what MCP's stdio
//! transport runs over in the plugin.

use std::rc::Rc;

use async_trait::async_trait;
use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::has_method;
use super::vault::js_message;
use crate::host::{LineProcess, ProcessLauncher};
use crate::{Error, Result};

#[wasm_bindgen]
extern "C" {
    /// The process half of a `VaultHost`: optional, desktop only.
    pub type ProcessHost;

    #[wasm_bindgen(method, catch, js_name = processStart)]
    fn process_start(
        this: &ProcessHost,
        command: &str,
        args: js_sys::Array,
        env: JsValue,
    ) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = processSend)]
    fn process_send(this: &ProcessHost, id: u32, line: &str) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = processRead)]
    fn process_read(this: &ProcessHost, id: u32) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = processClose)]
    fn process_close(this: &ProcessHost, id: u32) -> std::result::Result<Promise, JsValue>;
}

async fn call(op: &str, promise: std::result::Result<Promise, JsValue>) -> Result<JsValue> {
    let failed = |e: JsValue| Error::Host { op: op.to_string(), message: js_message(&e) };
    JsFuture::from(promise.map_err(failed)?).await.map_err(failed)
}

/// Starts processes through a host that has `processStart`.
pub struct JsLauncher {
    host: Rc<ProcessHost>,
}

impl JsLauncher {
    /// A launcher over `host`, if it can start processes (Obsidian on desktop).
    pub fn of(host: &JsValue) -> Option<JsLauncher> {
        has_method(host, "processStart").then(|| JsLauncher { host: Rc::new(host.clone().unchecked_into()) })
    }
}

#[async_trait(?Send)]
impl ProcessLauncher for JsLauncher {
    async fn launch(&self, command: &str, args: &[String], env: &[(String, String)]) -> Result<Rc<dyn LineProcess>> {
        let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
        let vars: std::collections::BTreeMap<_, _> = crate::sort::by_insertion(env.iter().cloned());
        let env = super::to_js(&vars).map_err(|e| Error::Invalid(js_message(&e)))?;
        let id = call("processStart", self.host.process_start(command, args, env)).await?;
        let id =
            id.as_f64().ok_or_else(|| Error::Host { op: "processStart".into(), message: "no process id".into() })?;
        Ok(Rc::new(JsProcess { host: self.host.clone(), id: id as u32 }))
    }
}

/// One process the host started.
struct JsProcess {
    host: Rc<ProcessHost>,
    id: u32,
}

#[async_trait(?Send)]
impl LineProcess for JsProcess {
    async fn send_line(&self, line: &str) -> Result<()> {
        call("processSend", self.host.process_send(self.id, line)).await.map(|_| ())
    }

    async fn next_line(&self) -> Result<Option<String>> {
        Ok(call("processRead", self.host.process_read(self.id)).await?.as_string())
    }

    async fn close(&self) {
        let _ = call("processClose", self.host.process_close(self.id)).await;
    }
}
