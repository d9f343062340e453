//! Which model to call and how: one serialisable configuration, and the factory that the loop,
//! the CLI and the plugin all use to turn it into a [`ModelProvider`].

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::anthropic::AnthropicProvider;
use super::dialect::{TextToolDialect, TextToolProvider};
use super::formats::openai::OpenAiOptions;
use super::openai::OpenAiProvider;
use super::retry::RetryPolicy;
use super::transport::Transport;
use super::{MediaSupport, ModelProvider};
use crate::host::{Clock, HttpClient};
use crate::{Error, Result};

/// The API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub enum ProviderKind {
    /// The Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI's own Chat Completions API (sends `max_completion_tokens`).
    #[serde(rename = "openai")]
    OpenAi,
    /// A server that copies Chat Completions: OpenRouter, Ollama, LM Studio, vLLM… (sends
    /// `max_tokens`, and needs no API key).
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
}

impl ProviderKind {
    /// The base URL used when the configuration gives none.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => ANTHROPIC_BASE_URL,
            ProviderKind::OpenAi => OPENAI_BASE_URL,
            ProviderKind::OpenAiCompatible => OLLAMA_BASE_URL,
        }
    }
}

/// Anthropic's API; requests go to `{base}/v1/messages`.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// OpenAI's API; requests go to `{base}/chat/completions`, as for every compatible server.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Google's Gemini API, OpenAI-compatible; requests go to `{base}/chat/completions`.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta/openai";
/// Mistral's API (La Plateforme), OpenAI-compatible.
pub const MISTRAL_BASE_URL: &str = "https://api.mistral.ai/v1";
/// DeepSeek's API, OpenAI-compatible.
pub const DEEPSEEK_BASE_URL: &str = "https://api.deepseek.com";
/// Groq's API, OpenAI-compatible.
pub const GROQ_BASE_URL: &str = "https://api.groq.com/openai/v1";
/// xAI's API (Grok), OpenAI-compatible.
pub const XAI_BASE_URL: &str = "https://api.x.ai/v1";
/// OpenRouter.
pub const OPENROUTER_BASE_URL: &str = "https://openrouter.ai/api/v1";
/// Ollama on this machine.
pub const OLLAMA_BASE_URL: &str = "http://localhost:11434/v1";
/// LM Studio on this machine.
pub const LM_STUDIO_BASE_URL: &str = "http://localhost:1234/v1";

/// Everything needed to build a provider. Serialised in camelCase for the plugin's settings:
/// `{"kind": "anthropic", "model": "claude-sonnet-4-5", "apiKey": "…", "maxTokens": 8192}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// The model id sent to the API.
    pub model: String,
    /// Where the API lives; [`ProviderKind::default_base_url`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Required for Anthropic and OpenAI; optional for compatible servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The output limit the loop asks for unless it has a reason to ask for another.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Headers added to every request (OpenRouter's `HTTP-Referer` and `X-Title`, a proxy's
    /// auth).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// For models without native tool calling: describe the tools in the system prompt and
    /// read calls from the text in this dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_tool_dialect: Option<TextToolDialect>,
    /// OpenAI-compatible only: send earlier reasoning back as `reasoning_content`. DeepSeek's
    /// and Moonshot's APIs get it whatever this says (their thinking models refuse a tool
    /// call's follow-up without it).
    #[serde(default)]
    pub echo_reasoning: bool,
    /// Whether the model sees images; when absent, known from the model's name
    /// ([`ProviderConfig::sees_images`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
    /// OpenAI and compatible servers: which of OpenAI's APIs to speak; when absent, the
    /// Responses API to OpenAI's own (`api.openai.com`), Chat Completions to every other server
    /// ([`ProviderConfig::openai_api`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<OpenAiApi>,
    #[serde(default)]
    pub retry: RetryPolicy,
}

/// Which of OpenAI's APIs a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub enum OpenAiApi {
    /// `POST /chat/completions`: what every OpenAI-compatible server speaks.
    #[serde(rename = "chat-completions")]
    ChatCompletions,
    /// `POST /responses`: OpenAI's own API for its reasoning models, whose reasoning (encrypted)
    /// goes back with each tool call's result, and whose summaries of it stream as thinking.
    /// OpenAI's models that answer only there (o3-pro, the Codex models) need it.
    #[serde(rename = "responses")]
    Responses,
}

