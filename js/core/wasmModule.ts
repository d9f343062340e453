import init, { VaultCore, version } from "../../pkg/vault_agent.js";
import type { CoreModule } from "./server";

/** The wasm core as {@link CoreModule}: what the worker (or the in-thread fallback) serves. */
export const wasmModule: CoreModule = {
  async start(wasm) {
    await init({ module_or_path: wasm });
    return version();
  },
  open: (host, request) => new VaultCore(host, request),
};
