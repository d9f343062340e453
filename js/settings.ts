import { requireApiVersion, type App } from "obsidian";
import type { AgentConfig, ApprovalCategory, ModeConfig, ModelPrice, ProviderConfig, Transport } from "./protocol";

/** The providers the settings offer; each is a kind plus a base URL (see src/provider/config.rs). */
export type ProviderPreset = "anthropic" | "openai" | "openrouter" | "ollama" | "lmstudio" | "custom";

export interface PresetInfo {
  name: string;
  kind: ProviderConfig["kind"];
  baseUrl: string;
  defaultModel: string;
  needsKey: boolean;
  /** Extra headers the service asks for. */
  headers?: Record<string, string>;
}

export const PRESETS: Record<ProviderPreset, PresetInfo> = {
  anthropic: {
    name: "Anthropic",
    kind: "anthropic",
    baseUrl: "https://api.anthropic.com",
    defaultModel: "claude-sonnet-4-5",
    needsKey: true,
  },
  openai: { name: "OpenAI", kind: "openai", baseUrl: "https://api.openai.com/v1", defaultModel: "gpt-4.1", needsKey: true },
  openrouter: {
    name: "OpenRouter",
    kind: "openai-compatible",
    baseUrl: "https://openrouter.ai/api/v1",
    defaultModel: "anthropic/claude-sonnet-4.5",
    needsKey: true,
    headers: { "HTTP-Referer": "https://obsidian.md", "X-Title": "Vault Agent" },
  },
  ollama: {
    name: "Ollama (local)",
    kind: "openai-compatible",
    baseUrl: "http://localhost:11434/v1",
    defaultModel: "qwen2.5",
    needsKey: false,
  },
  lmstudio: {
    name: "LM Studio (local)",
    kind: "openai-compatible",
    baseUrl: "http://localhost:1234/v1",
    defaultModel: "",
    needsKey: false,
  },
  custom: { name: "Custom (OpenAI-compatible)", kind: "openai-compatible", baseUrl: "", defaultModel: "", needsKey: false },
};

/** Categories the user may let run without asking (control never asks). */
export const APPROVAL_CATEGORIES: ApprovalCategory[] = ["read", "write", "delete"];

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
  };
  /**
   * API keys by preset, only where Obsidian has no secret storage (before 1.11.4); otherwise
   * the keys live there, under {@link secretId}.
   */
  apiKeys: Partial<Record<ProviderPreset, string>>;
  transport: Transport;
  agent: {
    contextWindow: number;
    maxIterations: number;
    toolTimeoutSeconds: number;
    autoApprove: ApprovalCategory[];
    /** `ask`, `agent`, or a custom mode's slug. */
    mode: string;
  };
  customModes: ModeConfig[];
  /** Notes in this folder are the chat's slash prompts. */
  promptsFolder: string;
  indexing: { enabled: boolean };
  /** The user's own price, US dollars per million tokens; `null`: the list price. */
  price: { input: number; output: number } | null;
}

export const SETTINGS_VERSION = 1;

export const DEFAULT_SETTINGS: VaultAgentSettings = {
  version: SETTINGS_VERSION,
  provider: { preset: "anthropic", model: "", baseUrl: "", maxTokens: 8192, textToolDialect: "" },
  apiKeys: {},
  transport: "auto",
  agent: { contextWindow: 200_000, maxIterations: 25, toolTimeoutSeconds: 120, autoApprove: ["read"], mode: "agent" },
  customModes: [],
  promptsFolder: "Prompts",
  indexing: { enabled: true },
  price: null,
};

type Migration = (data: Record<string, unknown>) => Record<string, unknown>;

/** `MIGRATIONS[n]` turns version n data into version n + 1. */
const MIGRATIONS: Migration[] = [
  // 0 → 1: the first versioned settings. Version 0.1.0 saved nothing but may have left keys
  // of its own; they are dropped.
  () => ({}),
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

/** The id of a preset's API key in Obsidian's secret storage. */
export const secretId = (preset: ProviderPreset): string => `vault-agent-${preset}-key`;

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

  get(preset: ProviderPreset): string {
    if (requireApiVersion("1.11.4")) return this.app.secretStorage.getSecret(secretId(preset)) ?? "";
    return this.settings().apiKeys[preset] ?? "";
  }

  /** Stores `key`; the caller saves the settings (which hold it without secret storage). */
  set(preset: ProviderPreset, key: string): void {
    if (requireApiVersion("1.11.4")) this.app.secretStorage.setSecret(secretId(preset), key.trim());
    else this.settings().apiKeys[preset] = key.trim();
  }
}

/** The provider configuration the settings describe, or the reason there is none. */
export function providerConfig(settings: VaultAgentSettings, apiKey: string): ProviderConfig | { missing: string } {
  const preset = PRESETS[settings.provider.preset];
  const model = settings.provider.model.trim() || preset.defaultModel;
  const baseUrl = settings.provider.baseUrl.trim() || preset.baseUrl;
  if (preset.needsKey && !apiKey) return { missing: `an API key for ${preset.name}` };
  if (!baseUrl) return { missing: "the server's base URL" };
  if (!model) return { missing: "a model name" };
  const config: ProviderConfig = { kind: preset.kind, model, baseUrl, maxTokens: settings.provider.maxTokens };
  if (apiKey) config.apiKey = apiKey;
  if (preset.headers) config.headers = { ...preset.headers };
  if (settings.provider.textToolDialect) config.textToolDialect = settings.provider.textToolDialect;
  return config;
}

/** The agent's knobs from the settings. */
export function agentConfig(settings: VaultAgentSettings): AgentConfig {
  const { agent, provider } = settings;
  return {
    maxIterations: agent.maxIterations,
    contextWindow: agent.contextWindow,
    maxTokens: provider.maxTokens,
    toolTimeoutMs: agent.toolTimeoutSeconds * 1000,
    autoApprove: [...agent.autoApprove],
    mode: agent.mode,
  };
}

/** The price the cost meter uses: the user's own, if set. */
export function userPrice(settings: VaultAgentSettings): ModelPrice | null {
  if (!settings.price) return null;
  const { input, output } = settings.price;
  return { input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 };
}
