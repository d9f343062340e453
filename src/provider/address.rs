//! What a server's address says about it: its authority (host and port), whether it is this
//! machine, and whether it is Google's, OpenRouter's, Mistral's or Azure's. One reading for every
//! check that asks: a connection that fails fast, a model that costs nothing, a server asked how
//! much context it serves, the reasoning records (Gemini's signatures) sent back, the header a
//! key goes in — and the base URL a pasted address stands for.

/// The authority of `url` (`host:port`), without the scheme, the user, the path, the query and
/// the fragment.
pub(crate) fn authority(url: &str) -> &str {
    let url = url.trim();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit_once('@').map_or(authority, |(_, host)| host)
}

/// The host of `url`, lower-cased, without the port (and an IPv6 address without brackets).
fn host(url: &str) -> String {
    let authority = authority(url);
    let host = if authority.starts_with('[') {
        authority.split(']').next().unwrap_or("").trim_start_matches('[')
    } else {
        authority.split(':').next().unwrap_or("")
    };
    host.to_ascii_lowercase()
}

/// Whether `url` names this machine (`localhost` and its subdomains, `127.x.x.x`, `[::1]`).
pub(crate) fn is_loopback(url: &str) -> bool {
    let host = host(url);
    host == "localhost" || host.ends_with(".localhost") || host == "::1" || host.starts_with("127.")
}

/// Ollama's own port, for a server on another machine of the user's network.
const OLLAMA_PORT: &str = ":11434";
/// LM Studio's own port.
const LM_STUDIO_PORT: &str = ":1234";

/// The root of the model server at `base_url` (its address without `/v1`), if it may have a
/// local server's own pages (Ollama's `/api/ps` and `/api/show`, LM Studio's `/api/v0/models`):
/// a server on this machine or on Ollama's port, not a hosted API.
pub(crate) fn local_root(base_url: &str) -> Option<&str> {
    let base = base_url.trim().trim_end_matches('/');
    (is_loopback(base) || authority(base).ends_with(OLLAMA_PORT)).then(|| base.strip_suffix("/v1").unwrap_or(base))
}

/// Whether `url` is one of Google's APIs (the Gemini API's OpenAI-compatible endpoint, Vertex
/// AI's).
pub(crate) fn is_google(url: &str) -> bool {
    host(url).ends_with(".googleapis.com")
}

