//! The fuzz targets: every parser of outside input, each through its public entry, as the
//! plugin and the CLI call it. A target panics only on a bug: errors are expected answers.

use std::cell::RefCell;

use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use serde_json::{json, Value};
use vault_agent::cancel::CancelToken;
use vault_agent::embed::{Precision, StaticEmbedder, StaticHeader, VectorIndex, WordPiece, VECTORS_FILE};
use vault_agent::host::ManualClock;
use vault_agent::protocol::{
    FormAction, FormAnswer, FormField, FormRequest, Message, MessageAssembler, ModelRequest, StreamEvent, ToolChoice,
    ToolSpec,
};
use vault_agent::provider::dialect::repair;
use vault_agent::provider::formats::anthropic::AnthropicDecoder;
use vault_agent::provider::formats::openai::OpenAiDecoder;
use vault_agent::provider::formats::{decode_events, StreamDecoder};
use vault_agent::provider::sse::sse_events;
use vault_agent::provider::{ModelProvider, ScriptedProvider, TextToolDialect, TextToolProvider, Turn};
use vault_agent::search::{parse_note, Frontmatter, SearchIndex, SearchQuery, INDEX_DIR};
use vault_agent::vault::{MemoryVault, Vault, VaultPath};

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    /// Runs one input; panics only on a bug.
    pub run: fn(&[u8]),
    /// The starting corpus.
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Tokens the mutator inserts.
    pub dictionary: &'static [&'static [u8]],
}

/// Every target, in the order a full run takes them.
pub fn all() -> Vec<Target> {
    vec![
        Target { name: "sse", run: sse, seeds: sse_seeds, dictionary: SSE_TOKENS },
        Target { name: "dialect", run: dialect, seeds: dialect_seeds, dictionary: DIALECT_TOKENS },
        Target { name: "frontmatter", run: frontmatter, seeds: frontmatter_seeds, dictionary: YAML_TOKENS },
        Target { name: "vault_path", run: vault_path, seeds: vault_path_seeds, dictionary: PATH_TOKENS },
        Target { name: "query", run: query, seeds: query_seeds, dictionary: QUERY_TOKENS },
        Target { name: "index_loader", run: index_loader, seeds: index_seeds, dictionary: JSON_TOKENS },
        Target { name: "static_model", run: static_model, seeds: static_model_seeds, dictionary: JSON_TOKENS },
        Target { name: "vectors", run: vectors, seeds: vector_seeds, dictionary: JSON_TOKENS },
        Target { name: "snapshot", run: snapshot, seeds: snapshot_seeds, dictionary: JSON_TOKENS },
        Target { name: "pdf", run: pdf, seeds: pdf_seeds, dictionary: PDF_TOKENS },
        Target { name: "mcp_messages", run: mcp_messages, seeds: mcp_seeds, dictionary: MCP_TOKENS },
    ]
}

/// The first byte (a control value for the target) and the rest.
fn control(input: &[u8]) -> (u8, &[u8]) {
    input.split_first().map(|(c, rest)| (*c, rest)).unwrap_or((0, &[]))
}

