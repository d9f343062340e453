import type { Core, VaultCore } from "./core";
import type { Transport } from "./protocol";
import type { SearchService } from "./search";
import type { SemanticService } from "./semantic";
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
  /** The vault's folder on disk, where it has one (desktop): MCP servers on this machine are told it. */
  vaultPath(): string | undefined;
  /** How model requests travel on this device. */
  transport(): Transport;
  openSettings(): void;
  openSearch(): void;
  /**
   * Deletes the saved chat `id` (the caller asked first); every chat view showing it starts a new
   * chat. False, with a notice saying why, when it was not deleted.
   */
  deleteChat(id: string): Promise<boolean>;
  /** The vault's search index (search, related notes, indexing progress). */
  readonly search: SearchService;
  /** Semantic search: the embedder, background embedding, search by meaning. */
  readonly semantic: SemanticService;
}
