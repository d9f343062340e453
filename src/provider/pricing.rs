//! What a model call costs: list prices per model, for the chat's cost meter.
//!
//! Prices are the providers' published list prices in US dollars per million tokens (checked
//! 2025-11). They are an estimate for the meter, not a bill: a model not in the table has no
//! price (the meter then shows tokens only), and a user may set their own.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::address::is_loopback;
use super::{ProviderConfig, ProviderKind};
use crate::protocol::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    pub output: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
    /// Input written to the prompt cache.
    pub cache_write: f64,
}

impl ModelPrice {
    /// Nothing to pay: a model on the user's own machine.
    pub const FREE: ModelPrice = ModelPrice { input: 0.0, output: 0.0, cache_read: 0.0, cache_write: 0.0 };

    /// Anthropic's scheme: cache writes cost 1.25 × input, cache reads 0.1 × input.
    const fn anthropic(input: f64, output: f64) -> ModelPrice {
        ModelPrice { input, output, cache_read: input * 0.1, cache_write: input * 1.25 }
    }

    /// OpenAI's scheme: cached input has its own price; caching itself costs nothing extra.
    const fn openai(input: f64, output: f64, cached: f64) -> ModelPrice {
        ModelPrice { input, output, cache_read: cached, cache_write: input }
    }

    /// Google's scheme: input read from its implicit cache costs a tenth; caching itself
    /// costs nothing extra.
    const fn google(input: f64, output: f64) -> ModelPrice {
        ModelPrice { input, output, cache_read: input * 0.1, cache_write: input }
    }

    /// One price for all input, cached or not (Mistral's scheme).
    const fn flat(input: f64, output: f64) -> ModelPrice {
        ModelPrice { input, output, cache_read: input, cache_write: input }
    }

    /// The cost of `usage` in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let tokens = |n: u64, price: f64| n as f64 * price / 1_000_000.0;
        tokens(usage.input_tokens, self.input)
            + tokens(usage.output_tokens, self.output)
            + tokens(usage.cache_read_tokens, self.cache_read)
            + tokens(usage.cache_write_tokens, self.cache_write)
    }
}

/// Model id prefixes and their prices. The longest matching prefix wins, so `gpt-4.1-mini`
/// is not priced as `gpt-4.1`. Ids are compared lower-case with `.` read as `-`
/// (OpenRouter writes `claude-sonnet-4.5`, Anthropic `claude-sonnet-4-5`).
const PRICES: &[(&str, ModelPrice)] = &[
    ("claude-opus-4-5", ModelPrice::anthropic(5.0, 25.0)),
    ("claude-opus-4", ModelPrice::anthropic(15.0, 75.0)),
    ("claude-3-opus", ModelPrice::anthropic(15.0, 75.0)),
    ("claude-sonnet-4", ModelPrice::anthropic(3.0, 15.0)),
    ("claude-3-7-sonnet", ModelPrice::anthropic(3.0, 15.0)),
    ("claude-3-5-sonnet", ModelPrice::anthropic(3.0, 15.0)),
    ("claude-haiku-4-5", ModelPrice::anthropic(1.0, 5.0)),
    ("claude-3-5-haiku", ModelPrice::anthropic(0.8, 4.0)),
    ("claude-3-haiku", ModelPrice::anthropic(0.25, 1.25)),
    // The Pro models, which answer only through the Responses API, cost ten times their
    // siblings or more and read nothing from a cache; without their own rows the shorter
    // prefix would price them as the siblings.
    ("gpt-5-pro", ModelPrice::openai(15.0, 120.0, 15.0)),
    ("o3-pro", ModelPrice::openai(20.0, 80.0, 20.0)),
    ("o1-pro", ModelPrice::openai(150.0, 600.0, 150.0)),
    ("gpt-5-nano", ModelPrice::openai(0.05, 0.4, 0.005)),
    ("gpt-5-mini", ModelPrice::openai(0.25, 2.0, 0.025)),
    ("gpt-5", ModelPrice::openai(1.25, 10.0, 0.125)),
    ("gpt-4-1-nano", ModelPrice::openai(0.1, 0.4, 0.025)),
    ("gpt-4-1-mini", ModelPrice::openai(0.4, 1.6, 0.1)),
    ("gpt-4-1", ModelPrice::openai(2.0, 8.0, 0.5)),
    ("gpt-4o-mini", ModelPrice::openai(0.15, 0.6, 0.075)),
    ("gpt-4o", ModelPrice::openai(2.5, 10.0, 1.25)),
    ("o4-mini", ModelPrice::openai(1.1, 4.4, 0.275)),
    ("o3-mini", ModelPrice::openai(1.1, 4.4, 0.55)),
    ("o3", ModelPrice::openai(2.0, 8.0, 0.5)),
    ("o1", ModelPrice::openai(15.0, 60.0, 7.5)),
    // Prompts up to 200,000 tokens (the Pro models cost more above); the paid tier's prices
    // (the free tier costs nothing, within its limits). The `-latest` aliases move, so they
    // are not priced.
    ("gemini-3-pro", ModelPrice::google(2.0, 12.0)),
    ("gemini-3-flash", ModelPrice::google(0.5, 3.0)),
    ("gemini-2-5-pro", ModelPrice::google(1.25, 10.0)),
    ("gemini-2-5-flash", ModelPrice::google(0.3, 2.5)),
    ("gemini-2-5-flash-lite", ModelPrice::google(0.1, 0.4)),
    ("gemini-2-0-flash", ModelPrice::google(0.1, 0.4)),
    ("gemini-2-0-flash-lite", ModelPrice::google(0.075, 0.3)),
    // DeepSeek's (V3.2, both modes): input read from its cache costs a tenth.
    ("deepseek-chat", ModelPrice::openai(0.28, 0.42, 0.028)),
    ("deepseek-reasoner", ModelPrice::openai(0.28, 0.42, 0.028)),
    // xAI's: input read from its cache costs a quarter (a fifth, a tenth for the fast models).
    ("grok-4", ModelPrice::openai(3.0, 15.0, 0.75)),
    ("grok-4-fast", ModelPrice::openai(0.2, 0.5, 0.05)),
    ("grok-4-1-fast", ModelPrice::openai(0.2, 0.5, 0.05)),
    ("grok-code-fast", ModelPrice::openai(0.2, 1.5, 0.02)),
    ("grok-3", ModelPrice::openai(3.0, 15.0, 0.75)),
    ("grok-3-mini", ModelPrice::openai(0.3, 0.5, 0.075)),
    // Mistral's list prices (no discount for cached input). Its Large models are left out: the
    // 2024 ones and Large 3 share the prefix at different prices.
    ("mistral-medium", ModelPrice::flat(0.4, 2.0)),
    ("mistral-small", ModelPrice::flat(0.1, 0.3)),
    ("magistral-medium", ModelPrice::flat(2.0, 5.0)),
    ("magistral-small", ModelPrice::flat(0.5, 1.5)),
    ("codestral", ModelPrice::flat(0.3, 0.9)),
    ("devstral-medium", ModelPrice::flat(0.4, 2.0)),
    ("devstral-small", ModelPrice::flat(0.1, 0.3)),
];