fn fixture_files(dir: &str, extension: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn texts(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn assemble(events: &[StreamEvent]) -> Message {
    let mut assembler = MessageAssembler::new();
    events.iter().for_each(|e| assembler.push(e));
    assembler.finish()
}

// ---- SSE and the two providers' stream decoders ---------------------------------------------

const SSE_TOKENS: &[&[u8]] = &[
    b"data: ",
    b"event: ",
    b"id: ",
    b"retry: ",
    b": ",
    b"\n\n",
    b"\r\n",
    b"\r",
    b"[DONE]",
    b"message_start",
    b"content_block_start",
    b"content_block_delta",
    b"content_block_stop",
    b"message_delta",
    b"message_stop",
    b"input_json_delta",
    b"partial_json",
    b"tool_use",
    b"text_delta",
    b"thinking_delta",
    b"\"index\":",
    b"\"choices\":",
    b"\"delta\":",
    b"\"tool_calls\":",
    b"\"finish_reason\":",
    b"\"error\":",
    b"\xe2\x9c",
];

/// The first byte sets the size of the chunks the body arrives in (1 to 64 bytes).
fn sse(input: &[u8]) {
    let (c, body) = control(input);
    let size = 1 + usize::from(c % 64);
    let chunks: Vec<vault_agent::Result<Vec<u8>>> = body.chunks(size).map(|c| Ok(c.to_vec())).collect();
    let events: Vec<_> = block_on(sse_events(stream::iter(chunks).boxed_local()).collect::<Vec<_>>());
    let decoders: [Box<dyn StreamDecoder>; 2] = [Box::new(AnthropicDecoder::new()), Box::new(OpenAiDecoder::new())];
    for mut decoder in decoders {
        let out = decode_events(decoder.as_mut(), events.iter().flatten().cloned());
        assert!(decoder.is_finished(), "a decoder is finished after the body ends");
        assemble(&out);
    }
}

fn sse_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, body) in fixture_files("anthropic", "sse").into_iter().chain(fixture_files("openai", "sse")).enumerate() {
        seeds.push([&[(i * 7) as u8][..], &body].concat());
    }
    seeds
}

// ---- text tool-call dialects and their JSON repair ------------------------------------------

const DIALECT_TOKENS: &[&[u8]] = &[
    b"```tool_call\n",
    b"```",
    b"[TOOL_CALL]",
    b"[/TOOL_CALL]",
    b"<tool_call>",
    b"</tool_call>",
    b"<function_calls>",
    b"</function_calls>",
    b"<invoke name=\"write\">",
    b"</invoke>",
    b"<parameter name=\"path\">",
    b"</parameter>",
    b"\"name\":",
    b"\"arguments\":",
    b"{",
    b"}",
    b"'",
    b",",
    b"\\u00",
    b"\\",
    b"\"",
    b"true",
    b"null",
    b"1e999",
];

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "write".into(),
        description: "Writes a note.".into(),
        input_schema: json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}, "overwrite": {"type": "boolean"},
            "count": {"type": "integer"}, "tags": {"type": "array"}}}),
    }]
}

/// The first byte picks the dialect asked for and the size of the streamed pieces; the rest is
/// the model's answer, streamed through the text-tool provider, then read by the JSON repair.
fn dialect(input: &[u8]) {
    let (c, body) = control(input);
    let text = String::from_utf8_lossy(body).into_owned();
    let dialect =
        [TextToolDialect::FencedJson, TextToolDialect::BracketTag, TextToolDialect::XmlInvoke][usize::from(c % 3)];
    let chunk = 1 + usize::from(c / 3) % 24;
    let inner = ScriptedProvider::new([Turn::text(text.clone())]).with_chunk_chars(chunk);
    let provider = TextToolProvider::new(Box::new(inner), dialect);
    let request = ModelRequest {
        system: Vec::new(),
        messages: vec![Message::user("write the note")],
        tools: tools(),
        max_tokens: 1000,
        thinking_budget: None,
        temperature: None,
        tool_choice: ToolChoice::Auto,
        model: None,
    };
    let events: Vec<StreamEvent> =
        block_on(async { provider.stream(&request, &CancelToken::new()).await.collect::<Vec<_>>().await });
    assemble(&events);
    if let Some(value) = repair::parse_lenient(&text) {
        // What the repair reads is JSON: it writes and reads back the same.
        let again: Value = serde_json::from_str(&value.to_string()).unwrap();
        assert_eq!(again, value);
    }
    repair::repair(&text);
}

