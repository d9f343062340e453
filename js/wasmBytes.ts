import packed from "../pkg/vault_agent_bg.wasm.zst";

/**
 * The core's WebAssembly as `main.js` carries it: zstd-compressed and written as Z85 text
 * (esbuild.config.mjs), about a third of its size. The UI thread only hands the text to the
 * worker, which unpacks it ({@link unpackWasm} in `core/unpackWasm.ts`).
 */
export function packedWasm(): string {
  return packed;
}
