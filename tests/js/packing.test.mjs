// How main.js carries the core: zstd-compressed bytes as Z85 text (esbuild.config.mjs with
// scripts/z85.mjs), unpacked in the worker by js/core/unpackWasm.ts. The build's encoder against
// the plugin's decoder, and the real compressor against fzstd.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compress, init as zstdReady } from "@bokuweb/zstd-wasm";
import { z85Encode } from "../../scripts/z85.mjs";
import { load } from "./load.mjs";

const { z85Decode, unpackWasm } = await load("js/core/unpackWasm.ts", "");

test("Z85: the ZeroMQ spec's example, every length's padding, and all byte values round-trip", () => {
  // https://rfc.zeromq.org/spec/32/: 0x86 0x4F 0xD2 0x6F 0xB5 0x59 0xF7 0x5B is "HelloWorld".
  assert.equal(z85Encode(new Uint8Array([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b])), "8:HelloWorld");
  for (let length = 0; length <= 9; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + 255) & 255);
    assert.deepEqual(z85Decode(z85Encode(bytes)), bytes, `length ${length}`);
  }
  const all = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7919) & 255);
  const text = z85Encode(all);
  assert.doesNotMatch(text, /["'\\\n`]/, "nothing a JS string literal would need to escape");
  assert.deepEqual(z85Decode(text), all);
});

test("Z85: damaged text is refused, not decoded to wrong bytes", () => {
  assert.throws(() => z85Decode("8:HelloWorl"), /damaged/);
  assert.throws(() => z85Decode("9:HelloWorld"), /damaged/);
  assert.throws(() => z85Decode("8:Hello~orld"), /damaged/);
  assert.throws(() => z85Decode("8:Hello\u00e9orld"), /damaged/);
  assert.throws(() => z85Decode("HelloWorld"), /damaged/);
});

test("a zstd-compressed wasm module comes back byte for byte", async () => {
  await zstdReady();
  // The smallest valid module (magic and version), then repetitive and varied bytes as a core has.
  const module = new Uint8Array(50_000);
  module.set([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
  for (let i = 8; i < module.length; i++) module[i] = i % 3 === 0 ? (i * 31) & 255 : i & 15;
  const packed = z85Encode(compress(module, 19));
  assert.ok(packed.length < module.length / 2);
  assert.deepEqual(unpackWasm(packed), module);
});
