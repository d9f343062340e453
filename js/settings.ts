import { requireApiVersion, type App } from "obsidian";
import type { AgentConfig, ApprovalCategory, EmbedderOptions, ModeConfig, ModelPrice, ProviderConfig, Transport, WebSearchConfig } from "./protocol";
import { PRESETS, type McpCredentials, type McpServerConfig, type OAuthApp, type ProviderPreset } from "./generated/protocol";

/** The providers the settings offer, and what each stands for: one table, in the core (src/provider/preset.rs). */
export { PRESETS, type PresetInfo, type ProviderPreset } from "./generated/protocol";

/**
 * How notes are embedded for semantic search: not at all, a local model in
 * `.obsidian-agent/models/` (downloaded once from the settings), or an OpenAI-compatible
 * `/embeddings` API.
 */
export type EmbedderChoice = "off" | "static" | "static-minilm" | "minilm" | "api";

/**
 * The local models the core knows (`SearchEngine.installModel`): "minilm-queries" is MiniLM and
 * the map that reads its query vectors into the static model's space.
 */
export type LocalModel = "static" | "minilm" | "minilm-queries";

export const LOCAL_MODELS: Record<LocalModel, { name: string; size: string; files: string; source: string }> = {
  static: {
    name: "the static model",
    size: "8 MB",
    files: "static-minilm-l6-v2-256.vam (an asset of the plugin's GitHub release)",
    source: "this plugin's GitHub release",
  },
  minilm: {
    name: "MiniLM",
    size: "91 MB",
    files: "model.safetensors, vocab.txt and config.json (from sentence-transformers/all-MiniLM-L6-v2)",
    source: "Hugging Face (sentence-transformers/all-MiniLM-L6-v2)",
  },
  "minilm-queries": {
    name: "MiniLM for searches",
    size: "91 MB",
    files: "model.safetensors, vocab.txt and config.json (from sentence-transformers/all-MiniLM-L6-v2) and minilm-queries-256.vaqm (an asset of the plugin's GitHub release)",
    source: "Hugging Face for MiniLM, this plugin's GitHub release for the map",
  },
};

/** The local models an embedder needs installed before it can be set up. */
export function modelsNeeded(options: EmbedderOptions): LocalModel[] {
  switch (options.kind) {
    case "static":
      return options.minilmQueries ? ["static", "minilm-queries"] : ["static"];
    case "minilm":
      return ["minilm"];
    default:
      return [];
  }
}

/** The ways a search can find notes (`SearchMode`, src/embed/hybrid.rs). */
export type SearchMode = "fulltext" | "semantic" | "hybrid";

/** Categories the user may let run without asking (control never asks). */
export const APPROVAL_CATEGORIES: ApprovalCategory[] = ["read", "write", "delete", "web", "memory"];

