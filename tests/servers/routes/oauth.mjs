// An MCP server protected by OAuth 2.1, with its own authorization server, as MCP's authorization
// spec (2025-06-18, 2025-11-25) describes them, for tests of the MCP client's sign-in. Everything
// lives under a session id <sid> ([A-Za-z0-9_-]+), so parallel tests share nothing. BASE is
// http://<Host header>, so the URLs below work under any port or host name.
//
//   POST|DELETE /oauth/<sid>/mcp   the protected MCP endpoint (Streamable HTTP, JSON answers only).
//        Without a live bearer token: 401, WWW-Authenticate: Bearer resource_metadata="…",
//        scope="notes:read" (error="invalid_token" too when a token was sent but is dead).
//        With one: initialize, tools/list, tools/call whoami ("signed in as <client_name>,
//        token <n>, scope <scope>"); notifications → 202. GET → 405 (no SSE stream).
//   GET  /.well-known/oauth-protected-resource/oauth/<sid>/mcp     RFC 9728 resource metadata
//   GET  /.well-known/oauth-authorization-server/oauth/<sid>       RFC 8414 server metadata
//   POST /oauth/<sid>/register     RFC 7591 dynamic registration → client-<n> (secret-<n> when
//        confidential). It keeps answering under noRegistration, so a test can pre-register.
//   GET  /oauth/<sid>/authorize    the authorization endpoint: no login page, it answers at once
//        with a 302 to redirect_uri carrying code, state and iss (or error).
//   POST /oauth/<sid>/token        authorization_code (PKCE S256, resource) and refresh_token
//        (rotated) grants → at-<sid>-<n>, rt-<sid>-<m>.
// Test controls:
//   POST /oauth/<sid>/config {noScopeInHeader, noPkce, noRegistration, confidential, deny, expiresIn,
//        callScope} merged into the session's config. noPkce only drops S256 from the metadata (a
//        client must then refuse); the authorization endpoint still requires PKCE. callScope: a
//        tools/call needs that scope too, else 403 with an insufficient_scope challenge (step-up).
//   POST /oauth/<sid>/expire       every access token so far is expired
//   POST /oauth/<sid>/revoke       every access and refresh token is dead
//   GET  /oauth/<sid>/log          [{method, path, query, headers, form?, json?}], every request the
//        client made under <sid> in order (the controls above are not logged).
import { createHash, randomUUID } from "node:crypto";

const SCOPES = ["notes:read", "notes:write"];
const CODE_LIFETIME_MS = 10 * 60 * 1000;
const sessions = new Map();

function session(sid) {
  if (!sessions.has(sid)) {
    sessions.set(sid, {
      config: {}, log: [], clients: new Map(), codes: new Map(), access: new Map(), refresh: new Map(),
      clientCount: 0, codeCount: 0, accessCount: 0, refreshCount: 0,
    });
  }
  return sessions.get(sid);
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

const base = (req) => `http://${req.headers.host}`;
const issuer = (req, sid) => `${base(req)}/oauth/${sid}`;
const resource = (req, sid) => `${base(req)}/oauth/${sid}/mcp`;

function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  return true;
}

function text(res, status, body) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
  return true;
}

function record(s, req, url, extra = {}) {
  const headers = {};
  for (const name of ["authorization", "mcp-protocol-version", "content-type"]) {
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  }
  s.log.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, ...extra });
}

const challengeOf = (verifier) => createHash("sha256").update(verifier).digest("base64url");

// ---- the protected MCP endpoint ----

function unauthorized(req, res, s, sid, error) {
  let header = `Bearer resource_metadata="${base(req)}/.well-known/oauth-protected-resource/oauth/${sid}/mcp"`;
  if (!s.config.noScopeInHeader) header += `, scope="notes:read"`;
  // RFC 6750: no error code when no credentials were sent at all.
  if (error) header += `, error="invalid_token", error_description="${error}"`;
  return json(res, 401, { error: "invalid_token" }, { "www-authenticate": header });
}

