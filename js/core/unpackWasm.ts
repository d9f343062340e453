import { decompress } from "fzstd";

const Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/**
 * The bytes of `<length>:<Z85>` text (`scripts/z85.mjs`, which esbuild.config.mjs encodes with).
 * Throws on a character outside Z85's alphabet or a length that does not fit.
 */
export function z85Decode(text: string): Uint8Array<ArrayBuffer> {
  const colon = text.indexOf(":");
  const length = Number(text.slice(0, colon));
  const digits = text.length - colon - 1;
  if (colon < 1 || !Number.isInteger(length) || digits % 5 !== 0 || Math.ceil(length / 4) * 5 !== digits) {
    throw new Error("the packed core is damaged (its length does not match)");
  }
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < Z85.length; i++) table[Z85.charCodeAt(i)] = i;
  const out = new Uint8Array((digits / 5) * 4);
  for (let i = colon + 1, o = 0; i < text.length; i += 5, o += 4) {
    let value = 0;
    for (let j = 0; j < 5; j++) {
      const digit = table[text.charCodeAt(i + j) & 127];
      if (digit < 0 || text.charCodeAt(i + j) > 127) throw new Error("the packed core is damaged (a character outside Z85)");
      value = value * 85 + digit;
    }
    out[o] = value >>> 24;
    out[o + 1] = (value >>> 16) & 255;
    out[o + 2] = (value >>> 8) & 255;
    out[o + 3] = value & 255;
  }
  return out.subarray(0, length);
}

/**
 * The core's WebAssembly from the text `main.js` carries (`js/wasmBytes.ts`): zstd-compressed
 * bytes written as Z85. zstd packs the wasm to 1.86 MB where gzip, which the platform's
 * `DecompressionStream` would unpack, gives 2.54 MB; Z85 adds a quarter where esbuild's base64
 * adds a third. fzstd unpacks it in JS, in the worker that compiles it, off the UI thread.
 */
export function unpackWasm(packed: string): Uint8Array<ArrayBuffer> {
  return decompress(z85Decode(packed)) as Uint8Array<ArrayBuffer>;
}
