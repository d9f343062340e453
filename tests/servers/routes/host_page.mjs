// The fake Obsidian host page, for the end-to-end test and the demo (tests/e2e/host/).
//   GET  /host/                 the page; /host/host.js (built by tests/e2e/build-host.mjs),
//                               /host/host.css, and the plugin's own main.js, styles.css, manifest.json
//   GET  /host/config           the demo's configuration, from environment variables (see README)
//   POST /host/request          requestUrl for the page: {url, method, headers, body (base64)} is sent
//                               from here, free of the browser's CORS rules, as Obsidian's requestUrl is;
//                               the answer is {status, headers, body (base64)}
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setScript } from "./mock_provider.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The styles.css in the folder of `mainJs`, if `mainJs` is given and that file exists. */
function stylesBeside(mainJs) {
  if (!mainJs) return null;
  const css = path.join(path.dirname(path.resolve(repo, mainJs)), "styles.css");
  return existsSync(css) ? css : null;
}

const files = {
  "/host/": ["tests/e2e/host/index.html", "text/html; charset=utf-8"],
  "/host/index.html": ["tests/e2e/host/index.html", "text/html; charset=utf-8"],
  "/host/host.css": ["tests/e2e/host/host.css", "text/css; charset=utf-8"],
  "/host/host.js": ["target/host-page/host.js", "text/javascript; charset=utf-8"],
  "/host/pdf.worker.mjs": ["target/host-page/pdf.worker.mjs", "text/javascript; charset=utf-8"],
  // VAULT_AGENT_MAIN_JS: another build to serve (bench/ui.mjs compares two).
  "/host/main.js": [process.env.VAULT_AGENT_MAIN_JS || "main.js", "text/javascript; charset=utf-8"],
  // With another build's main.js, the styles.css beside it where there is one (a CSS-only A/B).
  "/host/styles.css": [stylesBeside(process.env.VAULT_AGENT_MAIN_JS) ?? "styles.css", "text/css; charset=utf-8"],
  "/host/manifest.json": ["manifest.json", "application/json"],
};

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A canned conversation for the demo without a model (VAULT_AGENT_PROVIDER=mock): every call one
 * task makes, the memory call after it included (the e2e test runs it to the end).
 */
export function demoScript() {
  return {
    responses: [
      {
        text: "Let me look at what the vault says about links.",
        toolCalls: [{ id: "demo-1", name: "read_file", arguments: { path: "en/Linking notes and files/Internal links.md" } }],
        delayMs: 15,
      },
      {
        text: "I'll add a short summary at the top of a new note.",
        toolCalls: [{ id: "demo-2", name: "write_file", arguments: {
          path: "Demo/Links summary.md",
          content: "# Links summary\n\n- Link notes with `[[Note name]]`.\n- Link a heading with `[[Note#Heading]]`.\n- Change the text with `[[Note|text]]`.\n",
        } }],
        delayMs: 15,
      },
      { text: "Done: [[Links summary]] sums up internal links. You can undo it with one click.", delayMs: 15 },
      // The memory call after a completed task (settings: memory extraction, on by default).
      { text: "NONE", delayMs: 15 },
    ],
  };
}

/** The demo's plugin data and secrets, from environment variables. */
function demoConfig(origin, env) {
  const keyFor = {
    anthropic: env.ANTHROPIC_API_KEY,
    openai: env.OPENAI_API_KEY,
    gemini: env.GEMINI_API_KEY,
    mistral: env.MISTRAL_API_KEY,
    deepseek: env.DEEPSEEK_API_KEY,
    xai: env.XAI_API_KEY,
    groq: env.GROQ_API_KEY,
    azure: env.AZURE_OPENAI_API_KEY,
    openrouter: env.OPENROUTER_API_KEY,
  };
  let preset = env.VAULT_AGENT_PROVIDER;
  preset ||= Object.keys(keyFor).find((name) => keyFor[name]) ?? "";
  const data = { version: 1, indexing: { enabled: true } };
  const secrets = {};
  if (preset === "mock") {
    data.provider = { preset: "custom", model: "mock", baseUrl: `${origin}/mock/demo/openai/v1` };
  } else if (preset) {
    // Azure's resource is the user's own: its endpoint under Azure's own variable too.
    const baseUrl = env.VAULT_AGENT_BASE_URL ?? (preset === "azure" ? env.AZURE_OPENAI_ENDPOINT : undefined) ?? "";
    data.provider = { preset, model: env.VAULT_AGENT_MODEL ?? "", baseUrl };
    const key = env.VAULT_AGENT_API_KEY ?? keyFor[preset];
    if (key) secrets[`vault-agent-${preset}-key`] = key;
  }
  if (env.VAULT_AGENT_TRANSPORT) data.transport = env.VAULT_AGENT_TRANSPORT;
  return {
    vaultName: env.VAULT_AGENT_VAULT_NAME ?? "obsidian-help",
    files: null,
    filesUrl: "/vault/bundle",
    data,
    secrets,
    theme: env.VAULT_AGENT_THEME ?? "light",
    open: env.VAULT_AGENT_OPEN ?? "en/Home.md",
  };
}

export const routes = {
  "/host/": async (req, res, url) => {
    if (req.method === "GET" && files[url.pathname]) {
      const [file, type] = files[url.pathname];
      try {
        const body = await readFile(path.resolve(repo, file));
        res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
      } catch {
        res.writeHead(404, { "content-type": "text/plain" }).end(`${file} is missing: build it first`);
      }
      return true;
    }
    if (req.method === "GET" && url.pathname === "/host/config") {
      const origin = `http://${req.headers.host}`;
      const config = demoConfig(origin, process.env);
      if (config.data.provider?.model === "mock") setScript("demo", demoScript());
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(config));
      return true;
    }
    if (req.method === "POST" && url.pathname === "/host/request") {
      const { url: target, method, headers, body } = JSON.parse(await readBody(req));
      if (!/^https?:\/\//.test(target)) {
        res.writeHead(400, { "content-type": "text/plain" }).end("only http(s) URLs");
        return true;
      }
      try {
        const answer = await fetch(target, { method, headers, body: body ? Buffer.from(body, "base64") : undefined });
        const bytes = Buffer.from(await answer.arrayBuffer());
        const out = { status: answer.status, headers: Object.fromEntries(answer.headers), body: bytes.toString("base64") };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
      } catch (error) {
        res.writeHead(502, { "content-type": "text/plain" }).end(String(error?.cause?.message ?? error?.message ?? error));
      }
      return true;
    }
    return false;
  },
};