async function mcp(req, res, url, s, sid) {
  const raw = req.method === "POST" ? await readBody(req) : "";
  let body;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  record(s, req, url, req.method === "POST" ? { json: body } : {});

  const presented = /^Bearer (.+)$/i.exec(req.headers.authorization || "")?.[1];
  if (!presented) return unauthorized(req, res, s, sid, null);
  const token = s.access.get(presented);
  if (!token) return unauthorized(req, res, s, sid, "The access token is not valid");
  if (token.expired || Date.now() >= token.expiresAt) return unauthorized(req, res, s, sid, "The access token expired");

  if (req.method === "DELETE") return json(res, 200, {});
  if (req.method !== "POST") return json(res, 405, { error: "method_not_allowed" }, { allow: "POST, DELETE" });
  if (!body || typeof body !== "object" || Array.isArray(body) || body.jsonrpc !== "2.0") {
    return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } });
  }
  if (body.id === undefined) {
    res.writeHead(202).end();
    return true;
  }
  const answer = (result) => json(res, 200, { jsonrpc: "2.0", id: body.id, result });
  const fail = (code, message) => json(res, 200, { jsonrpc: "2.0", id: body.id, error: { code, message } });
  switch (body.method) {
    case "initialize":
      res.setHeader("mcp-session-id", randomUUID());
      return answer({
        protocolVersion: body.params?.protocolVersion || "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "oauth-test", version: "1.0.0" },
      });
    case "tools/list":
      return answer({
        tools: [{
          name: "whoami", description: "Says who the token belongs to.",
          inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: true },
        }],
      });
    case "tools/call": {
      if (body.params?.name !== "whoami") return fail(-32602, `Unknown tool: ${body.params?.name}`);
      const needed = s.config.callScope;
      if (needed && !token.scope.split(" ").includes(needed)) {
        const wanted = `notes:read ${needed}`;
        const header = `Bearer resource_metadata="${base(req)}/.well-known/oauth-protected-resource/oauth/${sid}/mcp", scope="${wanted}", error="insufficient_scope"`;
        return json(res, 403, { error: "insufficient_scope" }, { "www-authenticate": header });
      }
      const client = s.clients.get(token.clientId);
      const who = client?.client_name ?? token.clientId;
      return answer({ content: [{ type: "text", text: `signed in as ${who}, token ${token.n}, scope ${token.scope}` }] });
    }
    default:
      return fail(-32601, `Method not found: ${body.method}`);
  }
}

// ---- the authorization server ----

async function register(req, res, url, s) {
  let meta;
  try {
    meta = JSON.parse(await readBody(req));
  } catch {
    meta = null;
  }
  record(s, req, url, { json: meta });
  if (!meta || typeof meta !== "object") return json(res, 400, { error: "invalid_client_metadata" });
  const uris = meta.redirect_uris;
  const validUri = (u) => typeof u === "string" && URL.canParse(u);
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every(validUri)) {
    return json(res, 400, { error: "invalid_redirect_uri", error_description: "redirect_uris must be a non-empty list of URLs" });
  }
  const n = ++s.clientCount;
  const client = {
    client_id: `client-${n}`,
    client_name: meta.client_name,
    redirect_uris: uris,
    grant_types: meta.grant_types ?? ["authorization_code", "refresh_token"],
    response_types: meta.response_types ?? ["code"],
    token_endpoint_auth_method: meta.token_endpoint_auth_method ?? "none",
  };
  if (s.config.confidential) {
    client.client_secret = `secret-${n}`;
    client.token_endpoint_auth_method = "client_secret_basic";
  }
  s.clients.set(client.client_id, client);
  return json(res, 201, client);
}

