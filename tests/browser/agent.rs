//! The agent inside Chrome, through the same binding the plugin uses: `VaultCore.newChat` over
//! a JS vault host, a provider streaming from the mock server on 127.0.0.1, approvals answered
//! from the JS event callback, then undo.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Reflect;
use serde_json::{json, Value};
use vault_agent::cancel::CancelToken;
use vault_agent::host::{HttpClient, HttpRequest};
use vault_agent::vault::{Vault, VaultPath};
use vault_agent::wasm::{Chat, FetchClient, JsVault, VaultCore};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{new_memory_host, server_url};

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

async fn fetch_json(request: HttpRequest) -> Value {
    let response = FetchClient.send(request, &CancelToken::new()).await.unwrap();
    assert_eq!(response.status, 200);
    serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null)
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).unwrap()
}

#[wasm_bindgen_test]
async fn a_three_step_task_runs_through_the_wasm_binding() {
    let id = format!("agent-{}", (js_sys::Math::random() * 1e9) as u64);
    let script = json!({"responses": [
        {"text": "Reading both notes.", "toolCalls": [
            {"id": "r1", "name": "read_file", "arguments": {"path": "Cooking/Bread.md"}},
            {"id": "r2", "name": "read_file", "arguments": {"path": "Cooking/Pizza.md"}}]},
        {"toolCalls": [{"id": "w1", "name": "write_file",
            "arguments": {"path": "Cooking/Baking.md", "content": "# Baking\n\n- [[Bread]]\n- [[Pizza]]\n"}}]},
        {"toolCalls": [{"id": "c1", "name": "attempt_completion", "arguments": {"result": "Merged into [[Baking]]."}}]}
    ]});
    fetch_json(HttpRequest::post_json(server_url(&format!("/mock/{id}/script")), &script)).await;

    let host = new_memory_host();
    let vault = JsVault::new(host.clone().unchecked_into());
    vault.write(&p("Cooking/Bread.md"), "# Bread\n\nSourdough at 230 °C.\n").await.unwrap();
    vault.write(&p("Cooking/Pizza.md"), "# Pizza\n\nDough rests 48 h.\n").await.unwrap();

    let core = VaultCore::new(host.unchecked_into(), None);
    let options = json!({
        "provider": {"kind": "openai-compatible", "model": "mock", "baseUrl": server_url(&format!("/mock/{id}/openai/v1"))},
        // The script has no turn for the end-of-task memory extraction.
        "agent": {"autoApprove": ["read"], "maxIterations": 10, "memoryExtraction": false},
        "vault": {"name": "Browser vault", "noteCount": 2}
    });
    let options = js_sys::JSON::parse(&options.to_string()).unwrap();

    // The callback records every event and approves writes, as the plugin's modal would.
    let events: Rc<RefCell<Vec<JsValue>>> = Rc::default();
    let chat_slot: Rc<RefCell<Option<Rc<Chat>>>> = Rc::default();
    let (log, slot) = (events.clone(), chat_slot.clone());
    let on_event = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        if get(&event, "type").as_string().as_deref() == Some("approval_required") {
            let request_id = get(&get(&event, "request"), "id").as_string().unwrap();
            let chat = slot.borrow().clone().unwrap();
            assert!(chat.respond(&request_id, "approve", None, wasm_bindgen::JsValue::UNDEFINED).unwrap());
        }
        log.borrow_mut().push(event);
    });
    let chat = Rc::new(core.new_chat(options, on_event.as_ref().clone().unchecked_into(), None).unwrap());
    *chat_slot.borrow_mut() = Some(chat.clone());

    let report = chat.send("Merge my baking notes".into(), None).await.unwrap();
    let report: Value = serde_wasm_bindgen::from_value(report).unwrap();
    assert_eq!(report["end"]["reason"], "completed", "{report}");
    assert_eq!(report["finalText"], "Merged into [[Baking]].");
    assert_eq!(report["steps"].as_array().unwrap().len(), 3);
    assert_eq!(report["toolCalls"], 4);
    assert_eq!(report["changedPaths"], json!(["Cooking/Baking.md"]));
    assert_eq!(vault.read(&p("Cooking/Baking.md")).await.unwrap(), "# Baking\n\n- [[Bread]]\n- [[Pizza]]\n");

    // The events a UI renders, in order: streamed text, tool cards, the approval, the end.
    let types: Vec<String> = events.borrow().iter().map(|e| get(e, "type").as_string().unwrap()).collect();
    let first = |t: &str| types.iter().position(|x| x == t).unwrap_or_else(|| panic!("no {t} in {types:?}"));
    assert!(first("text_delta") < first("tool_started"));
    assert!(first("approval_required") < first("approval_resolved"));
    assert_eq!(types.iter().filter(|t| *t == "tool_finished").count(), 4);
    // A new note's preview says so with `old: null`, as js/protocol.ts declares (not undefined).
    let preview = get(&get(&events.borrow()[first("approval_required")], "request"), "preview");
    assert_eq!(get(&preview, "kind").as_string().as_deref(), Some("write"));
    assert!(get(&preview, "old").is_null(), "{:?}", get(&preview, "old"));
    assert_eq!(types.last().unwrap(), "done");

    // The model was sent the tool results between the steps.
    let requests = fetch_json(HttpRequest::get(server_url(&format!("/mock/{id}/requests")))).await;
    let requests = requests.as_array().unwrap();
    assert_eq!(requests.len(), 3);
    let second = requests[1]["body"].to_string();
    assert!(second.contains("Sourdough at 230") && second.contains("Dough rests 48 h"), "{second}");
    assert!(requests[0]["body"]["messages"][0]["content"].as_str().unwrap().contains("Browser vault"));

    // One call undoes the task.
    let task_id = report["taskId"].as_str().unwrap().to_string();
    let undo = core.undo_task(task_id).await.unwrap();
    assert_eq!(get(&get(&undo, "trashed"), "length").as_f64(), Some(1.0));
    assert!(vault.stat(&p("Cooking/Baking.md")).await.unwrap().is_none());
    assert!(!chat.is_running());
}

