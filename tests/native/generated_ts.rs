//! The TypeScript of the boundary between the plugin's main thread and the core
//! (`js/generated/protocol.ts`) is generated from the Rust types; this test regenerates it and
//! fails when the checked-in copy differs.

use std::path::Path;

use ts_rs::{Config, TS};
use vault_agent::agent::{AgentConfig, ChatOptions, ChatSummary, ChatTask, InterruptedTask, Mode, SavedChat};
use vault_agent::embed::{EmbedReport, HybridHit, Signals};
use vault_agent::host::Transport;
use vault_agent::pipeline::{CheckpointSummary, KeptPath, SavedCopy, UndoChoice, UndoConflict, UndoPlan, UndoReport};
use vault_agent::prompt::VaultInfo;
use vault_agent::protocol::{
    AgentEvent, ApprovalCategory, ApprovalDecision, ApprovalRequest, BatchRead, CallLabel, CallbackArg, ChangePreview,
    ContentBlock, ContextUse, DiffPart, DiffRow, DiffRowKind, EmbedWorkersRequest, EndReason, ErrorKind, FieldInput,
    FormAction, FormAnswer, FormField, FormOption, FormPage, FormRequest, FromCore, FromEmbedWorker, FromIndexWorker,
    HostCall, HttpAnswer, HttpRequest, LabelPart, Message, ProviderError, ProviderProblem, ProviderSetting, Question,
    RecipeUse, Reply, Role, RunReport, StepReport, StopReason, SubtaskInfo, TextFormat, ToCore, ToEmbedWorker,
    ToIndexWorker, ToolCallReport, ToolOutcome, Usage,
};
use vault_agent::provider::{
    presets_ts, ConnectionCheck, ModelInfo, ModelList, ModelPrice, PresetInfo, ProviderConfig, ProviderKind,
    ProviderPreset, RetryPolicy, TextToolDialect,
};
use vault_agent::search::{RelatedNote, SearchHit, SearchQuery};
use vault_agent::tools::ToolGroup;

const GENERATED: &str = "js/generated/protocol.ts";

/// One exported declaration, with its doc comment.
fn declare<T: TS>(cfg: &Config, out: &mut String) {
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(cfg));
    out.push_str("\n\n");
}

