//! Fields a model API refuses by name, and the same request without them.
//!
//! OpenAI-compatible servers differ in what they take, and say so only by refusing a request (HTTP
//! 400 or 422, before any output): `stream_options` (Groq did, older Azure API versions, a
//! proxy in front of Mistral), a temperature other than the default (OpenAI's reasoning models),
//! `max_tokens` where the server wants `max_completion_tokens` (OpenAI's reasoning models
//! behind a proxy or Azure) or the other way round (Mistral), `reasoning_effort` to a model that
//! does not think (OpenAI's `gpt-4.1`), an output limit above the model's
//! ("This model supports at most 4096 completion tokens", "the valid range of max_tokens is [1,
//! 8192]"; Anthropic's "max_tokens: 8192 > 4096, which is the maximum allowed number of output
//! tokens for claude-3-haiku"). Each such refusal names the field: [`send`] sends the request
//! again at once with it adjusted, and the provider remembers the adjustment for its later
//! requests. Three refusals are answered for one request only: an output limit that does not
//! fit the window beside the prompt ([`room_for_output`]), reasoning the Responses API could not
//! verify ([`without_reasoning_items`]), and a tool call the server could not read
//! ([`ask_for_the_call_again`]).

use std::cell::Cell;
use std::rc::Rc;

use futures::stream::StreamExt;
use serde_json::{Map, Value};

use super::formats::StreamDecoder;
use super::transport::Transport;
use super::EventStream;
use crate::cancel::CancelToken;
use crate::host::HttpRequest;
use crate::protocol::{ErrorKind, ProviderError, StreamEvent};

/// Where and how a body is posted: the URL and every header (the key's among them).
#[derive(Clone)]
pub(crate) struct Post {
    pub url: String,
    pub headers: Vec<(String, String)>,
}

impl Post {
    fn request(&self, body: &Value) -> HttpRequest {
        self.headers
            .iter()
            .fold(HttpRequest::post_json(&self.url, body), |http, (name, value)| http.header(name, value))
    }
}

/// Streams `body`, decoded by a fresh decoder from `decoder` for each attempt; a refusal of a
/// field by name ([`Learned::learn`]) sends it again, adjusted, instead of reaching the caller.
/// The refusal comes before any output (a 4xx is not retried), so nothing of the refused
/// attempt reached the caller; an error after output is the caller's. The body is kept as the
/// bytes sent (lighter than its JSON value) until the first output, and read back only for such
/// a refusal.
pub(crate) fn send<D, F>(
    transport: &Transport,
    post: Post,
    learned: &Rc<Learned>,
    body: &Value,
    cancel: &CancelToken,
    decoder: F,
) -> EventStream
where
    D: StreamDecoder + 'static,
    F: Fn() -> D + Clone + 'static,
{
    let request = post.request(body);
    let mut sent = request.body.clone();
    // A whole answer comes at once, after the model has written all of it (minutes, for a
    // reasoning model): no byte arrives before, which the streams' idle limit would cut.
    let transport = match body.get("stream") {
        Some(Value::Bool(false)) => transport.unhurried(),
        _ => transport.clone(),
    };
    let first = transport.stream(request, decoder.clone(), cancel);
    let (transport, learned, cancel) = (transport.clone(), learned.clone(), cancel.clone());
    first
        .flat_map(move |event| {
            if event.is_output() {
                sent = None;
            }
            let refused = match &event {
                StreamEvent::Error { error } => sent
                    .take()
                    .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
                    .and_then(|body| adjusted(&learned, error, body).map(|(body, fix)| (body, fix, error.clone()))),
                _ => None,
            };
            match refused {
                Some((body, fix, error)) => {
                    let again = send(&transport, post.clone(), &learned, &body, &cancel, decoder.clone());
                    let notice = fix.and_then(|fix| fix.notice(&error)).map(|message| StreamEvent::Notice { message });
                    futures::stream::iter(notice).chain(again).boxed_local()
                }
                None => futures::stream::iter([event]).boxed_local(),
            }
        })
        .boxed_local()
}

