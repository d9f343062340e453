//! The provider options `chat` and `run` share, and the config they make.

use vault_agent::provider::{OpenAiApi, ProviderConfig, ProviderPreset, OPENAI_BASE_URL};
use vault_agent::{Error, Result};

/// The APIs the CLI can talk to.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Provider {
    /// The Anthropic Messages API (key: --api-key or ANTHROPIC_API_KEY).
    Anthropic,
    /// OpenAI (its Responses API), or any compatible server by --base-url (Chat Completions;
    /// key: --api-key or OPENAI_API_KEY; optional for local servers).
    Openai,
    /// Google's Gemini API, through its OpenAI-compatible endpoint (key: --api-key or
    /// GEMINI_API_KEY).
    Gemini,
    /// Mistral's API (La Plateforme), OpenAI-compatible (key: --api-key or MISTRAL_API_KEY).
    Mistral,
    /// DeepSeek's API, OpenAI-compatible (key: --api-key or DEEPSEEK_API_KEY).
    Deepseek,
    /// xAI's API (Grok), OpenAI-compatible (key: --api-key or XAI_API_KEY).
    Xai,
    /// Groq's API, OpenAI-compatible (key: --api-key or GROQ_API_KEY).
    Groq,
    /// Azure OpenAI: a resource's v1 API, the model a deployment's name (endpoint: --base-url or
    /// AZURE_OPENAI_ENDPOINT; key: --api-key or AZURE_OPENAI_API_KEY).
    Azure,
}

/// Which of OpenAI's APIs to speak.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Api {
    /// `/responses`: OpenAI's own API for its reasoning models.
    Responses,
    /// `/chat/completions`: what every compatible server speaks.
    ChatCompletions,
}

#[derive(clap::Args)]
pub struct ProviderArgs {
    /// Which API to call.
    #[arg(long, value_enum)]
    provider: Provider,
    /// The model id.
    #[arg(long)]
    model: String,
    /// Where the API lives (Anthropic: the URL before /v1/messages; OpenAI-compatible: the URL
    /// before /chat/completions, e.g. http://localhost:11434/v1 for Ollama).
    #[arg(long)]
    base_url: Option<String>,
    /// The API key; defaults to the provider's variable: $ANTHROPIC_API_KEY, $OPENAI_API_KEY,
    /// $GEMINI_API_KEY, $MISTRAL_API_KEY, $DEEPSEEK_API_KEY, $XAI_API_KEY, $GROQ_API_KEY or
    /// $AZURE_OPENAI_API_KEY.
    #[arg(long)]
    api_key: Option<String>,
    /// The output limit in tokens per model call.
    #[arg(long, default_value_t = vault_agent::provider::DEFAULT_MAX_TOKENS)]
    max_tokens: u32,
    /// A header sent with every request, `NAME: VALUE` (a proxy's or a gateway's own;
    /// repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// Which of OpenAI's APIs to speak (OpenAI, Azure and compatible servers); by default the
    /// Responses API to OpenAI itself and Chat Completions to every other server.
    #[arg(long, value_enum)]
    openai_api: Option<Api>,
}

impl ProviderArgs {
    /// The options given some other way (`resume`, where they are optional).
    pub fn new(
        provider: Provider,
        model: String,
        base_url: Option<String>,
        api_key: Option<String>,
        max_tokens: u32,
    ) -> Self {
        ProviderArgs { provider, model, base_url, api_key, max_tokens, headers: Vec::new(), openai_api: None }
    }

    /// These options with `headers` (`NAME: VALUE` each) sent with every request.
    pub fn with_headers(mut self, headers: Vec<String>) -> Self {
        self.headers = headers;
        self
    }

    /// The provider's config, or why it cannot work (a missing key). Base URLs, kinds and
    /// names come from the presets the plugin's settings list.
    pub fn config(&self) -> Result<ProviderConfig> {
        let (preset, env_key) = match self.provider {
            Provider::Anthropic => (ProviderPreset::Anthropic, "ANTHROPIC_API_KEY"),
            Provider::Openai => {
                // OpenAI itself, or a compatible server (which sends max_tokens and may need no key).
                let official = self.base_url.as_deref().is_none_or(|url| url.trim_end_matches('/') == OPENAI_BASE_URL);
                (if official { ProviderPreset::OpenAi } else { ProviderPreset::Custom }, "OPENAI_API_KEY")
            }
            Provider::Gemini => (ProviderPreset::Gemini, "GEMINI_API_KEY"),
            Provider::Mistral => (ProviderPreset::Mistral, "MISTRAL_API_KEY"),
            Provider::Deepseek => (ProviderPreset::DeepSeek, "DEEPSEEK_API_KEY"),
            Provider::Xai => (ProviderPreset::XAi, "XAI_API_KEY"),
            Provider::Groq => (ProviderPreset::Groq, "GROQ_API_KEY"),
            Provider::Azure => (ProviderPreset::Azure, "AZURE_OPENAI_API_KEY"),
        };
        let info = preset.info();
        let mut config = preset.config(&self.model);
        if let Some(base_url) = &self.base_url {
            config.base_url = Some(base_url.clone());
        } else if matches!(self.provider, Provider::Azure) {
            config.base_url = std::env::var("AZURE_OPENAI_ENDPOINT").ok().filter(|url| !url.trim().is_empty());
            if config.base_url.is_none() {
                return Err(Error::Invalid(
                    "Azure OpenAI needs your resource's endpoint: pass --base-url or set AZURE_OPENAI_ENDPOINT".into(),
                ));
            }
        }
        config.api_key = self.api_key.clone().or_else(|| std::env::var(env_key).ok()).filter(|k| !k.is_empty());
        config.max_tokens = self.max_tokens;
        config.api = self.openai_api.map(|api| match api {
            Api::Responses => OpenAiApi::Responses,
            Api::ChatCompletions => OpenAiApi::ChatCompletions,
        });
        for header in &self.headers {
            let (name, value) = header
                .split_once(':')
                .map(|(name, value)| (name.trim(), value.trim()))
                .filter(|(name, _)| !name.is_empty() && !name.contains(char::is_whitespace))
                .ok_or_else(|| Error::Invalid(format!("--header {header:?} is not NAME: VALUE")))?;
            config.headers.insert(name.to_string(), value.to_string());
        }
        if info.needs_key && config.api_key.is_none() {
            return Err(Error::Invalid(format!("{} needs an API key: pass --api-key or set {env_key}", info.name)));
        }
        Ok(config)
    }
}
