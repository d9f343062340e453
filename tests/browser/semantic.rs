//! Semantic search in the browser, through the JS-facing `SearchEngine`: the static model is
//! downloaded from the local test server into the vault (checked against its pinned SHA-256),
//! the English notes of the sample vault are embedded in the background (progress, cancel,
//! resume), paraphrase queries find their notes, hybrid hits say which signal found them, and
//! the API embedder works against the mock `/embeddings` server through its 429s.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use gloo_net::http::Request;
use vault_agent::embed::{HybridHit, STATIC_MODEL_FILE};
use vault_agent::vault::{Vault, VaultPath};
use vault_agent::wasm::{JsVault, SearchEngine, VaultCore};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{new_memory_host, new_request_function, request_calls, server_url};

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/// A JS memory host with the sample vault's notes under `prefix`, and an engine over it.
async fn vault_with(prefix: &str, limit: usize) -> (SearchEngine, JsVault) {
    #[derive(serde::Deserialize)]
    struct Bundle {
        files: BTreeMap<String, String>,
    }
    let url = server_url(&format!("/vault/bundle?prefix={prefix}&limit={limit}"));
    let bundle: Bundle = serde_json::from_str(&Request::get(&url).send().await.unwrap().text().await.unwrap()).unwrap();
    let host = new_memory_host();
    let vault = JsVault::new(host.clone().unchecked_into());
    for (path, text) in &bundle.files {
        vault.write(&p(path), text).await.unwrap();
    }
    (SearchEngine::new(host.unchecked_into()), vault)
}

