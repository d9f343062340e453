import init, { VaultCore, version } from "../../pkg/vault_agent.js";
import type { CoreModule } from "./server";
import { unpackWasm } from "./unpackWasm";

let compiled: WebAssembly.Module | null = null;

/** The wasm core as {@link CoreModule}: what the worker (or the in-thread fallback) serves. */
export const wasmModule: CoreModule = {
  async start(wasm) {
    // Compiled first and kept: the embedding workers get the module, not bytes to compile again.
    compiled = wasm instanceof WebAssembly.Module ? wasm : await WebAssembly.compile(unpackWasm(wasm));
    await init({ module_or_path: compiled });
    return version();
  },
  open: (host, request) => new VaultCore(host, request),
};

/** The core's compiled wasm, once started. */
export const compiledWasm = (): WebAssembly.Module | null => compiled;
