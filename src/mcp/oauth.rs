//! Signing in to an MCP server that asks for it (OAuth 2.1, as MCP's authorization spec lays it
//! out): the authorization server is found ([`super::oauth_discovery`]), Vault Agent registers
//! itself there (dynamic client registration, RFC 7591) — or comes as an app the user registered
//! there by hand ([`OAuthApp`]) — the user signs in in their browser
//! with PKCE, and the code that comes back is exchanged for tokens bound to the MCP server
//! (RFC 8707's `resource`). The tokens are renewed with their refresh token as they run out.
//!
//! The host keeps [`McpCredentials`] (the plugin in Obsidian's secret storage, the CLI in a
//! file of the user's) and hands them back with the server's configuration; a session that
//! renews them tells the host through a [`CredentialsSink`].

use std::collections::BTreeMap;
use std::rc::Rc;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use ts_rs::TS;

use super::message::clip;
use super::oauth_discovery::{canonical, discover, ServerMetadata};
use crate::cancel::CancelToken;
use crate::guard::random_hex;
use crate::host::{url_encode, HttpClient, HttpRequest};
use crate::{Error, Result};

/// Renewed credentials of the server named first go to the host, which keeps them in place of
/// the old ones (a refresh token may be good for one use only).
pub type CredentialsSink = Rc<dyn Fn(&str, &McpCredentials)>;

/// How long before its end an access token is renewed, so it does not run out mid-request.
const RENEW_MARGIN_MS: f64 = 60_000.0;

/// What the host keeps for a server the user signed in to: the tokens, and what renewing them
/// takes. In JSON the fields are camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpCredentials {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub refresh_token: Option<String>,
    /// When the access token ends, in ms since the epoch; absent when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub expires_at: Option<f64>,
    /// The scope the server granted (or was asked for, when it did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub scope: Option<String>,
    pub client: OAuthClient,
    pub token_endpoint: String,
    /// The authorization server that issued them.
    pub issuer: String,
    /// The MCP server they are for.
    pub resource: String,
    /// The scope a request was refused for want of (a `403` with `insufficient_scope`: the
    /// server steps up what it asks for); the next sign-in asks for it as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub step_up_scope: Option<String>,
}

/// Vault Agent as the authorization server registered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClient {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_secret: Option<String>,
    /// How the client proves itself at the token endpoint (`none`, `client_secret_basic`,
    /// `client_secret_post`).
    pub auth_method: String,
}

/// An app the user registered with an authorization server that registers none itself (no
/// dynamic client registration: GitHub's, say): its client ID, and its secret when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OAuthApp {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub client_secret: Option<String>,
}

impl OAuthApp {
    /// The client this app signs in as at `server`: a secret goes as the server says it takes
    /// one (HTTP Basic unless it lists only the form's field), an app without one proves
    /// nothing but its ID.
    fn client(&self, server: &ServerMetadata) -> OAuthClient {
        let secret = self.client_secret.clone().filter(|s| !s.trim().is_empty());
        let takes = |method: &str| {
            server.token_endpoint_auth_methods_supported.as_ref().is_none_or(|m| m.iter().any(|m| m == method))
        };
        let auth_method = match &secret {
            None => "none",
            Some(_) if !takes("client_secret_basic") && takes("client_secret_post") => "client_secret_post",
            Some(_) => "client_secret_basic",
        };
        OAuthClient {
            client_id: self.client_id.trim().to_string(),
            client_secret: secret,
            auth_method: auth_method.into(),
        }
    }
}

/// A sign-in under way: `url` is the page to open in the user's browser; the rest is what
/// [`finish_sign_in`] needs when the browser comes back to `redirect_uri`. Held by the host
/// until then, not kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct McpSignIn {
    pub url: String,
    pub state: String,
    pub code_verifier: String,
    pub redirect_uri: String,
    pub client: OAuthClient,
    pub token_endpoint: String,
    pub issuer: String,
    /// Whether the answer must carry `iss` (RFC 9207: the server said it sends it).
    pub issuer_in_answer: bool,
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub scope: Option<String>,
}