fn dialect_seeds() -> Vec<Vec<u8>> {
    let answers = [
        "I will write it.\n```tool_call\n{\"name\": \"write\", \"arguments\": {\"path\": \"a.md\", \"content\": \"x\"}}\n```\nDone.",
        "[TOOL_CALL]{'name': 'write', 'arguments': {'path': 'b.md', 'content': 'y', 'tags': ['a',],}}[/TOOL_CALL]",
        "<tool_call><invoke name=\"write\"><parameter name=\"path\">c.md</parameter><parameter name=\"overwrite\">true</parameter><parameter name=\"count\">3</parameter></invoke></tool_call>",
        "<function_calls><invoke name=\"write\"><parameter name=\"content\">{\"a\": [1, 2</parameter></invoke>",
        "```tool_call\n{\"name\": \"write\", \"arguments\": {\"path\": \"cut off.md\", \"content\": \"half",
        "Plain prose with a [ bracket, a < sign and ``` a fence.",
    ];
    answers.iter().enumerate().map(|(i, a)| [&[(i * 5) as u8][..], a.as_bytes()].concat()).collect()
}

// ---- frontmatter and notes --------------------------------------------------------------------

const YAML_TOKENS: &[&[u8]] = &[
    b"---\n",
    b"---\r\n",
    b"...\n",
    b"tags:",
    b"aliases:",
    b"title:",
    b"\n  - ",
    b"[",
    b"]",
    b"{",
    b"}",
    b": ",
    b"&a ",
    b"*a",
    b"!!binary ",
    b"!!str ",
    b"<<: *a",
    b"|\n",
    b">-\n",
    b"'",
    b"\"",
    b"#",
    b"\t",
    b"? ",
    b"%YAML 1.2\n",
    b"\xef\xbb\xbf",
    b"[[",
    b"]]",
    b"> [!note]",
    b"```",
];

fn frontmatter(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let front = Frontmatter::parse(&text);
    for key in ["tags", "aliases", "title", "cssclasses"] {
        front.string_list(key);
        front.string(key);
    }
    parse_note("fuzz/note.md", &text);
}

fn frontmatter_seeds() -> Vec<Vec<u8>> {
    texts(&[
        "---\ntitle: A note\ntags: [one, two/three]\naliases:\n  - Other\n---\n# Heading\n\nText with #tag and [[Link|alias]].\n",
        "---\ntags: single\ncreated: 2024-01-01\nnested: {a: {b: [1, 2]}}\n---\n> [!note] Callout\n> body\n",
        "\u{feff}---\r\ntags:\r\n  - crlf\r\n---\r\nbody\r\n",
        "---\nbase: &b {x: 1}\nderived:\n  <<: *b\n---\n",
        "---\nunterminated: [\n",
        "no frontmatter at all, only ```code``` and $$math$$",
    ])
}

// ---- vault paths ------------------------------------------------------------------------------

const PATH_TOKENS: &[&[u8]] = &[
    b"/",
    b"\\",
    b"..",
    b".",
    b"~",
    b":",
    b"%2e",
    b"%2f",
    b"CON",
    b"nul.txt",
    b"\xef\xbc\x8f",
    b"\xe2\x88\x95",
    b"\xe2\x80\xae",
    b"\xef\xbb\xbf",
    b"\0",
    b" ",
    b".md",
    b"\xcc\x81",
    b"e\xcc\x81",
];

/// A path either is refused or survives a round trip, and everything derived from it parses.
fn vault_path(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let Ok(path) = VaultPath::parse(&text) else { return };
    assert_eq!(VaultPath::parse(path.as_str()).unwrap(), path, "a parsed path parses to itself");
    assert!(!path.as_str().split('/').any(|s| s == ".." || s == "." || s.is_empty()), "{path:?}");
    for ancestor in path.ancestors() {
        assert!(path.starts_with(&ancestor));
        VaultPath::parse(ancestor.as_str()).unwrap();
    }
    if let Some(parent) = path.parent() {
        assert!(path.starts_with(&parent));
    }
    let _ = (path.name(), path.stem(), path.extension());
    let _ = path.join("child.md");
}

fn vault_path_seeds() -> Vec<Vec<u8>> {
    texts(&[
        "notes/a.md",
        "Folder With Spaces/note.md",
        "日本語/ノート.md",
        "a/b/c/d/e.canvas",
        ".obsidian-agent/index/x",
        "x",
    ])
}