fn generate() -> String {
    // serde-wasm-bindgen's JSON-compatible serializer writes u64 as a number.
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the Rust types by tests/native/generated_ts.rs: do not edit.\n\
         // Update: UPDATE_GENERATED=1 cargo test --locked --test native generated_ts\n\n",
    );
    macro_rules! declare_all {
        ($($t:ty),* $(,)?) => { $(declare::<$t>(&cfg, &mut out);)* };
    }
    declare_all!(
        // The worker boundary.
        ToCore,
        FromCore,
        CallbackArg,
        Reply,
        HostCall,
        HttpRequest,
        HttpAnswer,
        BatchRead,
        EmbedWorkersRequest,
        ToEmbedWorker,
        FromEmbedWorker,
        ToIndexWorker,
        FromIndexWorker,
        serde_json::Value,
        // What the core's calls answer and its events.
        Role,
        ContentBlock,
        Message,
        Usage,
        ErrorKind,
        ProviderError,
        ApprovalCategory,
        ApprovalDecision,
        ChangePreview,
        DiffRow,
        DiffRowKind,
        DiffPart,
        ApprovalRequest,
        Question,
        FormRequest,
        FormField,
        FormPage,
        FieldInput,
        TextFormat,
        FormOption,
        FormAction,
        FormAnswer,
        SubtaskInfo,
        AgentEvent,
        ProviderProblem,
        ProviderSetting,
        CallLabel,
        LabelPart,
        ToolOutcome,
        EndReason,
        RunReport,
        RecipeUse,
        ContextUse,
        StepReport,
        ToolCallReport,
        StopReason,
        vault_agent::media::MediaSupport,
        // MCP servers, as the settings configure and list them.
        vault_agent::mcp::McpServerConfig,
        vault_agent::mcp::McpServerTransport,
        vault_agent::mcp::McpCredentials,
        vault_agent::mcp::OAuthClient,
        vault_agent::mcp::OAuthApp,
        vault_agent::mcp::McpSignIn,
        vault_agent::mcp::ServerPrompt,
        vault_agent::mcp::McpPromptInfo,
        vault_agent::mcp::PromptArgument,
        vault_agent::mcp::ServerResource,
        vault_agent::mcp::McpResourceInfo,
        vault_agent::mcp::McpToolInfo,
        vault_agent::mcp::McpOffer,
        vault_agent::mcp::ToolAnnotations,
        UndoChoice,
        UndoConflict,
        KeptPath,
        SavedCopy,
        UndoPlan,
        UndoReport,
        CheckpointSummary,
        vault_agent::memory::MemoryEntry,
        vault_agent::memory::MemoryKind,
        ModelPrice,
        ConnectionCheck,
        ModelInfo,
        ModelList,
        SavedChat,
        ChatTask,
        ChatSummary,
        vault_agent::agent::ChatMatch,
        vault_agent::agent::ChatPassage,
        vault_agent::agent::Speaker,
        vault_agent::agent::Transcript,
        vault_agent::agent::TranscriptTurn,
        vault_agent::agent::ChatRequest,
        vault_agent::agent::TranscriptStep,
        InterruptedTask,
        vault_agent::agent::InlineEditReport,
        vault_agent::agent::InlineEditOutcome,
        SearchHit,
        SearchQuery,
        vault_agent::search::LoadOutcome,
        vault_agent::search::LoadProblem,
        vault_agent::index::DatedNote,
        RelatedNote,
        Signals,
        HybridHit,
        vault_agent::embed::HybridQuery,
        vault_agent::embed::SearchMode,
        vault_agent::embed::Fusion,
        EmbedReport,
        vault_agent::embed::EmbedStatus,
        vault_agent::embed::EmbedderOptions,
        vault_agent::embed::EmbedderSet,
        vault_agent::embed::ApiEmbedderConfig,
        vault_agent::embed::Precision,
        vault_agent::embed::InstallOptions,
        vault_agent::embed::PluginRelease,
        vault_agent::pipeline::RetentionPolicy,
        // What JS writes (every field has a default in the core: JS sends a partial object).
        ProviderKind,
        ProviderConfig,
        vault_agent::provider::OpenAiApi,
        TextToolDialect,
        RetryPolicy,
        AgentConfig,
        vault_agent::agent::GuardConfig,
        vault_agent::tools::WebSearchConfig,
        vault_agent::tools::WebSearchCheck,
        Mode,
        ToolGroup,
        Transport,
        VaultInfo,
        ChatOptions,
        vault_agent::agent::InlineEditRequest,
        vault_agent::agent::SuggestRequest,
        vault_agent::provider::CallPurpose,
        vault_agent::provider::Spend,
        // The providers the settings offer, and their table.
        ProviderPreset,
        PresetInfo,
    );
    out.push_str(&presets_ts());
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn generated_typescript_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
    let fresh = generate();
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "{GENERATED} is stale (a Rust type crossing the worker boundary changed): regenerate it with \
         `UPDATE_GENERATED=1 cargo test --locked --test native generated_ts` and commit it"
    );
}

/// The keys of every object crossing the boundary, outside comments: one naming case on the JS
/// side. Tags and enum values (`"type": "tool_started"`) are strings, not keys.
#[test]
fn every_key_crossing_the_boundary_is_camel_case() {
    let generated = generate();
    let mut code = String::new();
    let mut rest = generated.as_str();
    // Comments say `call_id` of the Rust side freely; only code counts.
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = rest[start..].split_once("*/").map_or("", |(_, after)| after);
    }
    code.push_str(rest);
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut snake = std::collections::BTreeSet::new();
    for (i, _) in code.match_indices(':') {
        let before = code[..i].trim_end_matches('?');
        let key: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        // A quoted key ("HTTP-Referer" in the presets' data) is data, not a field.
        if key.contains('_') && !before.ends_with('"') {
            snake.insert(key);
        }
    }
    assert!(snake.is_empty(), "snake_case keys in {GENERATED}: {snake:?}");
}
