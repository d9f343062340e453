import packed from "../pkg/vault_agent_bg.wasm.zst";

/**
 * The core's WebAssembly as `main.js` carries it: zstd-compressed (esbuild.config.mjs), about a
 * quarter of its size. A fresh copy each call, so its buffer can move to the worker, which
 * unpacks it ({@link unpackWasm} in `core/unpackWasm.ts`) off the UI thread.
 */
export function packedWasm(): Uint8Array {
  return packed.slice();
}
