//! "Which models does this server have?": the model picker's list, from the provider's own
//! models endpoint — `GET {base}/models` for OpenAI and every compatible server (OpenRouter,
//! Ollama, LM Studio answer it too), `GET {base}/v1/models` for Anthropic — sent with the
//! same key and headers as a model call.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::config::{ProviderConfig, ProviderKind};
use super::formats::anthropic::API_VERSION;
use super::pricing::{price_for, ModelPrice};
use super::transport::{transport_error, unreachable_or};
use crate::cancel::CancelToken;
use crate::host::{HttpClient, HttpRequest};
use crate::protocol::{ErrorKind, ProviderError, ProviderProblem, ProviderSetting};
use crate::Result;

/// A model the server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// What a request names it by (the settings' *Model*).
    pub id: String,
    /// The server's name for it, when it gives one other than the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its context window in tokens, when the server says (OpenRouter does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// US dollars per million tokens: the server's own price (OpenRouter's list has them), or
    /// the list price the cost meter would use; free on this machine; absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
    /// Whether the model calls tools itself, where the server says (OpenRouter's
    /// `supported_parameters`, Ollama's `/api/show`); one that does not gets them described in
    /// the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<bool>,
}

/// What asking the server for its models found: the models, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelList {
    /// Chat models, newest first where the server dates them, in the server's order otherwise.
    pub models: Vec<ModelInfo>,
    /// Why the list could not be had, in plain words and the provider's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<ProviderProblem>,
}

impl ModelList {
    /// No models, because of `error`.
    pub fn failed(error: &ProviderError) -> Self {
        ModelList { models: Vec::new(), problem: Some(ProviderProblem::from(error)) }
    }
}

/// The request that lists `config`'s models. The configuration's model is not needed (the list
/// is how a user finds one); its key is, where the provider needs one.
pub fn models_request(config: &ProviderConfig) -> Result<HttpRequest> {
    let (base_url, key) = config.endpoint()?;
    let mut request = match (config.kind, key) {
        (ProviderKind::Anthropic, key) => {
            // At most 1,000 a page: every model Anthropic has, in one answer. (`endpoint`
            // refused an Anthropic configuration without a key.)
            HttpRequest::get(format!("{base_url}/v1/models?limit=1000"))
                .header("x-api-key", key.unwrap_or_default())
                .header("anthropic-version", API_VERSION)
                .header("anthropic-dangerous-direct-browser-access", "true")
        }
        (ProviderKind::OpenAi | ProviderKind::OpenAiCompatible, Some(key)) => {
            let (name, value) = super::address::key_header(&base_url, key);
            HttpRequest::get(format!("{base_url}/models")).header(name, value)
        }
        (ProviderKind::OpenAi | ProviderKind::OpenAiCompatible, None) => HttpRequest::get(format!("{base_url}/models")),
    };
    request = request.header("accept", "application/json");
    for (name, value) in &config.headers {
        request = request.header(name, value);
    }
    Ok(request)
}

