//! "Test connection": one tiny real request, to tell the user whether their provider settings
//! work before they start a task.

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::ModelProvider;
use crate::cancel::CancelToken;
use crate::host::Clock;
use crate::protocol::{
    Message, ModelRequest, ProviderError, ProviderProblem, StreamEvent, ToolChoice, ToolSpec, Usage,
};

/// What a connection check found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    /// The model answered.
    pub ok: bool,
    /// The model id that was asked.
    pub model: String,
    /// From sending the request to the end of the answer.
    pub latency_ms: u64,
    /// To the first streamed event, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_token_ms: Option<u64>,
    /// The start of the model's answer.
    #[serde(default)]
    pub reply: String,
    #[serde(default)]
    pub usage: Usage,
    /// Why it failed, categorised (auth, rate limit, network, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProviderError>,
    /// The same failure for a person: plain words, the provider's own, the setting to check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<ProviderProblem>,
    /// The context window a server on this machine serves the model with, where it says
    /// (Ollama, LM Studio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_window: Option<u32>,
    /// Why that window is too small for the agent, and how to give more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_warning: Option<String>,
    /// How calls to the model must be made differently, for the user choosing it: its tools
    /// described in the prompt (the server refused them), its answers not streamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

impl ConnectionCheck {
    /// A check of `model` that has found nothing yet (not ok).
    pub fn new(model: impl Into<String>) -> Self {
        ConnectionCheck {
            ok: false,
            model: model.into(),
            latency_ms: 0,
            first_token_ms: None,
            reply: String::new(),
            usage: Usage::default(),
            error: None,
            problem: None,
            served_window: None,
            served_warning: None,
            notice: None,
        }
    }

    /// Records why the check failed, with its plain-words [`ProviderProblem`].
    pub fn fail(&mut self, error: ProviderError) {
        self.problem = Some(ProviderProblem::from(&error));
        self.error = Some(error);
    }
}

/// The longest reply kept in a [`ConnectionCheck`].
const REPLY_CHARS: usize = 200;

/// Sends one short request ("reply with OK", at most 16 tokens of answer) and reports the
/// latency or the categorised error. The request offers one tool, as every task's does, so a
/// server that refuses the model's tools says so here, where the user picks the model.
/// Retries are whatever `provider` was built with; a check is clearest with a single attempt.
pub async fn check_connection(
    provider: &dyn ModelProvider,
    clock: &dyn Clock,
    cancel: &CancelToken,
) -> ConnectionCheck {
    let request = ModelRequest {
        system: vec![],
        messages: vec![Message::user("This is a connection test. Reply with the single word OK.")],
        tools: vec![ToolSpec {
            name: "note_count".into(),
            description: "How many notes the vault holds.".into(),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
        }],
        max_tokens: 16,
        thinking_budget: None,
        temperature: None,
        tool_choice: ToolChoice::Auto,
        model: None,
    };
    let started = clock.now_ms();
    let mut check = ConnectionCheck::new(provider.model());
    let mut stream = provider.stream(&request, cancel).await;
    while let Some(event) = stream.next().await {
        if !matches!(event, StreamEvent::Retry { .. } | StreamEvent::Notice { .. }) {
            check.first_token_ms.get_or_insert_with(|| clock.now_ms().saturating_sub(started));
        }
        match event {
            StreamEvent::TextDelta { text } => {
                let room = REPLY_CHARS.saturating_sub(check.reply.chars().count());
                check.reply.extend(text.chars().take(room));
            }
            StreamEvent::Usage { usage } => check.usage = usage,
            StreamEvent::Notice { message } => check.notice = Some(message),
            StreamEvent::Done { .. } => check.ok = true,
            StreamEvent::Error { error } => {
                check.first_token_ms = None;
                check.fail(error);
                break;
            }
            _ => {}
        }
    }
    if !check.ok && check.error.is_none() {
        check.fail(ProviderError::new(crate::protocol::ErrorKind::Protocol, "the answer ended without its end marker"));
    }
    check.latency_ms = clock.now_ms().saturating_sub(started);
    // The answer loaded the model, so a local server can say how much context it gives it:
    // where a user sets up a local model is the place to hear that it is too little.
    if check.ok {
        if let Some(served) = provider.served_window(&check.model, cancel).await {
            check.served_window = Some(served.tokens);
            check.served_warning = served.too_small(&check.model);
        }
    }
    check
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;

    use super::*;
    use crate::host::ManualClock;
    use crate::protocol::ErrorKind;
    use crate::provider::{ScriptedProvider, Turn};

    #[test]
    fn a_working_provider_reports_its_reply_and_usage() {
        let provider = ScriptedProvider::new(vec![Turn::text("OK")]);
        let check = block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new()));
        assert!(check.ok, "{check:?}");
        assert_eq!(check.reply, "OK");
        assert!(check.error.is_none());
        assert!(check.first_token_ms.is_some());
    }

    #[test]
    fn a_local_servers_window_is_reported_and_a_small_one_explained() {
        let provider = ScriptedProvider::new(vec![Turn::text("OK")]).with_served_window(4096);
        let check = block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new()));
        assert_eq!(check.served_window, Some(4096));
        assert!(check.served_warning.unwrap().contains("OLLAMA_CONTEXT_LENGTH"));
        let provider = ScriptedProvider::new(vec![Turn::text("OK")]).with_served_window(65_536);
        let check = block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new()));
        assert_eq!((check.served_window, check.served_warning), (Some(65_536), None));
    }

    /// A model whose server refuses tools: the check passes (the agent will describe them in
    /// the prompt) and says so.
    #[test]
    fn a_model_that_takes_no_tools_is_said_so() {
        let refused = ScriptedProvider::new(vec![
            Turn::fail(ErrorKind::BadRequest, "registry.ollama.ai/library/gemma3:4b does not support tools"),
            Turn::text("OK"),
        ]);
        let provider = crate::provider::TextToolProvider::fallback(
            Box::new(refused),
            crate::provider::TextToolDialect::FencedJson,
        );
        let check = block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new()));
        assert!(check.ok, "{check:?}");
        assert!(check.notice.unwrap().contains("call tools itself"));
        let takes = ScriptedProvider::new(vec![Turn::text("OK")]);
        let provider =
            crate::provider::TextToolProvider::fallback(Box::new(takes), crate::provider::TextToolDialect::FencedJson);
        assert_eq!(block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new())).notice, None);
    }

    #[test]
    fn a_failing_provider_reports_the_category() {
        let provider = ScriptedProvider::new(vec![Turn::fail(ErrorKind::Auth, "invalid x-api-key")]);
        let check = block_on(check_connection(&provider, &ManualClock::new(0), &CancelToken::new()));
        assert!(!check.ok);
        assert_eq!(check.error.unwrap().kind, ErrorKind::Auth);
        // What the settings show: plain words, the provider's own, and the setting to check.
        let problem = check.problem.expect("a failed check explains itself");
        assert_eq!(problem.message, "The provider did not accept the API key.");
        assert_eq!(problem.detail, "invalid x-api-key");
        assert_eq!(problem.setting, Some(crate::protocol::ProviderSetting::ApiKey));
    }
}
