//! Semantic search natively: the tokenizer and MiniLM against the reference implementation,
//! the static model, the vector index over real notes, hybrid ranking, the API embedder against
//! a local server, and the semantic_search tool.

use vault_agent::embed::{dot, WordPiece};

use crate::semantic_support::{minilm, minilm_dir, sample_vault};

#[derive(serde::Deserialize)]
struct Reference {
    tokenized: Vec<Tokenized>,
    sentences: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

#[derive(serde::Deserialize)]
struct Tokenized {
    path: String,
    chars: usize,
    ids: Vec<u32>,
}

fn reference() -> Reference {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/embed/minilm_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn wordpiece_matches_the_reference_tokenizer_on_notes_in_every_script() {
    let vocab = WordPiece::from_vocab(&std::fs::read_to_string(minilm_dir().join("vocab.txt")).unwrap()).unwrap();
    let reference = reference();
    assert!(reference.tokenized.len() > 100);
    for case in &reference.tokenized {
        let text: String =
            std::fs::read_to_string(sample_vault().join(&case.path)).unwrap().chars().take(case.chars).collect();
        assert_eq!(vocab.pieces(&text, usize::MAX), case.ids, "{}", case.path);
    }
}

#[test]
fn minilm_matches_sentence_transformers() {
    let model = minilm();
    let reference = reference();
    let texts: Vec<&str> = reference.sentences.iter().map(String::as_str).collect();
    let ours = model.embed_texts(&texts);
    for ((text, ours), theirs) in texts.iter().zip(&ours).zip(&reference.vectors) {
        let cos = dot(ours, theirs);
        assert!(cos > 0.9999, "{text}: cosine {cos}");
    }
}

#[test]
fn featurizing_gives_each_passage_its_pieces_and_minilm_s_vector() {
    let model = minilm();
    let texts = vec![
        "Sync\nKeep your notes the same on every device you own.".to_string(),
        "Restore an older version of a note from its history.".to_string(),
    ];
    let mut progress = Vec::new();
    let passages = vault_agent::embed::featurize(model, &texts, 1, &mut |done, total| progress.push((done, total)));
    assert_eq!(progress, vec![(1, 2), (2, 2)]);
    for (passage, text) in passages.iter().zip(&texts) {
        assert_eq!(passage.ids, model.vocab().pieces(text, usize::MAX), "{text}");
        let cos = dot(&passage.target, &model.embed_texts(&[text.as_str()])[0]);
        assert!(cos > 0.9999, "{text}: cosine {cos}");
    }
    assert!(dot(&passages[0].target, &passages[1].target) < 0.9, "different passages, different targets");
}

// ---- the API embedder against a local server ----------------------------------------------

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_trait::async_trait;
use serde_json::json;
use vault_agent::embed::{
    ApiEmbedder, ApiEmbedderConfig, Embedder, HybridQuery, SearchMode, SemanticIndex, VectorIndex, SAVE_SHARE,
};
use vault_agent::host::{Clock, ManualClock, ReqwestClient, SystemClock};
use vault_agent::index::{hybrid_search, SharedIndex};
use vault_agent::provider::RetryPolicy;
use vault_agent::search::SearchIndex;
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

use crate::local_server::{serve, Answer};
use crate::semantic_support::static_model;

fn on_tokio<F: std::future::Future>(f: F) -> F::Output {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    tokio::task::LocalSet::new().block_on(&rt, f)
}

fn embeddings(n: usize) -> String {
    let data: Vec<_> = (0..n).rev().map(|i| json!({"index": i, "embedding": [i as f32 + 1.0, 1.0, 0.0]})).collect();
    json!({"object": "list", "data": data, "model": "m"}).to_string()
}

#[test]
fn the_api_embedder_sends_batches_of_16_and_backs_off_on_429s_including_one_inside_a_200() {
    let (base, seen) = serve(vec![
        Answer::Status(
            429,
            json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}).to_string(),
        ),
        Answer::Status(200, json!({"error": {"message": "upstream rate limited", "code": 429}}).to_string()),
        Answer::Status(200, embeddings(16)),
        Answer::Status(200, embeddings(4)),
    ]);
    let config = ApiEmbedderConfig {
        base_url: format!("{base}/v1"),
        model: "text-embedding-3-small".into(),
        api_key: Some("sk-test".into()),
        dimensions: None,
        retry: RetryPolicy { base_delay_ms: 1, max_delay_ms: 5, ..RetryPolicy::default() },
    };
    let embedder = ApiEmbedder::new(config, Rc::new(ReqwestClient::new()), Rc::new(SystemClock)).unwrap();
    let texts: Vec<String> = (0..20).map(|i| format!("text {i}")).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = on_tokio(embedder.embed(&refs)).unwrap();
    assert_eq!(vectors.len(), 20);
    assert_eq!(embedder.dimensions(), 3);
    // Out-of-order items are put back in order, and every vector has unit length.
    let expected = [2.0f32, 1.0, 0.0];
    let norm = (5.0f32).sqrt();
    assert!(vectors[1].iter().zip(expected).all(|(a, b)| (a - b / norm).abs() < 1e-6), "{:?}", vectors[1]);
    assert_eq!(embedder.requests_sent(), 4);
    let seen = seen.lock().unwrap();
    let inputs: Vec<usize> = seen
        .iter()
        .map(|s| serde_json::from_str::<serde_json::Value>(&s.body).unwrap()["input"].as_array().unwrap().len())
        .collect();
    assert_eq!(inputs, vec![16, 16, 16, 4], "the two rate-limited requests are sent again whole");
    assert!(seen[0].line.starts_with("POST /v1/embeddings"));
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test"));
}