/// The chat models in a models endpoint's answer (`{"data": [...]}`; `{"models": [...]}` and a
/// bare list are read too). Embedding models go, and on OpenAI's own list the models that do
/// not chat (speech, images, moderation, the old completion models, the Responses-only ones).
pub fn parse_models(kind: ProviderKind, body: &str) -> std::result::Result<Vec<ModelInfo>, ProviderError> {
    let unreadable = |why: &str| ProviderError::new(ErrorKind::Protocol, format!("the models list {why}"));
    let value: Value = serde_json::from_str(body).map_err(|_| unreadable("is not JSON"))?;
    let entries = match &value {
        Value::Array(entries) => entries,
        Value::Object(object) => match object.get("data").or_else(|| object.get("models")) {
            Some(Value::Array(entries)) => entries,
            _ => return Err(unreadable("has no list of models")),
        },
        _ => return Err(unreadable("has no list of models")),
    };
    // Each model with when it was made, and its names where it has aliases.
    let mut dated: Vec<(Option<i64>, ModelInfo, Vec<String>)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in entries {
        let Some(id) = entry.get("id").or_else(|| entry.get("name")).and_then(Value::as_str).map(str::trim) else {
            continue;
        };
        // Google lists `models/gemini-2.5-flash`; its chat endpoint takes the bare name.
        let id = id.strip_prefix("models/").unwrap_or(id);
        // Mistral says which of its models chat (not its embedding, OCR or moderation ones).
        let no_chat = entry.pointer("/capabilities/completion_chat").and_then(Value::as_bool) == Some(false);
        if id.is_empty() || no_chat || !chats(kind, id) || !seen.insert(id.to_string()) {
            continue;
        }
        let name = ["display_name", "name"]
            .iter()
            .filter_map(|k| entry.get(*k).and_then(Value::as_str))
            .map(str::trim)
            .find(|name| !name.is_empty() && *name != id)
            .map(str::to_string);
        let context_window =
            // OpenRouter, LM Studio and Mistral, Groq; vLLM's is the window it serves.
            ["context_length", "max_context_length", "context_window", "max_model_len"]
                .iter()
                .find_map(|k| entry.get(*k)?.as_u64());
        let created = entry.get("created").and_then(Value::as_i64);
        let price = entry.get("pricing").and_then(server_price);
        let tools = entry
            .get("supported_parameters")
            .and_then(Value::as_array)
            .map(|params| params.iter().any(|p| p.as_str() == Some("tools")));
        let aliases: Vec<&str> = entry
            .get("aliases")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).map(str::trim).collect())
            .unwrap_or_default();
        // Mistral lists a model once under each of its names (`mistral-medium-2508`,
        // `mistral-medium-latest`, `mistral-medium`), each naming the others as aliases: one row
        // for them, under the `-latest` name where there is one (the model a user wants kept up
        // to date), its dated name beside it.
        let group = if aliases.is_empty() { Vec::new() } else { alias_group(id, &aliases) };
        if let Some((_, kept, _)) = dated.iter_mut().find(|(_, _, g)| !group.is_empty() && *g == group) {
            if id.ends_with("-latest") && !kept.id.ends_with("-latest") {
                let dated_name = std::mem::replace(&mut kept.id, id.to_string());
                kept.name = name.or(Some(dated_name));
            }
            continue;
        }
        dated.push((created, ModelInfo { id: id.to_string(), name, context_window, price, tools }, group));
    }
    // Newest first when every model is dated (OpenAI, OpenRouter, Ollama); Anthropic's list is
    // newest first already, and others' order is the server's choice.
    if dated.iter().all(|(created, _, _)| created.is_some()) {
        crate::sort::sort_by(&mut dated, |a, b| b.0.cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
    }
    Ok(dated.into_iter().map(|(_, model, _)| model).collect())
}

/// A model's names, its id among its aliases, sorted: the same for every entry of one model
/// whose entries name each other.
fn alias_group(id: &str, aliases: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::iter::once(id).chain(aliases.iter().copied()).map(str::to_string).collect();
    names.sort();
    names.dedup();
    names
}

/// OpenRouter's `pricing`: US dollars per token, as decimal strings.
fn server_price(pricing: &Value) -> Option<ModelPrice> {
    let per_token = |key: &str| -> Option<f64> {
        let value = pricing.get(key)?;
        value.as_str().and_then(|s| s.trim().parse().ok()).or_else(|| value.as_f64()).filter(|v: &f64| *v >= 0.0)
    };
    let (input, output) = (per_token("prompt")?, per_token("completion")?);
    let million = |v: f64| (v * 1e6 * 1e6).round() / 1e6;
    let cache_read = per_token("input_cache_read").map_or(million(input), million);
    let cache_write = per_token("input_cache_write").map_or(million(input), million);
    Some(ModelPrice { input: million(input), output: million(output), cache_read, cache_write })
}

