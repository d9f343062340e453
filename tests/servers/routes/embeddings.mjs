// A mock OpenAI-compatible embeddings API, and the local models' files, for browser tests and
// benchmarks.
//
//   POST /embeddings/<id>/script  {"failures": [answer, ...], "dimensions": 64}
//        The next requests of <id> get these answers first, in order (each {"status", "headers",
//        "body"} — e.g. a 429 with retry-after, or a 200 whose body is an error object); after
//        them every request is answered. Clears <id>'s request log.
//   POST /embeddings/<id>/v1/embeddings  {"model", "input": [texts]}
//        → {"data": [{"index", "embedding"}]}: a deterministic bag-of-words vector per text
//        (each lower-cased word hashed into `dimensions` buckets), so texts sharing words are close.
//   GET  /embeddings/<id>/requests → [{status, inputs}] in order.
//   GET  /models/<file>      → models/<file> from the repository (the static model, the query
//        map), else MiniLM's <file> from $VAULT_AGENT_MINILM_DIR when it is set (a mirror).
//   GET  /models-bad/<file>  → the same bytes with one byte changed (fails its SHA-256).
//   GET  /models/all-MiniLM-L6-v2/<file> → MiniLM's files from $VAULT_AGENT_MINILM_DIR (the
//        benchmarks set it from scripts/minilm_path.sh).
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const sessions = new Map();

function session(id) {
  if (!sessions.has(id)) sessions.set(id, { failures: [], dimensions: 64, log: [] });
  return sessions.get(id);
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : {};
}

function hash(word) {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  return h;
}

function embed(text, dimensions) {
  const v = new Array(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []) v[hash(word) % dimensions] += 1;
  if (v.every((x) => x === 0)) v[0] = 1;
  return v;
}

async function file(res, url, damaged) {
  const name = path.basename(decodeURIComponent(url.pathname));
  const minilm = process.env.VAULT_AGENT_MINILM_DIR;
  const dir = minilm && url.pathname.startsWith("/models/all-MiniLM-L6-v2/") ? minilm : path.join(repo, "models");
  // A mirror serves every file of a model under one address: MiniLM's too, where the server has them.
  const bytes = await readFile(path.join(dir, name))
    .catch(() => (minilm ? readFile(path.join(minilm, name)) : null))
    .catch(() => null);
  if (!bytes) {
    res.writeHead(404).end("no such model file");
    return true;
  }
  if (damaged) bytes[bytes.length >> 1] ^= 0xff;
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length }).end(bytes);
  return true;
}

export const routes = {
  "/embeddings/": async (req, res, url) => {
    const [, , id, ...rest] = url.pathname.split("/");
    const s = session(id);
    const tail = rest.join("/");
    if (tail === "script" && req.method === "POST") {
      const body = await readJson(req);
      s.failures = body.failures || [];
      s.dimensions = body.dimensions || 64;
      s.log = [];
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      return true;
    }
    if (tail === "requests") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(s.log));
      return true;
    }
    if (tail === "v1/embeddings" && req.method === "POST") {
      const body = await readJson(req);
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const failure = s.failures.shift();
      if (failure) {
        s.log.push({ status: failure.status, inputs: inputs.length });
        res.writeHead(failure.status, { "content-type": "application/json", ...(failure.headers || {}) });
        res.end(typeof failure.body === "string" ? failure.body : JSON.stringify(failure.body || {}));
        return true;
      }
      s.log.push({ status: 200, inputs: inputs.length });
      const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: embed(String(text), s.dimensions) }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: body.model }));
      return true;
    }
    return false;
  },
  "/models/": (req, res, url) => file(res, url, false),
  "/models-bad/": (req, res, url) => file(res, url, true),
};
