//! Finding where an MCP server's users sign in, as MCP's authorization spec lays it out: the
//! server's `401` names its protected-resource metadata (RFC 9728), which names the
//! authorization server, whose own metadata (RFC 8414, or OpenID Connect discovery) gives its
//! endpoints. Servers of the spec's first version (2025-03-26) publish no resource metadata:
//! their own origin is the authorization server, at its metadata or at default paths.

use serde::Deserialize;
use serde_json::json;

use super::client::initialize_request;
use super::message::{self, clip};
use crate::cancel::CancelToken;
use crate::host::{HttpClient, HttpRequest, HttpResponse};
use crate::{Error, Result};

/// What a `WWW-Authenticate: Bearer …` challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where the server's protected-resource metadata is.
    pub resource_metadata: Option<String>,
    /// The scope the server asks for.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
}

/// Reads a `Bearer` challenge out of a `WWW-Authenticate` header; `None` when the header holds
/// no `Bearer` challenge (a `Basic` one, say).
pub(crate) fn bearer_challenge(header: &str) -> Option<Challenge> {
    let start = header.to_ascii_lowercase().find("bearer")?;
    let mut rest = &header[start + "bearer".len()..];
    let mut challenge = Challenge::default();
    // `name="quoted, value", name=token, …` up to the next scheme (a word with no `=`).
    loop {
        rest = rest.trim_start_matches([' ', ',']);
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim();
        if name.is_empty() || name.contains([' ', ',']) {
            break;
        }
        rest = &rest[eq + 1..];
        let value = if let Some(quoted) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            rest = &quoted[end..];
            value
        } else {
            let end = rest.find([',', ' ']).unwrap_or(rest.len());
            let value = rest[..end].to_string();
            rest = &rest[end..];
            value
        };
        match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => challenge.resource_metadata = Some(value),
            "scope" => challenge.scope = Some(value),
            "error" => challenge.error = Some(value),
            _ => {}
        }
    }
    Some(challenge)
}

/// An authorization server's endpoints and what it supports.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// Absent: the server does not say it does PKCE.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether the answer to an authorization carries `iss` (RFC 9207), which must then match.
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// How clients may prove themselves at the token endpoint; absent: HTTP Basic (RFC 8414).
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct ResourceMetadata {
    resource: String,
    #[serde(default)]
    authorization_servers: Vec<String>,
    #[serde(default)]
    scopes_supported: Vec<String>,
}

/// Where and how a server's users sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Discovered {
    /// The resource the tokens are asked for (RFC 8707's `resource`): the server's URL, or
    /// the resource its metadata names.
    pub resource: String,
    pub server: ServerMetadata,
    /// The scope to ask for: the challenge's, else every scope the resource lists, else none.
    pub scope: Option<String>,
    /// The authorization server published no metadata (the spec's first version): its
    /// default endpoints stand in, and PKCE is taken on trust.
    pub defaults: bool,
}

