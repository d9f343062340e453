import type { Core, VaultCore } from "./core";
import type { ModelPrice, ProviderConfig, Transport, Usage } from "./protocol";
import type { ApiKeys, VaultAgentSettings } from "./settings";

/** The started core and its binding to this vault. */
export interface CoreHandle {
  core: Core;
  vault: VaultCore;
}

/** What views and the settings tab need from the plugin (they never hold each other). */
export interface PluginContext {
  readonly settings: VaultAgentSettings;
  saveSettings(): Promise<void>;
  /** The core, started on first use. */
  core(): Promise<CoreHandle>;
  /** The API key of the chosen provider ("" when none). */
  apiKey(): string;
  apiKeyStore(): ApiKeys;
  /** How model requests travel on this device. */
  transport(): Transport;
  modelPrice(provider: ProviderConfig): ModelPrice | null;
  costOf(price: ModelPrice, usage: Usage): number;
  openSettings(): void;
  openSearch(): void;
  /** Adds the "related notes" section for the active note to a view (a no-op until search exists). */
  renderRelated(parent: HTMLElement): void;
}
