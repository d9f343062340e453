//! Fields an OpenAI-compatible server refuses by name, and the same request without them.
//!
//! Compatible servers differ in what they take, and say so only by refusing a request (HTTP
//! 400 or 422, before any output): `stream_options` (Groq did, older Azure API versions, a
//! proxy in front of Mistral), a temperature other than the default (OpenAI's reasoning models),
//! `max_tokens` where the server wants `max_completion_tokens` (OpenAI's reasoning models
//! behind a proxy or Azure) or the other way round (Mistral). Each such refusal names the field:
//! the request is sent again at once with it adjusted, and the provider remembers the
//! adjustment for its later requests.

use std::cell::Cell;

use serde_json::{Map, Value};

use crate::protocol::{ErrorKind, ProviderError};

/// One adjustment of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fix {
    /// Leave out `stream_options` (usage in the stream is only a nicety).
    NoStreamOptions,
    /// Leave out `temperature`: the model takes only its default.
    NoTemperature,
    /// Send the output limit under the other name (`max_tokens` ⇄ `max_completion_tokens`).
    OtherLimitName,
}

impl Fix {
    const ALL: [Fix; 3] = [Fix::NoStreamOptions, Fix::NoTemperature, Fix::OtherLimitName];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Whether `message` (lower-cased) refuses what this fix changes in `body`.
    fn answers(self, message: &str, body: &Map<String, Value>) -> bool {
        let refused = ["unsupported", "not supported", "does not support", "not permitted", "unrecognized"]
            .iter()
            .any(|word| message.contains(word));
        match self {
            Fix::NoStreamOptions => body.contains_key("stream_options") && message.contains("stream_options"),
            Fix::NoTemperature => body.contains_key("temperature") && message.contains("temperature") && refused,
            // "Use 'max_completion_tokens' instead" to a body with `max_tokens`; "max_completion_tokens:
            // Extra inputs are not permitted" to one with `max_completion_tokens`.
            Fix::OtherLimitName => {
                message.contains("max_completion_tokens")
                    && (body.contains_key("max_tokens") || (body.contains_key("max_completion_tokens") && refused))
            }
        }
    }

    fn apply(self, body: &mut Map<String, Value>) {
        match self {
            Fix::NoStreamOptions => {
                body.remove("stream_options");
            }
            Fix::NoTemperature => {
                body.remove("temperature");
            }
            Fix::OtherLimitName => {
                if let Some(limit) = body.remove("max_tokens") {
                    body.insert("max_completion_tokens".into(), limit);
                } else if let Some(limit) = body.remove("max_completion_tokens") {
                    body.insert("max_tokens".into(), limit);
                }
            }
        }
    }
}

/// The fixes one provider has learned, applied to each body it sends.
#[derive(Debug, Default)]
pub(crate) struct Learned(Cell<u8>);

impl Learned {
    /// `body` as this server takes it, by what it refused before.
    pub fn adjust(&self, body: &mut Value) {
        let Some(fields) = body.as_object_mut() else { return };
        for fix in Fix::ALL.into_iter().filter(|fix| self.0.get() & fix.bit() != 0) {
            fix.apply(fields);
        }
    }

    /// The fix `error` asks of `body`, learned from now on, if it is a refusal of a field this
    /// provider has not yet learned to adjust (so a request is sent again at most once per fix).
    pub fn learn(&self, error: &ProviderError, body: &Value) -> Option<Fix> {
        if error.kind != ErrorKind::BadRequest {
            return None;
        }
        let fields = body.as_object()?;
        let message = error.message.to_ascii_lowercase();
        let fix = Fix::ALL.into_iter().find(|fix| self.0.get() & fix.bit() == 0 && fix.answers(&message, fields))?;
        self.0.set(self.0.get() | fix.bit());
        Some(fix)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refusal(message: &str) -> ProviderError {
        ProviderError { kind: ErrorKind::BadRequest, message: message.into(), status: Some(400), retry_after_ms: None }
    }

    #[test]
    fn each_refusal_names_its_fix_once() {
        let body = json!({"model": "m", "max_tokens": 100, "temperature": 0.2, "stream": true,
            "stream_options": {"include_usage": true}});
        let learned = Learned::default();
        let cases = [
            ("property 'stream_options' is unsupported, did you mean 'stream'?", Fix::NoStreamOptions),
            (
                "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
                Fix::NoTemperature,
            ),
            (
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                Fix::OtherLimitName,
            ),
        ];
        for (message, fix) in cases {
            assert_eq!(learned.learn(&refusal(message), &body), Some(fix), "{message}");
            assert_eq!(learned.learn(&refusal(message), &body), None, "learned once: {message}");
        }
        let mut adjusted = body.clone();
        learned.adjust(&mut adjusted);
        assert_eq!(adjusted, json!({"model": "m", "max_completion_tokens": 100, "stream": true}));
    }

    #[test]
    fn mistral_refuses_max_completion_tokens_and_other_errors_are_left_alone() {
        let body = json!({"model": "m", "max_completion_tokens": 100});
        let learned = Learned::default();
        let refused = refusal("body.max_completion_tokens: Extra inputs are not permitted");
        assert_eq!(learned.learn(&refused, &body), Some(Fix::OtherLimitName));
        let mut adjusted = body.clone();
        learned.adjust(&mut adjusted);
        assert_eq!(adjusted, json!({"model": "m", "max_tokens": 100}));

        let fresh = Learned::default();
        let body = json!({"model": "m", "max_tokens": 100, "temperature": 0.5});
        assert_eq!(fresh.learn(&refusal("The model `m` does not exist"), &body), None);
        assert_eq!(fresh.learn(&refusal("temperature must be at most 2"), &body), None, "not a refusal of the field");
        let auth = ProviderError { kind: ErrorKind::Auth, ..refusal("stream_options") };
        assert_eq!(fresh.learn(&auth, &json!({"stream_options": {}})), None);
    }
}
