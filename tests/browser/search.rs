//! Full-text search in the browser, through the JS-facing `SearchEngine`, over the real sample
//! vault served by the local test server (`/vault/bundle`) into a JS in-memory `VaultHost`.
//! The whole vault is indexed once and shared by the tests.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use gloo_net::http::Request;
use vault_agent::search::{SearchHit, INDEX_DIR};
use vault_agent::vault::{Vault, VaultPath};
use vault_agent::wasm::{JsVault, SearchEngine};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use crate::support::{new_memory_host, server_url};

fn p(raw: &str) -> VaultPath {
    VaultPath::parse(raw).unwrap()
}

/// The sample vault's notes outside hidden folders (the bundle skips hidden folders too).
const NOTES: u32 = 6277;

struct Shared {
    engine: SearchEngine,
    vault: JsVault,
    progress_calls: u32,
}

thread_local! {
    static SHARED: RefCell<Option<Rc<Shared>>> = const { RefCell::new(None) };
}

/// A JS memory host holding the first `limit` notes of the sample vault (all when 0).
async fn sample_vault(limit: usize) -> (JsValue, JsVault) {
    #[derive(serde::Deserialize)]
    struct Bundle {
        files: BTreeMap<String, String>,
    }
    let url = server_url(&format!("/vault/bundle?limit={limit}"));
    let text = Request::get(&url).send().await.unwrap().text().await.unwrap();
    let bundle: Bundle = serde_json::from_str(&text).unwrap();
    let host = new_memory_host();
    let vault = JsVault::new(host.clone().unchecked_into());
    for (path, text) in &bundle.files {
        vault.write(&p(path), text).await.unwrap();
    }
    (host, vault)
}

async fn shared() -> Rc<Shared> {
    if let Some(shared) = SHARED.with(|s| s.borrow().clone()) {
        return shared;
    }
    let (host, vault) = sample_vault(0).await;
    let engine = SearchEngine::new(host.unchecked_into());
    let calls = Rc::new(RefCell::new(0u32));
    let counter = calls.clone();
    let on_progress = Closure::<dyn FnMut(u32, u32)>::new(move |_done: u32, _total: u32| *counter.borrow_mut() += 1);
    let count = engine.build(Some(on_progress.as_ref().unchecked_ref::<js_sys::Function>().clone())).await.unwrap();
    assert_eq!(count, NOTES);
    let shared = Rc::new(Shared { engine, vault, progress_calls: *calls.borrow() });
    SHARED.with(|s| *s.borrow_mut() = Some(shared.clone()));
    shared
}

/// A plain JS object, as the plugin would pass it.
fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

fn search(engine: &SearchEngine, query: JsValue) -> Vec<SearchHit> {
    serde_wasm_bindgen::from_value(engine.search(query).unwrap()).unwrap()
}

fn top(engine: &SearchEngine, text: &str, limit: u32) -> Vec<String> {
    let query = js_sys::Object::new();
    js_sys::Reflect::set(&query, &"text".into(), &text.into()).unwrap();
    js_sys::Reflect::set(&query, &"limit".into(), &limit.into()).unwrap();
    search(engine, query.into()).into_iter().map(|h| h.path).collect()
}

fn assert_in_top(engine: &SearchEngine, query: &str, expected: &str, n: u32) {
    let found = top(engine, query, n);
    assert!(found.iter().any(|p| p == expected), "{query:?}: expected {expected} in the top {n}, got {found:?}");
}

#[wasm_bindgen_test]
async fn the_real_vault_is_indexed_in_the_browser_with_progress() {
    let shared = shared().await;
    assert_eq!(shared.engine.note_count(), NOTES);
    assert!(shared.progress_calls >= 3, "{}", shared.progress_calls);
}

#[wasm_bindgen_test]
async fn known_item_queries_in_four_languages_find_their_note_in_the_top_3() {
    let engine = &shared().await.engine;
    for (query, note) in [
        ("audio recorder", "en/Plugins/Audio recorder.md"),
        ("Rückverweise", "de/Erweiterungen/Rückverweise.md"),
        ("Tägliche Notizen", "de/Erweiterungen/Tägliche Notizen.md"),
        ("オーディオレコーダー", "ja/プラグイン/オーディオレコーダー.md"),
        ("コマンドパレット", "ja/プラグイン/コマンドパレット.md"),
        ("录音机", "zh/插件/录音机.md"),
        ("反向链接", "zh/插件/反向链接.md"),
    ] {
        assert_in_top(engine, query, note, 3);
    }
}

