//! The host interfaces over real JS: `JsVault` over a JS `VaultHost`, `FetchClient` (gloo-net)
//! against the local server, and `JsClock`.

use futures::StreamExt;
use vault_agent::cancel::CancelToken;
use vault_agent::host::{Clock, HttpClient, HttpRequest};
use vault_agent::vault::{Vault, VaultPath};
use vault_agent::wasm::{FetchClient, JsClock, JsVault, VaultCore};
use vault_agent::Error;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{new_bytes_host, new_failing_host, new_memory_host, server_url};
use crate::vault_contract::run_contract;

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

#[wasm_bindgen_test]
async fn js_vault_keeps_the_contract() {
    let vault = JsVault::new(new_memory_host().unchecked_into());
    run_contract(&vault).await;
}

/// The plugin's host answers a batch with each note's bytes, which the core decodes: the same
/// answers as text would give, and bytes that are not UTF-8 are a note that is not text.
#[wasm_bindgen_test]
async fn a_batch_of_bytes_reads_as_the_same_notes_and_refuses_what_is_not_text() {
    let vault = JsVault::new(new_bytes_host().unchecked_into());
    run_contract(&vault).await;
    vault.write(&p("日本語/ノート.md"), "# ノート 🎉").await.unwrap();
    vault.write_binary(&p("latin1.md"), b"caf\xe9").await.unwrap();
    let answers = vault.read_batch(&[p("日本語/ノート.md"), p("latin1.md"), p("gone.md")]).await;
    let mtime = vault.stat(&p("日本語/ノート.md")).await.unwrap().unwrap().mtime;
    assert_eq!(answers[0].as_ref().unwrap(), &("# ノート 🎉".to_string(), mtime));
    assert!(matches!(answers[1], Err(Error::NotText(_))), "{:?}", answers[1]);
    assert!(matches!(answers[2], Err(Error::NotFound(_))), "{:?}", answers[2]);
}

#[wasm_bindgen_test]
async fn js_vault_round_trips_text_and_binary_through_js() {
    let vault = JsVault::new(new_memory_host().unchecked_into());
    let text = "# ノート\n\nemoji 🎉 and Ünïcödé\n";
    vault.write(&p("日本語/ノート.md"), text).await.unwrap();
    assert_eq!(vault.read(&p("日本語/ノート.md")).await.unwrap(), text);
    let bytes: Vec<u8> = (0..=255u8).collect();
    vault.write_binary(&p(".obsidian-agent/index/blob.bin"), &bytes).await.unwrap();
    assert_eq!(vault.read_binary(&p(".obsidian-agent/index/blob.bin")).await.unwrap(), bytes);
}

#[wasm_bindgen_test]
async fn a_js_rejection_becomes_an_error_carrying_its_message() {
    let vault = JsVault::new(new_failing_host().unchecked_into());
    let err = vault.read(&p("notes/a.md")).await.unwrap_err();
    assert!(matches!(err, Error::Host { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("disk on fire while reading notes/a.md"), "{text}");
    assert!(text.contains("read notes/a.md"), "names the operation and path: {text}");

    let err = vault.read_binary(&p("x.bin")).await.unwrap_err().to_string();
    assert!(err.contains("a bare string rejection"), "{err}");

    let err = vault.write(&p("x.md"), "x").await.unwrap_err().to_string();
    assert!(err.contains("thrown synchronously, not rejected"), "{err}");

    let err = vault.list(&VaultPath::root()).await.unwrap_err().to_string();
    assert!(err.contains("unexpected answer from host"), "{err}");
}

#[wasm_bindgen_test]
async fn the_plugin_entry_point_counts_notes_through_the_host() {
    let host = new_memory_host();
    let vault = JsVault::new(host.clone().unchecked_into());
    for name in ["a.md", "Folder/b.md", "Folder/c.canvas", ".obsidian/workspace.md", "image.png"] {
        vault.write(&p(name), "x").await.unwrap();
    }
    let core = VaultCore::new(host.unchecked_into(), None);
    assert_eq!(core.note_count().await.unwrap(), 2);
}

#[wasm_bindgen_test]
async fn fetch_reads_a_response_body_incrementally() {
    let client = FetchClient;
    let cancel = CancelToken::new();
    let id = format!("incremental-{}", js_sys::Math::random());
    let request = HttpRequest::get(server_url(&format!("/stream/incremental?id={id}")));
    let mut response = client.send(request, &cancel).await.unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.header("Content-Type"), Some("text/plain; charset=utf-8"));

    // The server holds the rest of the body until it is released, so this chunk can only
    // arrive if the body is read while the response is still open.
    let first = response.body.next().await.expect("a first chunk").unwrap();
    assert_eq!(String::from_utf8(first).unwrap(), "first chunk;");

    let release =
        client.send(HttpRequest::get(server_url(&format!("/stream/release?id={id}"))), &cancel).await.unwrap();
    assert_eq!(release.text().await.unwrap(), "released");

    let mut rest = Vec::new();
    while let Some(chunk) = response.body.next().await {
        rest.extend(chunk.unwrap());
    }
    assert_eq!(String::from_utf8(rest).unwrap(), "second chunk;last chunk");
}

#[wasm_bindgen_test]
async fn cancelling_aborts_a_body_that_is_still_open() {
    let client = FetchClient;
    let cancel = CancelToken::new();
    let id = format!("cancel-{}", js_sys::Math::random());
    let mut response =
        client.send(HttpRequest::get(server_url(&format!("/stream/incremental?id={id}"))), &cancel).await.unwrap();
    assert!(response.body.next().await.unwrap().is_ok());
    cancel.cancel();
    assert!(matches!(response.body.next().await, Some(Err(Error::Cancelled))));
    assert!(response.body.next().await.is_none(), "the stream ends after cancel");
}

#[wasm_bindgen_test]
async fn fetch_sends_method_headers_and_body() {
    let request = HttpRequest::post_json(server_url("/echo"), &serde_json::json!({"hello": "wörld"}))
        .header("x-api-key", "secret");
    let response = FetchClient.send(request, &CancelToken::new()).await.unwrap();
    assert_eq!(response.header("x-echo-method"), Some("POST"));
    let echoed: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(echoed["headers"]["x-api-key"], "secret");
    assert_eq!(echoed["body"], r#"{"hello":"wörld"}"#);
}

#[wasm_bindgen_test]
async fn an_unreachable_server_is_a_network_error() {
    let request = HttpRequest::get("http://127.0.0.1:9/nothing-listens-here");
    let err = FetchClient.send(request, &CancelToken::new()).await.unwrap_err();
    assert!(matches!(err, Error::Network(_)), "{err:?}");
}

#[wasm_bindgen_test]
async fn the_js_clock_sleeps_on_the_event_loop() {
    let clock = JsClock;
    let before = clock.now_ms();
    clock.sleep(20).await;
    assert!(clock.now_ms() >= before + 15, "time moved on while sleeping");
}
