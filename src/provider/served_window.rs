//! How much context a model server on the user's machine really gives a model. Ollama serves a
//! model with a window it picks from the machine's memory (4,096 tokens under 24 GB of graphics
//! memory) unless told otherwise, and LM Studio loads one with the context length set in its
//! app, whatever the model itself could read; both then cut a longer request without a word.
//! Each names the window of a loaded model: Ollama in `GET /api/ps`, LM Studio in
//! `GET /api/v0/models`.

use futures::future::{select, Either};
use serde_json::Value;

use super::address::local_root;
use crate::cancel::{with_cancel, CancelToken};
use crate::host::{Clock, HttpClient, HttpRequest};

/// Below this many tokens a served window is too small for an agent: its instructions and
/// tools take about 3,300, and a few notes and results the rest.
pub const AGENT_MIN_WINDOW: u32 = 16_384;

/// A server on this machine answers at once; one that does not is not waited on.
const ASK_LIMIT_MS: u64 = 3_000;

/// A server that says the window it serves a model with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalServer {
    Ollama,
    LmStudio,
}

impl LocalServer {
    /// Its name, as its users know it.
    pub fn name(self) -> &'static str {
        match self {
            LocalServer::Ollama => "Ollama",
            LocalServer::LmStudio => "LM Studio",
        }
    }

    /// How a user gives a model more context there.
    pub fn how_to_give_more(self) -> &'static str {
        match self {
            LocalServer::Ollama => {
                "Start Ollama with OLLAMA_CONTEXT_LENGTH=32768 or more (or raise the context length in its app's \
                 settings)."
            }
            LocalServer::LmStudio => {
                "In LM Studio, load the model again with a Context Length of 32768 or more (the model's load \
                 settings)."
            }
        }
    }

    /// The page that names the window of its loaded models, under the server's root.
    fn page(self) -> &'static str {
        match self {
            LocalServer::Ollama => "api/ps",
            LocalServer::LmStudio => "api/v0/models",
        }
    }

    /// The window the page's answer gives the model `id`, if it is loaded.
    fn read(self, body: &str, id: &str) -> Option<u32> {
        let answer: Value = serde_json::from_str(body).ok()?;
        let (list, names, field) = match self {
            // `qwen2.5` is served as `qwen2.5:latest`.
            LocalServer::Ollama => ("models", &["name", "model"][..], "context_length"),
            LocalServer::LmStudio => ("data", &["id"][..], "loaded_context_length"),
        };
        let tagged = format!("{id}:latest");
        answer.get(list)?.as_array()?.iter().find_map(|model| {
            let named = names.iter().filter_map(|k| model.get(*k)?.as_str()).any(|n| n == id || n == tagged);
            let window = model.get(field)?.as_u64()?;
            (named && window > 0).then(|| u32::try_from(window).unwrap_or(u32::MAX))
        })
    }
}

/// The window a server serves a model with, and which server said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedWindow {
    pub tokens: u32,
    pub server: LocalServer,
}

impl ServedWindow {
    /// What to tell the user when the window is too small for an agent ([`AGENT_MIN_WINDOW`]):
    /// how small, why it matters and how to give the model `model` more; `None` when it is enough.
    pub fn too_small(&self, model: &str) -> Option<String> {
        (self.tokens < AGENT_MIN_WINDOW).then(|| {
            format!(
                "{} serves {model} with {} tokens of context, too few for the agent: its instructions and tools \
                 take about 3,300, and the server cuts a longer conversation without saying so. {}",
                self.server.name(),
                grouped(self.tokens),
                self.server.how_to_give_more()
            )
        })
    }
}

/// `4096` as "4,096".
fn grouped(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The window the server at `base_url` serves the model `id` with, if it says within
/// [`ASK_LIMIT_MS`] (Ollama or LM Studio, once the model is loaded; Ollama is asked first);
/// `None` for any other server, or any failure.
pub(crate) async fn served_window(
    http: &dyn HttpClient,
    clock: &dyn Clock,
    base_url: &str,
    id: &str,
    cancel: &CancelToken,
) -> Option<ServedWindow> {
    let root = local_root(base_url)?;
    let ask = async {
        for server in [LocalServer::Ollama, LocalServer::LmStudio] {
            let request = HttpRequest::get(format!("{root}/{}", server.page())).header("accept", "application/json");
            let Ok(response) = http.send(request, cancel).await else { continue };
            if !(200..300).contains(&response.status) {
                continue;
            }
            let Ok(body) = response.text().await else { continue };
            if let Some(tokens) = server.read(&body, id) {
                return Some(ServedWindow { tokens, server });
            }
        }
        None
    };
    let late = clock.sleep(ASK_LIMIT_MS);
    futures::pin_mut!(ask, late);
    match with_cancel(cancel, select(ask, late)).await {
        Ok(Either::Left((served, _))) => served,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_names_its_loaded_models_windows_with_or_without_the_latest_tag() {
        let body = r#"{"models":[
            {"name":"qwen2.5:latest","model":"qwen2.5:latest","size_vram":5000000000,"context_length":4096},
            {"name":"llama3.2:3b","model":"llama3.2:3b","context_length":32768}]}"#;
        let read = |id| LocalServer::Ollama.read(body, id);
        assert_eq!(
            (read("qwen2.5"), read("qwen2.5:latest"), read("llama3.2:3b")),
            (Some(4096), Some(4096), Some(32768))
        );
        // Not loaded, an Ollama before the field, or not Ollama at all.
        assert_eq!(read("gemma3"), None);
        assert_eq!(LocalServer::Ollama.read(r#"{"models":[{"name":"qwen2.5:latest"}]}"#, "qwen2.5"), None);
        assert_eq!(LocalServer::Ollama.read("<html>Not Found</html>", "qwen2.5"), None);
    }

    #[test]
    fn a_small_window_is_said_with_the_servers_own_fix() {
        let small = ServedWindow { tokens: 4096, server: LocalServer::LmStudio };
        let said = small.too_small("qwen").unwrap();
        assert!(said.starts_with("LM Studio serves qwen with 4,096 tokens of context"), "{said}");
        assert!(said.ends_with(LocalServer::LmStudio.how_to_give_more()), "{said}");
        assert_eq!(ServedWindow { tokens: 131_072, server: LocalServer::Ollama }.too_small("qwen"), None);
        assert_eq!(grouped(1_048_576), "1,048,576");
    }

    #[test]
    fn lm_studio_names_a_loaded_models_window_but_not_an_unloaded_ones() {
        let body = r#"{"object":"list","data":[
            {"id":"qwen2.5-7b-instruct","type":"llm","state":"loaded","max_context_length":131072,"loaded_context_length":4096},
            {"id":"gemma-3-12b","type":"vlm","state":"not-loaded","max_context_length":131072}]}"#;
        assert_eq!(LocalServer::LmStudio.read(body, "qwen2.5-7b-instruct"), Some(4096));
        assert_eq!(LocalServer::LmStudio.read(body, "gemma-3-12b"), None);
    }
}