fn default_max_tokens() -> u32 {
    DEFAULT_MAX_TOKENS
}

/// The output limit when the configuration names none.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

impl ProviderConfig {
    /// A configuration of `kind` for `model` with every other field at its default.
    pub fn new(kind: ProviderKind, model: impl Into<String>) -> Self {
        ProviderConfig {
            kind,
            model: model.into(),
            base_url: None,
            api_key: None,
            max_tokens: DEFAULT_MAX_TOKENS,
            headers: BTreeMap::new(),
            text_tool_dialect: None,
            echo_reasoning: false,
            vision: None,
            api: None,
            retry: RetryPolicy::default(),
        }
    }

    /// The OpenAI API this configuration speaks: the one it names, else the Responses API to
    /// OpenAI's own and Chat Completions to every other server.
    pub fn openai_api(&self) -> OpenAiApi {
        match self.api {
            Some(api) => api,
            None if self.kind == ProviderKind::OpenAi && super::address::is_openai(self.effective_base_url()) => {
                OpenAiApi::Responses
            }
            None => OpenAiApi::ChatCompletions,
        }
    }

    /// Whether the model sees images: the `vision` setting when given, else what its name says.
    /// Every Claude from 3 on does; of OpenAI's, the 4o, 4.1, 4.5 and 5 families and the full o1,
    /// o3 and o4 models; of others, names that say so (`vision`, `-vl`, `llava`, Gemma 3,
    /// Pixtral, Gemini, Llama 4…). An unknown model is taken not to, so the user is told
    /// rather than the image silently ignored.
    pub fn sees_images(&self) -> bool {
        if let Some(vision) = self.vision {
            return vision;
        }
        let model = self.model.to_ascii_lowercase();
        let name = model.rsplit('/').next().unwrap_or(&model);
        if name.starts_with("claude") {
            return !name.starts_with("claude-2") && !name.starts_with("claude-instant");
        }
        const BLIND_OPENAI: [&str; 4] = ["o1-mini", "o3-mini", "gpt-3.5", "gpt-4-0"];
        const SEEING: [&str; 29] = [
            "gpt-4o",
            "gpt-4.1",
            "gpt-4.5",
            "gpt-4-turbo",
            "gpt-5",
            "chatgpt-4o",
            "o1",
            "o3",
            "o4",
            "vision",
            "-vl",
            "vl-",
            "llava",
            "bakllava",
            "gemma3",
            "gemma-3",
            "pixtral",
            "gemini",
            "llama4",
            "llama-4",
            "moondream",
            "minicpm-v",
            "mistral-small-3",
            // Mistral Medium 3 and later, and the aliases of Small 3.x and Large 3.
            "mistral-medium",
            "mistral-small-latest",
            "mistral-large-latest",
            "mistral-large-2512",
            "qvq",
            // Grok 4 and its fast models (not Grok Code, nor Grok 3).
            "grok-4",
        ];
        if BLIND_OPENAI.iter().any(|p| name.starts_with(p)) || name == "gpt-4" {
            return false;
        }
        SEEING.iter().any(|p| if p.len() <= 2 { name.starts_with(p) } else { name.contains(p) })
    }

    /// Whether a PDF can go to the model as a document: Anthropic's and OpenAI's own APIs
    /// read PDFs themselves; compatible servers get the PDF's text instead.
    pub fn reads_documents(&self) -> bool {
        matches!(self.kind, ProviderKind::Anthropic | ProviderKind::OpenAi)
    }

    /// Anthropic with `api_key`.
    pub fn anthropic(model: impl Into<String>, api_key: impl Into<String>) -> Self {
        Self::new(ProviderKind::Anthropic, model).with_api_key(api_key)
    }

    /// OpenAI with `api_key`.
    pub fn openai(model: impl Into<String>, api_key: impl Into<String>) -> Self {
        Self::new(ProviderKind::OpenAi, model).with_api_key(api_key)
    }

    /// OpenRouter with `api_key` (and the headers it asks for).
    pub fn openrouter(model: impl Into<String>, api_key: impl Into<String>) -> Self {
        super::ProviderPreset::OpenRouter.config(model).with_api_key(api_key)
    }

    /// A local Ollama server.
    pub fn ollama(model: impl Into<String>) -> Self {
        super::ProviderPreset::Ollama.config(model)
    }

