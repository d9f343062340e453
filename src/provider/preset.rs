//! The providers a user picks by name — in the plugin's settings, generated from this table
//! (`PRESETS` in `js/generated/protocol.ts`) — each a kind of API at a base URL, with the model
//! a new user starts with, whether it needs a key, and the headers the service asks for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::config::{
    ProviderConfig, ProviderKind, ANTHROPIC_BASE_URL, DEEPSEEK_BASE_URL, GEMINI_BASE_URL, GROQ_BASE_URL,
    LM_STUDIO_BASE_URL, MISTRAL_BASE_URL, OLLAMA_BASE_URL, OPENAI_BASE_URL, OPENROUTER_BASE_URL, XAI_BASE_URL,
};

/// A provider by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ProviderPreset {
    Anthropic,
    #[serde(rename = "openai")]
    OpenAi,
    /// Azure OpenAI (and Azure AI Foundry): a resource of the user's, through its v1 API, where a
    /// model is one of the resource's deployments.
    Azure,
    /// Google's Gemini API, through its OpenAI-compatible endpoint.
    Gemini,
    /// Mistral's API (La Plateforme), through its OpenAI-compatible Chat Completions.
    Mistral,
    /// DeepSeek's API.
    DeepSeek,
    /// xAI's API (Grok).
    #[serde(rename = "xai")]
    XAi,
    /// Groq's API (open models on its own chips).
    Groq,
    #[serde(rename = "openrouter")]
    OpenRouter,
    Ollama,
    #[serde(rename = "lmstudio")]
    LmStudio,
    /// Any OpenAI-compatible server, at the base URL the user gives.
    Custom,
}

/// What a [`ProviderPreset`] stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PresetInfo {
    /// As the settings list it.
    pub name: String,
    pub kind: ProviderKind,
    /// Empty for [`ProviderPreset::Custom`]: the user gives it.
    pub base_url: String,
    /// The model used when the user names none (empty: they must).
    pub default_model: String,
    pub needs_key: bool,
    /// Where a user gets a key (empty where none is needed).
    pub key_url: String,
    /// Headers the service asks every request to carry.
    pub headers: BTreeMap<String, String>,
    /// What the settings say of the *Model* field, where the generic words would mislead (empty:
    /// they do not).
    pub model_help: String,
    /// What the settings say of the *Base URL* field, for a preset whose base URL is the user's
    /// own (empty: the generic words).
    pub base_url_help: String,
    /// The address that field shows as an example (empty: a local server's).
    pub base_url_example: String,
}

impl ProviderPreset {
    /// Every preset, in the order the settings list them.
    pub const ALL: [ProviderPreset; 12] = [
        ProviderPreset::Anthropic,
        ProviderPreset::OpenAi,
        ProviderPreset::Azure,
        ProviderPreset::Gemini,
        ProviderPreset::Mistral,
        ProviderPreset::DeepSeek,
        ProviderPreset::XAi,
        ProviderPreset::Groq,
        ProviderPreset::OpenRouter,
        ProviderPreset::Ollama,
        ProviderPreset::LmStudio,
        ProviderPreset::Custom,
    ];

