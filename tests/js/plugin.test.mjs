// The plugin's plain logic in node (settings, migrations, keys, summaries), and its manifest.
// Everything that needs Obsidian's UI runs in the browser: tests/e2e/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { load } from "./load.mjs";

const manifest = JSON.parse(readFileSync(new URL("../../manifest.json", import.meta.url), "utf8"));

// requireApiVersion answers what the test sets: whether this "Obsidian" has secret storage.
globalThis.__apiAtLeast = true;
const settings = await load(
  "js/settings.ts",
  "export const requireApiVersion = () => globalThis.__apiAtLeast;",
);
const turn = await load(
  "js/views/turn.ts",
  "export class Component {}; export const MarkdownRenderer = {}; export const setIcon = () => {};",
);
// Obsidian's debounce (resettable, with cancel; its waits cut to 20 ms at most, so tests of
// what happens "a while after" a change take no seconds) and notices, recorded.
globalThis.__notices = [];
const servicesStub = `export class Component {}; export const MarkdownRenderer = {}; export const setIcon = () => {};
   export class Notice { constructor(text) { globalThis.__notices.push(text); } }
   export const moment = { locale: () => "en" };
   export const requireApiVersion = () => true;
   export function debounce(fn, ms) {
     let timer = null;
     const d = (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), Math.min(ms, 20)); return d; };
     d.cancel = () => { clearTimeout(timer); return d; };
     return d;
   }`;
const semantic = await load("js/semantic.ts", servicesStub);
const search = await load("js/search.ts", servicesStub);

test("the manifest is what Obsidian needs", () => {
  assert.equal(manifest.id, "vault-agent");
  assert.equal(manifest.name, "Vault Agent");
  assert.equal(manifest.isDesktopOnly, false);
  assert.match(manifest.minAppVersion, /^\d+\.\d+\.\d+$/);
  const versions = JSON.parse(readFileSync(new URL("../../versions.json", import.meta.url), "utf8"));
  assert.equal(versions[manifest.version], manifest.minAppVersion);
  assert.ok(manifest.description.length > 20);
});

test("settings from nothing, garbage or an unversioned file are the defaults", () => {
  const { migrateSettings, DEFAULT_SETTINGS, SETTINGS_VERSION } = settings;
  for (const raw of [undefined, null, 42, "x", [], {}]) {
    assert.deepEqual(migrateSettings(raw), DEFAULT_SETTINGS);
  }
  // Version 0.1.0 saved keys of its own; the first migration drops them.
  assert.deepEqual(migrateSettings({ someOldKey: true }), DEFAULT_SETTINGS);
  assert.equal(migrateSettings({}).version, SETTINGS_VERSION);
});

test("saved settings keep every value of the right type and fill in what is missing", () => {
  const { migrateSettings, DEFAULT_SETTINGS } = settings;
  const saved = {
    version: 1,
    provider: { preset: "ollama", model: "qwen2.5", maxTokens: "many" },
    agent: { autoApprove: ["read", "write"], maxIterations: 40 },
    customModes: [{ slug: "review", name: "Review", role: "You review.", groups: ["read"] }],
    price: { input: 1, output: 2 },
  };
  const s = migrateSettings(saved);
  assert.equal(s.provider.preset, "ollama");
  assert.equal(s.provider.model, "qwen2.5");
  assert.equal(s.provider.maxTokens, DEFAULT_SETTINGS.provider.maxTokens, "a wrong type falls back");
  assert.equal(s.provider.baseUrl, "");
  assert.deepEqual(s.agent.autoApprove, ["read", "write"]);
  assert.equal(s.agent.maxIterations, 40);
  assert.equal(s.agent.contextWindow, DEFAULT_SETTINGS.agent.contextWindow);
  assert.equal(s.customModes[0].slug, "review");
  assert.deepEqual(s.price, { input: 1, output: 2 });
  // The defaults were not changed through the result.
  s.agent.autoApprove.push("delete");
  assert.deepEqual(DEFAULT_SETTINGS.agent.autoApprove, ["read"]);
  // Data from a newer plugin is read as far as it goes.
  assert.equal(migrateSettings({ ...saved, version: 99 }).provider.model, "qwen2.5");
});

