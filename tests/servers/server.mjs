// The local test server on 127.0.0.1 that browser tests, benchmarks and the end-to-end test talk to.
// Routes live in ./routes/*.mjs: each exports `routes`, a map from a path prefix to a handler
// (req, res, url) => boolean|Promise<boolean> (true when it answered). Every answer allows CORS,
// so pages served by wasm-pack's own server can call it — except under "/no-cors/…": the same
// routes answered without CORS headers, as a server that refuses browsers (the plugin's fallback
// to requestUrl is tested against it).
//
// Usage: node tests/servers/server.mjs [--port N]   (default: $VAULT_AGENT_TEST_PORT or 47800)
// Prints "listening on http://127.0.0.1:N" once ready; exits when stdin closes or on SIGTERM.
import http from "node:http";
import { readdir } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const argPort = process.argv.indexOf("--port");
const port = Number(argPort > 0 ? process.argv[argPort + 1] : process.env.VAULT_AGENT_TEST_PORT || 47800);

const table = [];
for (const file of (await readdir(path.join(here, "routes"))).sort()) {
  if (!file.endsWith(".mjs")) continue;
  const mod = await import(pathToFileURL(path.join(here, "routes", file)).href);
  for (const [prefix, handler] of Object.entries(mod.routes)) table.push([prefix, handler]);
}
// Longest prefix first, so "/a/b" wins over "/a".
table.sort((a, b) => b[0].length - a[0].length);

export function cors(res) {
  res.setHeader("access-control-allow-origin", "*");
  res.setHeader("access-control-allow-headers", "*");
  res.setHeader("access-control-allow-methods", "GET, POST, PUT, DELETE, OPTIONS");
  res.setHeader("access-control-expose-headers", "*");
}

const server = http.createServer(async (req, res) => {
  if (req.url.startsWith("/no-cors/")) req.url = req.url.slice("/no-cors".length);
  else cors(res);
  if (req.method === "OPTIONS") {
    res.writeHead(204).end();
    return;
  }
  const url = new URL(req.url, `http://127.0.0.1:${port}`);
  try {
    for (const [prefix, handler] of table) {
      if (url.pathname.startsWith(prefix) && (await handler(req, res, url))) return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end(`no route for ${url.pathname}`);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end(String(e?.stack || e));
  }
});

server.listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}`));
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