/// Asks `server_url` without credentials and follows its challenge to the authorization
/// server. Fails when the server lets the request in (it asks nobody to sign in), and says
/// which step failed otherwise.
pub(crate) async fn discover(http: &dyn HttpClient, server_url: &str, cancel: &CancelToken) -> Result<Discovered> {
    let (status, challenge) = probe(http, server_url, cancel).await?;
    match status {
        401 => {}
        200..=299 => {
            return Err(Error::Mcp(format!(
                "{server_url} lets Vault Agent in without signing in: no sign-in is needed"
            )));
        }
        404 => return Err(Error::Mcp(format!("there is no MCP endpoint at {server_url} (HTTP 404)"))),
        _ => return Err(Error::Mcp(format!("{server_url} answered HTTP {status}, not a request to sign in"))),
    }
    let (origin, path) = split_url(server_url)?;
    let mut candidates = Vec::new();
    candidates.extend(challenge.resource_metadata.clone());
    if !path.is_empty() {
        candidates.push(format!("{origin}/.well-known/oauth-protected-resource{path}"));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    let mut resource = None;
    for url in candidates {
        if let Some(metadata) = get_json::<ResourceMetadata>(http, &url, cancel).await? {
            resource = Some(metadata);
            break;
        }
    }
    let Some(resource) = resource else {
        // The spec's first version: the MCP server's origin is its authorization server.
        // Its metadata was not asked for by issuer (there was none to ask by), so the issuer
        // it names is not held to the origin.
        let server = match server_metadata(http, &origin, false, cancel).await? {
            Some(server) => server,
            None => {
                let defaults = ServerMetadata {
                    issuer: origin.clone(),
                    authorization_endpoint: format!("{origin}/authorize"),
                    token_endpoint: format!("{origin}/token"),
                    registration_endpoint: Some(format!("{origin}/register")),
                    code_challenge_methods_supported: None,
                    authorization_response_iss_parameter_supported: false,
                    token_endpoint_auth_methods_supported: None,
                };
                let scope = challenge.scope;
                return Ok(Discovered { resource: canonical(server_url), server: defaults, scope, defaults: true });
            }
        };
        return Ok(Discovered { resource: canonical(server_url), server, scope: challenge.scope, defaults: false });
    };
    if !covers(&resource.resource, server_url) {
        return Err(Error::Mcp(format!(
            "{server_url}'s metadata is for another resource ({}): not signing in there",
            resource.resource
        )));
    }
    let issuer = resource
        .authorization_servers
        .first()
        .ok_or_else(|| Error::Mcp(format!("{server_url}'s metadata names no authorization server to sign in with")))?;
    let server = server_metadata(http, issuer, true, cancel)
        .await?
        .ok_or_else(|| Error::Mcp(format!("the authorization server {issuer} publishes no metadata")))?;
    let scope = challenge
        .scope
        .or_else(|| (!resource.scopes_supported.is_empty()).then(|| resource.scopes_supported.join(" ")));
    Ok(Discovered { resource: canonical(&resource.resource), server, scope, defaults: false })
}

/// Opens a session without credentials as a client would — `initialize`, then the tools list
/// (some servers let anyone in and ask for a sign-in at the first real request) — up to the
/// first answer that is not a success: its status and `Bearer` challenge.
async fn probe(http: &dyn HttpClient, server_url: &str, cancel: &CancelToken) -> Result<(u16, Challenge)> {
    let version = super::PROTOCOL_VERSIONS[0];
    let messages = [
        initialize_request(0, &super::ClientOffer::default()),
        message::notification("notifications/initialized", json!({})),
        message::request(1, "tools/list", json!({})),
    ];
    let mut session = None;
    let mut status = 200;
    for message in &messages {
        let mut request = HttpRequest::post_json(server_url, message)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version);
        if let Some(session) = &session {
            request = request.header("mcp-session-id", String::clone(session));
        }
        let response = http.send(request, cancel).await?;
        status = response.status;
        let challenge = response.header("www-authenticate").and_then(bearer_challenge).unwrap_or_default();
        session = response.header("mcp-session-id").map(str::to_string).or(session);
        // An event stream's body is not waited for: its headers said what was asked.
        drop(response);
        if !(200..300).contains(&status) {
            return Ok((status, challenge));
        }
    }
    // The server let the probe in: its session is ended (a 405 says it keeps them; no matter).
    if let Some(session) = session {
        let end = HttpRequest { method: "DELETE".into(), url: server_url.to_string(), headers: Vec::new(), body: None };
        if let Ok(response) = http.send(end.header("mcp-session-id", session), cancel).await {
            let _ = response.bytes().await;
        }
    }
    Ok((status, Challenge::default()))
}

/// The authorization server `issuer`'s metadata, from the first of the well-known addresses
/// that has it; with `same_issuer`, checked to be that issuer's (RFC 8414 §3.3).
async fn server_metadata(
    http: &dyn HttpClient,
    issuer: &str,
    same_issuer: bool,
    cancel: &CancelToken,
) -> Result<Option<ServerMetadata>> {
    let (origin, path) = split_url(issuer)?;
    let candidates = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    for url in candidates {
        if let Some(metadata) = get_json::<ServerMetadata>(http, &url, cancel).await? {
            if same_issuer && canonical(&metadata.issuer) != canonical(issuer) {
                return Err(Error::Mcp(format!(
                    "the authorization server at {issuer} says it is {}: not signing in there",
                    metadata.issuer
                )));
            }
            return Ok(Some(metadata));
        }
    }
    Ok(None)
}