test("web search: the engine the settings name, once it is set up", () => {
  const { migrateSettings, webSearch } = settings;
  const keys = (key) => ({ get: (name) => (name === "web-search" ? key : "") });
  assert.equal(webSearch(migrateSettings({}), keys("k")), null, "off by default");
  const brave = migrateSettings({ version: 2, webSearch: { engine: "brave" } });
  assert.equal(webSearch(brave, keys("")), null, "no key yet");
  assert.deepEqual(webSearch(brave, keys(" k ")), { engine: "brave", apiKey: "k" });
  const searx = migrateSettings({ version: 2, webSearch: { engine: "searxng", baseUrl: " http://localhost:8888 " } });
  assert.deepEqual(webSearch(searx, keys("")), { engine: "searxng", baseUrl: "http://localhost:8888" });
  assert.equal(webSearch(migrateSettings({ version: 2, webSearch: { engine: "searxng" } }), keys("")), null, "no address yet");
});

test("the old default context window becomes the model's own; a window the user chose stays", () => {
  const { migrateSettings, agentConfig } = settings;
  assert.equal(migrateSettings({ version: 1, agent: { contextWindow: 200000 } }).agent.contextWindow, 0);
  assert.equal(migrateSettings({ version: 1, agent: { contextWindow: 32000 } }).agent.contextWindow, 32000);
  // Version 2 data means what it says.
  assert.equal(migrateSettings({ version: 2, agent: { contextWindow: 200000 } }).agent.contextWindow, 200000);
  const windows = { "qwen/qwen3-32b": 40960 };
  const s = migrateSettings({ version: 2, agent: { modelWindows: windows } });
  assert.deepEqual(agentConfig(s).modelWindows, windows);
  assert.notEqual(agentConfig(s).modelWindows, s.agent.modelWindows, "a copy goes to the core");
  // The picker keeps the last 20 models' windows, the one picked again last.
  for (let i = 0; i < 25; i++) settings.rememberWindow(s, `m${i}`, 1000 + i);
  settings.rememberWindow(s, "m10", 5000);
  const kept = Object.keys(s.agent.modelWindows);
  assert.equal(kept.length, 20);
  assert.deepEqual([kept[0], kept.at(-1), s.agent.modelWindows.m10], ["m5", "m10", 5000]);
});

test("each provider preset becomes a provider configuration, or says what is missing", () => {
  const { migrateSettings, providerConfig } = settings;
  const withProvider = (provider) => migrateSettings({ version: 1, provider });
  assert.deepEqual(providerConfig(withProvider({ preset: "anthropic" }), ""), { missing: "an API key for Anthropic" });
  assert.deepEqual(providerConfig(withProvider({ preset: "anthropic" }), "k"), {
    kind: "anthropic",
    model: "claude-sonnet-4-5",
    baseUrl: "https://api.anthropic.com",
    maxTokens: 8192,
    apiKey: "k",
  });
  const ollama = providerConfig(withProvider({ preset: "ollama", model: "llama3.2", textToolDialect: "xml-invoke" }), "");
  assert.equal(ollama.kind, "openai-compatible");
  assert.equal(ollama.baseUrl, "http://localhost:11434/v1");
  assert.equal(ollama.textToolDialect, "xml-invoke");
  assert.equal(ollama.apiKey, undefined);
  assert.equal(providerConfig(withProvider({ preset: "lmstudio" }), "").missing, "a model name");
  assert.equal(providerConfig(withProvider({ preset: "custom", model: "m" }), "").missing, "the server's base URL");
  const router = providerConfig(withProvider({ preset: "openrouter" }), "k");
  assert.equal(router.headers["X-Title"], "Vault Agent");
  const custom = providerConfig(withProvider({ preset: "custom", model: "m", baseUrl: " http://h:1/v1 " }), "");
  assert.equal(custom.baseUrl, "http://h:1/v1");
  assert.equal(custom.headers, undefined);
  // A custom server's extra headers, one a line; what is not a header is not sent.
  const text = "cf-aig-authorization: Bearer gw-1\n\n# a comment\nnot a header\nX-Team :  notes ";
  assert.deepEqual(settings.parseHeaders(text), { headers: { "cf-aig-authorization": "Bearer gw-1", "X-Team": "notes" }, wrong: [4] });
  const gateway = providerConfig(withProvider({ preset: "custom", model: "m", baseUrl: "http://h:1/v1", headers: text }), "");
  assert.deepEqual(gateway.headers, { "cf-aig-authorization": "Bearer gw-1", "X-Team": "notes" });
  // Another preset's requests do not carry them (the field is the custom server's).
  const kept = providerConfig(withProvider({ preset: "openrouter", headers: text }), "k");
  assert.equal(kept.headers["cf-aig-authorization"], undefined);
});