/// Starts signing in to the MCP server at `server_url`: finds its authorization server,
/// registers Vault Agent there with `redirect_uri` (where the browser comes back: the
/// plugin's `obsidian://` address, the CLI's `http://127.0.0.1:PORT/…`) — or, given `app`,
/// signs in as that app instead — and makes the authorization page's address, asking for the
/// scope the server's challenge names and `more_scope` too (what a step-up asked for: the kept
/// sign-in's [`McpCredentials::step_up_scope`]). Fails, in words, when the server asks nobody
/// to sign in, does not do PKCE, or takes no registrations and no app was given.
pub async fn start_sign_in(
    http: &dyn HttpClient,
    server_url: &str,
    redirect_uri: &str,
    app: Option<&OAuthApp>,
    more_scope: Option<&str>,
    cancel: &CancelToken,
) -> Result<McpSignIn> {
    let mut found = discover(http, server_url, cancel).await?;
    if let Some(more) = more_scope {
        found.scope = Some(union_of_scopes(found.scope.as_deref().unwrap_or_default(), more));
    }
    let server = &found.server;
    let pkce = server.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"));
    if !pkce && !found.defaults {
        return Err(Error::Mcp(format!(
            "the authorization server {} does not say it does PKCE (S256), which MCP requires: not signing in there",
            server.issuer
        )));
    }
    let client = match (app.filter(|a| !a.client_id.trim().is_empty()), server.registration_endpoint.as_deref()) {
        (Some(app), _) => app.client(server),
        (None, Some(registration)) => register(http, registration, redirect_uri, cancel).await?,
        (None, None) => {
            return Err(Error::Mcp(format!(
                "the authorization server {} registers no new apps (dynamic client registration): register an \
                 OAuth app there yourself, with {redirect_uri} as its redirect URL, and give its client ID (and \
                 secret, if it has one) to sign in as that app",
                server.issuer
            )))
        }
    };
    let state = random_hex(16);
    let code_verifier = random_hex(32);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(code_verifier.as_bytes()));
    let mut params = vec![
        ("response_type", "code"),
        ("client_id", client.client_id.as_str()),
        ("redirect_uri", redirect_uri),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", state.as_str()),
        ("resource", found.resource.as_str()),
    ];
    if let Some(scope) = &found.scope {
        params.push(("scope", scope));
    }
    let separator = if server.authorization_endpoint.contains('?') { '&' } else { '?' };
    let url = format!("{}{separator}{}", server.authorization_endpoint, form(&params));
    Ok(McpSignIn {
        url,
        state,
        code_verifier,
        redirect_uri: redirect_uri.to_string(),
        token_endpoint: server.token_endpoint.clone(),
        issuer: server.issuer.clone(),
        issuer_in_answer: server.authorization_response_iss_parameter_supported,
        client,
        resource: found.resource,
        scope: found.scope,
    })
}

/// Ends the sign-in `sign_in` with `answer`, the parameters the browser came back with
/// (`code`, `state`, `iss`, or `error`): checks they answer this sign-in, and exchanges the
/// code for tokens. `now_ms` dates their end.
pub async fn finish_sign_in(
    http: &dyn HttpClient,
    sign_in: &McpSignIn,
    answer: &BTreeMap<String, String>,
    now_ms: u64,
    cancel: &CancelToken,
) -> Result<McpCredentials> {
    if answer.get("state") != Some(&sign_in.state) {
        return Err(Error::Mcp("the browser came back from another sign-in than this one: sign in again".into()));
    }
    if let Some(error) = answer.get("error") {
        let said = answer.get("error_description").unwrap_or(error);
        return Err(Error::Mcp(format!("the server did not sign you in: {said}")));
    }
    match answer.get("iss") {
        Some(iss) if canonical(iss) != canonical(&sign_in.issuer) => {
            return Err(Error::Mcp(format!(
                "the sign-in came back from {iss}, not from {}: not taken",
                sign_in.issuer
            )));
        }
        None if sign_in.issuer_in_answer => {
            return Err(Error::Mcp("the sign-in came back without saying which server it is from: not taken".into()));
        }
        _ => {}
    }
    let code = answer.get("code").ok_or_else(|| Error::Mcp("the sign-in came back without a code".into()))?;
    let params = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", sign_in.redirect_uri.as_str()),
        ("code_verifier", sign_in.code_verifier.as_str()),
        ("resource", sign_in.resource.as_str()),
    ];
    let base = McpCredentials {
        step_up_scope: None,
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scope: sign_in.scope.clone(),
        client: sign_in.client.clone(),
        token_endpoint: sign_in.token_endpoint.clone(),
        issuer: sign_in.issuer.clone(),
        resource: sign_in.resource.clone(),
    };
    base.token_request(http, &params, now_ms, cancel).await
}