function authorize(req, res, url, s, sid) {
  record(s, req, url);
  const q = Object.fromEntries(url.searchParams);
  const client = s.clients.get(q.client_id);
  // Never redirect to a URI that is not the client's own: answer the browser instead.
  if (!client) return text(res, 400, `unknown client_id ${q.client_id}`);
  if (!client.redirect_uris.includes(q.redirect_uri)) return text(res, 400, `redirect_uri ${q.redirect_uri} is not registered`);

  const back = new URL(q.redirect_uri);
  const redirect = (params) => {
    for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
    if (q.state !== undefined) back.searchParams.set("state", q.state);
    back.searchParams.set("iss", issuer(req, sid));
    const href = back.href.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
    res.writeHead(302, { location: back.href, "content-type": "text/html" }).end(`<a href="${href}">Continue</a>`);
    return true;
  };
  const scope = q.scope ?? "";
  if (q.response_type !== "code") return redirect({ error: "unsupported_response_type", error_description: "Only response_type=code" });
  if (!q.code_challenge || q.code_challenge_method !== "S256") {
    return redirect({ error: "invalid_request", error_description: "PKCE with code_challenge_method=S256 is required" });
  }
  if (q.resource !== resource(req, sid)) {
    return redirect({ error: "invalid_target", error_description: `resource must be ${resource(req, sid)}` });
  }
  if (scope && !scope.split(" ").every((x) => SCOPES.includes(x))) return redirect({ error: "invalid_scope", error_description: "Unknown scope" });
  if (s.config.deny) return redirect({ error: "access_denied", error_description: "The user said no" });

  const code = `code-${sid}-${++s.codeCount}-${randomUUID()}`;
  s.codes.set(code, {
    clientId: client.client_id, redirectUri: q.redirect_uri, challenge: q.code_challenge, scope, resource: q.resource,
    expiresAt: Date.now() + CODE_LIFETIME_MS, used: false,
  });
  return redirect({ code });
}

function issueTokens(s, sid, clientId, scope, resourceUri) {
  const access = `at-${sid}-${++s.accessCount}`;
  const expiresIn = s.config.expiresIn ?? 3600;
  s.access.set(access, { n: s.accessCount, clientId, scope, expiresAt: Date.now() + expiresIn * 1000, expired: false });
  const refresh = `rt-${sid}-${++s.refreshCount}`;
  s.refresh.set(refresh, { clientId, scope, resource: resourceUri });
  return { access_token: access, token_type: "Bearer", expires_in: expiresIn, refresh_token: refresh, scope };
}

async function token(req, res, url, s, sid) {
  const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
  record(s, req, url, { form });
  // Token answers must never be cached (RFC 6749 §5.1).
  const reply = (status, body, headers = {}) => json(res, status, body, { "cache-control": "no-store", ...headers });
  if (!(req.headers["content-type"] || "").startsWith("application/x-www-form-urlencoded")) {
    return reply(400, { error: "invalid_request", error_description: "The body must be application/x-www-form-urlencoded" });
  }

  // Client authentication: Basic header, else client_id (+ client_secret) in the body.
  let id = form.client_id;
  let secret = form.client_secret;
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization || "")?.[1];
  if (basic) {
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded.
    const [rawId, rawSecret] = Buffer.from(basic, "base64").toString("utf8").split(/:(.*)/s);
    try {
      id = decodeURIComponent(rawId.replaceAll("+", " "));
      secret = rawSecret === undefined ? undefined : decodeURIComponent(rawSecret.replaceAll("+", " "));
    } catch {
      return reply(401, { error: "invalid_client" }, { "www-authenticate": "Basic" });
    }
    if (form.client_id && form.client_id !== id) return reply(400, { error: "invalid_request", error_description: "client_id differs" });
  }
  const client = s.clients.get(id);
  const authFailed = !client || (client.client_secret !== undefined && secret !== client.client_secret);
  if (authFailed) return reply(401, { error: "invalid_client" }, basic ? { "www-authenticate": "Basic" } : {});

  const invalid = (error_description) => reply(400, { error: "invalid_grant", error_description });
  if (form.grant_type === "authorization_code") {
    const code = s.codes.get(form.code);
    if (!code || code.used || Date.now() >= code.expiresAt) return invalid("The authorization code is not valid");
    if (code.clientId !== id) return invalid("The code was issued to another client");
    if (form.redirect_uri !== code.redirectUri) return invalid("redirect_uri does not match the authorization request");
    if (!form.code_verifier || challengeOf(form.code_verifier) !== code.challenge) return invalid("PKCE verification failed");
    if (form.resource !== code.resource) return reply(400, { error: "invalid_target", error_description: `resource must be ${code.resource}` });
    code.used = true;
    return reply(200, issueTokens(s, sid, id, code.scope, code.resource));
  }
  if (form.grant_type === "refresh_token") {
    const old = s.refresh.get(form.refresh_token);
    if (!old || old.clientId !== id) return invalid("The refresh token is not valid");
    if (form.resource !== undefined && form.resource !== old.resource) {
      return reply(400, { error: "invalid_target", error_description: `resource must be ${old.resource}` });
    }
    // A narrower scope may be asked for, never a wider one.
    const granted = old.scope.split(" ");
    if (form.scope !== undefined && !form.scope.split(" ").every((x) => granted.includes(x))) {
      return reply(400, { error: "invalid_scope", error_description: "The scope exceeds the one granted" });
    }
    s.refresh.delete(form.refresh_token);
    return reply(200, issueTokens(s, sid, id, form.scope ?? old.scope, old.resource));
  }
  return reply(400, { error: "unsupported_grant_type" });
}