test("API keys go to Obsidian's secret storage where it exists, else to the plugin's data", () => {
  const { ApiKeys, migrateSettings, secretId } = settings;
  const store = new Map();
  const app = { secretStorage: { getSecret: (id) => store.get(id) ?? null, setSecret: (id, v) => store.set(id, v) } };
  const s = migrateSettings({});
  const keys = new ApiKeys(app, () => s);
  globalThis.__apiAtLeast = true;
  keys.set("openai", " sk-1 ");
  assert.equal(store.get(secretId("openai")), "sk-1");
  assert.equal(keys.get("openai"), "sk-1");
  assert.deepEqual(s.apiKeys, {}, "the key is not in data.json");
  globalThis.__apiAtLeast = false;
  assert.equal(keys.secure, false);
  keys.set("openai", "sk-2");
  assert.equal(s.apiKeys.openai, "sk-2");
  assert.equal(keys.get("openai"), "sk-2");
  globalThis.__apiAtLeast = true;
});

test("an MCP server's sign-in goes with it to the core, and a renewed one is kept in its place", async () => {
  const { ApiKeys, keepMcpSignIn, mcpServers, mcpSignIn, migrateSettings, secretId } = settings;
  const store = new Map();
  const app = { secretStorage: { getSecret: (id) => store.get(id) ?? null, setSecret: (id, v) => store.set(id, v) } };
  const notes = { name: "notes", transport: { type: "http", url: "https://m.example/mcp", headers: [["Authorization", "Bearer old"]] }, enabled: true, disabledTools: [], trustReadOnly: false };
  const s = migrateSettings({ version: 1, mcp: { servers: [notes] } });
  const keys = new ApiKeys(app, () => s);
  assert.equal(mcpSignIn(keys, "notes"), undefined);
  assert.equal(mcpServers(s, keys, true)[0].transport.credentials, undefined);
  const credentials = { accessToken: "at", client: { clientId: "c", authMethod: "none" }, tokenEndpoint: "t", issuer: "i", resource: "https://m.example/mcp" };
  let saves = 0;
  keepMcpSignIn(keys, async () => void saves++)("notes", credentials);
  assert.deepEqual(JSON.parse(store.get(secretId("mcpauth-notes"))), credentials);
  assert.equal(saves, 0, "secret storage needs no save");
  const [config] = mcpServers(s, keys, true);
  assert.deepEqual(config.transport.credentials, credentials);
  // A user's Authorization header does not go with a sign-in or a token.
  assert.deepEqual(config.transport.headers, []);
  assert.equal(s.mcp.servers[0].transport.credentials, undefined, "the settings (data.json) never hold it");
  // A sign-in is not the bearer token of a server named "auth-notes" or the like.
  assert.notEqual(secretId("mcpauth-notes"), secretId("mcp-auth-notes"));
  store.set(secretId("mcpauth-notes"), "{not json");
  assert.equal(mcpSignIn(keys, "notes"), undefined);
});

test("the agent's options and the user's price come from the settings", () => {
  const { agentConfig, migrateSettings, userPrice } = settings;
  const s = migrateSettings({ version: 1, agent: { toolTimeoutSeconds: 30, mode: "ask" }, price: { input: 2, output: 8 } });
  assert.deepEqual(agentConfig(s), {
    maxIterations: 25,
    contextWindow: 0,
    modelWindows: {},
    maxTokens: 8192,
    toolTimeoutMs: 30000,
    autoApprove: ["read"],
    mode: "ask",
    maxToolCalls: 40,
    deadlineMs: 0,
    // Left alone: the core's defaults.
    customInstructions: "",
    powerSteeringFrequency: 0,
    rateLimitMs: 0,
    temperature: null,
    thinkingBudget: null,
    memoryExtraction: true,
    // The user's price reaches the core, which prices the meter with it.
    price: { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 },
    fastPath: true,
    webAllow: [],
    webDeny: [],
    guard: {
      untrustedMarking: true,
      canary: true,
      secrets: true,
      writeRateLimit: 20,
      writeRateWindowS: 60,
      screening: false,
      screeningModel: null,
    },
  });
  assert.equal(agentConfig(migrateSettings({ version: 1, agent: { memoryExtraction: false } })).memoryExtraction, false);
  assert.equal(agentConfig(migrateSettings({ version: 1, agent: { fastPath: false } })).fastPath, false);
  const agent = { temperature: 0.4, thinkingBudget: 2048, rateLimitSeconds: 1.5, powerSteeringFrequency: 3, customInstructions: "Be brief." };
  const set = agentConfig(migrateSettings({ version: 1, agent }));
  assert.deepEqual(
    [set.temperature, set.thinkingBudget, set.rateLimitMs, set.powerSteeringFrequency, set.customInstructions],
    [0.4, 2048, 1500, 3, "Be brief."],
  );
  // A temperature data.json holds as text is not sent.
  assert.equal(agentConfig(migrateSettings({ version: 1, agent: { temperature: "hot" } })).temperature, null);
  assert.deepEqual(userPrice(s), { input: 2, output: 8, cacheRead: 0.2, cacheWrite: 2.5 });
  assert.equal(userPrice(migrateSettings({})), null);
});

