// Bundles js/main.ts into main.js with the wasm core inlined, so an install is
// main.js + manifest.json + styles.css. `obsidian` and its editor packages are provided by the app.
import esbuild from "esbuild";
import { existsSync } from "node:fs";

if (!existsSync("pkg/vault_agent_bg.wasm")) {
  console.error("pkg/vault_agent_bg.wasm is missing: run `npm run build:wasm` first");
  process.exit(1);
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
  loader: { ".wasm": "binary" },
  sourcemap: production ? false : "inline",
  minify: production,
  logLevel: "info",
  banner: { js: "/* Vault Agent — bundled by esbuild; the Rust core is inlined as WebAssembly. */" },
});
