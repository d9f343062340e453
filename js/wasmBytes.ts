import inlined from "../pkg/vault_agent_bg.wasm";

/**
 * The core's WebAssembly bytes, as inlined into `main.js` by esbuild. The one place that knows
 * how they are stored, so whoever instantiates the core (this thread or a worker) asks here.
 */
export function loadWasmBytes(): Promise<Uint8Array> {
  // wasm-pack's own `vault_agent_bg.wasm.d.ts` types this import as the module's exports; esbuild's
  // binary loader makes it the file's bytes.
  return Promise.resolve(inlined as unknown as Uint8Array);
}