/// Whether the model `id` chats: not an embedding, transcription or guard model (Groq lists
/// Whisper and Llama Guard beside its chat models), nor one that makes images (xAI's
/// `grok-2-image`, `grok-imagine`), nor one of Google's for images, video, speech or attributed
/// answers, anywhere; and on OpenAI's own list not one for speech, images,
/// moderation, the old completions API or only the Responses API.
fn chats(kind: ProviderKind, id: &str) -> bool {
    let id = id.to_ascii_lowercase();
    const NEVER: [&str; 10] =
        ["embed", "whisper", "-guard", "imagen", "imagine", "-image", "veo-", "-tts", "native-audio", "aqa"];
    if NEVER.iter().any(|word| id.contains(word)) {
        return false;
    }
    // The last four answer only OpenAI's Responses API, not Chat Completions.
    const NOT_CHAT: [&str; 15] = [
        "tts",
        "whisper",
        "dall-e",
        "moderation",
        "davinci",
        "babbage",
        "transcribe",
        "image",
        "realtime",
        "audio",
        "sora",
        "-pro",
        "codex",
        "deep-research",
        "computer-use",
    ];
    kind != ProviderKind::OpenAi || !NOT_CHAT.iter().any(|word| id.contains(word))
}

/// Asks the server for its models. Fails only for a configuration that cannot be sent (a bad
/// URL, no key where one is needed); what the server or the network did wrong is the list's
/// `problem`, in the words the chat uses for a failed model call.
pub async fn list_models(config: &ProviderConfig, http: &dyn HttpClient, cancel: &CancelToken) -> Result<ModelList> {
    let request = models_request(config)?;
    if super::address::is_azure(&request.url) {
        // Azure's list is of the models a resource could deploy; a request names a deployment.
        return Ok(ModelList {
            models: Vec::new(),
            problem: Some(ProviderProblem {
                kind: ErrorKind::BadRequest,
                message: "Azure lists the models it offers, not your deployments: the model is the name of one of \
                          your deployments (Azure AI Foundry → Deployments)."
                    .into(),
                detail: String::new(),
                setting: Some(ProviderSetting::Model),
            }),
        });
    }
    let url = request.url.clone();
    let response = match http.send(request, cancel).await {
        Ok(response) => response,
        Err(error) => return Ok(ModelList::failed(&unreachable_or(transport_error(error), &url))),
    };
    let status = response.status;
    let headers = response.headers.clone();
    let body = match response.text().await {
        Ok(body) => body,
        Err(error) => return Ok(ModelList::failed(&transport_error(error))),
    };
    if !(200..300).contains(&status) {
        // The clock only dates a `retry-after`, which a list asked for by hand does not wait on.
        let error = super::classify::classify_response(status, &headers, &body, 0);
        let mut list = ModelList::failed(&error);
        if status == 404 {
            // A model call's 404 may mean the model; a list's means the server keeps none there
            // (or the base URL is wrong, which a model call will then say).
            if let Some(problem) = &mut list.problem {
                problem.message = format!("The server lists no models at {url}.");
            }
        }
        return Ok(list);
    }
    Ok(match parse_models(config.kind, &body) {
        Ok(mut models) => {
            for model in models.iter_mut().filter(|m| m.price.is_none()) {
                model.price = price_for(&ProviderConfig { model: model.id.clone(), ..config.clone() });
            }
            if config.kind == ProviderKind::OpenAiCompatible {
                let (base_url, _) = config.endpoint()?;
                super::tool_capability::mark_tool_use(http, &base_url, &mut models, cancel).await;
            }
            ModelList { models, problem: None }
        }
        Err(error) => ModelList::failed(&error),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(models: &[ModelInfo]) -> Vec<&str> {
        models.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn openai_lists_chat_models_newest_first() {
        let body = r#"{"object":"list","data":[
            {"id":"gpt-4o","object":"model","created":1715367049,"owned_by":"system"},
            {"id":"text-embedding-3-small","created":1705948997},
            {"id":"gpt-4.1","created":1744316542},
            {"id":"tts-1","created":1681940951},
            {"id":"whisper-1","created":1677532384},
            {"id":"dall-e-3","created":1698785189},
            {"id":"o3","created":1744225308},
            {"id":"gpt-4o-realtime-preview","created":1727659998},
            {"id":"omni-moderation-latest","created":1731689265},
            {"id":"o3-pro","created":1749000000},
            {"id":"codex-mini-latest","created":1746000000},
            {"id":"o3-deep-research","created":1750000000},
            {"id":"gpt-4.1","created":1744316542}
        ]}"#;
        let models = parse_models(ProviderKind::OpenAi, body).unwrap();
        assert_eq!(ids(&models), ["gpt-4.1", "o3", "gpt-4o"]);
        assert_eq!(
            models[0],
            ModelInfo { id: "gpt-4.1".into(), name: None, context_window: None, price: None, tools: None }
        );
    }

    #[test]
    fn a_compatible_server_keeps_what_openai_would_drop_but_not_embeddings() {
        // Ollama's /v1/models: a local "audio" model chats as far as we can tell.
        let body = r#"{"object":"list","data":[
            {"id":"qwen2.5:latest","object":"model","created":1732000000,"owned_by":"library"},
            {"id":"nomic-embed-text:latest","created":1731000000},
            {"id":"llama3.2-audio:latest","created":1733000000}
        ]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(ids(&models), ["llama3.2-audio:latest", "qwen2.5:latest"]);
        // Groq's list: transcription, guard and speech models beside the chat ones.
        let body = r#"{"object":"list","data":[
            {"id":"llama-3.3-70b-versatile","object":"model","created":1733447754,"context_window":131072},
            {"id":"whisper-large-v3-turbo","object":"model","created":1728413088,"context_window":448},
            {"id":"meta-llama/llama-guard-4-12b","object":"model","created":1746743847,"context_window":131072},
            {"id":"playai-tts","object":"model","created":1740682713,"context_window":8192},
            {"id":"openai/gpt-oss-120b","object":"model","created":1754408224,"context_window":131072}
        ]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(ids(&models), ["openai/gpt-oss-120b", "llama-3.3-70b-versatile"]);
        assert_eq!(models[0].context_window, Some(131_072));
    }

    #[test]
    fn openrouter_gives_names_and_context_windows() {
        let body = r#"{"data":[
            {"id":"anthropic/claude-sonnet-4.5","name":"Anthropic: Claude Sonnet 4.5","created":1759161676,"context_length":1000000,
             "pricing":{"prompt":"0.000003","completion":"0.000015","input_cache_read":"0.0000003"},
             "supported_parameters":["max_tokens","temperature","tools","tool_choice"]},
            {"id":"openai/gpt-4.1-mini","name":"openai/gpt-4.1-mini","created":1744651381,"context_length":1047576},
            {"id":"google/gemma-2-9b-it","created":1720000000,"supported_parameters":["max_tokens","temperature"]}
        ]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(models[0].name.as_deref(), Some("Anthropic: Claude Sonnet 4.5"));
        assert_eq!(models[0].context_window, Some(1_000_000));
        let price = models[0].price.expect("OpenRouter prices its models");
        assert_eq!((price.input, price.output, price.cache_read, price.cache_write), (3.0, 15.0, 0.3, 3.0));
        // A name that only repeats the id is no name.
        assert_eq!(models[1].name, None);
        // Which call tools, where the list says.
        let tools: Vec<Option<bool>> = models.iter().map(|m| m.tools).collect();
        assert_eq!(tools, [Some(true), None, Some(false)]);
    }

    /// xAI lists its image makers beside its chat models.
    #[test]
    fn xai_lists_only_the_models_that_chat() {
        let body = r#"{"object":"list","data":[
            {"id":"grok-4-0709","created":1752019200,"object":"model","owned_by":"xai"},
            {"id":"grok-2-image-1212","created":1736726400,"object":"model","owned_by":"xai"},
            {"id":"grok-imagine-image","created":1760000000,"object":"model","owned_by":"xai"},
            {"id":"grok-2-vision-1212","created":1733961600,"object":"model","owned_by":"xai"},
            {"id":"grok-code-fast-1","created":1756166400,"object":"model","owned_by":"xai"}]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(ids(&models), ["grok-code-fast-1", "grok-4-0709", "grok-2-vision-1212"]);
    }

    #[test]
    fn gemini_lists_bare_names_and_only_the_models_that_chat() {
        let body = r#"{"object":"list","data":[
            {"id":"models/gemini-2.5-flash","object":"model","owned_by":"google"},
            {"id":"models/gemini-embedding-001","object":"model","owned_by":"google"},
            {"id":"models/imagen-4.0-generate-001","object":"model","owned_by":"google"},
            {"id":"models/veo-3.0-generate-001","object":"model","owned_by":"google"},
            {"id":"models/gemini-2.5-flash-preview-tts","object":"model","owned_by":"google"},
            {"id":"models/gemini-2.5-flash-native-audio-latest","object":"model","owned_by":"google"},
            {"id":"models/aqa","object":"model","owned_by":"google"},
            {"id":"models/gemini-flash-latest","object":"model","owned_by":"google"}]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(ids(&models), ["gemini-2.5-flash", "gemini-flash-latest"]);
    }

    /// Mistral's list, in its shape: capabilities, the window as `max_context_length`, and
    /// models that do not chat (OCR, moderation) said so by `completion_chat`.
    #[test]
    fn mistral_lists_the_models_that_chat_with_their_windows() {
        let body = r#"{"object":"list","data":[
            {"id":"mistral-medium-2508","object":"model","created":1763000000,"owned_by":"mistralai",
             "capabilities":{"completion_chat":true,"function_calling":true,"vision":true},
             "name":"mistral-medium-2508","max_context_length":131072,"aliases":["mistral-medium-latest"],"type":"base"},
            {"id":"mistral-ocr-2505","object":"model","created":1763000000,"owned_by":"mistralai",
             "capabilities":{"completion_chat":false,"function_calling":false,"ocr":true},"max_context_length":16384,"type":"base"},
            {"id":"mistral-moderation-latest","object":"model","created":1763000000,"owned_by":"mistralai",
             "capabilities":{"completion_chat":false,"moderation":true},"max_context_length":8192,"type":"base"},
            {"id":"magistral-medium-latest","object":"model","created":1763000001,"owned_by":"mistralai",
             "capabilities":{"completion_chat":true,"function_calling":true},"max_context_length":131072,"type":"base"}]}"#;
        let models = parse_models(ProviderKind::OpenAiCompatible, body).unwrap();
        assert_eq!(ids(&models), ["magistral-medium-latest", "mistral-medium-2508"]);
        assert_eq!(models[1].context_window, Some(131_072));
    }

    /// Mistral lists a model under each of its names, each entry naming the others: one row,
    /// under the `-latest` name, with the dated one beside it.
    #[test]
    fn a_model_listed_under_each_of_its_names_is_one_row() {
        let entry = |id: &str, aliases: &[&str]| {
            serde_json::json!({"id": id, "object": "model", "created": 1763000000, "name": "mistral-medium-2508",
                "capabilities": {"completion_chat": true}, "max_context_length": 131072, "aliases": aliases})
        };
        let body = serde_json::json!({"object": "list", "data": [
            entry("mistral-medium-2508", &["mistral-medium-latest", "mistral-medium"]),
            entry("mistral-medium", &["mistral-medium-2508", "mistral-medium-latest"]),
            entry("mistral-medium-latest", &["mistral-medium-2508", "mistral-medium"]),
            {"id": "mistral-small-2506", "created": 1763000000, "capabilities": {"completion_chat": true},
             "aliases": ["mistral-small-latest"]},
            {"id": "open-mistral-nemo", "created": 1763000000, "capabilities": {"completion_chat": true}},
        ]})
        .to_string();
        let models = parse_models(ProviderKind::OpenAiCompatible, &body).unwrap();
        assert_eq!(ids(&models), ["mistral-medium-latest", "mistral-small-2506", "open-mistral-nemo"]);
        assert_eq!(models[0].name.as_deref(), Some("mistral-medium-2508"));
        assert_eq!(models[0].context_window, Some(131_072));
    }

    #[test]
    fn anthropic_keeps_its_own_order_and_display_names() {
        let body = r#"{"data":[
            {"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"},
            {"type":"model","id":"claude-opus-4-1-20250805","display_name":"Claude Opus 4.1","created_at":"2025-08-05T00:00:00Z"},
            {"type":"model","id":"claude-3-5-haiku-20241022","display_name":"Claude Haiku 3.5","created_at":"2024-10-22T00:00:00Z"}
        ],"has_more":false,"first_id":"claude-sonnet-4-5-20250929","last_id":"claude-3-5-haiku-20241022"}"#;
        let models = parse_models(ProviderKind::Anthropic, body).unwrap();
        assert_eq!(
            ids(&models),
            ["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022"]
        );
        assert_eq!(models[1].name.as_deref(), Some("Claude Opus 4.1"));
    }

    #[test]
    fn other_shapes_are_read_and_garbage_is_a_protocol_error() {
        let models = parse_models(ProviderKind::OpenAiCompatible, r#"{"models":[{"name":"mistral"}]}"#).unwrap();
        assert_eq!(ids(&models), ["mistral"]);
        let models = parse_models(ProviderKind::OpenAiCompatible, r#"[{"id":"a"},{"id":" "},{"x":1}]"#).unwrap();
        assert_eq!(ids(&models), ["a"]);
        let vllm = r#"{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","max_model_len":32768}]}"#;
        assert_eq!(parse_models(ProviderKind::OpenAiCompatible, vllm).unwrap()[0].context_window, Some(32768));
        for body in ["<html>", r#"{"error":"nope"}"#, "42"] {
            let error = parse_models(ProviderKind::OpenAiCompatible, body).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Protocol, "{body}");
        }
    }

    #[test]
    fn the_request_carries_the_key_and_headers_a_model_call_would() {
        let mut config = ProviderConfig::anthropic("", "sk-ant");
        config.headers.insert("x-proxy".into(), "1".into());
        let request = models_request(&config).unwrap();
        assert_eq!(request.method, "GET");
        assert_eq!(request.url, "https://api.anthropic.com/v1/models?limit=1000");
        let header = |name: &str| request.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        assert_eq!(header("x-api-key"), Some("sk-ant"));
        assert_eq!(header("anthropic-version"), Some(API_VERSION));
        assert_eq!(header("x-proxy"), Some("1"));

        let request = models_request(&ProviderConfig::ollama("")).unwrap();
        assert_eq!(request.url, "http://localhost:11434/v1/models");
        assert!(request.headers.iter().all(|(k, _)| k != "authorization"));
        let request = models_request(&ProviderConfig::compatible("http://h:1/v1/", "").with_api_key("k")).unwrap();
        assert_eq!(request.url, "http://h:1/v1/models");
        assert!(request.headers.contains(&("authorization".into(), "Bearer k".into())));

        assert!(models_request(&ProviderConfig::new(ProviderKind::OpenAi, "")).is_err());
        assert!(models_request(&ProviderConfig::compatible("ftp://h", "")).is_err());
    }
}