// ---- the search query language ----------------------------------------------------------------

const QUERY_TOKENS: &[&[u8]] = &[
    b" AND ",
    b" OR ",
    b" NOT ",
    b"-",
    b"\"",
    b"(",
    b")",
    b"tag:",
    b"path:",
    b"title:",
    b"file:",
    b"#",
    b"*",
    b"~",
    b"~2",
    b"^",
    b":",
    b"[",
    b"]",
    b"{",
    b"}",
    b"/",
    b"\\",
    b"+",
    b"!",
    b"line:",
    b"section:",
];

thread_local! {
    static QUERY_INDEX: RefCell<Option<SearchIndex>> = const { RefCell::new(None) };
}

fn small_vault() -> MemoryVault {
    let vault = MemoryVault::new();
    for i in 0..24 {
        let text = format!(
            "---\ntags: [topic{}, area/sub{}]\n---\n# Garden note {i}\n\nSeeds, compost and gardens; word{i}. [[Note {}]]\n",
            i % 4,
            i % 3,
            (i + 1) % 24
        );
        block_on(vault.write(&VaultPath::parse(&format!("folder{}/Note {i}.md", i % 3)).unwrap(), &text)).unwrap();
    }
    vault
}

fn query(input: &[u8]) {
    let text = String::from_utf8_lossy(input).into_owned();
    QUERY_INDEX.with(|cell| {
        let mut cell = cell.borrow_mut();
        let index = cell.get_or_insert_with(|| {
            block_on(SearchIndex::build(&small_vault(), &ManualClock::new(0), &mut |_| {})).unwrap()
        });
        let _ = index.search(&SearchQuery { text, limit: 5, ..SearchQuery::default() });
    });
}

fn query_seeds() -> Vec<Vec<u8>> {
    texts(&[
        "garden compost",
        "\"garden note\" -seeds",
        "tag:topic1 OR (path:folder2 AND word7)",
        "gardn~1 title:note",
        "#area/sub1 comp*",
        "",
    ])
}

// ---- the persisted search index ----------------------------------------------------------------

const JSON_TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"null",
    b"true",
    b"-1",
    b"0",
    b"4294967296",
    b"1e308",
    b"\"format\":",
    b"\"bytes\":",
    b"\"xxh3\":",
    b"\"notes\":",
    b"\"dims\":",
    b"\"rows\":",
    b"\"counts\":",
    b"\"tokens\":",
    b"\"dimensions\":",
    b"\\u0000",
    b"meta.json",
    b".managed.json",
    b"..",
];

/// A saved index: the manifest (as JSON) and the contents of its two parts.
struct SavedIndex {
    manifest: Value,
    segments: Vec<u8>,
    catalog: Vec<u8>,
}

thread_local! {
    static SAVED_INDEX: SavedIndex = {
        let vault = small_vault();
        let mut index = block_on(SearchIndex::build(&vault, &ManualClock::new(0), &mut |_| {})).unwrap();
        let saved = MemoryVault::new();
        block_on(index.persist(&saved)).unwrap();
        let files = block_on(saved.list(&VaultPath::parse(INDEX_DIR).unwrap())).unwrap().files;
        let read = |prefix: &str| {
            let file = files.iter().find(|f| f.name().unwrap().starts_with(prefix)).unwrap();
            block_on(saved.read_binary(file)).unwrap()
        };
        SavedIndex {
            manifest: serde_json::from_slice(&read("manifest")).unwrap(),
            segments: read("segments-"),
            catalog: read("catalog-"),
        }
    };
}

fn index_file(name: &str) -> VaultPath {
    VaultPath::parse(&format!("{INDEX_DIR}/{name}")).unwrap()
}

fn sum(data: &[u8]) -> Value {
    json!({"bytes": data.len(), "xxh3": format!("{:016x}", xxhash_rust::xxh3::xxh3_64(data))})
}

