use serde_json::json;

use super::*;

fn classify(status: u16, body: &str) -> ProviderError {
    classify_response(status, &[], body, 0)
}

#[test]
fn statuses_map_to_kinds() {
    assert_eq!(classify(401, "").kind, ErrorKind::Auth);
    assert_eq!(classify(403, "forbidden").kind, ErrorKind::Auth);
    assert_eq!(classify(429, "").kind, ErrorKind::RateLimited);
    assert_eq!(classify(500, "").kind, ErrorKind::Overloaded);
    assert_eq!(classify(503, "<html>bad gateway</html>").kind, ErrorKind::Overloaded);
    assert_eq!(classify(529, "").kind, ErrorKind::Overloaded);
    assert_eq!(classify(400, "nope").kind, ErrorKind::BadRequest);
    assert_eq!(classify(404, "").kind, ErrorKind::BadRequest);
    assert_eq!(classify(408, "").kind, ErrorKind::Network);
    assert_eq!(classify(429, "").status, Some(429));
    assert_eq!(classify(500, "").message, "HTTP 500");
}

#[test]
fn anthropic_error_bodies() {
    let body = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}).to_string();
    let e = classify(529, &body);
    assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Overloaded, "Overloaded"));

    let body = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "prompt is too long: 215000 tokens > 200000 maximum"}})
    .to_string();
    assert_eq!(classify(400, &body).kind, ErrorKind::ContextOverflow);

    let body = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000"}})
    .to_string();
    assert_eq!(classify(400, &body).kind, ErrorKind::ContextOverflow);

    let body =
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string();
    assert_eq!(classify(401, &body).kind, ErrorKind::Auth);

    let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: required"}})
        .to_string();
    assert_eq!(classify(400, &body).kind, ErrorKind::BadRequest);
}

#[test]
fn openai_and_openrouter_error_bodies() {
    let body = json!({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
    .to_string();
    let e = classify(400, &body);
    assert_eq!(e.kind, ErrorKind::ContextOverflow);
    assert!(e.message.starts_with("This model's maximum context length"));

    let body = json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
        "code": "invalid_api_key"}})
    .to_string();
    assert_eq!(classify(401, &body).kind, ErrorKind::Auth);

    // OpenRouter: a numeric code and the upstream message in metadata.raw.
    let body = json!({"error": {"code": 429, "message": "Provider returned error",
        "metadata": {"raw": "rate limited upstream", "provider_name": "X"}}})
    .to_string();
    let e = classify(429, &body);
    assert_eq!(e.kind, ErrorKind::RateLimited);
    assert_eq!(e.message, "Provider returned error (rate limited upstream)");

    // Ollama's refusal of tools, typed as an `api_error` behind a 400: a refusal, not an overload.
    let body = json!({"error": {"message": "llama3 does not support tools", "type": "api_error", "param": null, "code": null}});
    assert_eq!(classify(400, &body.to_string()).kind, ErrorKind::BadRequest);
    let body = json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}});
    assert_eq!(classify(500, &body.to_string()).kind, ErrorKind::Overloaded);
    // Google's Gemma and OpenRouter's models without tools: refusals of the tools.
    let gemma = json!([{"error": {"code": 400, "message": "Function calling is not enabled for models/gemma-3-27b-it", "status": "INVALID_ARGUMENT"}}]);
    let openrouter = json!({"error": {"code": 404, "message": "No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing"}});
    for (status, body) in [(400, gemma), (404, openrouter)] {
        let e = classify(status, &body.to_string());
        assert!(e.kind == ErrorKind::BadRequest && refuses_tools(&e.message), "{e:?}");
    }
    // llama.cpp's server without templates refuses tools with a 500: a refusal all the same.
    for message in ["tools param requires --jinja flag", "Unsupported param: tools"] {
        let body = json!({"error": {"code": 500, "message": message, "type": "server_error"}});
        assert_eq!(classify(500, &body.to_string()).kind, ErrorKind::BadRequest, "{message}");
        assert_eq!(classify_error_object(&body).kind, ErrorKind::BadRequest, "{message}");
    }
    // Ollama's {"error": "..."}.
    let e = classify(404, r#"{"error":"model \"llama9\" not found, try pulling it first"}"#);
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert!(e.message.contains("llama9"));
    // Google's: a list of one, a 400 that is a refused key, a 429 that is a quota.
    let body = json!([{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}])
    .to_string();
    let e = classify(400, &body);
    assert_eq!(e.kind, ErrorKind::Auth);
    assert_eq!(e.message, "API key not valid. Please pass a valid API key.");
    let body = json!([{"error": {"code": 429, "message": "You exceeded your current quota.",
        "status": "RESOURCE_EXHAUSTED"}}])
    .to_string();
    assert_eq!(classify(429, &body).kind, ErrorKind::RateLimited);
    // Its free tier's per-minute limit says when to come back, in the body; a day's quota does
    // not come back within a retry.
    let quota = |quota_id: &str| {
        json!({"error": {"code": 429, "message": "You exceeded your current quota. Please retry in 36.429760048s.",
            "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                    {"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                     "quotaId": quota_id, "quotaValue": "10"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "36.43s"}]}})
        .to_string()
    };
    let minute = classify(429, &quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"));
    assert_eq!((minute.kind, minute.retry_after_ms), (ErrorKind::RateLimited, Some(36_430)));
    let day = classify(429, &quota("GenerateRequestsPerDayPerProjectPerModel-FreeTier"));
    assert_eq!(day.kind, ErrorKind::QuotaExhausted);
    assert!(!day.kind.is_retryable());
    let per_model = ProviderError {
        message: "Quota exceeded for metric: generate_content_free_tier_requests, limit: 250, model: gemini-2.5-flash"
            .into(),
        ..day
    };
    assert_eq!(per_model.setting(), Some(crate::protocol::ProviderSetting::Model), "another model has its own quota");
    let body =
        json!({"error": {"code": 400, "message": "Function call is missing a thought_signature in functionCall parts.",
        "status": "INVALID_ARGUMENT"}})
        .to_string();
    let e = classify(400, &body);
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert!(e.message.starts_with("Function call is missing a thought_signature"));
}

