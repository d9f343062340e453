//! Which of a local Ollama's models call tools. Its OpenAI-compatible models list does not say,
//! and many models a new user pulls take no tools (llama3, gemma3, phi): its own `POST /api/show`
//! names each model's capabilities (`completion`, `tools`, `vision`, `thinking`).

use futures::future::join_all;
use serde_json::{json, Value};

use super::address::local_root;
use super::models::ModelInfo;
use crate::cancel::CancelToken;
use crate::host::{HttpClient, HttpRequest};

/// The most models asked about (a list longer than this is marked as far as it goes).
const MOST_ASKED: usize = 60;

/// Marks which of `models` call tools where the server at `base_url` is an Ollama that says:
/// the first model is asked alone (another server answers it with an error, and nothing more is
/// asked), then the rest at once. A model the server says nothing of is left unmarked.
pub(crate) async fn mark_tool_use(
    http: &dyn HttpClient,
    base_url: &str,
    models: &mut [ModelInfo],
    cancel: &CancelToken,
) {
    let Some(root) = local_root(base_url) else { return };
    let Some(first) = models.first_mut() else { return };
    let Some(tools) = calls_tools(http, root, &first.id, cancel).await else { return };
    first.tools = first.tools.or(Some(tools));
    let rest = models.iter_mut().skip(1).take(MOST_ASKED - 1);
    let (rest, asks): (Vec<_>, Vec<_>) = rest
        .map(|model| {
            let id = model.id.clone();
            (model, async move { calls_tools(http, root, &id, cancel).await })
        })
        .unzip();
    for (model, tools) in rest.into_iter().zip(join_all(asks).await) {
        model.tools = model.tools.or(tools);
    }
}

/// Whether Ollama at `root` says the model `id` calls tools; `None` when it says nothing.
async fn calls_tools(http: &dyn HttpClient, root: &str, id: &str, cancel: &CancelToken) -> Option<bool> {
    let request = HttpRequest::post_json(format!("{root}/api/show"), &json!({ "model": id }));
    let response = http.send(request.header("accept", "application/json"), cancel).await.ok()?;
    if !(200..300).contains(&response.status) {
        return None;
    }
    let answer: Value = serde_json::from_str(&response.text().await.ok()?).ok()?;
    let capabilities = answer.get("capabilities")?.as_array()?;
    Some(capabilities.iter().any(|c| c.as_str() == Some("tools")))
}
