// Bundles js/main.ts into main.js with the wasm core inlined, so an install is
// main.js + manifest.json + styles.css. `obsidian` and its editor packages are provided by the app.
import esbuild from "esbuild";
import { existsSync } from "node:fs";

if (!existsSync("pkg/vault_agent_bg.wasm")) {
  console.error("pkg/vault_agent_bg.wasm is missing: run `npm run build:wasm` first");
  process.exit(1);
}

const production = process.argv.includes("--production") || process.env.NODE_ENV === "production";

// The core's Web Worker (js/worker/worker.ts) is a bundle of its own, handed to main.js as text
// (`vault-agent:worker`), which starts it from a Blob URL and posts it the wasm bytes.
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

await esbuild.build({
  entryPoints: ["js/main.ts"],
  plugins: [workerSource],
  bundle: true,
  format: "cjs",
  platform: "browser",
  target: "es2022",
  outfile: "main.js",
  external: ["obsidian", "electron", "@codemirror/*", "@lezer/*"],
  loader: { ".wasm": "binary" },
  sourcemap: production ? false : "inline",
  minify: production,
  logLevel: "info",
  banner: { js: "/* Vault Agent — bundled by esbuild; the Rust core is inlined as WebAssembly. */" },
});