test("tool cards summarise arguments by their paths or query", () => {
  const { argumentSummary } = turn;
  assert.equal(argumentSummary({ path: "a/b.md", offset: 1 }), "a/b.md");
  assert.equal(argumentSummary({ from: "a.md", to: "b/a.md" }), "a.md → b/a.md");
  assert.equal(argumentSummary({ query: "sourdough" }), "sourdough");
  assert.equal(argumentSummary({}), "");
  assert.equal(argumentSummary(null), "");
  assert.equal(argumentSummary({ n: 1 }), '{"n":1}');
  assert.equal(argumentSummary({ path: "x".repeat(200) }).length, 80);
});

test("the embedder comes from the settings: off, a local model, or an API with its key", () => {
  const { embedderOptions, migrateSettings, DEFAULT_SETTINGS } = settings;
  assert.equal(DEFAULT_SETTINGS.semantic.embedder, "static", "the local static model, once downloaded");
  const withSemantic = (semantic) => migrateSettings({ version: 1, semantic });
  assert.deepEqual(embedderOptions(withSemantic({}), ""), { kind: "static" });
  assert.equal(embedderOptions(withSemantic({ embedder: "off" }), ""), null);
  assert.equal(embedderOptions(withSemantic({ embedder: "something newer" }), ""), null);
  assert.deepEqual(embedderOptions(withSemantic({ embedder: "minilm" }), "", 8), { kind: "minilm", workers: 4 });
  assert.deepEqual(embedderOptions(withSemantic({ embedder: "minilm" }), "", 4), { kind: "minilm", workers: 3 });
  assert.deepEqual(embedderOptions(withSemantic({ embedder: "minilm" }), "", 2), { kind: "minilm", workers: 1 });
  assert.deepEqual(embedderOptions(withSemantic({ embedder: "minilm" }), "", 1), { kind: "minilm", workers: 1 });
  // The static model's vectors with MiniLM reading the searches needs both models in the vault.
  const readByMinilm = embedderOptions(withSemantic({ embedder: "static-minilm" }), "");
  assert.deepEqual(readByMinilm, { kind: "static", minilmQueries: true });
  assert.deepEqual(settings.modelsNeeded(readByMinilm), ["static", "minilm-queries"]);
  assert.deepEqual(settings.modelsNeeded({ kind: "static" }), ["static"]);
  assert.deepEqual(settings.modelsNeeded({ kind: "minilm", workers: 1 }), ["minilm"]);
  assert.deepEqual(settings.modelsNeeded({ kind: "api", baseUrl: "http://x", model: "m" }), []);
  const api = withSemantic({ embedder: "api", api: { baseUrl: " http://localhost:11434/v1 ", model: "nomic-embed-text" } });
  assert.deepEqual(embedderOptions(api, ""), { kind: "api", baseUrl: "http://localhost:11434/v1", model: "nomic-embed-text" });
  assert.equal(embedderOptions(api, "sk-e").apiKey, "sk-e");
  assert.deepEqual(embedderOptions(withSemantic({ embedder: "api", api: { baseUrl: "", model: "m" } }), "k"), {
    missing: "the embeddings API's base URL",
  });
  // Older settings without the section get its defaults; a wrong type falls back.
  const s = migrateSettings({ version: 1, semantic: { searchMode: 3, modelBaseUrl: "http://mirror/models" } });
  assert.equal(s.semantic.searchMode, "hybrid");
  assert.equal(s.semantic.modelBaseUrl, "http://mirror/models");
  assert.equal(s.semantic.api.model, DEFAULT_SETTINGS.semantic.api.model);
});