#[wasm_bindgen_test]
async fn cancel_from_js_stops_a_task_waiting_for_approval() {
    let id = format!("agent-cancel-{}", (js_sys::Math::random() * 1e9) as u64);
    let script = json!({"responses": [
        {"toolCalls": [{"id": "w1", "name": "write_file", "arguments": {"path": "a.md", "content": "x"}}]}
    ]});
    fetch_json(HttpRequest::post_json(server_url(&format!("/mock/{id}/script")), &script)).await;
    let host = new_memory_host();
    let core = VaultCore::new(host.clone().unchecked_into(), None);
    let options = json!({"provider": {"kind": "openai-compatible", "model": "mock",
        "baseUrl": server_url(&format!("/mock/{id}/openai/v1"))}});
    let slot: Rc<RefCell<Option<Rc<Chat>>>> = Rc::default();
    let s = slot.clone();
    let on_event = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        if get(&event, "type").as_string().as_deref() == Some("approval_required") {
            // The user closes the view instead of answering.
            s.borrow().clone().unwrap().cancel();
        }
    });
    let chat = Rc::new(
        core.new_chat(
            js_sys::JSON::parse(&options.to_string()).unwrap(),
            on_event.as_ref().clone().unchecked_into(),
            None,
        )
        .unwrap(),
    );
    *slot.borrow_mut() = Some(chat.clone());
    let report: Value = serde_wasm_bindgen::from_value(chat.send("write".into(), None).await.unwrap()).unwrap();
    assert!(report["end"]["reason"] == "cancelled" || report["end"]["reason"] == "denied", "{report}");
    let vault = JsVault::new(host.unchecked_into());
    assert!(vault.stat(&p("a.md")).await.unwrap().is_none());
}

/// The mock provider scripted with `responses`; returns its id.
async fn script(prefix: &str, responses: Value) -> String {
    let id = format!("{prefix}-{}", (js_sys::Math::random() * 1e9) as u64);
    fetch_json(HttpRequest::post_json(server_url(&format!("/mock/{id}/script")), &json!({"responses": responses})))
        .await;
    id
}

#[wasm_bindgen_test]
async fn when_fetch_cannot_reach_the_server_the_chat_falls_back_to_the_request_function() {
    use crate::support::{new_request_function, request_calls};
    let id = script("fallback", json!([{"text": "Hello from the fallback."}])).await;
    // Nothing listens on port 9: fetch fails as it does for a CORS refusal.
    let unreachable = "http://127.0.0.1:9";
    let request = new_request_function(unreachable, &server_url(""));
    let core = VaultCore::new(new_memory_host().unchecked_into(), Some(request));
    let options = json!({"provider": {"kind": "openai-compatible", "model": "mock",
        "baseUrl": format!("{unreachable}/mock/{id}/openai/v1")}, "agent": {"memoryExtraction": false}});
    let texts: Rc<RefCell<String>> = Rc::default();
    let sink = texts.clone();
    let on_event = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        if get(&event, "type").as_string().as_deref() == Some("text_delta") {
            sink.borrow_mut().push_str(&get(&event, "text").as_string().unwrap());
        }
    });
    let before = request_calls();
    let chat = core
        .new_chat(js_sys::JSON::parse(&options.to_string()).unwrap(), on_event.as_ref().clone().unchecked_into(), None)
        .unwrap();
    let report: Value = serde_wasm_bindgen::from_value(chat.send("hi".into(), None).await.unwrap()).unwrap();
    assert_eq!(report["end"]["reason"], "answered", "{report}");
    assert_eq!(*texts.borrow(), "Hello from the fallback.");
    // The model call, then the window a server on this machine serves the model with: Ollama's
    // page (the mock has no model loaded) and LM Studio's (none there).
    assert_eq!(request_calls(), before + 3);
}

#[wasm_bindgen_test]
async fn test_connection_reports_latency_or_the_categorised_error() {
    let id = script("probe", json!([{"text": "OK"}, {"status": 401, "message": "invalid x-api-key"}])).await;
    let core = VaultCore::new(new_memory_host().unchecked_into(), None);
    let provider = json!({"kind": "anthropic", "model": "claude-test", "apiKey": "k",
        "baseUrl": server_url(&format!("/mock/{id}/anthropic"))});
    let provider = js_sys::JSON::parse(&provider.to_string()).unwrap();
    let ok: Value =
        serde_wasm_bindgen::from_value(core.test_connection(provider.clone(), JsValue::UNDEFINED).await.unwrap())
            .unwrap();
    assert_eq!(ok["ok"], true, "{ok}");
    assert_eq!(ok["reply"], "OK");
    assert_eq!(ok["model"], "claude-test");
    let failed: Value =
        serde_wasm_bindgen::from_value(core.test_connection(provider, JsValue::UNDEFINED).await.unwrap()).unwrap();
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["error"]["kind"], "auth", "{failed}");
    // A single attempt: the mock saw exactly two requests, with the browser header.
    let requests = fetch_json(HttpRequest::get(server_url(&format!("/mock/{id}/requests")))).await;
    assert_eq!(requests.as_array().unwrap().len(), 2);
    assert_eq!(requests[0]["headers"]["anthropic-dangerous-direct-browser-access"], "true");
    assert_eq!(requests[0]["body"]["max_tokens"], 16);
}