impl McpCredentials {
    /// Whether the access token has ended or is about to, at `now_ms`.
    pub fn is_expiring(&self, now_ms: u64) -> bool {
        self.expires_at.is_some_and(|end| end - RENEW_MARGIN_MS <= now_ms as f64)
    }

    /// Whether a refresh token can renew them.
    pub fn can_renew(&self) -> bool {
        self.refresh_token.is_some()
    }

    /// New credentials from the refresh token (which the server may have replaced: the new
    /// one is kept, or the old one when it sent none).
    pub async fn renewed(&self, http: &dyn HttpClient, now_ms: u64, cancel: &CancelToken) -> Result<McpCredentials> {
        let refresh =
            self.refresh_token.as_deref().ok_or_else(|| Error::Mcp("the sign-in has no refresh token".into()))?;
        let params =
            [("grant_type", "refresh_token"), ("refresh_token", refresh), ("resource", self.resource.as_str())];
        self.token_request(http, &params, now_ms, cancel).await
    }

    /// Asks the token endpoint with `params` (and the client's proof); these credentials with
    /// the tokens it gives.
    async fn token_request(
        &self,
        http: &dyn HttpClient,
        params: &[(&str, &str)],
        now_ms: u64,
        cancel: &CancelToken,
    ) -> Result<McpCredentials> {
        let mut params = params.to_vec();
        let client = &self.client;
        let mut request = HttpRequest {
            method: "POST".into(),
            url: self.token_endpoint.clone(),
            headers: vec![
                ("content-type".into(), "application/x-www-form-urlencoded".into()),
                ("accept".into(), "application/json".into()),
            ],
            body: None,
        };
        match (client.auth_method.as_str(), client.client_secret.as_deref()) {
            ("client_secret_basic", Some(secret)) => {
                let pair = format!("{}:{}", url_encode(&client.client_id), url_encode(secret));
                let basic = base64::engine::general_purpose::STANDARD.encode(pair);
                request = request.header("authorization", format!("Basic {basic}"));
            }
            ("client_secret_post", Some(secret)) => {
                params.push(("client_id", &client.client_id));
                params.push(("client_secret", secret));
            }
            _ => params.push(("client_id", &client.client_id)),
        }
        request.body = Some(form(&params).into_bytes());
        let (body, text) = answer(http, request, "the server gave no tokens", cancel).await?;
        let access_token = body["access_token"]
            .as_str()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| Error::Mcp(format!("the server's answer holds no access token: {}", clip(text.trim()))))?;
        if let Some(kind) = body["token_type"].as_str().filter(|kind| !kind.eq_ignore_ascii_case("bearer")) {
            return Err(Error::Mcp(format!(
                "the server gave a {kind} token, and Vault Agent sends bearer tokens only"
            )));
        }
        Ok(McpCredentials {
            access_token: access_token.to_string(),
            refresh_token: body["refresh_token"].as_str().map(str::to_string).or_else(|| self.refresh_token.clone()),
            expires_at: body["expires_in"].as_f64().map(|seconds| now_ms as f64 + seconds * 1000.0),
            scope: body["scope"].as_str().map(str::to_string).or_else(|| self.scope.clone()),
            ..self.clone()
        })
    }
}