/** The plugin's settings, as saved in data.json. Bump {@link SETTINGS_VERSION} and add a migration on change. */
export interface VaultAgentSettings {
  version: number;
  provider: {
    preset: ProviderPreset;
    /** Empty: the preset's default model. */
    model: string;
    /** Empty: the preset's base URL. */
    baseUrl: string;
    maxTokens: number;
    textToolDialect: "" | NonNullable<ProviderConfig["textToolDialect"]>;
    /** Whether the model sees images; "auto": the core knows it from the model's name. */
    vision: "auto" | "yes" | "no";
    /** Headers sent with every request to a custom server, one `Name: value` a line (a proxy's or a gateway's own). */
    headers: string;
    /** Which of OpenAI's APIs to speak (OpenAI, Azure and custom servers); "": the core's choice. */
    api: "" | NonNullable<ProviderConfig["api"]>;
  };
  /**
   * API keys by preset, only where Obsidian has no secret storage (before 1.11.4); otherwise
   * the keys live there, under {@link secretId}.
   */
  apiKeys: Partial<Record<KeyName, string>>;
  transport: Transport;
  agent: {
    /** The model's context window in tokens; 0: the model's own (as its server reported it, else the core's list's). */
    contextWindow: number;
    /** Context windows the server's model list gave, by model id: those of the models picked from it. */
    modelWindows: Record<string, number>;
    maxIterations: number;
    toolTimeoutSeconds: number;
    autoApprove: ApprovalCategory[];
    /** `ask`, `agent`, or a custom mode's slug. */
    mode: string;
    /** Tool calls per task at most (0: no budget). */
    maxToolCalls: number;
    /** A task stops after this many minutes (0: no deadline). */
    deadlineMinutes: number;
    /** Added to every task's system prompt (`customInstructions`). */
    customInstructions: string;
    /** Remind the model of its mode every this many steps (0: never). */
    powerSteeringFrequency: number;
    /** Seconds at least between two model requests (0: no limit). */
    rateLimitSeconds: number;
    /** Sampling temperature; `null`: the provider's default. */
    temperature: number | null;
    /** Extended-thinking budget in tokens (0: off). */
    thinkingBudget: number;
    /** After a task that completed, save what is worth remembering (`memoryExtraction`). */
    memoryExtraction: boolean;
    /** A request that matches a recipe learned from earlier tasks takes its fast path (`fastPath`). */
    fastPath: boolean;
  };
  /** Checkpoints and audit logs of finished tasks: kept this many days and this many tasks. */
  retention: { days: number; tasks: number };
  customModes: ModeConfig[];
  /** Notes in this folder are the chat's slash prompts. */
  promptsFolder: string;
  /**
   * The note editor: `suggestions`, a model continues the line after a pause (off by default:
   * each is a request), `suggestionModel` (of the chat's provider; empty: the chat's model).
   */
  editor: { suggestions: boolean; suggestionModel: string };
  /** `language`: searches prefer notes in it (see `searchLanguage`); empty: Obsidian's own. */
  indexing: {
    enabled: boolean;
    language: string;
    /**
     * After a full build or an embedding run over at least this many notes, the core restarts
     * once idle, giving back the memory that work took (0: never). No control in the tab.
     */
    restartAfterNotes: number;
  };
  semantic: {
    embedder: EmbedderChoice;
    /** A mirror local models are downloaded from; empty: each model's own source (the static model: the plugin's release). */
    modelBaseUrl: string;
    /** The OpenAI-compatible API (its key is kept as the providers' keys are, under `embeddings`). */
    api: { baseUrl: string; model: string };
    /** The search modal's mode, as last chosen. */
    searchMode: SearchMode;
  };
  /** The user's own price, US dollars per million tokens; `null`: the list price. */
  price: { input: number; output: number } | null;
  /** The engine `web_search` asks (Brave's key is kept as API keys are, under `web-search`; Tavily's under `tavily`). */
  webSearch: { engine: "off" | "brave" | "tavily" | "searxng"; baseUrl: string };
  /**
   * MCP servers whose tools the agent may call. A server's bearer token is kept as API keys
   * are, under `mcp-<name>` ({@link mcpServers} adds it to the requests).
   */
  mcp: { servers: McpServerConfig[] };
  /** The defences against prompt injection (`AgentConfig.guard`) and the web's domain lists. */
  safety: {
    untrustedMarking: boolean;
    canary: boolean;
    secrets: boolean;
    /** Writes and deletions a minute at most (0: no limit). */
    writeRateLimit: number;
    /** A model call screens each web and MCP result first; with `screeningModel` (empty: the chat's model). */
    screening: boolean;
    screeningModel: string;
    /** Domains web_fetch reads without asking; and never. */
    webAllow: string[];
    webDeny: string[];
  };
}

export const SETTINGS_VERSION = 2;

export const DEFAULT_SETTINGS: VaultAgentSettings = {
  version: SETTINGS_VERSION,
  provider: { preset: "anthropic", model: "", baseUrl: "", maxTokens: 8192, textToolDialect: "", vision: "auto", headers: "", api: "" },
  apiKeys: {},
  transport: "auto",
  agent: {
    contextWindow: 0,
    modelWindows: {},
    maxIterations: 25,
    toolTimeoutSeconds: 120,
    autoApprove: ["read"],
    mode: "agent",
    maxToolCalls: 40,
    deadlineMinutes: 0,
    customInstructions: "",
    powerSteeringFrequency: 0,
    rateLimitSeconds: 0,
    temperature: null,
    thinkingBudget: 0,
    memoryExtraction: true,
    fastPath: true,
  },
  retention: { days: 30, tasks: 200 },
  customModes: [],
  promptsFolder: "Prompts",
  editor: { suggestions: false, suggestionModel: "" },
  indexing: { enabled: true, language: "", restartAfterNotes: 2000 },
  semantic: {
    embedder: "static",
    modelBaseUrl: "",
    api: { baseUrl: "https://api.openai.com/v1", model: "text-embedding-3-small" },
    searchMode: "hybrid",
  },
  price: null,
  webSearch: { engine: "off", baseUrl: "" },
  mcp: { servers: [] },
  safety: {
    untrustedMarking: true,
    canary: true,
    secrets: true,
    writeRateLimit: 20,
    screening: false,
    screeningModel: "",
    webAllow: [],
    webDeny: [],
  },
};