    pub fn info(self) -> PresetInfo {
        let (name, kind, base_url, default_model, needs_key) = match self {
            ProviderPreset::Anthropic => {
                ("Anthropic", ProviderKind::Anthropic, ANTHROPIC_BASE_URL, "claude-sonnet-4-5", true)
            }
            ProviderPreset::OpenAi => ("OpenAI", ProviderKind::OpenAi, OPENAI_BASE_URL, "gpt-4.1", true),
            // The resource's address and its deployment are the user's own.
            ProviderPreset::Azure => ("Azure OpenAI", ProviderKind::OpenAiCompatible, "", "", true),
            // Google's alias for its newest Flash model, which has a free tier.
            ProviderPreset::Gemini => {
                ("Google Gemini", ProviderKind::OpenAiCompatible, GEMINI_BASE_URL, "gemini-flash-latest", true)
            }
            // Mistral's general model with tool use; its free plan allows it.
            ProviderPreset::Mistral => {
                ("Mistral AI", ProviderKind::OpenAiCompatible, MISTRAL_BASE_URL, "mistral-medium-latest", true)
            }
            ProviderPreset::DeepSeek => {
                ("DeepSeek", ProviderKind::OpenAiCompatible, DEEPSEEK_BASE_URL, "deepseek-chat", true)
            }
            ProviderPreset::XAi => ("xAI (Grok)", ProviderKind::OpenAiCompatible, XAI_BASE_URL, "grok-4", true),
            // An open model Groq recommends for tool use; its free plan allows it.
            ProviderPreset::Groq => {
                ("Groq", ProviderKind::OpenAiCompatible, GROQ_BASE_URL, "openai/gpt-oss-120b", true)
            }
            ProviderPreset::OpenRouter => {
                ("OpenRouter", ProviderKind::OpenAiCompatible, OPENROUTER_BASE_URL, "anthropic/claude-sonnet-4.5", true)
            }
            ProviderPreset::Ollama => {
                ("Ollama (local)", ProviderKind::OpenAiCompatible, OLLAMA_BASE_URL, "qwen2.5", false)
            }
            ProviderPreset::LmStudio => {
                ("LM Studio (local)", ProviderKind::OpenAiCompatible, LM_STUDIO_BASE_URL, "", false)
            }
            ProviderPreset::Custom => ("Custom (OpenAI-compatible)", ProviderKind::OpenAiCompatible, "", "", false),
        };
        let key_url = match self {
            ProviderPreset::Anthropic => "https://console.anthropic.com/settings/keys",
            ProviderPreset::OpenAi => "https://platform.openai.com/api-keys",
            // The resource's *Keys and Endpoint* page.
            ProviderPreset::Azure => "https://portal.azure.com",
            ProviderPreset::Gemini => "https://aistudio.google.com/apikey",
            ProviderPreset::Mistral => "https://console.mistral.ai/api-keys",
            ProviderPreset::DeepSeek => "https://platform.deepseek.com/api_keys",
            ProviderPreset::XAi => "https://console.x.ai",
            ProviderPreset::Groq => "https://console.groq.com/keys",
            ProviderPreset::OpenRouter => "https://openrouter.ai/keys",
            ProviderPreset::Ollama | ProviderPreset::LmStudio | ProviderPreset::Custom => "",
        };
        let headers = match self {
            // OpenRouter ranks apps by these; without them requests still work.
            ProviderPreset::OpenRouter => [("HTTP-Referer", "https://obsidian.md"), ("X-Title", "Vault Agent")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            _ => BTreeMap::new(),
        };
        let (model_help, base_url_help, base_url_example) = match self {
            ProviderPreset::Azure => (
                "The name you gave the model's deployment (Azure AI Foundry → Deployments).",
                "Your resource's endpoint, as the Azure portal shows it under Keys and Endpoint (a deployment's target URI works too).",
                "NAME.openai.azure.com",
            ),
            _ => ("", "", ""),
        };
        PresetInfo {
            name: name.into(),
            kind,
            base_url: base_url.into(),
            default_model: default_model.into(),
            needs_key,
            key_url: key_url.into(),
            headers,
            model_help: model_help.into(),
            base_url_help: base_url_help.into(),
            base_url_example: base_url_example.into(),
        }
    }

    /// A configuration of this preset for `model`: its kind, base URL and headers.
    pub fn config(self, model: impl Into<String>) -> ProviderConfig {
        let info = self.info();
        let mut config = ProviderConfig::new(info.kind, model);
        if !info.base_url.is_empty() {
            config.base_url = Some(info.base_url);
        }
        config.headers = info.headers;
        config
    }
}

/// The presets as the TypeScript constant `PRESETS` (`{anthropic: {name, kind, …}, …}`, in
/// [`ProviderPreset::ALL`]'s order), for the generated TypeScript.
pub fn presets_ts() -> String {
    let entries: Vec<String> = ProviderPreset::ALL
        .iter()
        .map(|p| {
            let key = serde_json::to_string(p).unwrap_or_default();
            let info = serde_json::to_string(&p.info()).unwrap_or_default();
            format!("  {key}: {info},")
        })
        .collect();
    format!("export const PRESETS: Record<ProviderPreset, PresetInfo> = {{\n{}\n}};\n", entries.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_name_the_settings_ids_and_build_their_configs() {
        let names: Vec<String> = ProviderPreset::ALL.iter().map(|p| serde_json::to_string(p).unwrap()).collect();
        assert_eq!(
            names,
            [
                "\"anthropic\"",
                "\"openai\"",
                "\"azure\"",
                "\"gemini\"",
                "\"mistral\"",
                "\"deepseek\"",
                "\"xai\"",
                "\"groq\"",
                "\"openrouter\"",
                "\"ollama\"",
                "\"lmstudio\"",
                "\"custom\""
            ]
        );
        let openrouter = ProviderPreset::OpenRouter.config("x/y");
        assert_eq!(openrouter.base_url.as_deref(), Some(OPENROUTER_BASE_URL));
        assert_eq!(openrouter.headers.get("X-Title").map(String::as_str), Some("Vault Agent"));
        assert_eq!(ProviderPreset::Custom.config("m").base_url, None);
        let gemini = ProviderPreset::Gemini.config("gemini-flash-latest");
        assert_eq!(gemini.base_url.as_deref(), Some("https://generativelanguage.googleapis.com/v1beta/openai"));
        assert_eq!(gemini.kind, ProviderKind::OpenAiCompatible);
        let deepseek = ProviderPreset::DeepSeek.config("deepseek-reasoner");
        assert!(crate::provider::address::needs_reasoning_back(deepseek.effective_base_url()));
        let mistral = ProviderPreset::Mistral.info();
        assert_eq!((mistral.base_url.as_str(), mistral.needs_key), ("https://api.mistral.ai/v1", true));
        assert!(presets_ts().contains("\"lmstudio\": {\"name\":\"LM Studio (local)\""));
    }
}