/// Registers Vault Agent with the authorization server as a public app whose browser comes
/// back to `redirect_uri`.
async fn register(
    http: &dyn HttpClient,
    endpoint: &str,
    redirect_uri: &str,
    cancel: &CancelToken,
) -> Result<OAuthClient> {
    let metadata = json!({
        "client_name": "Vault Agent",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    let request = HttpRequest::post_json(endpoint, &metadata).header("accept", "application/json");
    let (body, text) = answer(http, request, "the authorization server did not register Vault Agent", cancel).await?;
    let client_id = body["client_id"]
        .as_str()
        .ok_or_else(|| Error::Mcp(format!("the registration's answer holds no client id: {}", clip(text.trim()))))?;
    let client_secret = body["client_secret"].as_str().map(str::to_string);
    let auth_method = match (body["token_endpoint_auth_method"].as_str(), &client_secret) {
        (Some(method), _) => method.to_string(),
        (None, Some(_)) => "client_secret_basic".to_string(),
        (None, None) => "none".to_string(),
    };
    Ok(OAuthClient { client_id: client_id.to_string(), client_secret, auth_method })
}

/// The JSON answer to `request` and its text; a refusal is an error that starts with `refused`
/// and says the server's `error_description` (or `error`, or what it answered).
async fn answer(
    http: &dyn HttpClient,
    request: HttpRequest,
    refused: &str,
    cancel: &CancelToken,
) -> Result<(serde_json::Value, String)> {
    let response = http.send(request, cancel).await?;
    let status = response.status;
    let text = response.text().await?;
    let body: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    if !(200..300).contains(&status) {
        let said = body["error_description"]
            .as_str()
            .or(body["error"].as_str())
            .map_or_else(|| clip(text.trim()), str::to_string);
        return Err(Error::Mcp(format!("{refused} (HTTP {status}): {said}")));
    }
    Ok((body, text))
}

/// The scopes of `a` and then those of `b` not in `a`, space-separated (OAuth's form).
pub(crate) fn union_of_scopes(a: &str, b: &str) -> String {
    let mut all: Vec<&str> = a.split_whitespace().collect();
    for scope in b.split_whitespace() {
        if !all.contains(&scope) {
            all.push(scope);
        }
    }
    all.join(" ")
}

/// `params` as a form body or query: `a=1&b=x%20y`.
fn form(params: &[(&str, &str)]) -> String {
    params.iter().map(|(name, value)| format!("{name}={}", url_encode(value))).collect::<Vec<_>>().join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(expires_at: Option<f64>) -> McpCredentials {
        McpCredentials {
            access_token: "at".into(),
            refresh_token: Some("rt".into()),
            expires_at,
            scope: None,
            client: OAuthClient { client_id: "c".into(), client_secret: None, auth_method: "none".into() },
            token_endpoint: "https://a.example/token".into(),
            issuer: "https://a.example".into(),
            resource: "https://m.example/mcp".into(),
            step_up_scope: None,
        }
    }

    #[test]
    fn scopes_are_joined_once_each_in_order() {
        assert_eq!(union_of_scopes("notes:read", "notes:read notes:write"), "notes:read notes:write");
        assert_eq!(union_of_scopes("", " a  b "), "a b");
        assert_eq!(union_of_scopes("a b", ""), "a b");
    }

    #[test]
    fn tokens_are_renewed_a_minute_before_they_end() {
        assert!(!credentials(None).is_expiring(u64::MAX));
        assert!(!credentials(Some(1_000_000.0)).is_expiring(900_000));
        assert!(credentials(Some(1_000_000.0)).is_expiring(940_000));
        assert!(credentials(Some(1_000_000.0)).is_expiring(2_000_000));
    }

    #[test]
    fn credentials_are_camel_case_json_without_empty_fields() {
        let json = serde_json::to_value(credentials(None)).unwrap();
        assert_eq!(json["accessToken"], "at");
        assert_eq!(json["client"]["authMethod"], "none");
        assert!(json.get("expiresAt").is_none() && json["client"].get("clientSecret").is_none());
        let back: McpCredentials = serde_json::from_value(json).unwrap();
        assert_eq!(back, credentials(None));
    }

    #[test]
    fn a_users_app_proves_itself_as_the_server_takes_it() {
        let server = |methods: Option<&[&str]>| ServerMetadata {
            issuer: "https://a.example".into(),
            authorization_endpoint: "https://a.example/authorize".into(),
            token_endpoint: "https://a.example/token".into(),
            registration_endpoint: None,
            code_challenge_methods_supported: None,
            authorization_response_iss_parameter_supported: false,
            token_endpoint_auth_methods_supported: methods.map(|m| m.iter().map(|s| s.to_string()).collect()),
        };
        let app =
            |secret: Option<&str>| OAuthApp { client_id: " Iv1.abc ".into(), client_secret: secret.map(Into::into) };
        let method = |app: OAuthApp, methods| app.client(&server(methods)).auth_method;
        assert_eq!(method(app(None), None), "none");
        assert_eq!(method(app(Some(" ")), None), "none", "a blank secret is none");
        assert_eq!(method(app(Some("s")), None), "client_secret_basic", "RFC 8414's default");
        assert_eq!(method(app(Some("s")), Some(&["client_secret_post"])), "client_secret_post");
        assert_eq!(method(app(Some("s")), Some(&["client_secret_post", "client_secret_basic"])), "client_secret_basic");
        assert_eq!(app(None).client(&server(None)).client_id, "Iv1.abc");
    }

    #[test]
    fn form_values_are_encoded() {
        assert_eq!(form(&[("a", "x y"), ("b", "obsidian://cb?x=1")]), "a=x%20y&b=obsidian%3A%2F%2Fcb%3Fx%3D1");
    }
}
