import init, { costOf, modelPrice, VaultCore, version } from "../pkg/vault_agent.js";
import type { VaultHost } from "./host/VaultHost";
import type { ModelPrice, ProviderConfig, Usage } from "./protocol";
import type { CoreRequest, CoreResponse } from "./transport";
import { loadWasmBytes } from "./wasmBytes";

export type { VaultCore };

export interface Core {
  version: string;
  /**
   * A core bound to one vault host. `request` is the non-streaming transport without CORS
   * (Obsidian's `requestUrl`), used when `fetch` cannot reach a server or when asked for.
   */
  open(host: VaultHost, request?: (request: CoreRequest) => Promise<CoreResponse>): VaultCore;
  /** The list price of the model `provider` names, or null when unknown. */
  modelPrice(provider: ProviderConfig): ModelPrice | null;
  /** What `usage` costs at `price`, in US dollars. */
  costOf(price: ModelPrice, usage: Usage): number;
}

let loading: Promise<Core> | null = null;

/**
 * Instantiates the wasm core once. Later calls share the same promise; a failed start is
 * forgotten so the next call retries.
 */
export function loadCore(): Promise<Core> {
  loading ??= (async (): Promise<Core> => {
    await init({ module_or_path: await loadWasmBytes() });
    return {
      version: version(),
      open: (host: VaultHost, request?: (request: CoreRequest) => Promise<CoreResponse>) => new VaultCore(host, request),
      modelPrice: (provider: ProviderConfig) => modelPrice(provider) as ModelPrice | null,
      costOf: (price: ModelPrice, usage: Usage) => costOf(price, usage),
    };
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}
