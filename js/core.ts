import init, { VaultCore, version } from "../pkg/vault_agent.js";
import wasmBytes from "../pkg/vault_agent_bg.wasm";
import type { VaultHost } from "./host/VaultHost";

export interface Core {
  version: string;
  /** A core bound to one vault host. */
  open(host: VaultHost): VaultCore;
}

let loading: Promise<Core> | null = null;

/**
 * Instantiates the wasm core once. Later calls share the same promise; a failed start is
 * forgotten so the next call retries.
 */
export function loadCore(): Promise<Core> {
  loading ??= (async () => {
    await init({ module_or_path: wasmBytes });
    return { version: version(), open: (host: VaultHost) => new VaultCore(host) };
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}
