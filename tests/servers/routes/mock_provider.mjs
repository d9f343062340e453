// A scriptable mock model provider that speaks the Anthropic Messages, OpenAI Chat Completions
// and OpenAI Responses streaming protocols, for browser tests, the agent-loop tests and the
// plugin's end-to-end test.
//
// 1. Script it: POST /mock/<id>/script with {"responses": [response, ...]}. This replaces any
//    earlier script for <id> and clears its request log. Each model request gets the next
//    response; when none is left the answer is a 400 "the mock script has no response left".
// 2. Point a provider at it:
//      Anthropic:          base URL http://127.0.0.1:PORT/mock/<id>/anthropic      (POST …/v1/messages)
//      OpenAI-compatible:  base URL http://127.0.0.1:PORT/mock/<id>/openai/v1   (POST …/chat/completions,
//                          or POST …/responses for the Responses API: "thinking" streams as a
//                          reasoning summary, and its reasoning item comes with encrypted content)
//      Mistral:            base URL http://127.0.0.1:PORT/mock/<id>/mistral/v1  (the OpenAI protocol,
//                          but a request Mistral's API would refuse is refused as it refuses it:
//                          ../mistral_checks.mjs)
//    The protocol is chosen by the path segment after <id>.
// 3. Check what was sent: GET /mock/<id>/requests → [{method, path, headers, body}], body parsed
//    as JSON when it is JSON. Header names are lower-case.
// 4. POST /mock/<id>/release lets a held response go on (see "hold"). DELETE /mock/<id> forgets <id>.
// 5. GET …/openai/v1/models and …/anthropic/v1/models list the script's "models" (ids, or
//    {"id", "contextLength"}; newest first; default: the ones below) in that protocol's shape,
//    as the model picker asks them. A context length is listed as OpenRouter and LM Studio
//    list it (`context_length`), in the OpenAI shape only.
// 6. GET …/openai/api/ps answers as Ollama's does: the script's "served" ({model: tokens}, the
//    context each model is served with; default none) as loaded models; …/openai/api/v0/models
//    (LM Studio's) is a 404. Neither is logged in requests.
// 7. GET /mock/<id>/searx/search?q=…&format=json answers as a SearXNG instance: the script's
//    "searchResults" ([{title, url, content}]).
//
// A response is one of:
//   {"text": "…", "thinking": "…", "toolCalls": [{"id": "…", "name": "…", "arguments": {…}}],
//    "usage": {"input": 10, "output": 5}, "stopReason": "end_turn",
//    "chunkSize": 6, "delayMs": 2, "hold": false, "dropAfter": null}
//      streamed as real SSE: text, thinking and tool arguments cut into pieces of chunkSize
//      characters (default 6), one event per write, delayMs apart (default 2). Every field is
//      optional. With "hold": true the stream stops after the first text delta until
//      /mock/<id>/release is called — so a client that only sees the body once it is complete
//      never gets there. With "dropAfter": n the connection is destroyed after n events.
//   {"status": 429, "headers": {"retry-after": "0"}, "body": {…} | "text", "message": "…"}
//      an error answer; without "body", the protocol's own error JSON with "message".
//   {"raw": "event: …\ndata: …\n\n", "chunkSize": 20}
//      these SSE bytes as they are, chunkSize bytes per write.
import { mistralRefusal } from "../mistral_checks.mjs";

const scripts = new Map();

/** What a models list holds when the script names none: the demo's model, two more (one with
 * its context window), and an embedding model, which the picker leaves out. */