    /// A local LM Studio server.
    pub fn lm_studio(model: impl Into<String>) -> Self {
        super::ProviderPreset::LmStudio.config(model)
    }

    /// Any Chat Completions server at `base_url` (the URL that `/chat/completions` follows).
    pub fn compatible(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(ProviderKind::OpenAiCompatible, model).with_base_url(base_url)
    }

    /// This configuration with `base_url`.
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self
    }

    /// This configuration with `api_key`.
    pub fn with_api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }

    /// The base URL in effect.
    pub fn effective_base_url(&self) -> &str {
        self.base_url.as_deref().filter(|u| !u.trim().is_empty()).unwrap_or(self.kind.default_base_url())
    }

    /// The base URL requests go under ([`address::api_base`](super::address::api_base) of the
    /// one in effect; for Anthropic also without a trailing `/v1` or `/v1/messages`, which its
    /// requests add) and the API key (none when blank), or why the API cannot be called: a base
    /// URL that is not http(s), no key where the API needs one.
    pub(crate) fn endpoint(&self) -> Result<(String, Option<&str>)> {
        let mut base_url = super::address::api_base(self.effective_base_url());
        if self.kind == ProviderKind::Anthropic {
            let base = base_url.strip_suffix("/messages").unwrap_or(&base_url);
            base_url = base.strip_suffix("/v1").unwrap_or(base).to_string();
        }
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(Error::Invalid(format!("the base URL {base_url:?} is not an http:// or https:// URL")));
        }
        let api_key = self.api_key.as_deref().filter(|k| !k.trim().is_empty());
        match self.kind {
            ProviderKind::Anthropic if api_key.is_none() => Err(Error::Invalid("Anthropic needs an API key".into())),
            ProviderKind::OpenAi if api_key.is_none() => Err(Error::Invalid("OpenAI needs an API key".into())),
            _ => Ok((base_url, api_key)),
        }
    }
}

/// Builds the provider `config` describes, calling out through `http` and waiting (between
/// retries) on `clock`. Refuses a configuration that cannot work: an empty model, a base URL
/// that is not http(s), a missing API key where the API needs one.
pub fn build(
    config: &ProviderConfig,
    http: Rc<dyn HttpClient>,
    clock: Rc<dyn Clock>,
) -> Result<Box<dyn ModelProvider>> {
    if config.model.trim().is_empty() {
        return Err(Error::Invalid("the provider configuration names no model".into()));
    }
    let (base_url, api_key) = config.endpoint()?;
    let api_key = api_key.map(str::to_string);
    let headers: Vec<(String, String)> = config.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let transport = Transport::new(http, clock, config.retry.clone());
    let media = MediaSupport { images: config.sees_images(), documents: config.reads_documents() };
    let provider: Box<dyn ModelProvider> = match config.kind {
        ProviderKind::Anthropic => {
            // `endpoint` refused an Anthropic configuration without a key.
            let key = api_key.unwrap_or_default();
            Box::new(AnthropicProvider::new(transport, &base_url, key, config.model.clone(), headers).with_media(media))
        }
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => {
            let official = config.kind == ProviderKind::OpenAi;
            let mistral = super::address::is_mistral(&base_url);
            let options = OpenAiOptions {
                // Azure serves OpenAI's models, whose reasoning ones refuse `max_tokens`.
                max_completion_tokens: official || super::address::is_azure(&base_url),
                // Mistral refuses `reasoning_content` in a message, even when asked to echo it.
                echo_reasoning: !mistral && (config.echo_reasoning || super::address::needs_reasoning_back(&base_url)),
                gemini: super::address::is_google(&base_url),
                reasoning_details: super::address::is_openrouter(&base_url),
                mistral,
            };
            let name = if official { "openai" } else { "openai-compatible" };
            Box::new(
                OpenAiProvider::new(transport, name, &base_url, api_key, config.model.clone(), options, headers)
                    .with_media(media)
                    .with_api(config.openai_api(), config.api.is_some()),
            )
        }
    };
    Ok(match config.text_tool_dialect {
        Some(dialect) => Box::new(TextToolProvider::new(provider, dialect)),
        // A compatible server may serve a model that takes no tools (many of Ollama's).
        None if config.kind == ProviderKind::OpenAiCompatible => {
            Box::new(TextToolProvider::fallback(provider, TextToolDialect::FencedJson))
        }
        None => provider,
    })
}