type Migration = (data: Record<string, unknown>) => Record<string, unknown>;

/** `MIGRATIONS[n]` turns version n data into version n + 1. */
const MIGRATIONS: Migration[] = [
  // 0 → 1: the first versioned settings. Version 0.1.0 saved nothing but may have left keys
  // of its own; they are dropped.
  () => ({}),
  // 1 → 2: the context window follows the model. 200,000 was the only default a user could
  // have kept; it now means "the model's own" (still 200,000 for Claude).
  (data) => {
    const agent = data.agent;
    if (isObject(agent) && agent.contextWindow === 200_000) return { ...data, agent: { ...agent, contextWindow: 0 } };
    return data;
  },
];

/**
 * Settings from what `loadData` returned: migrated to the current version, with every missing
 * field at its default and every field of the wrong type replaced by its default.
 */
export function migrateSettings(raw: unknown): VaultAgentSettings {
  let data: Record<string, unknown> = isObject(raw) ? { ...raw } : {};
  let version = typeof data.version === "number" ? data.version : 0;
  if (version > SETTINGS_VERSION) {
    // Saved by a newer plugin: keep what still fits rather than lose the user's choices.
    version = SETTINGS_VERSION;
  }
  for (; version < SETTINGS_VERSION; version++) {
    data = MIGRATIONS[version](data);
  }
  return { ...(fill(DEFAULT_SETTINGS, data) as VaultAgentSettings), version: SETTINGS_VERSION };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `defaults` with the values from `data` that have the same type. */
function fill(defaults: unknown, data: unknown): unknown {
  if (data === undefined) return structuredClone(defaults);
  if (defaults === null) return data;
  if (Array.isArray(defaults)) return Array.isArray(data) ? data : structuredClone(defaults);
  if (isObject(defaults)) {
    if (!isObject(data)) return structuredClone(defaults);
    const out: Record<string, unknown> = {};
    const keys = new Set([...Object.keys(defaults), ...Object.keys(data)]);
    for (const key of keys) out[key] = key in defaults ? fill(defaults[key], data[key]) : data[key];
    return out;
  }
  return typeof data === typeof defaults ? data : defaults;
}

/**
 * Whose API key: a provider preset's, the embeddings API's, an MCP server's bearer token
 * (`mcp-<name>`), its sign-in (`mcpauth-<name>`: the `McpCredentials` as JSON), or the OAuth app
 * the user registered for it (`mcpapp-<name>`: an `OAuthApp` as JSON).
 */
export type KeyName =
  | ProviderPreset
  | "embeddings"
  | "web-search"
  | "tavily"
  | `mcp-${string}`
  | `mcpauth-${string}`
  | `mcpapp-${string}`;

/** The id of an API key in Obsidian's secret storage (lower-case letters, digits and dashes). */
export const secretId = (name: KeyName): string => `vault-agent-${name.toLowerCase().replace(/[^a-z0-9-]/g, "-")}-key`;

/**
 * The servers a chat connects to: the enabled ones, each HTTP server's sign-in or token added
 * (the token as its `Authorization` header), and on mobile without the ones that are commands.
 */
export function mcpServers(settings: VaultAgentSettings, keys: { get(name: KeyName): string }, desktop: boolean): McpServerConfig[] {
  return settings.mcp.servers
    .filter((server) => server.enabled && (desktop || server.transport.type === "http"))
    .map((server) => {
      if (server.transport.type !== "http") return server;
      const token = keys.get(`mcp-${server.name}`);
      const headers = server.transport.headers.filter(([name]) => name.toLowerCase() !== "authorization");
      if (token) headers.push(["Authorization", `Bearer ${token}`]);
      const credentials = mcpSignIn(keys, server.name);
      return { ...server, transport: { ...server.transport, headers, ...(credentials ? { credentials } : {}) } };
    });
}

/** The sign-in (OAuth) kept for the MCP server `name`, if any. */
export function mcpSignIn(keys: { get(name: KeyName): string }, name: string): McpCredentials | undefined {
  const kept = keys.get(`mcpauth-${name}`);
  if (!kept) return undefined;
  try {
    return JSON.parse(kept) as McpCredentials;
  } catch {
    return undefined;
  }
}

/** The OAuth app the user registered for the MCP server `name` (`mcpapp-<name>`), if any. */
export function mcpApp(keys: { get(name: KeyName): string }, name: string): OAuthApp | undefined {
  const kept = keys.get(`mcpapp-${name}`);
  if (!kept) return undefined;
  try {
    const app = JSON.parse(kept) as OAuthApp;
    return app.clientId?.trim() ? app : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps an MCP server's sign-in — new, or renewed by the core as its tokens run out (a refresh
 * token may be good once: the old one must not be used again) — and saves the settings that
 * hold it where there is no secret storage.
 */
export function keepMcpSignIn(keys: ApiKeys, save: () => Promise<void>): (server: string, credentials: McpCredentials) => void {
  return (server, credentials) => {
    keys.set(`mcpauth-${server}`, JSON.stringify(credentials));
    if (!keys.secure) void save();
  };
}

/** The engine the agent's `web_search` asks, or `null` for none (off, or not set up yet). */
export function webSearch(settings: VaultAgentSettings, keys: { get(name: KeyName): string }): WebSearchConfig | null {
  const { engine, baseUrl } = settings.webSearch;
  if (engine === "brave" || engine === "tavily") {
    const apiKey = keys.get(engine === "brave" ? "web-search" : "tavily").trim();
    return apiKey ? { engine, apiKey } : null;
  }
  if (engine === "searxng") return baseUrl.trim() ? { engine, baseUrl: baseUrl.trim() } : null;
  return null;
}

/** Where API keys live: Obsidian's secret storage where it exists, else the plugin's data. */
export class ApiKeys {
  constructor(
    private readonly app: App,
    private readonly settings: () => VaultAgentSettings,
  ) {}

  /** Whether keys go to Obsidian's secret storage (`app.secretStorage`, Obsidian 1.11.4 and later). */
  get secure(): boolean {
    return requireApiVersion("1.11.4");
  }

  get(name: KeyName): string {
    if (requireApiVersion("1.11.4")) return this.app.secretStorage.getSecret(secretId(name)) ?? "";
    return this.settings().apiKeys[name] ?? "";
  }

  /** Stores `key`; the caller saves the settings (which hold it without secret storage). */
  set(name: KeyName, key: string): void {
    if (requireApiVersion("1.11.4")) this.app.secretStorage.setSecret(secretId(name), key.trim());
    else this.settings().apiKeys[name] = key.trim();
  }
}

/** The presets whose servers may speak either of OpenAI's APIs (Chat Completions, Responses). */
export const OPENAI_API_PRESETS: ProviderPreset[] = ["openai", "azure", "custom"];

/** The provider's model the settings name: the one typed, else the preset's default ("" for none). */
export function providerModel(settings: VaultAgentSettings): string {
  return settings.provider.model.trim() || PRESETS[settings.provider.preset].defaultModel;
}

/**
 * The provider configuration the settings describe, or the reason there is none. With
 * `modelOptional` (to list the server's models) a configuration may name no model.
 */
export function providerConfig(
  settings: VaultAgentSettings,
  apiKey: string,
  { modelOptional = false } = {},
): ProviderConfig | { missing: string } {
  const preset = PRESETS[settings.provider.preset];
  const model = providerModel(settings);
  const baseUrl = settings.provider.baseUrl.trim() || preset.baseUrl;
  if (preset.needsKey && !apiKey) return { missing: `an API key for ${preset.name}` };
  if (!baseUrl) return { missing: "the server's base URL" };
  if (!model && !modelOptional) return { missing: "a model name" };
  const config: ProviderConfig = { kind: preset.kind, model, baseUrl, maxTokens: settings.provider.maxTokens };
  if (apiKey) config.apiKey = apiKey;
  const headers = { ...preset.headers, ...(settings.provider.preset === "custom" ? parseHeaders(settings.provider.headers).headers : {}) };
  if (Object.keys(headers).length) config.headers = headers;
  if (settings.provider.textToolDialect) config.textToolDialect = settings.provider.textToolDialect;
  if (settings.provider.vision !== "auto") config.vision = settings.provider.vision === "yes";
  if (settings.provider.api && OPENAI_API_PRESETS.includes(settings.provider.preset)) config.api = settings.provider.api;
  return config;
}

/** A header's name: an HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The headers in `text`, one `Name: value` a line (empty lines and `#` comments skipped), and the
 * numbers of the lines that are not headers.
 */
export function parseHeaders(text: string): { headers: Record<string, string>; wrong: number[] } {
  const headers: Record<string, string> = {};
  const wrong: number[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!HEADER_NAME.test(name)) wrong.push(index + 1);
    else headers[name] = line.slice(colon + 1).trim();
  });
  return { headers, wrong };
}