// ---- routing ----

const OAUTH_PATH = /^\/oauth\/([A-Za-z0-9_-]+)\/(mcp|register|authorize|token|config|expire|revoke|log)$/;
const wrongMethod = (res) => json(res, 405, { error: "method_not_allowed" });

export const routes = {
  "/oauth/": async (req, res, url) => {
    const match = OAUTH_PATH.exec(url.pathname);
    if (!match) return false;
    const [, sid, what] = match;
    const s = session(sid);
    const { method } = req;
    if (what === "mcp") return mcp(req, res, url, s, sid);
    if (what === "register") return method === "POST" ? register(req, res, url, s) : wrongMethod(res);
    if (what === "authorize") return method === "GET" ? authorize(req, res, url, s, sid) : wrongMethod(res);
    if (what === "token") return method === "POST" ? token(req, res, url, s, sid) : wrongMethod(res);
    if (what === "log") return json(res, 200, s.log);
    if (method !== "POST") return wrongMethod(res);
    if (what === "config") {
      const raw = await readBody(req);
      Object.assign(s.config, raw ? JSON.parse(raw) : {});
    } else if (what === "expire") {
      for (const t of s.access.values()) t.expired = true;
    } else if (what === "revoke") {
      s.access.clear();
      s.refresh.clear();
    }
    return json(res, 200, {});
  },
  "/.well-known/oauth-protected-resource/oauth/": (req, res, url) => {
    const sid = /^\/\.well-known\/oauth-protected-resource\/oauth\/([A-Za-z0-9_-]+)\/mcp$/.exec(url.pathname)?.[1];
    if (!sid || req.method !== "GET") return false;
    const s = session(sid);
    record(s, req, url);
    return json(res, 200, {
      resource: resource(req, sid),
      authorization_servers: [issuer(req, sid)],
      scopes_supported: SCOPES,
      bearer_methods_supported: ["header"],
    });
  },
  "/.well-known/oauth-authorization-server/oauth/": (req, res, url) => {
    const sid = /^\/\.well-known\/oauth-authorization-server\/oauth\/([A-Za-z0-9_-]+)$/.exec(url.pathname)?.[1];
    if (!sid || req.method !== "GET") return false;
    const s = session(sid);
    record(s, req, url);
    const iss = issuer(req, sid);
    const meta = {
      issuer: iss,
      authorization_endpoint: `${iss}/authorize`,
      token_endpoint: `${iss}/token`,
      registration_endpoint: `${iss}/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      scopes_supported: SCOPES,
      // The authorization answer carries iss (RFC 9207), against mix-up attacks.
      authorization_response_iss_parameter_supported: true,
    };
    if (s.config.noPkce) delete meta.code_challenge_methods_supported;
    if (s.config.noRegistration) delete meta.registration_endpoint;
    return json(res, 200, meta);
  },
};
