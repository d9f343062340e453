import { decompress } from "fzstd";

/**
 * The core's WebAssembly from the zstd-compressed bytes `main.js` carries (`js/wasmBytes.ts`).
 * zstd because it packs the wasm to 1.86 MB where gzip, which the platform's
 * `DecompressionStream` would unpack, gives 2.54 MB (`main.js` carries the bytes as base64, a
 * third more); fzstd unpacks it in JS, in about 70–100 ms, in the worker that compiles it.
 */
export function unpackWasm(packed: Uint8Array): Uint8Array<ArrayBuffer> {
  return decompress(packed) as Uint8Array<ArrayBuffer>;
}
