// Bundles js/main.ts into main.js with the wasm core inlined, so an install is
// main.js + manifest.json + styles.css. `obsidian` and its editor packages are provided by the app.
import esbuild from "esbuild";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { constants, gzipSync } from "node:zlib";

if (!existsSync("pkg/vault_agent_bg.wasm")) {
  console.error("pkg/vault_agent_bg.wasm is missing: run `npm run build:wasm` first");
  process.exit(1);
}

// The wasm is inlined gzip-compressed (about a third of its size; js/wasmBytes.ts inflates it with
// DecompressionStream at load), and recompressed only when wasm-pack wrote a newer one.
const wasm = "pkg/vault_agent_bg.wasm";
const gz = `${wasm}.gz`;
if (!existsSync(gz) || statSync(gz).mtimeMs < statSync(wasm).mtimeMs) {
  writeFileSync(gz, gzipSync(readFileSync(wasm), { level: constants.Z_BEST_COMPRESSION }));
}

const production = process.argv.includes("--production") || process.env.NODE_ENV === "production";

await esbuild.build({
  entryPoints: ["js/main.ts"],
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2022",
  outfile: "main.js",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
  loader: { ".gz": "binary" },
  sourcemap: production ? false : "inline",
  minify: production,
  logLevel: "info",
  banner: { js: "/* Vault Agent — bundled by esbuild; the Rust core is inlined as gzip-compressed WebAssembly. */" },
});