/// `body` adjusted to what `error` refused, if it refused something a change of the body fixes,
/// with the fix the provider learned, if it learned one: a field or limit the provider learns
/// ([`Learned::learn`]); or, for this request only, an output limit that does not fit the
/// model's window beside its prompt ([`room_for_output`]: the next prompt is another length),
/// or a tool call the server could not read ([`ask_for_the_call_again`]).
fn adjusted(learned: &Learned, error: &ProviderError, mut body: Value) -> Option<(Value, Option<Fix>)> {
    if let Some(fix) = learned.learn(error, &body) {
        learned.adjust(&mut body);
        return Some((body, Some(fix)));
    }
    if let Some(room) = room_for_output(error, body.as_object()?) {
        Fix::LimitAt(room).apply(body.as_object_mut()?);
        return Some((body, None));
    }
    if let Some(body) = without_reasoning_items(error, &body) {
        return Some((body, None));
    }
    ask_for_the_call_again(error, body).map(|body| (body, None))
}

/// `body` without the reasoning items of its input, when the Responses API could not verify
/// one ("The encrypted content gAAA…Rg== could not be verified", `invalid_encrypted_content`:
/// reasoning kept from an earlier session or model, or a fault on OpenAI's side that users of
/// other clients have met). The model loses that reasoning, not the chat: without this every
/// later request of the chat, which carries the same items, would be refused too.
fn without_reasoning_items(error: &ProviderError, body: &Value) -> Option<Value> {
    let message = error.message.to_ascii_lowercase();
    if !(message.contains("encrypted content") && message.contains("could not be verified")) {
        return None;
    }
    let input = body.get("input")?.as_array()?;
    let kept: Vec<Value> =
        input.iter().filter(|item| item.get("type").and_then(Value::as_str) != Some("reasoning")).cloned().collect();
    if kept.len() == input.len() {
        return None;
    }
    let mut body = body.clone();
    body["input"] = Value::Array(kept);
    Some(body)
}

/// What the model is told when the server refused the tool call it wrote (below).
const CALL_AGAIN: &str = "Your last tool call could not be read: its arguments must be one JSON object that matches \
the tool's schema. Call the tool again, or answer without it.";

/// `body` with the model asked to write its tool call again, when the server refused the call
/// the model wrote before any of it was streamed: Groq checks each call against the tool's
/// schema and answers "Failed to call a function. Please adjust your prompt." (`tool_use_failed`)
/// instead — often, with some models (users of Kimi K2 there reported most calls refused).
/// Sampling again with the model told why usually succeeds; at most twice a request, then the
/// error is the caller's. (Once some of the answer has streamed, the agent's loop asks instead.)
fn ask_for_the_call_again(error: &ProviderError, mut body: Value) -> Option<Value> {
    const TIMES: usize = 2;
    if !error.refused_tool_call() {
        return None;
    }
    let messages = body.get_mut("messages")?.as_array_mut()?;
    let asked = messages.iter().filter(|m| m.get("content").and_then(Value::as_str) == Some(CALL_AGAIN)).count();
    if asked >= TIMES {
        return None;
    }
    messages.push(serde_json::json!({"role": "user", "content": CALL_AGAIN}));
    Some(body)
}

/// One adjustment of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fix {
    /// Leave out `stream_options` (usage in the stream is only a nicety).
    NoStreamOptions,
    /// Leave out `temperature`: the model takes only its default.
    NoTemperature,
    /// Send the output limit under the other name (`max_tokens` ⇄ `max_completion_tokens`).
    OtherLimitName,
    /// Leave out `reasoning_effort` (Chat Completions), or `reasoning` and the encrypted
    /// reasoning asked to be `include`d (the Responses API): the model does not think (OpenAI's
    /// `gpt-4.1`).
    NoReasoningEffort,
    /// Leave out `reasoning.summary` (the Responses API): OpenAI gives summaries of a model's
    /// reasoning only to organizations that verified their identity ("Your organization must be
    /// verified to generate reasoning summaries"), and some models give none.
    NoReasoningSummary,
    /// Ask for the whole answer at once: OpenAI streams its newest models (GPT-5, o3) only to
    /// organizations that verified their identity, and answers others "Your organization must
    /// be verified to stream this model" — the same request without `stream` works for them.
    NoStream,
    /// Ask for at most this many output tokens: the most the model gives.
    LimitAt(u64),
}

/// The names an output limit goes by.
const LIMITS: [&str; 3] = ["max_tokens", "max_completion_tokens", "max_output_tokens"];

impl Fix {
    /// The fixes that leave out or rename a field, each learned once.
    const FIELDS: [Fix; 6] = [
        Fix::NoStreamOptions,
        Fix::NoTemperature,
        Fix::OtherLimitName,
        // Before the effort: a refusal of the summary alone keeps the reasoning.
        Fix::NoReasoningSummary,
        Fix::NoReasoningEffort,
        Fix::NoStream,
    ];