/** The agent's knobs from the settings. */
export function agentConfig(settings: VaultAgentSettings): AgentConfig {
  const { agent, provider } = settings;
  return {
    maxIterations: agent.maxIterations,
    contextWindow: agent.contextWindow,
    modelWindows: { ...agent.modelWindows },
    maxTokens: provider.maxTokens,
    toolTimeoutMs: agent.toolTimeoutSeconds * 1000,
    autoApprove: [...agent.autoApprove],
    mode: agent.mode,
    maxToolCalls: agent.maxToolCalls,
    deadlineMs: agent.deadlineMinutes * 60_000,
    customInstructions: agent.customInstructions,
    powerSteeringFrequency: agent.powerSteeringFrequency,
    rateLimitMs: Math.round(agent.rateLimitSeconds * 1000),
    // Its default is null, so migration keeps whatever data.json held there.
    temperature: typeof agent.temperature === "number" ? agent.temperature : null,
    thinkingBudget: agent.thinkingBudget > 0 ? agent.thinkingBudget : null,
    memoryExtraction: agent.memoryExtraction,
    // The user's price; without one the core prices the meter from its list for the model.
    price: userPrice(settings),
    fastPath: agent.fastPath,
    webAllow: [...settings.safety.webAllow],
    webDeny: [...settings.safety.webDeny],
    guard: {
      untrustedMarking: settings.safety.untrustedMarking,
      canary: settings.safety.canary,
      secrets: settings.safety.secrets,
      writeRateLimit: settings.safety.writeRateLimit,
      writeRateWindowS: 60,
      screening: settings.safety.screening,
      screeningModel: settings.safety.screeningModel.trim() || null,
    },
  };
}

