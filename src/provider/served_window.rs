//! How much context a model server really gives a model. Ollama serves a model with a window
//! it picks from the machine's memory (4,096 tokens under 24 GB of graphics memory) unless it
//! is told otherwise, whatever the model itself could read, and it drops the oldest messages
//! of a longer request without a word. Its `GET /api/ps` names the window of each loaded model.

use futures::future::{select, Either};
use serde_json::Value;

use super::pricing::is_local;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{Clock, HttpClient, HttpRequest};

/// Below this many tokens a served window is too small for an agent: its instructions and
/// tools take about 3,300, and a few notes and results the rest.
pub const AGENT_MIN_WINDOW: u32 = 16_384;

/// A server on this machine answers at once; one that does not is not waited on.
const ASK_LIMIT_MS: u64 = 3_000;

/// Ollama's own port, for a server on another machine of the user's network.
const OLLAMA_PORT: &str = ":11434";

/// The request for the windows the server at `base_url` serves its loaded models with: only a
/// server on this machine or on Ollama's port is asked (a hosted API has no such page).
pub(crate) fn served_window_request(base_url: &str) -> Option<HttpRequest> {
    let base = base_url.trim().trim_end_matches('/');
    let authority = base.split_once("://").map_or(base, |(_, rest)| rest).split('/').next().unwrap_or("");
    if !is_local(base) && !authority.ends_with(OLLAMA_PORT) {
        return None;
    }
    let root = base.strip_suffix("/v1").unwrap_or(base);
    Some(HttpRequest::get(format!("{root}/api/ps")).header("accept", "application/json"))
}

/// The window `/api/ps`'s answer gives the model `id` (`qwen2.5` is served as `qwen2.5:latest`).
pub(crate) fn parse_served_window(body: &str, id: &str) -> Option<u32> {
    let answer: Value = serde_json::from_str(body).ok()?;
    let tagged = format!("{id}:latest");
    answer.get("models")?.as_array()?.iter().find_map(|model| {
        let named = ["name", "model"].iter().filter_map(|k| model.get(*k)?.as_str()).any(|n| n == id || n == tagged);
        let window = model.get("context_length")?.as_u64()?;
        (named && window > 0).then(|| u32::try_from(window).unwrap_or(u32::MAX))
    })
}

/// The window the server at `base_url` serves the model `id` with, if it says within
/// [`ASK_LIMIT_MS`] (Ollama, once the model is loaded); `None` for any other server, or any
/// failure.
pub(crate) async fn served_window(
    http: &dyn HttpClient,
    clock: &dyn Clock,
    base_url: &str,
    id: &str,
    cancel: &CancelToken,
) -> Option<u32> {
    let request = served_window_request(base_url)?;
    let ask = async {
        let response = http.send(request, cancel).await.ok()?;
        if !(200..300).contains(&response.status) {
            return None;
        }
        response.text().await.ok()
    };
    let late = clock.sleep(ASK_LIMIT_MS);
    futures::pin_mut!(ask, late);
    let body = match with_cancel(cancel, select(ask, late)).await {
        Ok(Either::Left((body, _))) => body?,
        _ => return None,
    };
    parse_served_window(&body, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_server_on_this_machine_or_on_ollamas_port_is_asked() {
        let url = |base: &str| served_window_request(base).map(|r| r.url);
        assert_eq!(url("http://localhost:11434/v1").as_deref(), Some("http://localhost:11434/api/ps"));
        assert_eq!(url("http://127.0.0.1:1234/v1/").as_deref(), Some("http://127.0.0.1:1234/api/ps"));
        assert_eq!(url("http://192.168.1.20:11434/v1").as_deref(), Some("http://192.168.1.20:11434/api/ps"));
        assert_eq!(url("https://api.openai.com/v1"), None);
        assert_eq!(url("https://openrouter.ai/api/v1"), None);
    }

    #[test]
    fn the_window_is_the_loaded_models_by_name_or_with_its_latest_tag() {
        let body = r#"{"models":[
            {"name":"qwen2.5:latest","model":"qwen2.5:latest","size_vram":5000000000,"context_length":4096},
            {"name":"llama3.2:3b","model":"llama3.2:3b","context_length":32768}]}"#;
        assert_eq!(parse_served_window(body, "qwen2.5"), Some(4096));
        assert_eq!(parse_served_window(body, "qwen2.5:latest"), Some(4096));
        assert_eq!(parse_served_window(body, "llama3.2:3b"), Some(32768));
        // Not loaded, an Ollama before the field, or not Ollama at all.
        assert_eq!(parse_served_window(body, "gemma3"), None);
        assert_eq!(parse_served_window(r#"{"models":[{"name":"qwen2.5:latest"}]}"#, "qwen2.5"), None);
        assert_eq!(parse_served_window("<html>Not Found</html>", "qwen2.5"), None);
    }
}