    fn bit(self) -> u8 {
        match self {
            Fix::NoStreamOptions => 1,
            Fix::NoTemperature => 2,
            Fix::OtherLimitName => 4,
            Fix::NoReasoningEffort => 8,
            Fix::NoStream => 16,
            Fix::NoReasoningSummary => 32,
            Fix::LimitAt(_) => 0,
        }
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
            Fix::NoReasoningEffort => {
                (body.contains_key("reasoning_effort") && message.contains("reasoning_effort"))
                    || (body.contains_key("include")
                        && (message.contains("'reasoning.")
                            || message.contains("reasoning.effort")
                            || (message.contains("encrypted content") && refused)))
            }
            Fix::NoReasoningSummary => {
                body.get("reasoning").and_then(|r| r.get("summary")).is_some()
                    && (message.contains("reasoning summar") || message.contains("reasoning.summary"))
            }
            Fix::NoStream => body.get("stream") == Some(&Value::Bool(true)) && message.contains("verified to stream"),
            Fix::LimitAt(_) => false,
        }
    }

    /// What the user should know once this fix is learned from `error`: a change they will see
    /// (answers that no longer stream), and why.
    fn notice(self, error: &ProviderError) -> Option<String> {
        let quoted = error.message.trim();
        match self {
            Fix::NoStream => Some(format!(
                "Answers arrive whole from now on, once written: the server does not stream this model to this \
                 account (\u{201c}{quoted}\u{201d})."
            )),
            Fix::NoReasoningSummary if quoted.to_ascii_lowercase().contains("verified") => Some(format!(
                "The model's thinking stays hidden: OpenAI shows summaries of it only to organizations that verified \
                 their identity (\u{201c}{quoted}\u{201d})."
            )),
            _ => None,
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
            Fix::NoReasoningSummary => {
                if let Some(Value::Object(reasoning)) = body.get_mut("reasoning") {
                    reasoning.remove("summary");
                    if reasoning.is_empty() {
                        body.remove("reasoning");
                    }
                }
            }
            Fix::NoReasoningEffort => {
                body.remove("reasoning_effort");
                if body.remove("include").is_some() {
                    body.remove("reasoning");
                }
            }
            Fix::NoStream => {
                body.insert("stream".into(), Value::Bool(false));
                body.remove("stream_options");
            }
            Fix::OtherLimitName => {
                if let Some(limit) = body.remove("max_tokens") {
                    body.insert("max_completion_tokens".into(), limit);
                } else if let Some(limit) = body.remove("max_completion_tokens") {
                    body.insert("max_tokens".into(), limit);
                }
            }
            Fix::LimitAt(most) => {
                for name in LIMITS {
                    if body.get(name).and_then(Value::as_u64).is_some_and(|limit| limit > most) {
                        body.insert(name.into(), most.into());
                    }
                }
                within_limit(body, most);
            }
        }
    }
}

/// A thinking budget below the output limit `most`, as the APIs require (the budget is part
/// of the output): half of it. Anthropic's `thinking.budget_tokens` is at least 1,024, so below
/// that thinking is left out; OpenRouter's `reasoning.max_tokens` has no floor.
fn within_limit(body: &mut Map<String, Value>, most: u64) {
    const LEAST_THINKING: u64 = 1024;
    let budget = |body: &Map<String, Value>, object: &str, field: &str| {
        body.get(object)?.get(field)?.as_u64().filter(|budget| *budget >= most)
    };
    if budget(body, "thinking", "budget_tokens").is_some() {
        if most / 2 >= LEAST_THINKING {
            body["thinking"]["budget_tokens"] = (most / 2).into();
        } else {
            body.remove("thinking");
        }
    }
    if budget(body, "reasoning", "max_tokens").is_some() {
        body["reasoning"]["max_tokens"] = (most / 2).into();
    }
}

