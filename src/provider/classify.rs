//! Sorting a failed model call into an [`ErrorKind`], from its HTTP status, headers and body, or
//! from an error object that arrived inside a stream.
//!
//! Both providers' error bodies are understood: Anthropic's
//! `{"type":"error","error":{"type":"rate_limit_error","message":…}}` and OpenAI's (and
//! OpenRouter's) `{"error":{"message":…,"type":…,"code":…}}`, whose `code` may be a number; and
//! Google's, `[{"error":{"code":400,"message":…,"status":"INVALID_ARGUMENT","details":[{"reason":…}]}}]`
//! (a list, or its one member); and the field checks of servers built on pydantic (Mistral's,
//! vLLM's), `{"message":{"detail":[{"loc":["body","stream_options"],"msg":…}]}}` or the same
//! `detail` list at the top.

use serde_json::Value;

use crate::protocol::{ErrorKind, ProviderError};

/// Phrases in an error message that mean "the prompt is longer than the model's window", from
/// Anthropic, OpenAI and the common OpenAI-compatible servers (vLLM, llama.cpp, Ollama, LM Studio).
const OVERFLOW_PHRASES: &[&str] = &[
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "exceed context limit",
    "exceeds the context",
    "too many tokens",
    "input is too long",
    "request too large",
    "reduce the length",
];

/// The error for a response with a non-success `status`.
pub fn classify_response(status: u16, headers: &[(String, String)], body: &str, now_ms: u64) -> ProviderError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let (type_or_code, message) = match parsed.as_ref().and_then(error_object) {
        Some(object) => describe(object),
        None => (None, short(body)),
    };
    let message = if message.is_empty() { format!("HTTP {status}") } else { message };
    let mut kind = match status {
        401 | 403 => ErrorKind::Auth,
        // Payment Required: OpenRouter's "Insufficient credits".
        402 => ErrorKind::QuotaExhausted,
        408 => ErrorKind::Network,
        413 => ErrorKind::ContextOverflow,
        429 => ErrorKind::RateLimited,
        529 => ErrorKind::Overloaded,
        500..=599 => ErrorKind::Overloaded,
        _ => ErrorKind::BadRequest,
    };
    if let Some(by_type) = type_or_code.as_deref().and_then(kind_from_type) {
        // A body that names its error precisely wins over a generic status (an
        // `overloaded_error` behind a 500, a rate limit behind a 400 from a proxy) — but a
        // refusal (4xx) is no overload: Ollama types its "llama3 does not support tools", a
        // 400, as an `api_error`, and retrying it for a minute helps nobody.
        let refusal_as_overload = by_type == ErrorKind::Overloaded && (400..500).contains(&status);
        if by_type != ErrorKind::BadRequest && !refusal_as_overload {
            kind = by_type;
        }
    }
    if kind == ErrorKind::BadRequest && is_overflow(type_or_code.as_deref(), &message) {
        kind = ErrorKind::ContextOverflow;
    }
    if refuses_tools(&message) {
        // llama.cpp's server answers 500 ("tools param requires --jinja flag"): a refusal.
        kind = ErrorKind::BadRequest;
    }
    let object = parsed.as_ref().and_then(error_object);
    if matches!(kind, ErrorKind::RateLimited | ErrorKind::BadRequest) && is_used_up(object, &message) {
        kind = ErrorKind::QuotaExhausted;
    }
    let retry_after_ms = retry_after_ms(headers, now_ms).or_else(|| object.and_then(google_retry_delay));
    ProviderError { kind, message, status: Some(status), retry_after_ms }
}