test("the embeddings API key is kept as the providers' keys are", () => {
  const { ApiKeys, migrateSettings, secretId } = settings;
  const store = new Map();
  const app = { secretStorage: { getSecret: (id) => store.get(id) ?? null, setSecret: (id, v) => store.set(id, v) } };
  const s = migrateSettings({});
  const keys = new ApiKeys(app, () => s);
  keys.set("embeddings", "sk-embed");
  assert.equal(store.get(secretId("embeddings")), "sk-embed");
  assert.equal(secretId("embeddings"), "vault-agent-embeddings-key");
  assert.deepEqual(s.apiKeys, {});
  globalThis.__apiAtLeast = false;
  keys.set("embeddings", "sk-2");
  assert.equal(s.apiKeys.embeddings, "sk-2");
  globalThis.__apiAtLeast = true;
});

test("each hit says which signal found it", () => {
  const { foundByLabel } = semantic;
  assert.equal(foundByLabel({ fulltext: 1, semantic: 3, linkedFrom: null }), "both");
  assert.equal(foundByLabel({ fulltext: 2, semantic: null, linkedFrom: null }), "words");
  assert.equal(foundByLabel({ fulltext: null, semantic: 1, linkedFrom: null }), "meaning");
  assert.equal(foundByLabel({ fulltext: null, semantic: null, linkedFrom: "a.md" }), "link");
  // The core leaves out a signal that did not find the hit.
  assert.equal(foundByLabel({ semantic: 2 }), "meaning");
  assert.equal(foundByLabel({ fulltext: 1 }), "words");
});

/**
 * An in-memory stand-in for the core's SearchEngine, as far as semantic search uses it: a model
 * that is installed or not, notes that embed one per tick with progress, cancel, and a run that
 * can be made to fail.
 */
function memoryEngine({ notes = 5, installed = true } = {}) {
  const engine = {
    installed,
    embedder: null,
    embedded: 0,
    runs: 0,
    failNext: null,
    cancelled: false,
    noteCount: () => notes,
    embeddedNoteCount: () => engine.embedded,
    isModelInstalled: async () => engine.installed,
    installModel: async (options, onProgress) => {
      engine.installOptions = options;
      if (options.baseUrl === "http://bad") throw new Error("downloading http://bad/x: HTTP 404");
      onProgress("model.vam", 4, 8);
      onProgress("model.vam", 8, 8);
      engine.installed = true;
    },
    // The core checks the bytes against the pinned file; here, the pinned file is three bytes.
    installModelFile: async (model, name, bytes) => {
      if (bytes.length !== 3) throw new Error(`invalid input: ${name} is not a file of ${model} (got ${bytes.length} bytes)`);
      engine.installed = true;
      return "model.vam";
    },
    setEmbedder: async (options) => {
      engine.embedder = options;
      // As the core answers: here MiniLM's workers never start (this fake has none to offer).
      const workersFailed = options.kind === "minilm" ? "this host runs no embedding workers" : null;
      return { id: options.kind, dimensions: 3, workers: 0, workersFailed };
    },
    clearEmbedder: () => {
      engine.embedder = null;
      engine.embedded = 0;
    },
    loadEmbeddings: async () => true,
    log: [],
    cancelEmbedding: () => {
      engine.cancelled = true;
    },
    saveEmbeddings: async () => {
      engine.log.push(engine.running ? "save while running" : "save");
      return 1;
    },
    embedNotes: async (onProgress) => {
      engine.runs++;
      engine.cancelled = false;
      engine.running = true;
      try {
        return await engine.embedRun(onProgress);
      } finally {
        engine.running = false;
        engine.log.push("run ended");
      }
    },
    embedRun: async (onProgress) => {
      if (engine.failNext) {
        const error = engine.failNext;
        engine.failNext = null;
        throw error;
      }
      let embeddedNotes = 0;
      for (let done = 0; done < notes; done++) {
        onProgress(done, notes);
        await new Promise((resolve) => setTimeout(resolve, engine.stepMs ?? 1));
        if (engine.cancelled) return { notes, embeddedNotes, chunks: embeddedNotes, removed: 0, cancelled: true, savedBytes: 1 };
        if (engine.embedded < notes) {
          engine.embedded++;
          embeddedNotes++;
        }
      }
      onProgress(notes, notes);
      return { notes, embeddedNotes, chunks: embeddedNotes, removed: 0, cancelled: false, savedBytes: 1 };
    },
    free: () => {},
  };
  return engine;
}