/// The output limit that fits the model's window beside the prompt, when `error` says the two
/// together do not fit (the limit counts against the window on vLLM, SGLang, TGI, Anthropic,
/// OpenAI's older models and DeepSeek), and the prompt alone does: the window less the prompt
/// and a small margin, if below the limit asked for and not too small to answer in. The
/// servers word it differently; each names the window and the prompt's tokens:
/// - vLLM: "This model's maximum context length is 4096 tokens. However, you requested 8292
///   tokens (100 in the messages, 8192 in the completion)", "… is too large: 8192. This
///   model's maximum context length is 4096 tokens and your request has 100 input tokens
///   (8192 \> 4096 - 100)", "… However, you requested 8192 output tokens and your prompt
///   contains at least 100 input tokens, for a total of at least 8292 tokens";
/// - SGLang: "… maximum context length of 4096 tokens. You requested a total of 8292 tokens:
///   100 tokens from the input messages and 8192 tokens for the completion";
/// - TGI: "`inputs` tokens + `max_new_tokens` must be <= 4096. Given: 100 `inputs` tokens and
///   8192 `max_new_tokens`";
/// - Anthropic: "input length and `max_tokens` exceed context limit: 197202 + 8192 > 200000".
///
/// The window is the number after the phrase that names it; the prompt's tokens are the largest
/// other number below it that is not the limit asked for. A prompt longer than the window
/// leaves none (the conversation must be condensed), and so does a message in another shape.
fn room_for_output(error: &ProviderError, body: &Map<String, Value>) -> Option<u64> {
    /// Answering in fewer tokens than this is not answering.
    const LEAST_ROOM: u64 = 256;
    /// Servers count a prompt's tokens "at least" so (vLLM's newest message): some slack.
    const MARGIN: u64 = 32;
    if !matches!(error.kind, ErrorKind::ContextOverflow | ErrorKind::BadRequest) {
        return None;
    }
    let asked = asked_limit(body)?;
    let message = error.message.to_ascii_lowercase();
    let window = ["maximum context length is", "maximum context length of", "must be <=", "context limit:"]
        .iter()
        .find_map(|phrase| {
            let after = &message[message.find(phrase)? + phrase.len()..];
            // Anthropic's "context limit: 197202 + 8192 > 200000": the window comes after `>`.
            let after = if *phrase == "context limit:" { &after[after.find('>')?..] } else { after };
            numbers(after).next()
        })?;
    let prompt = numbers(&message).filter(|n| *n < window && *n != asked).max()?;
    let room = window.checked_sub(prompt)?.checked_sub(MARGIN)?;
    (LEAST_ROOM..asked).contains(&room).then_some(room)
}

/// The most output a refusal of the body's limit allows: the largest number in the message
/// below the limit asked for ("supports at most 4096 completion tokens, whereas you provided
/// 8192"; "the valid range of max_tokens is [1, 8192]"), when the message is about the limit.
fn most_output(message: &str, body: &Map<String, Value>) -> Option<u64> {
    let asked = asked_limit(body)?;
    if !(LIMITS.iter().any(|name| message.contains(name)) || message.contains("completion tokens")) {
        return None;
    }
    numbers(message)
        // No model's limit is this small: the 1 of "[1, 8192]" is not one.
        .filter(|n| (256..asked).contains(n))
        .max()
}

/// The output limit `body` asks for, under either name.
fn asked_limit(body: &Map<String, Value>) -> Option<u64> {
    LIMITS.iter().find_map(|name| body.get(*name)?.as_u64())
}

/// The whole numbers written in `text`, in order.
fn numbers(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.split(|c: char| !c.is_ascii_digit()).filter_map(|digits| digits.parse().ok())
}

/// The fixes one provider has learned, applied to each body it sends.
#[derive(Debug, Default)]
pub(crate) struct Learned {
    /// The [`Fix::FIELDS`] learned, by their bits.
    fields: Cell<u8>,
    /// The most output the model gives, once a refusal said so.
    most_output: Cell<Option<u64>>,
}

impl Learned {
    /// `body` as this server takes it, by what it refused before.
    pub fn adjust(&self, body: &mut Value) {
        let Some(fields) = body.as_object_mut() else { return };
        for fix in Fix::FIELDS.into_iter().filter(|fix| self.fields.get() & fix.bit() != 0) {
            fix.apply(fields);
        }
        if let Some(most) = self.most_output.get() {
            Fix::LimitAt(most).apply(fields);
        }
    }