#[wasm_bindgen_test]
async fn typos_phrases_and_filters_work_in_the_browser() {
    let engine = &shared().await.engine;
    assert_in_top(engine, "bakclinks", "en/Plugins/Backlinks.md", 3);
    assert_in_top(engine, "audio recordr", "en/Plugins/Audio recorder.md", 3);

    let phrase = top(engine, "\"open a new tab\"", 50);
    let bag = top(engine, "open a new tab", 50);
    assert!(!phrase.is_empty() && phrase != bag && bag.len() > phrase.len());

    let filtered: Vec<SearchHit> = search(engine, js(r#"{"text": "Obsidian", "limit": 30, "folder": "de"}"#));
    assert!(!filtered.is_empty() && filtered.iter().all(|h| h.path.starts_with("de/")));
    let tagged: Vec<String> = serde_wasm_bindgen::from_value(engine.notes_with_tag("desktop".into()).unwrap()).unwrap();
    assert!(tagged.len() >= 90);
    let with_tag: Vec<SearchHit> = search(engine, js(r#"{"text": "sync", "limit": 100, "tags": ["desktop"]}"#));
    assert!(!with_tag.is_empty() && with_tag.iter().all(|h| tagged.contains(&h.path)));

    let hit =
        search(engine, "microphone".into()).into_iter().find(|h| h.path == "en/Plugins/Audio recorder.md").unwrap();
    assert!(hit.snippet.to_lowercase().contains("**microphone**"), "{}", hit.snippet);
}

#[wasm_bindgen_test]
async fn an_update_is_visible_to_the_next_query_and_a_deleted_note_disappears() {
    let shared = shared().await;
    let (engine, vault) = (&shared.engine, &shared.vault);
    vault.write(&p("en/Inbox/Browser note.md"), "# Browser note\n\nThe gnuflavour plan.").await.unwrap();
    assert!(engine.update("en/Inbox/Browser note.md".into()).await.unwrap());
    assert_eq!(top(engine, "gnuflavour", 3), vec!["en/Inbox/Browser note.md"]);

    vault.rename(&p("en/Inbox/Browser note.md"), &p("en/Inbox/Renamed.md")).await.unwrap();
    engine.rename("en/Inbox/Browser note.md".into(), "en/Inbox/Renamed.md".into()).await.unwrap();
    assert_eq!(top(engine, "gnuflavour", 3), vec!["en/Inbox/Renamed.md"]);

    vault.remove(&p("en/Inbox/Renamed.md")).await.unwrap();
    assert!(engine.update("en/Inbox/Renamed.md".into()).await.unwrap());
    assert!(top(engine, "gnuflavour", 3).is_empty());
    assert_eq!(engine.note_count(), NOTES);
}

#[wasm_bindgen_test]
async fn a_saved_index_loads_and_a_corrupted_one_is_rebuilt_without_a_crash() {
    // The first 400 notes of the sample vault (its release notes), to keep the rebuilds quick.
    let (host, vault) = sample_vault(400).await;
    let engine = SearchEngine::new(host.clone().unchecked_into());
    let outcome = engine.load_or_build(None).await.unwrap();
    assert_eq!(js_sys::Reflect::get(&outcome, &"kind".into()).unwrap().as_string().unwrap(), "built");
    engine.persist().await.unwrap();
    let expected = top(&engine, "canvas", 5);
    assert!(!expected.is_empty());

    let again = SearchEngine::new(host.clone().unchecked_into());
    let outcome = again.load_or_build(None).await.unwrap();
    assert_eq!(js_sys::Reflect::get(&outcome, &"kind".into()).unwrap().as_string().unwrap(), "loaded");
    assert_eq!(top(&again, "canvas", 5), expected);
    // Loaded and unchanged: a save writes nothing (a plugin unloading after a quiet session).
    assert_eq!(again.persist().await.unwrap(), 0);

    // Parts are named by their checksums: `segments-<xxh3>.bin`.
    let listing = vault.list(&p(INDEX_DIR)).await.unwrap();
    let segments = listing.files.into_iter().find(|f| f.name().unwrap().starts_with("segments-")).unwrap();
    let mut bytes = vault.read_binary(&segments).await.unwrap();

    // A change is saved beside the main shard, which is not written again, and loads with it.
    vault.write(&p("en/Inbox/Saved change.md"), "# Saved change\n\nzanzibarword").await.unwrap();
    assert!(again.update("en/Inbox/Saved change.md".into()).await.unwrap());
    let written = again.persist().await.unwrap() as usize;
    assert!(written > 0 && written < bytes.len() / 4, "{written} bytes written, the main shard is {}", bytes.len());
    assert_eq!(vault.read_binary(&segments).await.unwrap(), bytes);
    let third = SearchEngine::new(host.clone().unchecked_into());
    let outcome = third.load_or_build(None).await.unwrap();
    assert_eq!(js_sys::Reflect::get(&outcome, &"kind".into()).unwrap().as_string().unwrap(), "loaded");
    assert_eq!(top(&third, "zanzibarword", 3), vec!["en/Inbox/Saved change.md"]);
    assert_eq!(top(&third, "canvas", 5), expected);

    for i in (0..bytes.len()).step_by(101) {
        bytes[i] ^= 0x5a;
    }
    vault.write_binary(&segments, &bytes).await.unwrap();
    let rebuilt = SearchEngine::new(host.unchecked_into());
    let outcome = rebuilt.load_or_build(None).await.unwrap();
    let reason = js_sys::Reflect::get(&outcome, &"reason".into()).unwrap();
    assert_eq!(js_sys::Reflect::get(&reason, &"kind".into()).unwrap().as_string().unwrap(), "corrupt");
    assert_eq!(top(&rebuilt, "canvas", 5), expected);
}