/// An account whose quota or credit is used up: no wait within a task helps, so it is not a
/// rate limit (which is retried), whatever the status says.
#[test]
fn a_used_up_quota_or_credit_is_not_retried() {
    let openai =
        json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})
        .to_string();
    let anthropic = json!({"type": "error", "error": {"type": "invalid_request_error",
        "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}})
    .to_string();
    let openrouter = json!({"error": {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits"}})
        .to_string();
    for (status, body) in [(429, openai), (400, anthropic), (402, openrouter)] {
        let e = classify(status, &body);
        assert_eq!(e.kind, ErrorKind::QuotaExhausted, "{body}");
        assert!(e.explain().starts_with("The account's quota is used up"));
        assert_eq!(e.setting(), None, "no setting gives credit back");
    }
    // A rate limit stays one.
    let busy = json!({"error": {"message": "Rate limit reached for gpt-4.1 on tokens per min (TPM)",
        "type": "tokens", "code": "rate_limit_exceeded"}})
    .to_string();
    assert_eq!(classify(429, &busy).kind, ErrorKind::RateLimited);
}

/// Mistral's bodies: a field check (pydantic's `detail` list inside `message`), a refused
/// tool call id, a refused key, and the same `detail` list at the top (vLLM, FastAPI).
#[test]
fn mistral_and_pydantic_error_bodies() {
    let body = json!({"object": "error", "message": {"detail": [{"type": "extra_forbidden",
        "loc": ["body", "stream_options", "include_usage"], "msg": "Extra inputs are not permitted", "input": true}]},
        "type": "invalid_request_error", "param": null, "code": null})
    .to_string();
    let e = classify(422, &body);
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert_eq!(e.message, "body.stream_options.include_usage: Extra inputs are not permitted");
    let body =
        json!({"object": "error", "message": "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.",
        "type": "invalid_function_call", "param": null, "code": "3280"})
        .to_string();
    let e = classify(400, &body);
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert!(e.message.starts_with("Tool call id was call_1"));
    let e = classify(401, &json!({"message": "Unauthorized", "request_id": "8b3f"}).to_string());
    assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Auth, "Unauthorized"));
    let body = json!({"detail": [{"loc": ["body", "messages", 2, "content"], "msg": "Field required"},
        {"loc": ["body", "tools"], "msg": "Input should be a valid list"}]})
    .to_string();
    assert_eq!(
        classify(422, &body).message,
        "body.messages.2.content: Field required; body.tools: Input should be a valid list"
    );
    assert_eq!(classify(404, &json!({"detail": "Not Found"}).to_string()).message, "Not Found");
}

#[test]
fn errors_inside_a_stream_or_a_200_body() {
    let e = classify_error_object(
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    assert_eq!(e.kind, ErrorKind::Overloaded);
    let e =
        classify_error_object(&json!({"error": {"code": 429, "message": "Rate limit exceeded: free-models-per-min"}}));
    assert_eq!((e.kind, e.status), (ErrorKind::RateLimited, Some(429)));
    let e = classify_error_object(&json!({"error": {"code": 502, "message": "upstream died"}}));
    assert_eq!(e.kind, ErrorKind::Overloaded);
    let e = classify_error_object(&json!({"error": {"message": "context_length_exceeded", "code": 400}}));
    assert_eq!(e.kind, ErrorKind::ContextOverflow);
    let e = classify_error_object(&json!({"error": {"type": "api_error", "message": "Internal server error"}}));
    assert_eq!(e.kind, ErrorKind::Overloaded);
    // Groq's refusal of a tool call its model wrote badly, as its stream's `error` event.
    let e = classify_error_object(
        &json!({"error": {"message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        "type": "invalid_request_error", "code": "tool_use_failed",
        "failed_generation": "search_notes{\"query\": \"cats\"</function>", "status_code": 400}}),
    );
    assert_eq!(e.kind, ErrorKind::BadRequest);
    assert!(e.message.ends_with("The model wrote: search_notes{\"query\": \"cats\"</function>"), "{}", e.message);
    let e = classify_error_object(
        &json!({"error": {"type": "insufficient_quota", "message": "You exceeded your current quota."}}),
    );
    assert_eq!(e.kind, ErrorKind::QuotaExhausted, "an account without credit is not retried from a stream either");
}

#[test]
fn retry_after_in_seconds_milliseconds_or_a_date() {
    let h = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    assert_eq!(retry_after_ms(&h("retry-after", "7"), 0), Some(7000));
    assert_eq!(retry_after_ms(&h("Retry-After", "1.5"), 0), Some(1500));
    assert_eq!(retry_after_ms(&h("retry-after-ms", "250"), 0), Some(250));
    // Sun, 06 Nov 1994 08:49:37 GMT is 784111777 s after the epoch.
    let date = h("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT");
    assert_eq!(retry_after_ms(&date, 784_111_777_000 - 3_000), Some(3_000));
    assert_eq!(retry_after_ms(&date, 784_111_777_000 + 5_000), Some(0), "a date in the past means now");
    assert_eq!(retry_after_ms(&h("retry-after", "soon"), 0), None);
    assert_eq!(retry_after_ms(&[], 0), None);
    let e = classify_response(429, &h("retry-after", "2"), "", 0);
    assert_eq!(e.retry_after_ms, Some(2000));
}