    /// The fix `error` asks of `body`, learned from now on, if it is a refusal of a field this
    /// provider has not yet learned to adjust, or of a limit above one it has learned (so a
    /// request is sent again at most once per fix, and for a lower limit each time).
    pub fn learn(&self, error: &ProviderError, body: &Value) -> Option<Fix> {
        if error.kind != ErrorKind::BadRequest {
            return None;
        }
        let fields = body.as_object()?;
        let message = error.message.to_ascii_lowercase();
        let learned = self.fields.get();
        if let Some(fix) = Fix::FIELDS.into_iter().find(|fix| learned & fix.bit() == 0 && fix.answers(&message, fields))
        {
            self.fields.set(learned | fix.bit());
            return Some(fix);
        }
        let most =
            most_output(&message, fields).filter(|most| self.most_output.get().is_none_or(|known| *most < known))?;
        self.most_output.set(Some(most));
        Some(Fix::LimitAt(most))
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
            "stream_options": {"include_usage": true}, "reasoning_effort": "low"});
        let learned = Learned::default();
        let cases = [
            ("property 'stream_options' is unsupported, did you mean 'stream'?", Fix::NoStreamOptions),
            (
                "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
                Fix::NoReasoningEffort,
            ),
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

    /// A limit above the model's is lowered to what the refusal says the model gives.
    #[test]
    fn an_output_limit_above_the_models_is_lowered_to_it() {
        let cases = [
            (
                json!({"max_tokens": 8192}),
                "max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.",
                4096,
            ),
            (json!({"max_tokens": 16384}), "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", 8192),
            (
                json!({"max_completion_tokens": 32768}),
                "`max_completion_tokens` must be less than or equal to `8192`, the maximum value for this model",
                8192,
            ),
        ];
        for (body, message, most) in cases {
            let learned = Learned::default();
            assert_eq!(learned.learn(&refusal(message), &body), Some(Fix::LimitAt(most)), "{message}");
            let mut adjusted = body.clone();
            learned.adjust(&mut adjusted);
            assert_eq!(adjusted.as_object().unwrap().values().next().unwrap().as_u64(), Some(most));
            // The same refusal again (nothing lower in it) is not learned twice.
            assert_eq!(learned.learn(&refusal(message), &adjusted), None);
        }
        // A refusal about something else that has numbers in it is not about the limit.
        let other = refusal("The model `gpt-4-0613` does not exist or you do not have access to it (1234)");
        assert_eq!(Learned::default().learn(&other, &json!({"max_tokens": 8192})), None);
    }

    fn overflow(message: &str) -> ProviderError {
        ProviderError { kind: ErrorKind::ContextOverflow, ..refusal(message) }
    }

    /// Each server's way of saying the prompt and the limit together overflow the window gives
    /// the room the prompt leaves; a prompt that overflows alone gives none.
    #[test]
    fn the_room_beside_the_prompt_is_read_from_each_servers_message() {
        let body = json!({"max_tokens": 8192});
        let cases = [
            (
                "This model's maximum context length is 4096 tokens. However, you requested 8292 tokens (100 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
                Some(4096 - 100 - 32),
            ),
            (
                "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8192 > 4096 - 2778). None",
                Some(4096 - 2778 - 32),
            ),
            (
                "This model's maximum context length is 32768 tokens. However, you requested 8192 output tokens and your prompt contains at least 26000 input tokens, for a total of at least 34192 tokens.",
                Some(32768 - 26000 - 32),
            ),
            (
                "Requested token count exceeds the model's maximum context length of 16384 tokens. You requested a total of 18192 tokens: 10000 tokens from the input messages and 8192 tokens for the completion.",
                Some(16384 - 10000 - 32),
            ),
            (
                "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 2000 `inputs` tokens and 8192 `max_new_tokens`",
                Some(8192 - 2000 - 32),
            ),
            (
                "input length and `max_tokens` exceed context limit: 197202 + 8192 > 200000, decrease input length or `max_tokens` and try again",
                Some(200_000 - 197_202 - 32),
            ),
            // The prompt alone is longer than the window: condensing, not a smaller limit.
            (
                "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (114754 in the messages, 8192 in the completion).",
                None,
            ),
            ("prompt is too long: 210000 tokens > 200000 maximum", None),
            // So little room that no answer fits in it.
            (
                "This model's maximum context length is 4096 tokens. However, you requested 12200 tokens (4008 in the messages, 8192 in the completion).",
                None,
            ),
            // Room for more than was asked: something else is wrong.
            (
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 130524 tokens (130000 in the messages, 524 in the functions).",
                None,
            ),
        ];
        for (message, room) in cases {
            assert_eq!(room_for_output(&overflow(message), body.as_object().unwrap()), room, "{message}");
        }
        let auth = ProviderError { kind: ErrorKind::Auth, ..overflow(cases[0].0) };
        assert_eq!(room_for_output(&auth, body.as_object().unwrap()), None);
    }

    /// Only this request gets the smaller limit; the provider learns nothing from it.
    #[test]
    fn a_limit_that_does_not_fit_beside_the_prompt_is_lowered_for_this_request_only() {
        let learned = Learned::default();
        let message = "This model's maximum context length is 4096 tokens. However, you requested 8292 tokens (100 in the messages, 8192 in the completion).";
        let (body, fix) = adjusted(&learned, &overflow(message), json!({"model": "m", "max_tokens": 8192})).unwrap();
        assert_eq!((body.clone(), fix), (json!({"model": "m", "max_tokens": 3964}), None));
        let mut next = json!({"model": "m", "max_tokens": 8192});
        learned.adjust(&mut next);
        assert_eq!(next["max_tokens"], 8192);
        // Sent again with the room, a second refusal asks for less still or is the caller's.
        assert_eq!(adjusted(&learned, &overflow(message), body), None);
    }

    /// A thinking budget stays below a lowered limit, as the APIs require.
    #[test]
    fn a_thinking_budget_stays_below_a_lowered_limit() {
        let mut anthropic = json!({"max_tokens": 32000, "thinking": {"type": "enabled", "budget_tokens": 16000}});
        Fix::LimitAt(8192).apply(anthropic.as_object_mut().unwrap());
        assert_eq!(anthropic, json!({"max_tokens": 8192, "thinking": {"type": "enabled", "budget_tokens": 4096}}));
        Fix::LimitAt(1500).apply(anthropic.as_object_mut().unwrap());
        assert_eq!(anthropic, json!({"max_tokens": 1500}), "under Anthropic's least budget, no thinking");
        let mut openrouter = json!({"max_tokens": 12000, "reasoning": {"max_tokens": 4000}});
        Fix::LimitAt(3000).apply(openrouter.as_object_mut().unwrap());
        assert_eq!(openrouter, json!({"max_tokens": 3000, "reasoning": {"max_tokens": 1500}}));
        let mut below = json!({"max_tokens": 12000, "reasoning": {"max_tokens": 2000}});
        Fix::LimitAt(8000).apply(below.as_object_mut().unwrap());
        assert_eq!(below["reasoning"]["max_tokens"], 2000, "a budget already below stays");
    }

    /// An account OpenAI does not stream the model to: the whole answer is asked for, from now on.
    #[test]
    fn a_model_the_account_may_not_stream_is_asked_for_whole_answers() {
        let learned = Learned::default();
        let refused = refusal("Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.");
        let body = json!({"model": "gpt-5", "stream": true, "stream_options": {"include_usage": true}});
        let (again, fix) = adjusted(&learned, &refused, body.clone()).unwrap();
        assert_eq!((again, fix), (json!({"model": "gpt-5", "stream": false}), Some(Fix::NoStream)));
        let mut later = body;
        learned.adjust(&mut later);
        assert_eq!(later["stream"], false);
        // A whole answer's wait is not a stream's.
        let policy = crate::provider::RetryPolicy::default();
        assert_eq!(policy.clone().unhurried().idle_timeout_ms, super::super::retry::WHOLE_ANSWER_MS);
        assert_eq!(crate::provider::RetryPolicy { idle_timeout_ms: 0, ..policy }.unhurried().idle_timeout_ms, 0);
    }

    /// Groq's refusal of a badly written tool call: the model is asked to write it again, twice
    /// at most.
    #[test]
    fn a_tool_call_the_server_could_not_read_is_asked_for_again_twice() {
        let learned = Learned::default();
        let refused = refusal("Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details. The model wrote: search{\"q\"");
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "find cats"}]});
        let (once, _) = adjusted(&learned, &refused, body).unwrap();
        assert_eq!(once["messages"][1], json!({"role": "user", "content": CALL_AGAIN}));
        let (twice, _) = adjusted(&learned, &refused, once).unwrap();
        assert_eq!(twice["messages"].as_array().unwrap().len(), 3);
        assert_eq!(adjusted(&learned, &refused, twice), None, "a third refusal is the caller's");
        let other = refusal("Invalid value for 'tool_choice'");
        assert_eq!(adjusted(&learned, &other, json!({"messages": []})), None);
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