function semanticOver(engine, config) {
  const { SemanticService } = semantic;
  const search = { start: async () => engine };
  const core = async () => ({ vault: { searchEngine: () => engine } });
  return new SemanticService(core, search, () => config);
}

const until = async (check) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(check(), "timed out");
};

test("semantic search waits for a download, embeds in the background with progress, and can be stopped", async () => {
  const engine = memoryEngine({ installed: false });
  const config = { embedder: { kind: "static" }, modelBaseUrl: "", background: true };
  const service = semanticOver(engine, config);
  const states = [];
  service.onChange(() => states.push(service.state.kind === "embedding" ? `${service.state.done}/${service.state.total}` : service.state.kind));
  await service.start();
  assert.equal(service.state.kind, "no-model", "nothing is downloaded without the user asking");
  assert.equal(engine.embedder, null);
  assert.equal(service.canSearch(), false);

  // A failed download says why and leaves things as they were.
  config.modelBaseUrl = "http://bad";
  await assert.rejects(service.install("static"), /HTTP 404/);
  assert.equal(service.state.kind, "no-model");

  config.modelBaseUrl = "";
  await service.install("static");
  assert.ok(states.includes("installing"));
  await until(() => service.state.kind === "ready" && !service.running);
  assert.deepEqual(engine.embedder, { kind: "static" });
  assert.ok(states.includes("0/5") && states.includes("5/5"), states.join(" "));
  assert.equal(service.describe(), "5/5 notes embedded.");
  assert.equal(service.statusText(), "5 embedded");
  assert.ok(service.canSearch());

  // A stop keeps what is done and holds re-runs on vault changes until asked again. Each note
  // takes a while here, so the stop lands mid-run however the timers fall.
  engine.embedded = 0;
  engine.stepMs = 40;
  service.resume();
  await until(() => service.state.kind === "embedding" && service.state.done >= 2);
  service.cancel();
  await until(() => !service.running);
  assert.equal(service.state.kind, "stopped");
  assert.match(service.describe(), /^Stopped: \d\/5 notes embedded\.$/);
  engine.stepMs = 1;
  const runs = engine.runs;
  service.changed();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(engine.runs, runs, "a stopped embedding does not restart on its own");
  service.resume();
  await until(() => service.state.kind === "ready" && !service.running);
  assert.equal(engine.embedded, 5);

  // Turned off: the core forgets the embedder, and searching by meaning is not offered.
  config.embedder = null;
  await service.reconfigure();
  assert.equal(service.state.kind, "off");
  assert.equal(engine.embedder, null);
  assert.equal(service.canSearch(), false);
});

/** A service whose embedding of 50 notes is under way, a note every 20 ms. */
async function embeddingUnderWay() {
  const engine = memoryEngine({ notes: 50 });
  engine.stepMs = 20;
  const service = semanticOver(engine, { embedder: { kind: "static" }, modelBaseUrl: "", background: true });
  await service.start();
  await until(() => service.state.kind === "embedding" && service.state.done >= 2);
  return { engine, service };
}

test("a restart of the core stops the running embedding, then saves what the runs left unsaved", async () => {
  const { engine, service } = await embeddingUnderWay();
  await service.reset();
  assert.equal(engine.cancelled, true);
  assert.deepEqual(engine.log, ["run ended", "save"], "saved once, after the run stopped");
  // Nothing set up (no embedder): nothing to save.
  const off = memoryEngine();
  const idle = semanticOver(off, { embedder: null, modelBaseUrl: "", background: true });
  await idle.start();
  await idle.reset();
  assert.deepEqual(off.log, []);
});

/** A full-text engine of the core named `name`, whose saved index loads in `loadMs`. */
function indexEngine(name, loadMs = 0) {
  return {
    loadOrBuild: async () => {
      await new Promise((resolve) => setTimeout(resolve, loadMs));
      return { kind: "loaded" };
    },
    catchUp: async (_files, progress) => {
      progress(1, 1);
      return 0;
    },
    noteCount: async () => 4,
    search: async () => [{ path: `${name}.md` }],
    related: async () => [],
    persist: async () => {},
  };
}

