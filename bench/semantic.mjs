// `npm run bench:semantic`: semantic search in headless Chromium — embedding throughput of the
// static model and of MiniLM (release wasm, with and without simd128) and query latency over
// ~50,000 vectors — after the native benchmark (`cargo bench --bench semantic`: throughput,
// latency, nDCG@10 of BM25, vectors and fusions). Prints the results and writes
// target/bench/semantic-browser.json; BENCHMARKS.md's "Semantic search" section quotes them.
//   node bench/semantic.mjs [--skip-native] [--skip-build]
import { execFileSync, execSync } from "node:child_process";
import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serveRepo } from "./serve.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const run = (cmd, argv, env = {}) => execFileSync(cmd, argv, { cwd: repo, stdio: "inherit", env: { ...process.env, ...env } });
const minilmDir = execSync("bash scripts/minilm_path.sh", { cwd: repo }).toString().trim();

run("node", ["bench/corpus.mjs"]);
// The English notes, as the native benchmark and the quality set use them.
const vault = path.resolve(repo, "../shared/vaults/obsidian-help");
const en = {};
async function walk(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) await walk(full);
    else if (e.name.endsWith(".md")) en[path.relative(vault, full)] = await readFile(full, "utf8");
  }
}
await walk(path.join(vault, "en"));
await mkdir(path.join(repo, "target/bench"), { recursive: true });
await writeFile(path.join(repo, "target/bench/semantic-en.json"), JSON.stringify({ files: en }));

if (!args.includes("--skip-native")) run("cargo", ["bench", "--locked", "--bench", "semantic"]);
const pkgs = { "bench-pkg": {}, "bench-pkg-simd": { RUSTFLAGS: "-C target-feature=+simd128", CARGO_TARGET_DIR: "target/wasm-simd" } };
if (!args.includes("--skip-build")) {
  for (const [pkg, env] of Object.entries(pkgs)) {
    run("wasm-pack", ["build", "--release", "--target", "web", "--out-dir", `target/${pkg}`, "--no-pack", "--", "--locked"], env);
    run("bash", ["scripts/wasm-opt.sh", `target/${pkg}/vault_agent_bg.wasm`]);
  }
}

const { server, port } = await serveRepo(repo, { "/minilm/": minilmDir });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
});
const results = {};
try {
  for (const pkg of Object.keys(pkgs)) {
    const page = await browser.newPage();
    page.on("console", (m) => console.log(`[page] ${m.text()}`));
    await page.goto(`http://127.0.0.1:${port}/bench/semantic-page.html`);
    await page.waitForFunction(() => window.benchReady === true);
    results[pkg] = await page.evaluate((p) => window.runSemantic(p), pkg);
    console.log(pkg, JSON.stringify(results[pkg], null, 1));
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
for (const pkg of Object.keys(pkgs)) {
  const wasm = path.join(repo, `target/${pkg}/vault_agent_bg.wasm`);
  results[pkg].wasmBytes = (await readFile(wasm)).length;
}
results.chromium = execSync("chromium --version").toString().trim();
results.date = new Date().toISOString().slice(0, 10);
await writeFile(path.join(repo, "target/bench/semantic-browser.json"), JSON.stringify(results, null, 2));
console.log("wrote target/bench/semantic-browser.json");
