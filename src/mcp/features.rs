//! What this client offers a server beyond answering its requests — MCP's client features:
//! forms the user fills in and pages they open while a tool runs (elicitation), the user's
//! model answering the server (sampling), and the folders the server may work in (roots).

use async_trait::async_trait;
use serde_json::{json, Value};

use super::sampling::{SamplingOutcome, SamplingRequest};
use super::Elicitation;
use crate::protocol::FormAnswer;

/// Who answers what a server asks while its tool runs: the user, through the host, and the
/// user's model.
#[async_trait(?Send)]
pub trait ClientFeatures {
    /// Shows what the server `asked` (a form to fill in, or a page to open, which the answerer
    /// opens once the user agrees); the user's answer.
    async fn fill(&self, asked: Elicitation) -> FormAnswer;

    /// Has the user's model answer the server's `request`, once the user agrees. The default
    /// refuses: only a tool call in a task has a model and a user to ask.
    async fn sample(&self, _request: SamplingRequest) -> SamplingOutcome {
        SamplingOutcome::Failed("no model can answer here".into())
    }
}

/// Nobody to ask: every form is cancelled, every sampling request refused.
pub struct NoForms;

#[async_trait(?Send)]
impl ClientFeatures for NoForms {
    async fn fill(&self, _asked: Elicitation) -> FormAnswer {
        FormAnswer::cancel()
    }
}

/// A folder a server may work in (`roots/list`), as a `file://` URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub uri: String,
    pub name: String,
}

impl Root {
    /// The folder at the absolute path `path` (`/home/a/Vault`, `C:\Users\a\Vault`), named
    /// by its last part (an Obsidian vault's name); `None` for a path that is not absolute.
    pub fn folder(path: &str) -> Option<Root> {
        // Windows' canonical paths carry the extended-length prefix.
        let path = path.strip_prefix(r"\\?\").unwrap_or(path).replace('\\', "/");
        let path = path.trim_end_matches('/');
        let name = path.rsplit('/').next().unwrap_or_default().to_string();
        let windows = path.as_bytes().get(1) == Some(&b':') && path.as_bytes()[0].is_ascii_alphabetic();
        if !(path.starts_with('/') || windows) {
            return None;
        }
        let mut uri = String::from(if windows { "file:///" } else { "file://" });
        for byte in path.bytes() {
            // RFC 3986's unreserved characters, the path's slashes and a drive's colon stay.
            if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
                uri.push(byte as char);
            } else {
                uri.push_str(&format!("%{byte:02X}"));
            }
        }
        Some(Root { uri, name })
    }
}

/// The client features a session declares at `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientOffer {
    /// The task's model may answer the server's `sampling/createMessage` requests (each one
    /// approved by the user).
    pub sampling: bool,
    /// The folders the server may work in; none declares no `roots` capability.
    pub roots: Vec<Root>,
}

impl ClientOffer {
    /// What a chat offers: the task's model (sampling, each request approved by the user), and
    /// the vault's folder `vault_path` (absolute, where there is one) as the root.
    pub fn for_chat(vault_path: Option<&str>) -> ClientOffer {
        ClientOffer { sampling: true, roots: vault_path.and_then(Root::folder).into_iter().collect() }
    }

    /// The `capabilities` of the `initialize` request: forms and pages to open always, sampling
    /// and roots when offered.
    pub(crate) fn capabilities(&self) -> Value {
        let mut capabilities = json!({ "elicitation": { "form": {}, "url": {} } });
        if self.sampling {
            capabilities["sampling"] = json!({});
        }
        if !self.roots.is_empty() {
            capabilities["roots"] = json!({ "listChanged": false });
        }
        capabilities
    }

    /// The answer to `roots/list`.
    pub(crate) fn roots_list(&self) -> Value {
        let roots: Vec<Value> = self.roots.iter().map(|r| json!({ "uri": r.uri, "name": r.name })).collect();
        json!({ "roots": roots })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_become_file_uris() {
        let unix = Root::folder("/home/ada/My Notes/").unwrap();
        assert_eq!((unix.uri.as_str(), unix.name.as_str()), ("file:///home/ada/My%20Notes", "My Notes"));
        let windows = Root::folder(r"C:\Users\Ada\Vault #1").unwrap();
        assert_eq!((windows.uri.as_str(), windows.name.as_str()), ("file:///C:/Users/Ada/Vault%20%231", "Vault #1"));
        assert_eq!(Root::folder("/Users/zoë/Bóveda").unwrap().uri, "file:///Users/zo%C3%AB/B%C3%B3veda");
        assert_eq!(Root::folder(r"\\?\D:\Notes").unwrap().uri, "file:///D:/Notes");
        assert_eq!(Root::folder("notes"), None);
    }

    #[test]
    fn capabilities_say_what_is_offered() {
        let forms = json!({"form": {}, "url": {}});
        assert_eq!(ClientOffer::default().capabilities(), json!({"elicitation": forms}));
        let offer = ClientOffer { sampling: true, roots: vec![Root::folder("/v").unwrap()] };
        let all = json!({"elicitation": forms, "sampling": {}, "roots": {"listChanged": false}});
        assert_eq!(offer.capabilities(), all);
        assert_eq!(offer.roots_list(), json!({"roots": [{"uri": "file:///v", "name": "v"}]}));
    }
}
