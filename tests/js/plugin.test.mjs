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

test("the agent's options and the user's price come from the settings", () => {
  const { agentConfig, migrateSettings, userPrice } = settings;
  const s = migrateSettings({ version: 1, agent: { toolTimeoutSeconds: 30, mode: "ask" }, price: { input: 2, output: 8 } });
  assert.deepEqual(agentConfig(s), {
    maxIterations: 25,
    contextWindow: 200000,
    maxTokens: 8192,
    toolTimeoutMs: 30000,
    autoApprove: ["read"],
    mode: "ask",
  });
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