#[test]
fn the_api_embedder_gives_up_on_errors_retrying_cannot_fix() {
    let (base, _) = serve(vec![Answer::Status(401, json!({"error": {"message": "bad key"}}).to_string())]);
    let config = ApiEmbedderConfig {
        base_url: base,
        model: "m".into(),
        api_key: None,
        dimensions: Some(3),
        retry: RetryPolicy::default(),
    };
    let embedder = ApiEmbedder::new(config, Rc::new(ReqwestClient::new()), Rc::new(SystemClock)).unwrap();
    let error = on_tokio(embedder.embed(&["x"])).unwrap_err();
    assert!(error.to_string().contains("bad key"), "{error}");
    assert_eq!(embedder.requests_sent(), 1);
    let bad = ApiEmbedderConfig {
        base_url: "file:///etc".into(),
        model: "m".into(),
        api_key: None,
        dimensions: None,
        retry: RetryPolicy::default(),
    };
    assert!(ApiEmbedder::new(bad, Rc::new(ReqwestClient::new()), Rc::new(SystemClock)).is_err());
}

// ---- incremental embedding, cancel and resume ----------------------------------------------

/// The static model, counting what it embeds; it can cancel the job after some calls. As a copy
/// in a worker, it can answer each call on a later turn (counting the calls in flight at once,
/// with the other copies sharing its counters), or take a second of a clock per call (noting how
/// often the job had yielded by then).
/// A counter the copies of a model share.
type Shared = Rc<Cell<usize>>;

struct Counting {
    inner: vault_agent::embed::StaticEmbedder,
    texts: Cell<usize>,
    calls: Cell<usize>,
    cancel_after: Cell<Option<(usize, SemanticIndex)>>,
    /// Turns semantic search off (as the settings do) after this many calls.
    clear_after: Cell<Option<(usize, SemanticIndex)>>,
    seen: RefCell<Vec<String>>,
    batch: usize,
    /// Answer on a later turn, as a worker does; the counters of calls in flight, now and at most.
    later_turn: Option<(Shared, Shared)>,
    /// Each call takes a second of this clock; the zero-sleeps it had seen at each call.
    slow: Option<(Rc<ManualClock>, RefCell<Vec<usize>>)>,
}

#[async_trait(?Send)]
impl Embedder for Counting {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    fn batch_size(&self) -> usize {
        self.batch
    }
    async fn embed(&self, texts: &[&str]) -> vault_agent::Result<Vec<Vec<f32>>> {
        self.calls.set(self.calls.get() + 1);
        self.texts.set(self.texts.get() + texts.len());
        self.seen.borrow_mut().extend(texts.iter().map(|t| t.lines().next().unwrap_or("").to_string()));
        if let Some((after, semantic)) = self.cancel_after.take() {
            if self.calls.get() >= after {
                semantic.cancel();
            } else {
                self.cancel_after.set(Some((after, semantic)));
            }
        }
        if let Some((after, semantic)) = self.clear_after.take() {
            if self.calls.get() >= after {
                semantic.clear();
            } else {
                self.clear_after.set(Some((after, semantic)));
            }
        }
        if let Some((clock, yields)) = &self.slow {
            yields.borrow_mut().push(clock.sleeps().iter().filter(|&&ms| ms == 0).count());
            clock.advance(1_000);
        }
        if let Some((in_flight, most)) = &self.later_turn {
            in_flight.set(in_flight.get() + 1);
            most.set(most.get().max(in_flight.get()));
            let mut turned = false;
            futures::future::poll_fn(|cx| {
                if std::mem::replace(&mut turned, true) {
                    std::task::Poll::Ready(())
                } else {
                    cx.waker().wake_by_ref();
                    std::task::Poll::Pending
                }
            })
            .await;
            in_flight.set(in_flight.get() - 1);
        }
        self.inner.embed(texts).await
    }
}

fn counting() -> Rc<Counting> {
    Rc::new(Counting {
        inner: static_model(),
        texts: Cell::new(0),
        calls: Cell::new(0),
        cancel_after: Cell::new(None),
        clear_after: Cell::new(None),
        seen: RefCell::new(Vec::new()),
        batch: 8,
        later_turn: None,
        slow: None,
    })
}