async fn install_static(engine: &SearchEngine) {
    engine
        .install_model(js(&format!(r#"{{"model": "static", "baseUrl": "{}"}}"#, server_url("/models"))), None)
        .await
        .unwrap();
}

async fn search(engine: &SearchEngine, query: &str) -> Vec<HybridHit> {
    serde_wasm_bindgen::from_value(engine.search_mode(js(query)).await.unwrap()).unwrap()
}

#[wasm_bindgen_test]
async fn the_static_model_is_installed_only_when_its_checksum_matches() {
    let (engine, vault) = vault_with("en/Plugins/", 3).await;
    assert!(!engine.is_model_installed("static".into()).await.unwrap());
    let bad = format!(r#"{{"model": "static", "baseUrl": "{}"}}"#, server_url("/models-bad"));
    let error = engine.install_model(js(&bad), None).await.unwrap_err();
    let message = js_sys::Error::from(error).message().as_string().unwrap();
    assert!(message.contains("not the pinned file"), "{message}");
    let path = p(&format!(".obsidian-agent/models/static-minilm-l6-v2-256/{STATIC_MODEL_FILE}"));
    assert!(vault.stat(&path).await.unwrap().is_none(), "nothing was written");

    let calls = Rc::new(RefCell::new(0u32));
    let counter = calls.clone();
    let progress =
        Closure::<dyn FnMut(String, f64, f64)>::new(move |_: String, _: f64, _: f64| *counter.borrow_mut() += 1);
    let good = format!(r#"{{"model": "static", "baseUrl": "{}"}}"#, server_url("/models"));
    engine.install_model(js(&good), Some(progress.as_ref().unchecked_ref::<js_sys::Function>().clone())).await.unwrap();
    assert!(*calls.borrow() >= 1);
    assert!(engine.is_model_installed("static".into()).await.unwrap());
}

#[wasm_bindgen_test]
async fn a_model_not_yet_downloaded_is_refused_with_how_to_get_it() {
    let (engine, _vault) = vault_with("en/Plugins/", 3).await;
    for options in [r#"{"kind": "static"}"#, r#"{"kind": "minilm"}"#, r#"{"kind": "static", "minilmQueries": true}"#] {
        let error = engine.set_embedder(js(options)).await.unwrap_err();
        let message = js_sys::Error::from(error).message().as_string().unwrap();
        assert!(message.contains("download the model from the plugin's settings"), "{options}: {message}");
    }
}

#[wasm_bindgen_test]
async fn english_notes_are_embedded_in_the_browser_and_found_by_paraphrase() {
    let (engine, _vault) = vault_with("en/", 0).await;
    install_static(&engine).await;
    engine.build(None).await.unwrap();
    engine.set_embedder(js(r#"{"kind": "static"}"#)).await.unwrap();
    let calls = Rc::new(RefCell::new(0u32));
    let counter = calls.clone();
    let progress = Closure::<dyn FnMut(u32, u32)>::new(move |_: u32, _: u32| *counter.borrow_mut() += 1);
    let report = engine.embed_notes(Some(progress.as_ref().unchecked_ref::<js_sys::Function>().clone())).await.unwrap();
    let report: serde_json::Value = serde_wasm_bindgen::from_value(report).unwrap();
    assert_eq!(report["notes"], 173);
    assert_eq!(report["embeddedNotes"], 173);
    assert!(*calls.borrow() >= 2);
    assert_eq!(engine.embedded_note_count(), 173);

    for (query, note) in [
        ("keep my notes the same on my phone and my laptop", "en/Getting started/Sync your notes across devices.md"),
        ("capture voice memos with the microphone", "en/Plugins/Audio recorder.md"),
        ("jot down a diary entry every morning", "en/Plugins/Daily notes.md"),
    ] {
        let hits = search(&engine, &format!(r#"{{"text": "{query}", "mode": "semantic", "limit": 5}}"#)).await;
        assert!(hits.iter().any(|h| h.path == note), "{query}: {:?}", hits.iter().map(|h| &h.path).collect::<Vec<_>>());
        assert!(hits.iter().all(|h| h.found_by.semantic.is_some() && h.found_by.fulltext.is_none()));
    }
    let hybrid = search(&engine, r#"{"text": "audio recorder microphone", "mode": "hybrid", "limit": 10}"#).await;
    assert_eq!(hybrid[0].path, "en/Plugins/Audio recorder.md");
    assert_eq!(hybrid[0].found_by.label(), "both");
    let text_only = search(&engine, r#"{"text": "microphone", "mode": "fulltext"}"#).await;
    assert!(text_only.iter().all(|h| h.found_by.label() == "fulltext"));

    // Saved and loaded back by a new engine over the same host: nothing to embed again.
    let again: serde_json::Value = serde_wasm_bindgen::from_value(engine.embed_notes(None).await.unwrap()).unwrap();
    assert_eq!(again["chunks"], 0);

    // Turned off (the settings' "Off"): no vectors, no search by meaning, hybrid is full text.
    engine.clear_embedder();
    assert_eq!(engine.embedded_note_count(), 0);
    assert!(engine.search_mode(js(r#"{"text": "voice memos", "mode": "semantic"}"#)).await.is_err());
    let words = search(&engine, r#"{"text": "audio recorder microphone", "mode": "hybrid", "limit": 10}"#).await;
    assert!(!words.is_empty() && words.iter().all(|h| h.found_by.label() == "fulltext"));
}

#[wasm_bindgen_test]
async fn a_cores_engine_downloads_the_model_through_the_request_function_when_fetch_cannot() {
    // Nothing listens on port 9: fetch fails as it does when CORS refuses a download (a model
    // host that sends no CORS headers, seen from Obsidian); the request function (Obsidian's
    // requestUrl) reaches it.
    let unreachable = "http://127.0.0.1:9";
    let core =
        VaultCore::new(new_memory_host().unchecked_into(), Some(new_request_function(unreachable, &server_url(""))));
    let engine = core.search_engine();
    let before = request_calls();
    let options = format!(r#"{{"model": "static", "baseUrl": "{unreachable}/models"}}"#);
    engine.install_model(js(&options), None).await.unwrap();
    assert!(engine.is_model_installed("static".into()).await.unwrap());
    assert_eq!(request_calls(), before + 1);
}

#[wasm_bindgen_test]
async fn embedding_can_be_cancelled_and_resumes_where_it_stopped() {
    let (engine, _vault) = vault_with("en/", 60).await;
    install_static(&engine).await;
    engine.set_embedder(js(r#"{"kind": "static"}"#)).await.unwrap();
    // Cancel from the progress callback, as the UI's stop button would between two chunks of work.
    let engine = Rc::new(engine);
    let weak = Rc::downgrade(&engine);
    let progress = Closure::<dyn FnMut(u32, u32)>::new(move |done: u32, _: u32| {
        if done > 0 {
            if let Some(e) = weak.upgrade() {
                e.cancel_embedding();
            }
        }
    });
    let first: serde_json::Value = serde_wasm_bindgen::from_value(
        engine.embed_notes(Some(progress.as_ref().unchecked_ref::<js_sys::Function>().clone())).await.unwrap(),
    )
    .unwrap();
    let status: serde_json::Value = serde_wasm_bindgen::from_value(engine.embedding_status().unwrap()).unwrap();
    let done_first = first["embeddedNotes"].as_u64().unwrap();
    if first["cancelled"] == true {
        assert!(done_first < 60 && status["cancelled"] == true && status["running"] == false);
    }
    let rest: serde_json::Value = serde_wasm_bindgen::from_value(engine.embed_notes(None).await.unwrap()).unwrap();
    assert_eq!(rest["cancelled"], false);
    assert_eq!(done_first + rest["embeddedNotes"].as_u64().unwrap(), 60);
}

#[wasm_bindgen_test]
async fn the_api_embedder_works_through_rate_limits_in_the_browser() {
    let id = "browser-semantic";
    let script = r#"{"dimensions": 256, "failures": [
        {"status": 429, "headers": {"retry-after": "0"}, "body": {"error": {"message": "slow down", "type": "rate_limit_error"}}},
        {"status": 200, "body": {"error": {"message": "upstream 429", "code": 429}}}
    ]}"#;
    let response = Request::post(&server_url(&format!("/embeddings/{id}/script")))
        .header("content-type", "application/json")
        .body(script)
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (engine, _vault) = vault_with("en/Plugins/", 20).await;
    let options = format!(
        r#"{{"kind": "api", "baseUrl": "{}", "model": "mock", "retry": {{"baseDelayMs": 1, "maxDelayMs": 10}}}}"#,
        server_url(&format!("/embeddings/{id}/v1"))
    );
    engine.set_embedder(js(&options)).await.unwrap();
    let report: serde_json::Value = serde_wasm_bindgen::from_value(engine.embed_notes(None).await.unwrap()).unwrap();
    assert_eq!(report["embeddedNotes"], 20);
    let log: Vec<serde_json::Value> = serde_json::from_str(
        &Request::get(&server_url(&format!("/embeddings/{id}/requests"))).send().await.unwrap().text().await.unwrap(),
    )
    .unwrap();
    assert_eq!(log[0]["status"], 429);
    assert_eq!(log[1]["status"], 200);
    assert!(log.iter().all(|r| r["inputs"].as_u64().unwrap() <= 16), "batches of at most 16");
    let chunks: u64 = log.iter().skip(2).map(|r| r["inputs"].as_u64().unwrap()).sum();
    assert_eq!(chunks, report["chunks"].as_u64().unwrap(), "every chunk embedded once after the retries");
    let hits = search(&engine, r#"{"text": "audio recorder microphone", "mode": "semantic", "limit": 3}"#).await;
    // The mock's vectors are bags of words: the note that shares the query's words comes first.
    assert_eq!(hits[0].path, "en/Plugins/Audio recorder.md", "{:?}", hits.iter().map(|h| &h.path).collect::<Vec<_>>());
}
