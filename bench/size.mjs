// `npm run bench:size`: where the release wasm's bytes go. Builds the release core, keeps its
// name section for twiggy (`cargo install twiggy`), sums twiggy's per-function sizes by crate, and
// reports the shipped sizes: after wasm-opt (scripts/wasm-opt.sh), zstd-compressed as main.js
// inlines it (gzip -9 beside it, for comparison), and main.js itself when it has been built with `node esbuild.config.mjs --production`.
//   node bench/size.mjs [--skip-build]
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";
import { compress, init as zstdReady } from "@bokuweb/zstd-wasm";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, argv, opts = {}) => execFileSync(cmd, argv, { cwd: repo, maxBuffer: 1 << 30, ...opts });
const out = path.join(repo, "target/size");
mkdirSync(out, { recursive: true });

if (!process.argv.includes("--skip-build")) {
  run("cargo", ["build", "--locked", "--release", "--target", "wasm32-unknown-unknown", "--lib"], { stdio: "inherit" });
}
run("wasm-bindgen", ["--target", "web", "--out-dir", out, "target/wasm32-unknown-unknown/release/vault_agent.wasm"]);
const named = path.join(out, "vault_agent_bg.wasm");

// twiggy's rows are functions and data segments; a function belongs to the crate its path starts
// with (`<tantivy::X as core::Y>::f` is tantivy's). Generic code from core/alloc (drop glue,
// sorting, formatting) is instantiated for other crates' types but counted under core/alloc.
const csv = run("twiggy", ["top", "-n", "10000000", "--format", "csv", named]).toString().trim().split("\n").slice(1);
const byCrate = new Map();
let total = 0;
// A CSV row: quoted fields may hold commas and doubled quotes.
const fields = (line) => [...line.matchAll(/"((?:[^"]|"")*)"|([^,]*)/g)].filter((m) => m.index === 0 || line[m.index - 1] === ",").map((m) => (m[1] ?? m[2]).replaceAll('""', '"'));
for (const line of csv) {
  const [name, shallow] = fields(line);
  const size = Number(shallow);
  let crate = name.match(/^<?&?(?:dyn )?(?:mut )?([a-z_][a-z0-9_]*)::/)?.[1] ?? "other";
  if (name.startsWith("data segment")) crate = "data (constants, tables, strings)";
  if (name.includes("function names")) crate = "name section (stripped by wasm-opt)";
  byCrate.set(crate, (byCrate.get(crate) ?? 0) + size);
  total += size;
}

const opt = path.join(out, "vault_agent_opt.wasm");
copyFileSync(named, opt);
run("bash", ["scripts/wasm-opt.sh", opt], { stdio: "inherit" });
const bytes = readFileSync(opt);
const gz = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
await zstdReady();
const zst = compress(bytes, 19).length;
const mb = (n) => (n / 1e6).toFixed(2);

console.log(`\n| | bytes |\n|---|---:|`);
console.log(`| release wasm after wasm-bindgen (with names) | ${mb(statSync(named).size)} MB |`);
console.log(`| after wasm-opt -O3, names stripped (what ships) | ${mb(bytes.length)} MB |`);
console.log(`| zstd -19 (inlined in main.js as Z85 text; esbuild.config.mjs) | ${mb(zst)} MB |`);
console.log(`| gzip -9 (for comparison) | ${mb(gz)} MB |`);
if (existsSync(path.join(repo, "main.js"))) console.log(`| main.js on disk now | ${mb(statSync(path.join(repo, "main.js")).size)} MB |`);
console.log(`\n| crate | bytes | share |\n|---|---:|---:|`);
for (const [crate, size] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`| ${crate} | ${(size / 1e3).toFixed(0)} kB | ${((100 * size) / total).toFixed(1)} % |`);
}