const DEFAULT_MODELS = ["mock", { id: "mock-large", contextLength: 32_768 }, "mock-mini", "mock-embed-text"];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function session(id) {
  if (!scripts.has(id)) scripts.set(id, { responses: [], requests: [], release: null, released: false });
  return scripts.get(id);
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function pieces(text, size) {
  const chars = Array.from(text || "");
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const chunk = (data) => `data: ${JSON.stringify(data)}\n\n`;

// The events of one scripted answer, each tagged when it carries text (for "hold").
function anthropicEvents(r, size) {
  const out = [];
  const usage = r.usage || {};
  const push = (event, data, isText = false) => out.push({ bytes: sse(event, data), isText });
  push("message_start", {
    type: "message_start",
    message: {
      id: "msg_mock", type: "message", role: "assistant", content: [], model: "mock",
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: usage.input ?? 10, output_tokens: 1, cache_read_input_tokens: usage.cacheRead ?? 0,
        cache_creation_input_tokens: usage.cacheWrite ?? 0 },
    },
  });
  push("ping", { type: "ping" });
  let index = 0;
  if (r.thinking) {
    push("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } });
    for (const p of pieces(r.thinking, size)) {
      push("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } });
    }
    push("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "mock-signature" } });
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  if (r.text) {
    push("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const p of pieces(r.text, size)) {
      push("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }, true);
    }
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  }
  (r.toolCalls || []).forEach((call, n) => {
    const id = call.id || `toolu_mock_${n}`;
    push("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id, name: call.name, input: {} } });
    for (const p of pieces(JSON.stringify(call.arguments ?? {}), size)) {
      push("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } });
    }
    push("content_block_stop", { type: "content_block_stop", index });
    index++;
  });
  const stop = r.stopReason || ((r.toolCalls || []).length ? "tool_use" : "end_turn");
  push("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output ?? 5 } });
  push("message_stop", { type: "message_stop" });
  return out;
}

function openaiEvents(r, size) {
  const out = [];
  const usage = r.usage || {};
  const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: 1700000000, model: "mock" };
  const delta = (d, finish = null, isText = false) =>
    out.push({ bytes: chunk({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] }), isText });
  delta({ role: "assistant", content: "" });
  for (const p of pieces(r.thinking, size)) delta({ reasoning_content: p });
  for (const p of pieces(r.text, size)) delta({ content: p }, null, true);
  (r.toolCalls || []).forEach((call, n) => {
    const id = call.id || `call_mock_${n}`;
    delta({ tool_calls: [{ index: n, id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const p of pieces(JSON.stringify(call.arguments ?? {}), size)) {
      delta({ tool_calls: [{ index: n, function: { arguments: p } }] });
    }
  });
  const stop = r.stopReason || ((r.toolCalls || []).length ? "tool_calls" : "stop");
  delta({}, stop);
  const input = usage.input ?? 10;
  const cached = usage.cacheRead ?? 0;
  out.push({
    bytes: chunk({ ...base, choices: [], usage: { prompt_tokens: input + cached, completion_tokens: usage.output ?? 5,
      total_tokens: input + cached + (usage.output ?? 5), prompt_tokens_details: { cached_tokens: cached } } }),
    isText: false,
  });
  out.push({ bytes: "data: [DONE]\n\n", isText: false });
  return out;
}

// The Responses API's events for one scripted answer.
function responsesEvents(r, size) {
  const out = [];
  const usage = r.usage || {};
  let sequence = 0;
  const push = (data, isText = false) => {
    sequence++;
    out.push({ bytes: sse(data.type, { ...data, sequence_number: sequence }), isText });
  };
  const response = { id: "resp_mock", object: "response", status: "in_progress", model: "mock", output: [] };
  push({ type: "response.created", response });
  const output = [];
  if (r.thinking) {
    const item = { id: "rs_mock", type: "reasoning", summary: [] };
    push({ type: "response.output_item.added", output_index: output.length, item });
    for (const p of pieces(r.thinking, size)) {
      push({ type: "response.reasoning_summary_text.delta", item_id: item.id, output_index: output.length, summary_index: 0, delta: p });
    }
    const done = { ...item, summary: [{ type: "summary_text", text: r.thinking }], encrypted_content: "mock-encrypted-reasoning" };
    push({ type: "response.output_item.done", output_index: output.length, item: done });
    output.push(done);
  }
  if (r.text) {
    const item = { id: "msg_mock", type: "message", role: "assistant", status: "in_progress", content: [] };
    push({ type: "response.output_item.added", output_index: output.length, item });
    for (const p of pieces(r.text, size)) {
      push({ type: "response.output_text.delta", item_id: item.id, output_index: output.length, content_index: 0, delta: p }, true);
    }
    const done = { ...item, status: "completed", content: [{ type: "output_text", text: r.text, annotations: [] }] };
    push({ type: "response.output_item.done", output_index: output.length, item: done });
    output.push(done);
  }
  (r.toolCalls || []).forEach((call, n) => {
    const item = { id: `fc_mock_${n}`, type: "function_call", status: "in_progress", call_id: call.id || `call_mock_${n}`, name: call.name, arguments: "" };
    push({ type: "response.output_item.added", output_index: output.length, item });
    const args = JSON.stringify(call.arguments ?? {});
    for (const p of pieces(args, size)) {
      push({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: output.length, delta: p });
    }
    const done = { ...item, status: "completed", arguments: args };
    push({ type: "response.output_item.done", output_index: output.length, item: done });
    output.push(done);
  });
  const input = usage.input ?? 10;
  const cached = usage.cacheRead ?? 0;
  const incomplete = r.stopReason === "max_tokens";
  push({
    type: incomplete ? "response.incomplete" : "response.completed",
    response: { ...response, status: incomplete ? "incomplete" : "completed", output,
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      usage: { input_tokens: input + cached, input_tokens_details: { cached_tokens: cached }, output_tokens: usage.output ?? 5 } },
  });
  return out;
}

function errorBody(protocol, status, message) {
  const type = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    429: "rate_limit_error", 529: "overloaded_error" }[status] || (status >= 500 ? "api_error" : "invalid_request_error");
  return protocol === "anthropic"
    ? { type: "error", error: { type, message } }
    : { error: { message, type, code: status === 429 ? "rate_limit_exceeded" : null } };
}

async function answer(s, protocol, res) {
  const r = s.responses.shift();
  if (!r) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify(errorBody(protocol, 400, "the mock script has no response left")));
    return;
  }
  if (r.status) {
    const body = r.body ?? errorBody(protocol, r.status, r.message || `mock error ${r.status}`);
    res.writeHead(r.status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...(r.headers || {}) });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...(r.headers || {}) });
  const delay = r.delayMs ?? 2;
  if (r.raw !== undefined) {
    const bytes = Buffer.from(r.raw, "utf8");
    const size = r.chunkSize || 20;
    for (let i = 0; i < bytes.length; i += size) {
      res.write(bytes.subarray(i, i + size));
      await sleep(delay);
    }
    res.end();
    return;
  }
  const size = r.chunkSize || 6;
  const events =
    protocol === "anthropic" ? anthropicEvents(r, size) : protocol === "responses" ? responsesEvents(r, size) : openaiEvents(r, size);
  let held = !r.hold;
  let sent = 0;
  for (const e of events) {
    if (res.destroyed) return;
    res.write(e.bytes);
    sent++;
    if (r.dropAfter != null && sent >= r.dropAfter) {
      res.destroy();
      return;
    }
    if (e.isText && !held) {
      held = true;
      if (!s.released) await new Promise((resolve) => { s.release = resolve; res.on("close", resolve); });
      s.released = false;
      s.release = null;
    }
    await sleep(delay);
  }
  res.end();
}

/** Scripts <id> from code, as POST /mock/<id>/script does (the demo's canned conversation). */
export function setScript(id, body) {
  const s = session(id);
  s.responses = Array.isArray(body?.responses) ? [...body.responses] : [];
  s.models = Array.isArray(body?.models) ? [...body.models] : null;
  s.served = body?.served && typeof body.served === "object" ? { ...body.served } : {};
  s.searchResults = Array.isArray(body?.searchResults) ? [...body.searchResults] : [];
  // Ollama's capabilities of each model, as its /api/show names them ({id: ["completion", "tools"]}).
  s.capabilities = body?.capabilities && typeof body.capabilities === "object" ? { ...body.capabilities } : null;
  s.requests = [];
  s.released = false;
}

export const routes = {
  // An Azure resource, `NAME.openai.azure.com` (which the e2e browser resolves to this server):
  // its v1 API is mock session NAME's OpenAI API.
  "/openai/v1/": async (req, res, url) => {
    const name = String(req.headers.host ?? "").match(/^([a-z0-9-]+)\.openai\.azure\.com(?::\d+)?$/)?.[1];
    if (!name) return false;
    const rest = url.pathname.slice("/openai/v1/".length);
    return routes["/mock/"](req, res, new URL(`/mock/${name}/openai/v1/${rest}${url.search}`, url));
  },
  "/mock/": async (req, res, url) => {
    const match = url.pathname.match(/^\/mock\/([^/]+)(?:\/(.*))?$/);
    if (!match) return false;
    const [, id, rest = ""] = match;
    const s = session(id);
    if (rest === "script" && req.method === "POST") {
      setScript(id, await readBody(req));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ responses: s.responses.length }));
      return true;
    }
    if (rest === "requests" && req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(s.requests));
      return true;
    }
    if (rest === "release" && req.method === "POST") {
      if (s.release) s.release();
      else s.released = true;
      res.writeHead(200, { "content-type": "text/plain" }).end("released");
      return true;
    }
    if (rest === "" && req.method === "DELETE") {
      scripts.delete(id);
      res.writeHead(204).end();
      return true;
    }
    if (rest === "openai/api/ps" && req.method === "GET") {
      const models = Object.entries(s.served ?? {}).map(([name, tokens]) => ({ name, model: name, context_length: tokens }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ models }));
      return true;
    }
    if (rest === "openai/api/show" && req.method === "POST") {
      // Ollama's page of one model: not this server, unless the script names capabilities.
      const { model } = await readBody(req);
      const capabilities = s.capabilities?.[model];
      if (!capabilities) res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ details: {}, capabilities }));
      return true;
    }
    if (rest === "searx/search" && req.method === "GET") {
      // A SearXNG instance: the script's "searchResults" for any query.
      s.requests.push({ method: req.method, path: url.pathname + url.search, headers: req.headers, body: null });
      const results = s.searchResults ?? [];
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ query: url.searchParams.get("q"), results }));
      return true;
    }
    if (rest === "openai/api/v0/models" && req.method === "GET") {
      // LM Studio's page of loaded models: not this server.
      res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
      return true;
    }
    const protocol = rest.startsWith("anthropic/")
      ? "anthropic"
      : rest.startsWith("openai/") || rest.startsWith("mistral/")
        ? "openai"
        : null;
    if (protocol && req.method === "GET" && rest.endsWith("/models")) {
      s.requests.push({ method: req.method, path: url.pathname, headers: req.headers, body: null });
      const ids = s.models ?? DEFAULT_MODELS;
      const data = ids.map((entry, i) => {
        const { id, contextLength, tools } = typeof entry === "string" ? { id: entry } : entry;
        if (protocol === "anthropic") {
          return { type: "model", id, display_name: id, created_at: new Date(Date.UTC(2026, 0, 30 - i)).toISOString() };
        }
        const listed = { id, object: "model", created: 1_767_000_000 - i * 86_400, owned_by: "mock" };
        if (contextLength) listed.context_length = contextLength;
        // As OpenRouter says which models call tools.
        if (tools !== undefined) listed.supported_parameters = tools ? ["max_tokens", "tools"] : ["max_tokens"];
        return listed;
      });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data }));
      return true;
    }
    if (!protocol || req.method !== "POST") return false;
    const body = await readBody(req);
    s.requests.push({ method: req.method, path: url.pathname, headers: req.headers, body });
    const refusal = rest.startsWith("mistral/") ? mistralRefusal(body) : null;
    if (refusal) {
      res.writeHead(refusal.status, { "content-type": "application/json" }).end(JSON.stringify(refusal.body));
      return true;
    }
    await answer(s, protocol === "openai" && rest.endsWith("/responses") ? "responses" : protocol, res);
    return true;
  },
};