test("a restart of the core keeps the index ready to the user: a search meanwhile answers from the new core", async () => {
  let engine = indexEngine("old");
  const service = new search.SearchService(async () => ({ vault: { searchEngine: async () => engine } }), () => []);
  await service.start();
  const shown = [];
  service.onChange(() => shown.push(service.state.kind));
  // As the plugin restarts its core: save, let the engine go, start again in the new core.
  await service.stop();
  service.reset(true);
  assert.deepEqual(service.state, { kind: "ready", notes: 4 }, "the status bar keeps the index");
  engine = indexEngine("new", 30);
  const during = service.search("pizza");
  await service.start();
  assert.deepEqual((await during).map((h) => h.path), ["new.md"], "waited for the new core, not answered empty");
  assert.deepEqual(shown, ["ready"], "no loading or catching-up shown in between");

  // A reload that fails answers the waiting search with nothing, and says why.
  service.reset(true);
  engine = { ...indexEngine("broken"), loadOrBuild: async () => Promise.reject(new Error("the disk is gone")) };
  const failed = service.search("pizza");
  await service.start().catch(() => {});
  assert.deepEqual(await failed, []);
  assert.deepEqual(service.state, { kind: "failed", message: "the disk is gone" });

  // With indexing off no start follows: the index shows as not loaded, and searches find nothing.
  engine = indexEngine("again");
  await service.start();
  service.reset();
  assert.equal(service.state.kind, "idle");
  assert.deepEqual(await service.search("pizza"), []);
});

test("a restart of the core keeps semantic search answering: a query meanwhile waits for the new core's vectors", async () => {
  let engine = memoryEngine({ notes: 3 });
  const config = { embedder: { kind: "static" }, modelBaseUrl: "", background: true };
  const service = new semantic.SemanticService(async () => ({ vault: { searchEngine: () => engine } }), { start: async () => engine }, () => config);
  await service.start();
  await until(() => service.state.kind === "ready" && service.state.notes === 3 && !service.running);
  const shown = [];
  service.onChange(() => shown.push(service.state.kind));
  await service.reset(true);
  assert.ok(service.canSearch(), "the search modal keeps its modes");
  assert.ok(service.busy(), "a restart under way is work (the plugin waits for it to settle)");
  // The new core loads the saved vectors.
  engine = memoryEngine({ notes: 3 });
  engine.embedded = 3;
  engine.searchMode = async () => [{ path: "new.md" }];
  const during = service.query("pizza", "hybrid", 10);
  await service.start();
  assert.deepEqual((await during).map((h) => h.path), ["new.md"]);
  assert.ok(!shown.includes("loading"), `shown: ${shown.join(", ")}`);
  await until(() => !service.busy());
  assert.ok(service.canSearch());

  // Without a reload (indexing off), searching by meaning stops with the core.
  await service.reset();
  assert.ok(!service.canSearch());
  assert.deepEqual(await service.query("pizza", "hybrid", 10), []);
});

test("saving before the app quits stops the running embedding, saves, and the next change embeds again", async () => {
  const { engine, service } = await embeddingUnderWay();
  await service.save();
  assert.equal(engine.cancelled, true);
  assert.deepEqual(engine.log, ["run ended", "save"], "saved once, after the run stopped");
  // Unlike a restart's reset, the service keeps its engine: a later change embeds as usual.
  engine.stepMs = 1;
  const runs = engine.runs;
  service.changed();
  await until(() => engine.runs > runs && service.state.kind === "ready" && !service.running);
  assert.equal(engine.embedded, 50);
});