/// The first byte picks the file the rest replaces (`% 3`: the manifest, the segments or the
/// catalog) and whether the manifest is resealed with the replaced part's checksum (`& 4`), so
/// the fuzzer gets past the checksums into the unpacking, the catalog and tantivy. Loading may
/// refuse the index; it must not panic, and a loaded index must answer a search.
fn index_loader(input: &[u8]) {
    let (c, body) = control(input);
    SAVED_INDEX.with(|good| {
        let vault = MemoryVault::new();
        let mut manifest = good.manifest.clone();
        let (mut segments, mut catalog) = (good.segments.as_slice(), good.catalog.as_slice());
        match c % 3 {
            1 => segments = body,
            2 => catalog = body,
            _ => {}
        }
        let name = |kind: &str, ext: &str, manifest: &Value| {
            format!("{kind}-{}.{ext}", manifest[kind]["xxh3"].as_str().unwrap_or("0000000000000000"))
        };
        let (segments_name, catalog_name) =
            (name("segments", "bin", &good.manifest), name("catalog", "json", &good.manifest));
        let (segments_name, catalog_name) = if c & 4 != 0 && c % 3 != 0 {
            manifest["segments"] = sum(segments);
            manifest["catalog"] = sum(catalog);
            (name("segments", "bin", &manifest), name("catalog", "json", &manifest))
        } else {
            (segments_name, catalog_name)
        };
        let manifest = if c % 3 == 0 { body.to_vec() } else { serde_json::to_vec_pretty(&manifest).unwrap() };
        block_on(vault.write_binary(&index_file("manifest.json"), &manifest)).unwrap();
        block_on(vault.write_binary(&index_file(&segments_name), segments)).unwrap();
        block_on(vault.write_binary(&index_file(&catalog_name), catalog)).unwrap();
        if let Ok(index) = block_on(SearchIndex::load(&vault)) {
            let _ = index.search(&SearchQuery { text: "garden".into(), ..SearchQuery::default() });
            index.notes().for_each(drop);
        }
    });
}

fn index_seeds() -> Vec<Vec<u8>> {
    SAVED_INDEX.with(|good| {
        let manifest = serde_json::to_vec_pretty(&good.manifest).unwrap();
        vec![
            [&[0u8][..], &manifest].concat(),
            [&[1u8][..], &good.segments].concat(),
            [&[2u8][..], &good.catalog].concat(),
            [&[5u8][..], &good.segments].concat(),
            [&[6u8][..], &good.catalog].concat(),
        ]
    })
}

// ---- the static embedding model ----------------------------------------------------------------

fn static_model(input: &[u8]) {
    if let Ok(model) = StaticEmbedder::from_bytes(input) {
        let vector = model.embed_one("hello gardens, hello world");
        assert_eq!(vector.len(), model.header().dimensions);
        StaticEmbedder::from_bytes(&model.to_bytes()).unwrap();
    }
}

fn static_model_seeds() -> Vec<Vec<u8>> {
    let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\ngarden\n##s\n,";
    let wordpiece = WordPiece::from_vocab(vocab).unwrap();
    let header =
        StaticHeader { id: "fuzz-static".into(), dimensions: 4, tokens: wordpiece.len(), source: "fuzz seed".into() };
    let rows: Vec<Vec<f32>> =
        (0..wordpiece.len()).map(|t| (0..4).map(|d| ((t * 3 + d) % 7) as f32 - 3.0).collect()).collect();
    vec![StaticEmbedder::from_rows(header, wordpiece, &rows).unwrap().to_bytes()]
}

// ---- the saved vectors -------------------------------------------------------------------------