/// Whether the error says the account's quota is used up, which no wait within a task brings
/// back, where its type does not say so (OpenAI's `insufficient_quota` does: [`kind_from_type`]):
/// Google's day quotas (a violated `quotaId` with `PerDay`, behind a `RESOURCE_EXHAUSTED` like
/// its minute limits), Anthropic's "Your credit balance is too low" (an `invalid_request_error`).
fn is_used_up(object: Option<&Value>, message: &str) -> bool {
    let Some(object) = object else { return false };
    let details = object.get("details").and_then(Value::as_array).into_iter().flatten();
    let daily = details
        .flat_map(|d| d.get("violations").and_then(Value::as_array).into_iter().flatten())
        .any(|v| v.get("quotaId").and_then(Value::as_str).is_some_and(|id| id.contains("PerDay")));
    daily || message.to_ascii_lowercase().contains("credit balance is too low")
}

/// The wait Google's error asks for (`RetryInfo`'s `retryDelay`, "36s" or "36.43s" — its
/// free tier's per-minute limits answer this way, with no header). A day's quota asks for one
/// too, but is not retried at all ([`ErrorKind::QuotaExhausted`]).
fn google_retry_delay(object: &Value) -> Option<u64> {
    let details = object.get("details")?.as_array()?;
    let delay = details.iter().find_map(|d| d.get("retryDelay").and_then(Value::as_str))?;
    let seconds: f64 = delay.trim().strip_suffix('s')?.parse().ok()?;
    (seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// The error for an error object that arrived inside a stream (Anthropic's `error` event, an
/// OpenAI-compatible chunk with an `error` member, or a whole JSON body with status 200).
/// `value` may be the object itself or a body holding it under `error`.
pub fn classify_error_object(value: &Value) -> ProviderError {
    let object = error_object(value).unwrap_or(value);
    let (type_or_code, message) = describe(object);
    let status = object.get("code").and_then(Value::as_u64).and_then(|c| u16::try_from(c).ok());
    let mut kind = type_or_code.as_deref().and_then(kind_from_type).unwrap_or(ErrorKind::Overloaded);
    if let Some(status) = status.filter(|s| *s >= 400) {
        kind = classify_response(status, &[], &value.to_string(), 0).kind;
    }
    if matches!(kind, ErrorKind::BadRequest | ErrorKind::Overloaded) && is_overflow(type_or_code.as_deref(), &message) {
        kind = ErrorKind::ContextOverflow;
    }
    let message = if message.is_empty() { "the provider reported an error".to_string() } else { message };
    ProviderError { kind, message, status, retry_after_ms: None }
}

/// The object describing the error in a body: `body.error` if it is an object, else the body
/// itself if it has a `message`; in a list (Google's), its first member's.
fn error_object(body: &Value) -> Option<&Value> {
    if let Value::Array(list) = body {
        return list.first().and_then(error_object);
    }
    match body.get("error") {
        Some(inner) if inner.is_object() => Some(inner),
        Some(Value::String(_)) => Some(body),
        _ if body.get("message").is_some() || body.get("detail").is_some() => Some(body),
        _ => None,
    }
}

/// The error's type or code (as text) and its message.
fn describe(object: &Value) -> (Option<String>, String) {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    // Google's: the reason in its details (`API_KEY_INVALID`), else its status (`UNAUTHENTICATED`).
    let reason = || object.get("details")?.as_array()?.iter().find_map(|d| d.get("reason").and_then(text));
    let type_or_code = object
        .get("type")
        .and_then(text)
        .or_else(reason)
        .or_else(|| object.get("status").and_then(Value::as_str).map(str::to_string))
        .or_else(|| object.get("code").and_then(text));
    let message = object
        .get("message")
        .and_then(|m| text(m).or_else(|| m.get("detail").and_then(field_checks)))
        .or_else(|| object.get("error").and_then(text))
        .or_else(|| object.get("detail").and_then(|d| text(d).or_else(|| field_checks(d))))
        .unwrap_or_default();
    // OpenRouter puts the upstream provider's own message in metadata.raw.
    let raw = object.pointer("/metadata/raw").and_then(text);
    let message = match raw {
        Some(raw) if !message.contains(&raw) => format!("{message} ({})", short(&raw)),
        _ => message,
    };
    // Groq's refusal of a tool call its model wrote badly ("Failed to call a function…"), with
    // what the model wrote.
    let message = match object.get("failed_generation").and_then(Value::as_str).filter(|g| !g.trim().is_empty()) {
        Some(generation) => format!("{message} The model wrote: {}", short_to(generation, 300)),
        None => message,
    };
    (type_or_code, message)
}

/// A pydantic validation's failures in one line: `body.stream_options: Extra inputs are not
/// permitted`, each failure's place (`loc`) and message (`msg`), `; ` between them.
fn field_checks(detail: &Value) -> Option<String> {
    let failures: Vec<String> = detail
        .as_array()?
        .iter()
        .filter_map(|failure| {
            let msg = failure.get("msg")?.as_str()?;
            let place: Vec<String> = failure
                .get("loc")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|part| part.as_str().map_or_else(|| part.to_string(), str::to_string))
                .collect();
            Some(if place.is_empty() { msg.to_string() } else { format!("{}: {msg}", place.join(".")) })
        })
        .collect();
    (!failures.is_empty()).then(|| failures.join("; "))
}

fn kind_from_type(type_or_code: &str) -> Option<ErrorKind> {
    Some(match type_or_code {
        "rate_limit_error" | "rate_limit_exceeded" | "429" | "RESOURCE_EXHAUSTED" => ErrorKind::RateLimited,
        // OpenAI's account without credit ("You exceeded your current quota, please check your
        // plan and billing details"), behind a 429.
        "insufficient_quota" => ErrorKind::QuotaExhausted,
        "overloaded_error" | "529" | "api_error" | "server_error" | "500" | "502" | "503" | "UNAVAILABLE"
        | "INTERNAL" => ErrorKind::Overloaded,
        "authentication_error"
        | "permission_error"
        | "invalid_api_key"
        | "401"
        | "403"
        | "API_KEY_INVALID"
        | "UNAUTHENTICATED"
        | "PERMISSION_DENIED" => ErrorKind::Auth,
        "context_length_exceeded" | "request_too_large" | "413" => ErrorKind::ContextOverflow,
        "invalid_request_error"
        | "not_found_error"
        | "400"
        | "404"
        | "422"
        | "INVALID_ARGUMENT"
        | "NOT_FOUND"
        | "FAILED_PRECONDITION" => ErrorKind::BadRequest,
        _ => return None,
    })
}

/// Whether an error's message says the server takes no tools for this model: Ollama's "llama3
/// does not support tools" (for a model whose template has none), llama.cpp's server started
/// without templates ("tools param requires --jinja flag"; older, "Unsupported param: tools"),
/// Google's for the Gemma models it hosts ("Function calling is not enabled for
/// models/gemma-3-27b-it"), OpenRouter's for a model none of whose providers take tools ("No
/// endpoints found that support tool use"), and the wordings of others ("tools are not
/// supported").
pub(crate) fn refuses_tools(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    [
        "does not support tools",
        "does not support tool",
        "tools are not supported",
        "tools not supported",
        "tools param requires",
        "unsupported param: tools",
        "function calling is not enabled",
        "support tool use",
    ]
    .iter()
    .any(|phrase| message.contains(phrase))
}

fn is_overflow(type_or_code: Option<&str>, message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    type_or_code == Some("context_length_exceeded") || OVERFLOW_PHRASES.iter().any(|p| message.contains(p))
}

fn short(text: &str) -> String {
    short_to(text, 500)
}

/// `text` trimmed, cut after `limit` characters (with `…`).
fn short_to(text: &str, limit: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(limit) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// How long the response asks us to wait: `retry-after-ms` (OpenAI), else `retry-after` in
/// seconds or as an HTTP date (RFC 9110), relative to `now_ms`.
pub fn retry_after_ms(headers: &[(String, String)], now_ms: u64) -> Option<u64> {
    let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| *v >= 0.0) {
        return Some(ms.round() as u64);
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let date_ms = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as u64;
    Some(date_ms.saturating_sub(now_ms))
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
