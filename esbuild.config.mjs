// Bundles js/main.ts into main.js with the wasm core inlined, so an install is
// main.js + manifest.json + styles.css. `obsidian` and its editor packages are provided by the app.
import esbuild from "esbuild";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { compress, init as zstdReady } from "@bokuweb/zstd-wasm";
import { z85Encode } from "./scripts/z85.mjs";

if (!existsSync("pkg/vault_agent_bg.wasm")) {
  console.error("pkg/vault_agent_bg.wasm is missing: run `npm run build:wasm` first");
  process.exit(1);
}

const production = process.argv.includes("--production") || process.env.NODE_ENV === "production";

// The wasm is inlined zstd-compressed (about a quarter of its size, where gzip gives a third) and
// written as Z85 text (a quarter more, where esbuild's base64 adds a third): js/core/unpackWasm.ts
// unpacks it in the worker. Recompressed only when wasm-pack wrote a newer one or the level
// changed: 19 for a release (~6 s), 3 for a dev build (its 16 MB wasm in a quarter of a second
// instead of 15 s).
const wasm = "pkg/vault_agent_bg.wasm";
const zst = `${wasm}.zst`;
const level = production ? 19 : 3;
const stamp = `${zst}.level`;
const packed =
  existsSync(zst) &&
  statSync(zst).mtimeMs >= statSync(wasm).mtimeMs &&
  existsSync(stamp) &&
  readFileSync(stamp, "utf8") === String(level);
if (!packed) {
  await zstdReady();
  writeFileSync(zst, compress(readFileSync(wasm), level));
  writeFileSync(stamp, String(level));
}

// The core's Web Worker (js/worker/worker.ts) is a bundle of its own, handed to main.js as text
// (`vault-agent:worker`), which starts it from a Blob URL and posts it the packed wasm.
const worker = await esbuild.build({
  entryPoints: ["js/worker/worker.ts"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  write: false,
  sourcemap: production ? false : "inline",
  minify: production,
  logLevel: "info",
  // The wasm-bindgen glue's default path uses import.meta.url; the bytes are always posted.
  logOverride: { "empty-import-meta": "silent" },
});
const workerSource = {
  name: "worker-source",
  setup(build) {
    build.onResolve({ filter: /^vault-agent:worker$/ }, () => ({ path: "worker", namespace: "worker-source" }));
    build.onLoad({ filter: /.*/, namespace: "worker-source" }, () => ({
      contents: worker.outputFiles[0].text,
      loader: "text",
    }));
  },
};

// `import packed from "….wasm.zst"` gives the packed core as Z85 text (js/wasmBytes.ts).
const packedCore = {
  name: "packed-core",
  setup(build) {
    build.onLoad({ filter: /\.wasm\.zst$/ }, (args) => ({
      contents: `export default ${JSON.stringify(z85Encode(readFileSync(args.path)))};`,
      loader: "js",
    }));
  },
};

await esbuild.build({
  entryPoints: ["js/main.ts"],
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2022",
  outfile: "main.js",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
  plugins: [workerSource, packedCore],
  sourcemap: production ? false : "inline",
  minify: production,
  logLevel: "info",
  banner: { js: "/* Vault Agent — bundled by esbuild; the Rust core is inlined as zstd-compressed WebAssembly, in Z85. */" },
});