fn vectors(input: &[u8]) {
    let Ok(index) = VectorIndex::from_bytes(input) else { return };
    let dims = index.dimensions();
    if dims <= 4096 {
        let query: Vec<f32> = (0..dims).map(|d| (d % 3) as f32).collect();
        index.search(&query, 5, &|_| true);
    }
    let again = VectorIndex::from_bytes(&index.to_bytes()).unwrap();
    assert_eq!(again.note_count(), index.note_count());
    // What `load` reads from the vault is the same.
    let vault = MemoryVault::new();
    block_on(vault.write_binary(&VaultPath::parse(VECTORS_FILE).unwrap(), input)).unwrap();
    assert!(block_on(VectorIndex::load(&vault)).unwrap().is_some());
}

fn vector_seeds() -> Vec<Vec<u8>> {
    [Precision::F32, Precision::Int8]
        .into_iter()
        .map(|precision| {
            let mut index = VectorIndex::new("fuzz-embedder", 6, precision);
            for n in 0..4 {
                let chunks =
                    (0..2).map(|c| (Some(format!("H{c}")), (0..6).map(|d| ((n + c + d) % 4) as f32 - 1.5).collect()));
                index.insert(&format!("note {n}.md"), &format!("h{n}"), n as u64, chunks.collect()).unwrap();
            }
            index.to_bytes()
        })
        .collect()
}

// ---- the task snapshot ---------------------------------------------------------------------------

/// A snapshot file as `load_snapshot` reads it: refused with a clear error or loaded.
fn snapshot(input: &[u8]) {
    let _ = vault_agent::agent::parse_snapshot("t1", input);
}

/// Snapshots as a task writes them: mid-run, and waiting at an approval.
fn snapshot_seeds() -> Vec<Vec<u8>> {
    use vault_agent::agent::{AgentConfig, RunProgress, TaskSnapshot, SNAPSHOT_VERSION};
    use vault_agent::protocol::{ApprovalCategory, ApprovalRequest};
    let running = TaskSnapshot {
        version: SNAPSHOT_VERSION,
        task_id: "t1".into(),
        chat_id: Some("20261123-101500".into()),
        request: "Merge my notes on sourdough".into(),
        config: AgentConfig::default(),
        history: vec![Message::user("Merge my notes on sourdough"), Message::assistant("Reading them first.")],
        progress: RunProgress { started_ms: 1, tool_calls: 3, threshold: 70, ..Default::default() },
        pending: None,
        approval: None,
        pipeline: Default::default(),
        updated_ms: 2,
    };
    let waiting = TaskSnapshot {
        approval: Some(ApprovalRequest {
            id: "t1-approval-1".into(),
            call_id: "call_1".into(),
            tool: "write_file".into(),
            category: ApprovalCategory::Write,
            summary: "write_file Bread.md".into(),
            input: json!({"path": "Bread.md", "content": "# Bread\n"}),
            preview: None,
            subtask: None,
        }),
        ..running.clone()
    };
    [running, waiting].iter().filter_map(|s| serde_json::to_vec_pretty(s).ok()).collect()
}

/// A PDF from the vault, read for its text (for a model that reads no PDFs itself).
fn pdf(input: &[u8]) {
    let vault = MemoryVault::new();
    let path = VaultPath::parse("in.pdf").unwrap();
    block_on(async {
        vault.write_binary(&path, input).await.unwrap();
        let _ = vault_agent::media::pdf_text(&vault, &path).await;
    });
}

fn pdf_seeds() -> Vec<Vec<u8>> {
    vec![include_bytes!("../fixtures/report.pdf").to_vec(), b"%PDF-1.4\n%%EOF".to_vec()]
}

const PDF_TOKENS: &[&[u8]] = &[
    b"obj",
    b"endobj",
    b"stream\n",
    b"\nendstream",
    b"<<",
    b">>",
    b"/Length 9",
    b"/Filter /FlateDecode",
    b"/Type /Page",
    b"/Contents 4 0 R",
    b"BT",
    b"ET",
    b"Tj",
    b"TJ",
    b"(",
    b")",
    b"xref",
    b"trailer",
    b"startxref",
    b"/ToUnicode 6 0 R",
    b"beginbfchar",
    b"/Encrypt",
    b"R",
    b"[",
    b"]",
];