/// The first `n` English notes of the sample vault, in a memory vault.
fn english_vault(n: usize) -> MemoryVault {
    let root = sample_vault().join("en");
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let notes: Vec<(String, String)> = paths
        .iter()
        .take(n)
        .map(|p| {
            let rel = p.strip_prefix(sample_vault()).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    MemoryVault::with_notes(notes.iter().map(|(p, t)| (p.as_str(), t.as_str()))).unwrap()
}

/// `vault`'s full-text index and its vectors from the static model.
fn indexed_with_static_model(vault: &MemoryVault) -> SharedIndex {
    let shared = SharedIndex::new();
    shared.replace(block_on(SearchIndex::build(vault, &ManualClock::new(0), &mut |_| {})).unwrap());
    shared.semantic().set_embedder(Rc::new(static_model()));
    block_on(shared.semantic().embed_vault(vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    shared
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

#[test]
fn a_query_asked_again_is_not_embedded_again_until_the_model_changes() {
    let vault = english_vault(5);
    let semantic = SemanticIndex::new();
    let model = counting();
    semantic.set_embedder(model.clone());
    block_on(semantic.embed_vault(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    let ask = |text: &str| {
        let before = model.calls.get();
        let vector = block_on(semantic.query_vector(None, text)).unwrap();
        (vector, model.calls.get() - before)
    };
    let (first, calls) = ask("sync settings");
    assert_eq!(calls, 1);
    assert_eq!(ask("sync settings"), (first.clone(), 0));
    assert_eq!(ask("sync setting").1, 1);
    assert_eq!(ask("sync settings").1, 0, "the latest two are both kept");
    // Another model (or the same one set again) embeds the query again.
    semantic.set_embedder(model.clone());
    block_on(semantic.embed_vault(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    assert_eq!(ask("sync settings").1, 1);
    // Only the latest 32 are kept.
    for i in 0..32 {
        ask(&format!("query {i}"));
    }
    assert_eq!(ask("sync settings").1, 1);
    assert_eq!(ask("query 31").1, 0);
}

#[test]
fn only_changed_notes_are_embedded_again() {
    let vault = english_vault(40);
    let clock = ManualClock::new(1_000);
    let semantic = SemanticIndex::new();
    let model = counting();
    semantic.set_embedder(model.clone());
    let first = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!((first.notes, first.embedded_notes), (40, 40));
    assert_eq!(first.chunks, model.texts.get());
    assert!(first.saved_bytes > 0);

    // Unchanged: nothing is embedded, not even when only the mtime moved, and nothing is saved.
    let again = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!((again.embedded_notes, again.chunks, again.saved_bytes), (0, 0, 0));

    // One note edited, one removed, one added: exactly those are touched.
    let paths: Vec<String> = semantic.read(|i| Ok(i.notes().map(|(p, _)| p.to_string()).collect())).unwrap();
    let edited = VaultPath::parse(&paths[3]).unwrap();
    let text = block_on(vault.read(&edited)).unwrap();
    block_on(vault.write(&edited, &format!("{text}\n\n## Added\n\nA new paragraph about sourdough.\n"))).unwrap();
    block_on(vault.trash(&VaultPath::parse(&paths[5]).unwrap())).unwrap();
    block_on(vault.write(&VaultPath::parse("en/New note.md").unwrap(), "# New note\n\nAbout rockets.\n")).unwrap();
    model.seen.borrow_mut().clear();
    let third = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!((third.embedded_notes, third.removed), (2, 1), "{third:?}");
    let title = |p: &str| {
        vault_agent::search::parse_note(p, &block_on(vault.read(&VaultPath::parse(p).unwrap())).unwrap()).title
    };
    let edited_title = title(edited.as_str());
    assert!(
        model
            .seen
            .borrow()
            .iter()
            .all(|first_line| first_line.starts_with(&edited_title) || first_line.starts_with("New note")),
        "{:?}",
        model.seen.borrow()
    );
    assert_eq!(semantic.read(|i| Ok(i.note_count())).unwrap(), 40);

    // What was saved loads back, and a new handle with it embeds nothing.
    let loaded = SemanticIndex::new();
    loaded.set_embedder(model.clone());
    assert!(block_on(loaded.load(&vault)).unwrap());
    let unchanged = block_on(loaded.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!((unchanged.chunks, unchanged.saved_bytes), (0, 0), "loaded vectors are not written back");
}

/// A run that embeds an edited note or two does not rewrite the whole file; the next start
/// embeds them again, and small changes add up to a save.
#[test]
fn small_changes_to_a_large_index_are_saved_only_once_they_add_up() {
    let vault = english_vault(120);
    let clock = ManualClock::new(1_000);
    let semantic = SemanticIndex::new();
    let model = counting();
    semantic.set_embedder(model.clone());
    let first = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert!(first.saved_bytes > 0, "a first run saves");
    let rows = semantic.read(|i| Ok(i.vector_count())).unwrap();
    // The notes with fewest chunks first: each edit is small beside the index.
    let mut notes: Vec<(usize, String)> =
        semantic.read(|i| Ok(i.notes().map(|(p, n)| (n.headings.len(), p.to_string())).collect())).unwrap();
    notes.sort();
    let edit = |path: &str| {
        let path = VaultPath::parse(path).unwrap();
        let text = block_on(vault.read(&path)).unwrap();
        block_on(vault.write(&path, &format!("{text}\n\nOne more line about sourdough.\n"))).unwrap();
    };

    edit(&notes[0].1);
    let small = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!(small.embedded_notes, 1);
    assert!(small.chunks * SAVE_SHARE < rows, "{} chunks of {rows}", small.chunks);
    assert_eq!(small.saved_bytes, 0, "one edited note does not rewrite the file");

    // What is saved is the first run's: a fresh start embeds that note again, and only it.
    let restarted = SemanticIndex::new();
    restarted.set_embedder(model.clone());
    assert!(block_on(restarted.load(&vault)).unwrap());
    let redone = block_on(restarted.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!((redone.embedded_notes, redone.chunks), (1, small.chunks));
    // A host that ends after a run (the CLI) saves what it left unsaved.
    assert!(block_on(restarted.save_changes(&vault)).unwrap() > 0);
    assert_eq!(block_on(restarted.save_changes(&vault)).unwrap(), 0, "nothing changed since");
    let reloaded = SemanticIndex::new();
    reloaded.set_embedder(model.clone());
    assert!(block_on(reloaded.load(&vault)).unwrap());
    assert_eq!(block_on(reloaded.embed_vault(&vault, &clock, &mut |_| {})).unwrap().embedded_notes, 0);

    // Edits one after another: saved once their chunks reach a SAVE_SHARE-th of the index.
    let mut pending = small.chunks;
    let mut saved = false;
    for (_, path) in &notes[1..] {
        edit(path);
        let run = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
        pending += run.chunks;
        let rows = semantic.read(|i| Ok(i.vector_count())).unwrap();
        assert_eq!(run.saved_bytes > 0, pending * SAVE_SHARE >= rows, "{pending} chunks unsaved of {rows}");
        if run.saved_bytes > 0 {
            saved = true;
            break;
        }
    }
    assert!(saved, "the edits added up to a save");
    let after = SemanticIndex::new();
    after.set_embedder(model.clone());
    assert!(block_on(after.load(&vault)).unwrap());
    assert_eq!(block_on(after.embed_vault(&vault, &clock, &mut |_| {})).unwrap().embedded_notes, 0);
}

#[test]
fn a_cancelled_run_saves_its_work_and_the_next_run_resumes() {
    let vault = english_vault(30);
    let clock = ManualClock::new(1_000);
    let semantic = SemanticIndex::new();
    let model = counting();
    model.cancel_after.set(Some((3, semantic.clone())));
    semantic.set_embedder(model.clone());
    let mut yields = 0;
    let cancelled = block_on(semantic.embed_vault(&vault, &clock, &mut |_| yields += 1)).unwrap();
    assert!(cancelled.cancelled && semantic.status().cancelled && !semantic.status().running);
    assert!(cancelled.embedded_notes > 0 && cancelled.embedded_notes < 30, "{cancelled:?}");
    let saved = block_on(VectorIndex::load(&vault)).unwrap().unwrap();
    assert_eq!(saved.note_count(), cancelled.embedded_notes, "the work done is saved");

    // A fresh start (as after reopening the vault) resumes from the saved vectors.
    let resumed = SemanticIndex::new();
    let model2 = counting();
    resumed.set_embedder(model2.clone());
    assert!(block_on(resumed.load(&vault)).unwrap());
    let rest = block_on(resumed.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert!(!rest.cancelled);
    assert_eq!(rest.embedded_notes + cancelled.embedded_notes, 30);
    assert!(yields >= 1, "progress was reported");
}

#[test]
fn turning_semantic_search_off_stops_the_job_and_forgets_the_vectors_but_keeps_the_saved_ones() {
    let vault = english_vault(30);
    let clock = ManualClock::new(1_000);
    let semantic = SemanticIndex::new();
    let model = counting();
    semantic.set_embedder(model.clone());
    let first = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!(first.embedded_notes, 30);
    semantic.clear();
    assert!(!semantic.is_ready() && semantic.embedder().is_none());
    assert!(semantic.read(|i| Ok(i.note_count())).is_err(), "no vectors in memory");
    let off = block_on(semantic.embed_vault(&vault, &clock, &mut |_| {})).unwrap_err();
    assert!(off.to_string().contains("no embedding model"), "{off}");

    // On again: the saved vectors load, nothing is embedded again.
    semantic.set_embedder(model.clone());
    assert!(block_on(semantic.load(&vault)).unwrap());
    assert!(semantic.is_ready());

    // Off in the middle of a run: the job stops, and the vectors on disk are left as they were.
    block_on(vault.write(&VaultPath::parse("en/New note.md").unwrap(), "# New\n\nAbout rockets.\n")).unwrap();
    let other = counting();
    let fresh = SemanticIndex::new();
    fresh.set_embedder(other.clone());
    other.clear_after.set(Some((3, fresh.clone())));
    let stopped = block_on(fresh.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert!(stopped.cancelled && !fresh.status().running, "{stopped:?}");
    assert!(!fresh.is_ready());
    assert_eq!(block_on(VectorIndex::load(&vault)).unwrap().unwrap().note_count(), 30);
}

/// A clock whose time moves 10 ms each time it is read, so work seems to take time.
struct Ticking(ManualClock);

#[async_trait(?Send)]
impl Clock for Ticking {
    fn now_ms(&self) -> u64 {
        self.0.advance(10);
        self.0.now_ms()
    }
    async fn sleep(&self, ms: u64) {
        self.0.sleep(ms).await
    }
}

#[test]
fn the_job_yields_to_the_event_loop_and_reports_progress() {
    let vault = english_vault(30);
    let clock = Ticking(ManualClock::new(0));
    let semantic = SemanticIndex::new();
    semantic.set_embedder(counting());
    let mut reports = Vec::new();
    block_on(semantic.embed_vault(&vault, &clock, &mut |p| reports.push(p))).unwrap();
    let yields = clock.0.sleeps().iter().filter(|&&ms| ms == 0).count();
    assert!(yields >= 5, "{yields} yields");
    assert_eq!(reports.first().map(|p| p.done), Some(0));
    assert_eq!(reports.last().map(|p| (p.done, p.total)), Some((30, 30)));
    assert!(reports.windows(2).all(|w| w[0].done <= w[1].done));
}

// ---- real notes, real model ------------------------------------------------------------------

/// Whether `query` shares a content word with `text`: a word of four letters or more (not a
/// function word) whose first five letters start a word of the note. Stricter than equality, so
/// `pages` and `page` count as shared.
fn shares_a_word(query: &str, text: &str) -> Option<String> {
    const FUNCTION_WORDS: &[&str] = &[
        "that", "this", "with", "from", "into", "your", "have", "what", "which", "when", "where", "there", "their",
        "about", "each", "other", "than", "then", "them", "they", "would", "could", "should",
    ];
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
    };
    let note: Vec<String> = words(text);
    words(query).into_iter().filter(|w| w.chars().count() >= 4 && !FUNCTION_WORDS.contains(&w.as_str())).find(|w| {
        let stem: String = w.chars().take(5).collect();
        note.iter().any(|n| n.starts_with(&stem))
    })
}

/// Paraphrases of English help notes that share no content word with the note they ask for.
const PARAPHRASES: &[(&str, &str)] = &[
    ("capture voice memos", "en/Plugins/Audio recorder.md"),
    ("jot down a diary entry every morning", "en/Plugins/Daily notes.md"),
    ("whiteboard for spatial brainstorming", "en/Plugins/Canvas.md"),
];

#[test]
fn paraphrases_sharing_no_word_with_their_note_find_it_with_the_local_model() {
    let vault = english_vault(usize::MAX);
    let shared = SharedIndex::new();
    shared.replace(block_on(SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {})).unwrap());
    shared.semantic().set_embedder(Rc::new(static_model()));
    let report = block_on(shared.semantic().embed_vault(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    assert_eq!(report.notes, 173);
    for (query, note) in PARAPHRASES {
        let text = block_on(vault.read(&VaultPath::parse(note).unwrap())).unwrap();
        assert_eq!(shares_a_word(query, &text), None, "{query:?} must share no word with {note}");
        let semantic =
            HybridQuery { text: query.to_string(), limit: 5, mode: SearchMode::Semantic, ..HybridQuery::default() };
        let hits = block_on(hybrid_search(&shared, Some(&vault), &semantic, &|_| true)).unwrap();
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        assert!(paths.contains(note), "{query:?}: {paths:?}");
        // Full-text search alone cannot find it: no word matches.
        let words = HybridQuery { mode: SearchMode::Fulltext, ..semantic.clone() };
        let text_hits = block_on(hybrid_search(&shared, Some(&vault), &words, &|_| true)).unwrap();
        assert!(!text_hits.iter().take(5).any(|h| h.path == *note), "{query:?} was found by words");
    }
}

#[test]
fn minilm_finds_paraphrases_among_real_sections() {
    // MiniLM itself (unoptimised test build: a few notes' first sections only).
    let model = minilm();
    let notes = [
        "en/Plugins/Audio recorder.md",
        "en/Licenses and payment/Refund policy.md",
        "en/Plugins/Graph view.md",
        "en/Plugins/Word count.md",
        "en/Editing and formatting/Callouts.md",
        "en/Plugins/Canvas.md",
        "en/Plugins/Daily notes.md",
    ];
    let sections: Vec<String> = notes
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(sample_vault().join(n)).unwrap();
            let parsed = vault_agent::search::parse_note(n, &text);
            vault_agent::embed::embed_chunks(&parsed, 2000)[0].text.chars().take(160).collect::<String>()
        })
        .collect();
    let refs: Vec<&str> = sections.iter().map(String::as_str).collect();
    let vectors = model.embed_texts(&refs);
    for (query, note) in PARAPHRASES {
        let q = model.embed_texts(&[query]).pop().unwrap();
        let best = (0..notes.len()).max_by(|&a, &b| dot(&q, &vectors[a]).total_cmp(&dot(&q, &vectors[b]))).unwrap();
        assert_eq!(notes[best], *note, "{query}");
    }
}

#[test]
fn the_agents_writes_are_embedded_before_the_next_semantic_search() {
    let vault = english_vault(20);
    let shared = indexed_with_static_model(&vault);
    let new = VaultPath::parse("en/Kitchen/Bread.md").unwrap();
    block_on(vault.write(&new, "# Sourdough bread\n\nFeed the starter with flour and water; bake the loaf hot.\n"))
        .unwrap();
    block_on(shared.refresh(&vault, &new)).unwrap();
    let query =
        HybridQuery { text: "baking a loaf".into(), limit: 3, mode: SearchMode::Semantic, ..HybridQuery::default() };
    let hits = block_on(hybrid_search(&shared, Some(&vault), &query, &|_| true)).unwrap();
    assert_eq!(hits[0].path, "en/Kitchen/Bread.md");
}

#[test]
fn cross_lingual_queries_find_their_note_where_the_english_model_allows() {
    // all-MiniLM-L6-v2 (and so the static model) learnt English only: a query in another
    // language finds its note through the names and cognates it shares with it (Evernote,
    // "synchroniser"/"notes"), not through meaning. German, Italian, Japanese, Chinese, Russian
    // and Korean paraphrases are not found (BENCHMARKS.md lists each); a multilingual model
    // behind the API embedder is the way to those.
    let vault = english_vault(usize::MAX);
    let shared = indexed_with_static_model(&vault);
    for (query, note) in [
        ("importar mis notas desde Evernote", "en/Import notes/Import from Evernote.md"),
        (
            "synchroniser mes notes entre mon téléphone et mon ordinateur",
            "en/Getting started/Sync your notes across devices.md",
        ),
    ] {
        let q = HybridQuery { text: query.into(), limit: 5, mode: SearchMode::Semantic, ..HybridQuery::default() };
        let hits = block_on(hybrid_search(&shared, Some(&vault), &q, &|_| true)).unwrap();
        assert!(hits.iter().any(|h| h.path == note), "{query}: {:?}", hits.iter().map(|h| &h.path).collect::<Vec<_>>());
    }
}

#[test]
fn hits_found_by_meaning_carry_a_snippet_from_their_best_section() {
    let vault = english_vault(usize::MAX);
    let shared = indexed_with_static_model(&vault);
    let query = HybridQuery {
        text: "whiteboard for spatial brainstorming".into(),
        limit: 5,
        mode: SearchMode::Semantic,
        ..HybridQuery::default()
    };
    let hits = block_on(hybrid_search(&shared, Some(&vault), &query, &|_| true)).unwrap();
    assert!(!hits.is_empty());
    for hit in &hits {
        assert!(!hit.snippet.is_empty(), "{}", hit.path);
        assert!(hit.snippet.chars().count() <= vault_agent::embed::MEANING_SNIPPET_CHARS + 2, "{}", hit.snippet);
        // The snippet is text of the section the hit names.
        let text = block_on(vault.read(&VaultPath::parse(&hit.path).unwrap())).unwrap();
        let chunks = vault_agent::embed::embed_chunks(&vault_agent::search::parse_note(&hit.path, &text), 2000);
        // (The snippet is on one line: compare with whitespace collapsed.)
        let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let start = one_line(&hit.snippet.trim_start_matches('…').chars().take(30).collect::<String>());
        assert!(
            chunks.iter().any(|c| c.heading == hit.heading && one_line(&c.text).contains(&start)),
            "{}: {:?} is not from section {:?}",
            hit.path,
            hit.snippet,
            hit.heading
        );
    }
    // Full text's own hits keep their highlighted snippet.
    let words = HybridQuery { text: "canvas".into(), mode: SearchMode::Hybrid, ..query };
    let hits = block_on(hybrid_search(&shared, Some(&vault), &words, &|_| true)).unwrap();
    assert!(hits[0].snippet.contains("**"), "{:?}", hits[0].snippet);
}

/// A vault that counts the calls the plugin would send to the UI thread (its `JsVault` makes
/// each `read`, `stat` and `read_batch` one round trip).
struct RoundTrips(MemoryVault, Cell<usize>);

impl RoundTrips {
    fn count(&self) -> vault_agent::Result<()> {
        self.1.set(self.1.get() + 1);
        Ok(())
    }
}

#[async_trait(?Send)]
impl Vault for RoundTrips {
    async fn read(&self, path: &VaultPath) -> vault_agent::Result<String> {
        self.count()?;
        self.0.read(path).await
    }
    async fn read_binary(&self, path: &VaultPath) -> vault_agent::Result<Vec<u8>> {
        self.count()?;
        self.0.read_binary(path).await
    }
    async fn write(&self, path: &VaultPath, content: &str) -> vault_agent::Result<()> {
        self.0.write(path, content).await
    }
    async fn write_binary(&self, path: &VaultPath, data: &[u8]) -> vault_agent::Result<()> {
        self.0.write_binary(path, data).await
    }
    async fn list(&self, dir: &VaultPath) -> vault_agent::Result<vault_agent::vault::Listing> {
        self.count()?;
        self.0.list(dir).await
    }
    async fn stat(&self, path: &VaultPath) -> vault_agent::Result<Option<vault_agent::vault::Stat>> {
        self.count()?;
        self.0.stat(path).await
    }
    async fn mkdir(&self, path: &VaultPath) -> vault_agent::Result<()> {
        self.0.mkdir(path).await
    }
    async fn rename(&self, from: &VaultPath, to: &VaultPath) -> vault_agent::Result<()> {
        self.0.rename(from, to).await
    }
    async fn trash(&self, path: &VaultPath) -> vault_agent::Result<()> {
        self.0.trash(path).await
    }
    async fn remove(&self, path: &VaultPath) -> vault_agent::Result<()> {
        self.0.remove(path).await
    }
    async fn read_batch(&self, paths: &[VaultPath]) -> Vec<vault_agent::Result<(String, u64)>> {
        self.1.set(self.1.get() + 1);
        self.0.read_batch(paths).await
    }
}

#[test]
fn the_snippets_of_hits_found_by_meaning_come_from_the_index_or_else_from_one_read_of_the_vault() {
    let query = HybridQuery {
        text: "keep my notes the same on my phone and my laptop".into(),
        limit: 10,
        mode: SearchMode::Semantic,
        ..HybridQuery::default()
    };
    // With the full-text index, from the text it stored: in the plugin every read of the vault
    // crosses to the UI thread, which is busy drawing the key just typed.
    let counted = RoundTrips(english_vault(usize::MAX), Cell::new(0));
    let shared = indexed_with_static_model(&counted.0);
    let from_index = block_on(hybrid_search(&shared, Some(&counted), &query, &|_| true)).unwrap();
    assert!(from_index.len() >= 5 && from_index.iter().all(|h| !h.snippet.is_empty()), "{from_index:?}");
    assert_eq!(counted.1.get(), 0);
    // With vectors alone, from the notes themselves, all read at once: ten hits read one by one
    // (read and stat) made a search by meaning wait for twenty round trips.
    let vectors_only = SharedIndex::new();
    vectors_only.semantic().set_embedder(Rc::new(static_model()));
    block_on(vectors_only.semantic().embed_vault(&counted.0, &ManualClock::new(0), &mut |_| {})).unwrap();
    let from_notes = block_on(hybrid_search(&vectors_only, Some(&counted), &query, &|_| true)).unwrap();
    assert_eq!(counted.1.get(), 1);
    // The same hits and the same snippets (a section longer than a chunk could differ: the
    // note's reading picks the best of its windows, the index's the best sentence of all).
    let shown = |hits: &[vault_agent::embed::HybridHit]| {
        hits.iter().map(|h| (h.path.clone(), h.heading.clone(), h.snippet.clone())).collect::<Vec<_>>()
    };
    assert_eq!(shown(&from_index), shown(&from_notes));
}

#[test]
fn every_full_text_hit_a_hybrid_search_shows_has_its_snippet_however_far_down_full_text_ranked_it() {
    // Full text ranks more candidates than a page shows and makes snippets for a page's worth;
    // a candidate the fusion lifts from further down gets its snippet on its own.
    let vault = english_vault(usize::MAX);
    let shared = indexed_with_static_model(&vault);
    let mut lifted = 0;
    for text in ["sync my phone and laptop", "templates for daily notes", "publish a site", "canvas cards"] {
        for limit in 1..=4 {
            let query = HybridQuery { text: text.into(), limit, ..HybridQuery::default() };
            for hit in block_on(hybrid_search(&shared, Some(&vault), &query, &|_| true)).unwrap() {
                let Some(rank) = hit.found_by.fulltext else { continue };
                lifted += usize::from(rank as usize > limit);
                assert!(hit.snippet.contains("**"), "{text} ({limit}): {hit:?}");
            }
        }
    }
    assert!(lifted > 0, "no full-text hit came from below the page: the test shows nothing");
}

#[test]
fn a_nonsense_query_finds_nothing_by_meaning_in_a_small_vault() {
    let vault = english_vault(20);
    let shared = indexed_with_static_model(&vault);
    let search = |text: &str| {
        let q = HybridQuery { text: text.into(), limit: 30, mode: SearchMode::Semantic, ..HybridQuery::default() };
        block_on(hybrid_search(&shared, Some(&vault), &q, &|_| true)).unwrap()
    };
    // Off-topic questions score below the static model's floor. (Strings of letters that are no
    // words do not: the model sees them as the word pieces code is also made of.)
    for nonsense in
        ["purple elephant dancing on mars", "best pizza dough hydration", "banana bread recipe with walnuts"]
    {
        assert_eq!(search(nonsense), Vec::new(), "{nonsense}");
    }
    // A real question about these notes still finds them.
    assert!(!search("show my notes as a table with columns").is_empty());
}

// ---- several copies of a model at once (the plugin's MiniLM workers) ------------------------

#[test]
fn copies_of_a_model_embed_a_batch_together_and_give_the_same_vectors_as_one() {
    use vault_agent::embed::ParallelEmbedder;
    let vault = english_vault(30);
    let clock = ManualClock::new(1_000);
    let (in_flight, most) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let copies: Vec<Rc<Counting>> = (0..3)
        .map(|_| {
            let mut copy = Rc::try_unwrap(counting()).ok().unwrap();
            copy.batch = 4;
            copy.later_turn = Some((in_flight.clone(), most.clone()));
            Rc::new(copy)
        })
        .collect();
    let parallel = ParallelEmbedder::new(copies.iter().map(|c| c.clone() as Rc<dyn Embedder>).collect()).unwrap();
    assert_eq!((parallel.width(), parallel.batch_size()), (3, 12));
    assert_eq!(parallel.id(), static_model().id(), "the copies' vectors are the model's own");

    let together = SemanticIndex::new();
    together.set_embedder(Rc::new(parallel));
    let report = block_on(together.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    assert_eq!(most.get(), 3, "all three copies worked at once");
    assert!(copies.iter().all(|c| c.texts.get() > 0));
    assert_eq!(copies.iter().map(|c| c.texts.get()).sum::<usize>(), report.chunks, "each chunk embedded once");

    let alone = SemanticIndex::new();
    alone.set_embedder(Rc::new(static_model()));
    block_on(alone.embed_vault(&vault, &clock, &mut |_| {})).unwrap();
    let query = "how do I move my notes to another device";
    let hits = |s: &SemanticIndex| {
        block_on(s.search(None, query, 10, &|_| true))
            .unwrap()
            .into_iter()
            .map(|h| (h.path, h.heading, (h.score * 1e5).round()))
            .collect::<Vec<_>>()
    };
    assert_eq!(hits(&together), hits(&alone));

    // Copies of different models are refused: their vectors would not compare.
    struct Other;
    #[async_trait(?Send)]
    impl Embedder for Other {
        fn id(&self) -> &str {
            "other"
        }
        fn dimensions(&self) -> usize {
            256
        }
        async fn embed(&self, _: &[&str]) -> vault_agent::Result<Vec<Vec<f32>>> {
            Ok(Vec::new())
        }
    }
    let mixed: Vec<Rc<dyn Embedder>> = vec![Rc::new(static_model()), Rc::new(Other)];
    assert!(ParallelEmbedder::new(mixed).is_err());
    assert!(ParallelEmbedder::new(Vec::new()).is_err());
}

#[test]
fn a_long_note_embedded_by_a_slow_model_yields_between_its_batches() {
    let sections: String = (1..=40).map(|n| format!("## Part {n}\n\nHow the garden grows, part {n}.\n\n")).collect();
    let vault = MemoryVault::with_notes([("Long.md", sections.as_str())]).unwrap();
    let clock = Rc::new(ManualClock::new(0));
    let mut slow = Rc::try_unwrap(counting()).ok().unwrap();
    slow.slow = Some((clock.clone(), RefCell::new(Vec::new())));
    let slow = Rc::new(slow);
    let semantic = SemanticIndex::new();
    semantic.set_embedder(slow.clone());
    let report = block_on(semantic.embed_vault(&vault, &*clock, &mut |_| {})).unwrap();
    assert!(report.chunks >= 40, "{report:?}");
    let calls = slow.slow.as_ref().unwrap().1.borrow();
    assert!(calls.len() >= 3, "{calls:?}");
    assert!(calls.windows(2).all(|w| w[1] > w[0]), "a yield between every two batches: {calls:?}");
}

#[test]
fn a_query_map_fitted_to_a_linear_map_gives_it_back_and_survives_its_file() {
    use vault_agent::embed::{normalize, QueryMap, QueryMapHeader};
    // y = x·A + c, for a known A (4 inputs, 3 outputs) and c.
    let a = [[1.0, 0.5, -0.2], [0.0, 2.0, 0.3], [-1.0, 0.1, 0.0], [0.4, -0.6, 1.5]];
    let c = [0.1, -0.2, 0.05];
    let truth = |x: &[f32]| -> Vec<f32> {
        let mut y: Vec<f32> = (0..3).map(|j| c[j] + (0..4).map(|i| x[i] * a[i][j]).sum::<f32>()).collect();
        normalize(&mut y);
        y
    };
    let mut seed = 12345u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    };
    let xs: Vec<Vec<f32>> = (0..40).map(|_| (0..4).map(|_| next()).collect()).collect();
    let pairs: Vec<(Vec<f32>, Vec<f32>)> = xs
        .iter()
        .map(|x| (x.clone(), (0..3).map(|j| c[j] + (0..4).map(|i| x[i] * a[i][j]).sum::<f32>()).collect()))
        .collect();
    let header =
        QueryMapHeader { from: "small".into(), to: "smaller".into(), inputs: 4, outputs: 3, source: "a test".into() };
    let map = QueryMap::fit(header.clone(), &pairs, 0.0).unwrap();
    for x in xs.iter().take(5).chain([&vec![0.3, -0.7, 0.2, 0.9]]) {
        let (got, want) = (map.apply(x), truth(x));
        assert!(got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-4), "{got:?} against {want:?}");
    }

    // Its file reads back as the same map; a cut or foreign file is refused.
    let bytes = map.to_bytes();
    assert_eq!(QueryMap::from_bytes(&bytes).unwrap(), map);
    for bad in [&bytes[..bytes.len() - 4], &bytes[..8], b"VASTM\x01 a static model".as_slice()] {
        let error = QueryMap::from_bytes(bad).unwrap_err().to_string();
        assert!(error.contains("not a query map"), "{error}");
    }
    // Fewer pairs than unknowns per output, or pairs of the wrong length, determine no map.
    assert!(QueryMap::fit(header.clone(), &pairs[..4], 0.0).unwrap_err().to_string().contains("at least 5 pairs"));
    let short = vec![(vec![1.0; 3], vec![1.0; 3]); 10];
    assert!(QueryMap::fit(header, &short, 0.0).is_err());
}

#[test]
fn with_minilm_reading_the_queries_the_notes_keep_the_static_vectors_and_paraphrases_find_their_notes() {
    use crate::semantic_support::minilm_cut_at as minilm;
    use vault_agent::embed::{MiniLmQueries, QueryMap};
    let map_file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/minilm-queries-256.vaqm");
    let map = QueryMap::from_bytes(&std::fs::read(map_file).unwrap()).unwrap();
    let queries = Rc::new(minilm(vault_agent::embed::QUERY_TOKENS));
    let notes: Rc<dyn Embedder> = Rc::new(static_model());
    let both = MiniLmQueries::new(notes.clone(), queries.clone(), map.clone()).unwrap();

    // The same id and the same vectors for notes: vectors saved by the static model stay valid.
    assert_eq!((both.id(), both.dimensions()), (notes.id(), notes.dimensions()));
    let texts = ["# Daily notes\n\nOpen today's note.", "Canvas is a space for visual note-taking."];
    assert_eq!(block_on(both.embed(&texts)).unwrap(), block_on(notes.embed(&texts)).unwrap());

    // A query is MiniLM's vector read into the static model's space: near the static model's own
    // reading of it (the same space), not the same vector.
    for (query, _) in PARAPHRASES {
        let vector = block_on(both.embed_query(query)).unwrap();
        assert_eq!(vector, map.apply(&queries.embed_texts(&[query])[0]));
        let cosine = dot(&vector, &block_on(notes.embed_query(query)).unwrap());
        assert!((0.5..0.99).contains(&cosine), "{query}: {cosine}");
    }

    // Searching the English notes with it, each paraphrase finds its note.
    let vault = english_vault(usize::MAX);
    let semantic = SemanticIndex::new();
    semantic.set_embedder(Rc::new(both));
    block_on(semantic.embed_vault(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
    for (query, note) in PARAPHRASES {
        let hits = block_on(semantic.search(None, query, 5, &|_| true)).unwrap();
        assert!(hits.iter().any(|h| h.path == *note), "{query:?}: {hits:?}");
    }

    // A map made for other models is refused, naming both.
    let error = MiniLmQueries::new(notes, Rc::new(minilm(256)), map).err().unwrap().to_string();
    assert!(error.contains("reads minilm-l6-v2@128 into static-minilm-l6-v2-256@2, not minilm-l6-v2@256"), "{error}");
}