test("the model comes from the release package.json names, a mirror, or a file the user picks", async () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  const engine = memoryEngine({ installed: false });
  const config = { embedder: { kind: "static" }, modelBaseUrl: "", background: true };
  const service = semanticOver(engine, config);
  await service.start();
  await service.install("static");
  // The core derives the address from these two fields alone.
  assert.deepEqual(engine.installOptions, { model: "static", release: { repository: pkg.repository, version: pkg.version } });
  config.modelBaseUrl = "http://mirror/models";
  await service.install("static");
  assert.equal(engine.installOptions.baseUrl, "http://mirror/models");

  // Offline: a picked file goes to the core as bytes; a wrong one is refused and changes nothing.
  const offline = memoryEngine({ installed: false });
  const picked = semanticOver(offline, { embedder: { kind: "static" }, modelBaseUrl: "", background: true });
  await picked.start();
  await assert.rejects(picked.installFromFile("static", new File([new Uint8Array([1])], "x.vam")), /x\.vam is not a file of static/);
  assert.equal(picked.state.kind, "no-model");
  assert.equal(offline.installOptions, undefined, "nothing is downloaded");
  assert.equal(await picked.installFromFile("static", new File([new Uint8Array([1, 2, 3])], "copy.vam")), "model.vam");
  await until(() => picked.state.kind === "ready" && !picked.running);
  assert.deepEqual(offline.embedder, { kind: "static" });
});

test("a failed embedding run is reported once, in a notice, and waits to be asked again", async () => {
  const engine = memoryEngine();
  const config = { embedder: { kind: "api", baseUrl: "http://h/v1", model: "m" }, modelBaseUrl: "", background: true };
  engine.failNext = new Error("HTTP 401: invalid key");
  globalThis.__notices.length = 0;
  const service = semanticOver(engine, config);
  await service.start();
  await until(() => service.state.kind === "failed");
  assert.deepEqual(globalThis.__notices, ["Semantic search: HTTP 401: invalid key"]);
  assert.equal(service.statusText(), "embedding failed");
  const runs = engine.runs;
  service.changed();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(engine.runs, runs);
  // Settings changed (a new key): set up again, and it runs.
  await service.reconfigure();
  await until(() => service.state.kind === "ready" && !service.running);
  assert.equal(service.describe(), "5/5 notes embedded.");
});

test("changes during a run make one more run after it", async () => {
  const engine = memoryEngine({ notes: 100 });
  const service = semanticOver(engine, { embedder: { kind: "static" }, modelBaseUrl: "", background: true });
  await service.start();
  await until(() => service.state.kind === "embedding" && service.state.done >= 1);
  const runs = engine.runs;
  service.changed();
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.ok(service.running && engine.runs === runs, "the change came in during the run");
  await until(() => !service.running);
  assert.equal(engine.runs, runs + 1);
  assert.equal(service.state.kind, "ready");
});

test("an undo's report reads as a sentence: paths listed with 'and', nothing said twice", async () => {
  const { describeUndo } = await load("js/views/UndoModal.ts", "export class Modal {}");
  const report = { restored: [], trashed: ["Demo/Links summary.md", "Demo"], recreatedFolders: [], kept: [], failed: [] };
  assert.equal(describeUndo(report), "Undone: Moved Demo/Links summary.md and Demo to the trash.");
  const three = { ...report, trashed: [], restored: ["a.md", "b.md", "c.md"] };
  assert.equal(describeUndo(three, true), "Redone: Restored a.md, b.md and c.md.");
  assert.equal(describeUndo({ ...report, trashed: [] }), "Nothing to undo: everything was already as before.");
});

test("suggestions as you type come only at a line's end with words before it, in the body, outside code", async () => {
  // @codemirror/* is bundled from node_modules here (Obsidian supplies it in the app).
  const { suggestsAt } = await load("js/views/suggest.ts", "export const editorInfoField = null; export class Notice {} export const requireApiVersion = () => true;");
  const at = (text) => suggestsAt(text.replace("|", ""), text.indexOf("|"));
  assert.equal(at("# Bread\n\nThe loaf cools |"), true);
  assert.equal(at("# Bread\n\nThe loaf cools |\n\nServe warm."), true);
  // Mid-line, on an empty line, at the very start.
  assert.equal(at("The loaf| cools"), false);
  assert.equal(at("The loaf cools\n|"), false);
  assert.equal(at("|"), false);
  // In the frontmatter, or a note whose frontmatter never closes.
  assert.equal(at("---\ntags: bre|\n---\nBody"), false);
  assert.equal(at("---\ntags: bread\n---\nBody text |"), true);
  assert.equal(at("---\ntags: bread\nBody text |"), false);
  // Inside a code block, and after it.
  assert.equal(at("Text\n```js\nconst a = |\n"), false);
  assert.equal(at("Text\n```js\nconst a = 1;\n```\nAfter the code |"), true);
});