/// A server whose answer to a tool call is the fuzz input: what it sends before its response
/// (notifications, pings, forms) reaches the client's inbox as it would over HTTP or stdio.
struct FuzzServer(Vec<u8>);

#[async_trait::async_trait(?Send)]
impl vault_agent::mcp::McpTransport for FuzzServer {
    async fn request(
        &self,
        _id: u64,
        message: Value,
        inbox: vault_agent::mcp::Inbox<'_>,
        _cancel: &CancelToken,
    ) -> vault_agent::Result<Result<Value, vault_agent::mcp::RpcError>> {
        if message["method"] == "initialize" {
            return Ok(Ok(
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "fuzz"}}),
            ));
        }
        let text = String::from_utf8_lossy(&self.0);
        for incoming in vault_agent::mcp::Incoming::parse_all(&text)? {
            let _ = inbox(incoming).await;
        }
        Ok(Ok(json!({"content": [{"type": "text", "text": "done"}]})))
    }
    async fn send(&self, _message: Value) -> vault_agent::Result<()> {
        Ok(())
    }
    async fn close(&self) {}
}

/// Fills each form with its defaults, then with each field given text, a number and a list,
/// through the answer's check: refused in words or accepted, never a panic.
struct FuzzForms;

#[async_trait::async_trait(?Send)]
impl vault_agent::mcp::ClientFeatures for FuzzForms {
    async fn fill(&self, asked: vault_agent::mcp::Elicitation) -> FormAnswer {
        let form = asked.into_form("f".into(), "fuzz".into());
        let message = form.message.as_str();
        let _ = form.check(&form.defaults());
        for field in &form.fields {
            for value in [json!(message), json!(-1.5), json!([message, "x"]), json!(true)] {
                let _ = form.check(&serde_json::Map::from_iter([(field.name.clone(), value)]));
            }
        }
        FormAnswer { action: FormAction::Accept, content: Some(form.defaults()) }
    }
}

/// What an MCP server sends while a tool call runs, read by the client: malformed JSON-RPC is
/// an error, and a form (`elicitation/create`) is read into fields or refused.
fn mcp_messages(input: &[u8]) {
    block_on(async {
        let cancel = CancelToken::new();
        let transport = Box::new(FuzzServer(input.to_vec()));
        let client =
            vault_agent::mcp::McpClient::connect("fuzz", transport, vault_agent::mcp::ClientOffer::default(), &cancel)
                .await
                .unwrap();
        let _ = client.call_tool("t", json!({}), &|_| {}, &FuzzForms, &cancel).await;
    });
}

fn mcp_seeds() -> Vec<Vec<u8>> {
    let form = json!({"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {
        "message": "Your details", "requestedSchema": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 40, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "when": {"type": "string", "format": "date-time"},
            "age": {"type": "integer", "minimum": 1, "maximum": 120, "default": 30},
            "ok": {"type": "boolean", "default": true},
            "pet": {"type": "string", "enum": ["cat", "dog"], "enumNames": ["Cat", "Dog"]},
            "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}], "default": "h1"},
            "fish": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": [{"const": "f1", "title": "Tuna"}]}}}}}});
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "vault-agent-2", "progress": 1}});
    let ping = json!({"jsonrpc": "2.0", "id": "p", "method": "ping"});
    vec![form.to_string().into_bytes(), json!([progress, ping, form]).to_string().into_bytes()]
}

const MCP_TOKENS: &[&[u8]] = &[
    b"\"jsonrpc\":\"2.0\"",
    b"\"method\":\"elicitation/create\"",
    b"\"requestedSchema\":",
    b"\"properties\":",
    b"\"type\":\"string\"",
    b"\"type\":\"array\"",
    b"\"format\":\"date\"",
    b"\"enum\":[",
    b"\"oneOf\":[",
    b"\"const\":",
    b"\"default\":",
    b"\"minimum\":",
    b"\"mode\":\"url\"",
    b"[{",
    b"}]",
];