/// The price of the model `config` names: free for a server on this machine (Ollama, LM
/// Studio), the list price of a known model (also through OpenRouter, whose ids carry the
/// vendor, as in `anthropic/claude-sonnet-4.5`), or `None` when unknown.
pub fn price_for(config: &ProviderConfig) -> Option<ModelPrice> {
    if config.kind == ProviderKind::OpenAiCompatible && is_loopback(config.effective_base_url()) {
        return Some(ModelPrice::FREE);
    }
    list_price(&config.model)
}

/// The list price of the model `id`, wherever it is served; `None` for a model not on the list.
pub fn list_price(id: &str) -> Option<ModelPrice> {
    longest_prefix(PRICES, id).copied()
}

/// The value of the entry of `table` whose prefix is the longest that starts the model `id`:
/// ids compared lower-case with `.` read as `-`, and without the vendor OpenRouter puts before
/// a `/`.
pub(crate) fn longest_prefix<'t, T>(table: &'t [(&str, T)], id: &str) -> Option<&'t T> {
    let id = id.trim().to_ascii_lowercase().replace('.', "-");
    let id = id.rsplit('/').next().unwrap_or(&id);
    table.iter().filter(|(prefix, _)| id.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: cache_read,
            cache_write_tokens: cache_write,
        }
    }

    #[test]
    fn anthropic_models_cost_input_output_and_cache_at_their_rates() {
        let price = price_for(&ProviderConfig::anthropic("claude-sonnet-4-5-20250929", "k")).unwrap();
        let cost = price.cost(&usage(1_000_000, 100_000, 2_000_000, 400_000));
        // 3 + 1.5 + 2 × 0.30 + 0.4 × 3.75
        assert!((cost - 6.6).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn the_longest_prefix_wins() {
        let price = |model: &str| price_for(&ProviderConfig::openai(model, "k")).unwrap().input;
        assert_eq!(price("gpt-4.1-mini"), 0.4);
        assert_eq!(price("gpt-4.1"), 2.0);
        assert_eq!(price("gemini-2.5-flash-lite"), 0.1);
        assert_eq!(price("models/gemini-2.5-flash"), 0.3);
        assert_eq!(price("google/gemini-3-pro-preview"), 2.0);
        assert!(list_price("gemini-flash-latest").is_none(), "an alias moves");
        assert_eq!(price("gpt-4o-mini-2024-07-18"), 0.15);
        assert_eq!(price("claude-opus-4-5"), 5.0);
        assert_eq!(price("claude-opus-4-1-20250805"), 15.0);
        assert_eq!(price("mistral-medium-latest"), 0.4);
        assert_eq!(price("deepseek-reasoner"), 0.28);
        assert_eq!(price("grok-4-0709"), 3.0);
        assert_eq!(price("x-ai/grok-4-fast"), 0.2);
        assert_eq!(price("magistral-medium-2509"), 2.0);
        assert!(list_price("mistral-large-latest").is_none(), "two generations, two prices");
        assert_eq!((price("o3-pro"), price("o3-2025-04-16")), (20.0, 2.0));
        assert_eq!((price("gpt-5-pro"), price("gpt-5-codex")), (15.0, 1.25));
    }

    #[test]
    fn openrouter_ids_carry_the_vendor_and_dots() {
        let price = price_for(&ProviderConfig::openrouter("anthropic/claude-haiku-4.5", "k")).unwrap();
        assert_eq!(price.output, 5.0);
    }

    #[test]
    fn local_servers_are_free_and_unknown_models_have_no_price() {
        assert_eq!(price_for(&ProviderConfig::ollama("llama3.2")), Some(ModelPrice::FREE));
        assert_eq!(price_for(&ProviderConfig::compatible("http://127.0.0.1:8080/v1", "x")), Some(ModelPrice::FREE));
        assert_eq!(price_for(&ProviderConfig::compatible("http://[::1]:1234/v1", "x")), Some(ModelPrice::FREE));
        assert_eq!(price_for(&ProviderConfig::compatible("https://example.com/v1", "my-model")), None);
        assert_eq!(price_for(&ProviderConfig::compatible("https://localhost.example.com/v1", "x")), None);
    }
}