/// Whether `host` is `domain` or one of its subdomains.
fn within(host: &str, domain: &str) -> bool {
    host.strip_suffix(domain).is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

/// Whether `url` is DeepSeek's or Moonshot's (Kimi) API, whose thinking models need their
/// reasoning sent back with a turn's tool calls.
pub(crate) fn needs_reasoning_back(url: &str) -> bool {
    let host = host(url);
    ["deepseek.com", "moonshot.ai", "moonshot.cn"].iter().any(|domain| within(&host, domain))
}

/// Whether `url` is OpenRouter's API.
pub(crate) fn is_openrouter(url: &str) -> bool {
    within(&host(url), "openrouter.ai")
}

/// Whether `url` is OpenAI's own API.
pub(crate) fn is_openai(url: &str) -> bool {
    host(url) == "api.openai.com"
}

/// Whether `url` is Mistral's API (La Plateforme), which refuses fields it does not know and
/// tool call ids that are not nine letters and digits.
pub(crate) fn is_mistral(url: &str) -> bool {
    within(&host(url), "mistral.ai")
}

/// Whether `url` is Azure's (Azure OpenAI, Azure AI Foundry): deployments, not models, by name,
/// and the key in an `api-key` header.
pub(crate) fn is_azure(url: &str) -> bool {
    let host = host(url);
    ["openai.azure.com", "services.ai.azure.com", "cognitiveservices.azure.com"]
        .iter()
        .any(|domain| within(&host, domain))
}

/// The base URL requests go under, from what a user pasted: white space, trailing slashes and a
/// trailing `/chat/completions` (the whole endpoint, as servers' docs show it) dropped, and `/v1`
/// added to Ollama's or LM Studio's root (their ports, no path). An Azure
/// resource's OpenAI address in any form its portals show — its endpoint
/// (`https://name.openai.azure.com/`), a deployment's target URI
/// (`…/openai/deployments/d/chat/completions?api-version=…`) — becomes its v1 API's base
/// (`https://name.openai.azure.com/openai/v1`), which takes the deployment's name as the model and
/// needs no API version. Another API of the resource (`…/anthropic`) is left as it is.
pub(crate) fn api_base(url: &str) -> String {
    let url = url.trim();
    if is_azure(url) {
        let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
        let path = rest.find(['/', '?', '#']).map_or("", |at| &rest[at..]);
        if path.trim_start_matches('/').is_empty() || path.starts_with("/openai") || path.starts_with('?') {
            return format!("{scheme}://{}/openai/v1", authority(url));
        }
    }
    let base = url.trim_end_matches('/');
    let base = base.strip_suffix("/chat/completions").unwrap_or(base).trim_end_matches('/');
    // Ollama's and LM Studio's own ports, given without a path: their OpenAI-compatible API is
    // under /v1 (the address their apps show is the server's root).
    let rest = base.split_once("://").map_or(base, |(_, rest)| rest);
    let authority = authority(base);
    if !rest.contains('/') && (authority.ends_with(OLLAMA_PORT) || authority.ends_with(LM_STUDIO_PORT)) {
        return format!("{base}/v1");
    }
    base.to_string()
}

/// The header an API key goes in at `base_url`: Azure's `api-key` (a bearer token there is
/// Microsoft Entra ID's, not a key); a bearer token everywhere else.
pub(crate) fn key_header(base_url: &str, key: &str) -> (String, String) {
    if is_azure(base_url) {
        ("api-key".into(), key.into())
    } else {
        ("authorization".into(), format!("Bearer {key}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_this_machine() {
        for url in
            ["http://localhost:11434/v1", "http://127.0.0.1:1234", "http://[::1]:8080/x", "http://user@localhost/"]
        {
            assert!(is_loopback(url), "{url}");
        }
        for url in ["https://api.anthropic.com/v1", "http://10.0.0.2:11434", "https://localhost.example.com"] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn google_is_its_api_hosts() {
        assert!(is_google("https://generativelanguage.googleapis.com/v1beta/openai"));
        assert!(is_google("https://us-central1-aiplatform.googleapis.com/v1/projects/p/endpoints/openapi"));
        for url in [
            "https://googleapis.com.example.org/v1",
            "http://localhost:8080/v1beta/openai",
            "https://openrouter.ai/api/v1",
        ] {
            assert!(!is_google(url), "{url}");
        }
        assert!(is_openrouter("https://openrouter.ai/api/v1"));
        assert!(needs_reasoning_back("https://api.deepseek.com/v1"));
        assert!(needs_reasoning_back("https://api.moonshot.ai/v1"));
        assert!(!needs_reasoning_back("https://api.openai.com/v1"));
        assert!(!is_openrouter("https://openrouter.ai.example.com/api/v1"));
        assert!(is_mistral("https://api.mistral.ai/v1"));
        assert!(is_mistral("https://codestral.mistral.ai/v1"));
        assert!(!is_mistral("https://mistral.ai.example.com/v1"));
        assert!(!is_mistral("http://localhost:8080/v1"));
    }

    #[test]
    fn a_pasted_address_is_the_base_its_api_goes_under() {
        for (pasted, base) in [
            ("https://api.openai.com/v1", "https://api.openai.com/v1"),
            (" http://localhost:11434/v1/ ", "http://localhost:11434/v1"),
            ("http://localhost:8080/v1/chat/completions", "http://localhost:8080/v1"),
            // Ollama's and LM Studio's roots, as their apps show them.
            ("http://localhost:11434", "http://localhost:11434/v1"),
            ("http://192.168.1.20:11434/", "http://192.168.1.20:11434/v1"),
            ("http://127.0.0.1:1234", "http://127.0.0.1:1234/v1"),
            ("http://localhost:11434/v1", "http://localhost:11434/v1"),
            ("http://localhost:8080", "http://localhost:8080"),
            ("https://api.anthropic.com", "https://api.anthropic.com"),
            ("https://my-res.openai.azure.com/", "https://my-res.openai.azure.com/openai/v1"),
            ("https://my-res.openai.azure.com/openai/v1/", "https://my-res.openai.azure.com/openai/v1"),
            (
                "https://my-res.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-01-01-preview",
                "https://my-res.openai.azure.com/openai/v1",
            ),
            ("https://my-res.services.ai.azure.com/openai/v1/chat/completions", "https://my-res.services.ai.azure.com/openai/v1"),
            ("https://my-res.cognitiveservices.azure.com", "https://my-res.cognitiveservices.azure.com/openai/v1"),
            // Typed without its scheme (the settings' example).
            ("my-res.openai.azure.com", "https://my-res.openai.azure.com/openai/v1"),
            // Another of the resource's APIs stays where it is.
            ("https://my-res.services.ai.azure.com/anthropic/", "https://my-res.services.ai.azure.com/anthropic"),
        ] {
            assert_eq!(api_base(pasted), base, "{pasted}");
        }
    }

    #[test]
    fn azure_takes_its_key_in_its_own_header() {
        assert!(is_azure("https://my-res.openai.azure.com/openai/v1"));
        assert!(is_azure("https://x.services.ai.azure.com/openai/v1"));
        assert!(!is_azure("https://openai.azure.com.example.org/v1"));
        assert!(!is_azure("https://api.openai.com/v1"));
        assert_eq!(key_header("https://my-res.openai.azure.com/openai/v1", "k"), ("api-key".into(), "k".into()));
        assert_eq!(key_header("https://api.openai.com/v1", "k"), ("authorization".into(), "Bearer k".into()));
    }

    #[test]
    fn only_a_server_on_this_machine_or_on_ollamas_port_has_local_pages() {
        assert_eq!(local_root("http://localhost:11434/v1"), Some("http://localhost:11434"));
        assert_eq!(local_root("http://127.0.0.1:1234/v1/"), Some("http://127.0.0.1:1234"));
        assert_eq!(local_root("http://192.168.1.20:11434/v1"), Some("http://192.168.1.20:11434"));
        assert_eq!(local_root("https://api.openai.com/v1"), None);
        assert_eq!(local_root("https://openrouter.ai/api/v1"), None);
    }

    #[test]
    fn the_authority_is_host_and_port_alone() {
        assert_eq!(authority("http://user@192.168.1.20:11434/v1?x#y"), "192.168.1.20:11434");
        assert_eq!(authority("localhost:8080/v1"), "localhost:8080");
    }
}