/** Models whose context windows the settings keep: the last ones picked. */
const WINDOWS_KEPT = 20;

/** Keeps `window` as the context window of the model `id` (the core uses it unless the user set one). */
export function rememberWindow(settings: VaultAgentSettings, id: string, window: number): void {
  const windows = settings.agent.modelWindows;
  delete windows[id];
  windows[id] = window;
  for (const old of Object.keys(windows).slice(0, -WINDOWS_KEPT)) delete windows[old];
}

/** The price the cost meter uses: the user's own, if set. */
export function userPrice(settings: VaultAgentSettings): ModelPrice | null {
  if (!settings.price) return null;
  const { input, output } = settings.price;
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}

/**
 * How many workers MiniLM runs in: one core left to the rest of the app, at most four (each holds
 * the model's 91 MB), at least one (so the core's worker stays free for searches).
 */
export function embedWorkerCount(cores: number): number {
  return Math.max(1, Math.min(Math.floor(cores || 2) - 1, 4));
}

/**
 * The embedder the settings describe: `null` when semantic search is off, or the reason it
 * cannot be set up yet. MiniLM runs in {@link embedWorkerCount} workers of `cores` (by
 * default the device's).
 */
export function embedderOptions(
  settings: VaultAgentSettings,
  apiKey: string,
  cores?: number,
): EmbedderOptions | { missing: string } | null {
  const { embedder, api } = settings.semantic;
  switch (embedder) {
    case "off":
      return null;
    case "static":
      return { kind: "static" };
    case "static-minilm":
      return { kind: "static", minilmQueries: true };
    case "minilm":
      return { kind: "minilm", workers: embedWorkerCount(cores ?? window.navigator.hardwareConcurrency) };
    case "api": {
      const baseUrl = api.baseUrl.trim();
      const model = api.model.trim();
      if (!baseUrl) return { missing: "the embeddings API's base URL" };
      if (!model) return { missing: "an embedding model name" };
      return apiKey ? { kind: "api", baseUrl, model, apiKey } : { kind: "api", baseUrl, model };
    }
    default:
      // A value this version does not know (data.json edited, or from a newer plugin).
      return null;
  }
}
