//! How much of a conversation a model reads at once: the context windows of known models, so
//! that the history is condensed before a request stops fitting, whichever model a task calls.
//!
//! A window the user sets, or the one the provider's server reports for the model (the
//! plugin's model list keeps it), comes first; see [`crate::agent::AgentConfig::context_window_for`].

use super::pricing::longest_prefix;

/// What a task assumes of a model nobody reported and the list does not hold: most models a
/// user picks today read at least this much, and a server that refuses a longer request is
/// answered by condensing at once ([`crate::protocol::ErrorKind::ContextOverflow`]).
pub const FALLBACK_CONTEXT_WINDOW: u32 = 128_000;

/// Model id prefixes and the tokens a request to them may hold (the published context
/// window, less the output where the provider counts them apart). The longest matching prefix
/// wins, ids compared as [`super::list_price`] compares them. Checked 2025-11.
const WINDOWS: &[(&str, u32)] = &[
    ("claude", 200_000),
    // 400,000 in all, of which up to 128,000 are output: a request may hold 272,000.
    ("gpt-5", 272_000),
    ("gpt-5-chat", 128_000),
    ("gpt-4-1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4", 8_192),
    ("gpt-3-5-turbo", 16_385),
    ("o1", 200_000),
    ("o1-mini", 128_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gemini-1-5-pro", 2_097_152),
    ("gemini-1-5-flash", 1_048_576),
    ("gemini-2", 1_048_576),
    ("gemini-3", 1_048_576),
    // Google's aliases for its newest models.
    ("gemini-flash-latest", 1_048_576),
    ("gemini-flash-lite-latest", 1_048_576),
    ("gemini-pro-latest", 1_048_576),
    ("grok-4", 256_000),
    ("grok-4-fast", 2_000_000),
    ("grok-4-1-fast", 2_000_000),
    ("grok-code-fast", 256_000),
    ("grok-3", 131_072),
];

/// The context window of the model `id` if the list knows it (also through OpenRouter, whose
/// ids carry the vendor).
pub fn known_context_window(id: &str) -> Option<u32> {
    longest_prefix(WINDOWS, id).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_have_their_window_and_the_longest_prefix_wins() {
        assert_eq!(known_context_window("claude-sonnet-4-5-20250929"), Some(200_000));
        assert_eq!(known_context_window("anthropic/claude-haiku-4.5"), Some(200_000));
        assert_eq!(known_context_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(known_context_window("openai/gpt-4o-mini"), Some(128_000));
        assert_eq!(known_context_window("gpt-4-0613"), Some(8_192));
        assert_eq!(known_context_window("gpt-5-mini"), Some(272_000));
        assert_eq!(known_context_window("gpt-5-chat-latest"), Some(128_000));
        assert_eq!(known_context_window("o1-mini"), Some(128_000));
        assert_eq!(known_context_window("google/gemini-2.5-pro"), Some(1_048_576));
        assert_eq!(known_context_window("gemini-flash-latest"), Some(1_048_576));
        assert_eq!(known_context_window("models/gemini-3-pro-preview"), Some(1_048_576));
        assert_eq!(known_context_window("grok-4-0709"), Some(256_000));
        assert_eq!(known_context_window("x-ai/grok-4-fast"), Some(2_000_000));
    }

    #[test]
    fn a_model_off_the_list_has_none() {
        assert_eq!(known_context_window("llama3.2"), None);
        assert_eq!(known_context_window(""), None);
        assert_eq!(known_context_window("my-model"), None);
    }
}