/// The JSON at `url`; `None` when there is none there (any 4xx); an error for a server that
/// fails or answers something else.
async fn get_json<T: for<'de> Deserialize<'de>>(
    http: &dyn HttpClient,
    url: &str,
    cancel: &CancelToken,
) -> Result<Option<T>> {
    let request = HttpRequest::get(url)
        .header("accept", "application/json")
        .header("mcp-protocol-version", super::PROTOCOL_VERSIONS[0]);
    let response: HttpResponse = http.send(request, cancel).await?;
    let status = response.status;
    let text = response.text().await?;
    if (400..500).contains(&status) {
        return Ok(None);
    }
    if !(200..300).contains(&status) {
        return Err(Error::Mcp(format!("{url} answered HTTP {status}: {}", clip(text.trim()))));
    }
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::Mcp(format!("{url} is not the metadata it should be ({e}): {}", clip(text.trim()))))
}

/// `url` as `(scheme://authority, /path)`, without query, fragment or a trailing `/`.
pub(crate) fn split_url(url: &str) -> Result<(String, String)> {
    let url = url.trim();
    let (scheme, rest) =
        url.split_once("://").ok_or_else(|| Error::Invalid(format!("{url:?} is not an http(s) address")))?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = rest.find('/').map_or((rest, ""), |i| (&rest[..i], &rest[i..]));
    Ok((
        format!("{}://{}", scheme.to_ascii_lowercase(), authority.to_ascii_lowercase()),
        path.trim_end_matches('/').to_string(),
    ))
}

/// `url` as the spec compares resources and issuers: scheme and host lower-cased, no trailing `/`.
pub(crate) fn canonical(url: &str) -> String {
    split_url(url).map(|(origin, path)| origin + &path).unwrap_or_else(|_| url.trim().to_string())
}

/// Whether tokens for `resource` may be sent to `server_url`: the same origin, and the
/// server's path at or under the resource's.
pub(crate) fn covers(resource: &str, server_url: &str) -> bool {
    let (Ok((r_origin, r_path)), Ok((s_origin, s_path))) = (split_url(resource), split_url(server_url)) else {
        return false;
    };
    r_origin == s_origin && (s_path == r_path || s_path.starts_with(&format!("{r_path}/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_with_quotes_commas_and_other_schemes() {
        let c = bearer_challenge(
            r#"Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", scope="a b", error=invalid_token"#,
        )
        .unwrap();
        assert_eq!(c.resource_metadata.as_deref(), Some("https://x.example/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        let c = bearer_challenge(r#"Basic realm="x", Bearer error="insufficient_scope", scope="files:read""#).unwrap();
        assert_eq!((c.error.as_deref(), c.scope.as_deref()), (Some("insufficient_scope"), Some("files:read")));
        assert_eq!(bearer_challenge("Bearer").unwrap(), Challenge::default());
        assert_eq!(bearer_challenge(r#"Basic realm="x""#), None);
        let c = bearer_challenge(r#"Bearer realm="say \"hi\", ok""#).unwrap();
        assert_eq!(c, Challenge::default());
    }

    #[test]
    fn urls_split_and_resources_cover_their_paths() {
        assert_eq!(
            split_url("HTTPS://Mcp.Example.com/v1/mcp/?x=1").unwrap(),
            ("https://mcp.example.com".into(), "/v1/mcp".into())
        );
        assert_eq!(split_url("https://a.example").unwrap(), ("https://a.example".into(), String::new()));
        assert!(split_url("a.example/mcp").is_err());
        assert!(covers("https://a.example/mcp", "https://a.example/mcp"));
        assert!(covers("https://a.example", "https://a.example/mcp"));
        assert!(covers("https://a.example/", "https://a.example/mcp"));
        assert!(!covers("https://a.example/mcp", "https://a.example/mcp2"));
        assert!(!covers("https://b.example/mcp", "https://a.example/mcp"));
        assert_eq!(canonical("https://A.example/mcp/"), "https://a.example/mcp");
    }
}
