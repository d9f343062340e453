// `npm run bench`: builds the corpora, runs the native benchmark (cargo bench) and the browser
// benchmark (release wasm + MiniSearch 7 in headless Chromium, same notes, same queries, same
// page), and writes BENCHMARKS.md's tables (a partial run, target/bench/BENCHMARKS-partial.md).
// Node side only; the page is bench/page.html + page.mjs.
//   node bench/run.mjs [--skip-native] [--skip-build] [--parts] [corpus...]   (corpora: real, gen50k)
// --parts: the wasm engine builds in parts, in index workers (as the plugin does on a device with
// cores to spare); the plugin's `js/core/indexWorkers.ts` and `js/worker/indexer.ts` are bundled
// for the page first.
import { execFileSync, execSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serveRepo } from "./serve.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const corpora = args.filter((a) => !a.startsWith("--"));
const wanted = corpora.length ? corpora : ["real", "gen50k"];
const run = (cmd, argv) => execFileSync(cmd, argv, { cwd: repo, stdio: "inherit" });

run("node", ["bench/corpus.mjs"]);
if (!args.includes("--skip-native")) run("cargo", ["bench", "--locked", "--bench", "search", "--", ...wanted]);
if (!args.includes("--skip-build")) {
  run("wasm-pack", ["build", "--release", "--target", "web", "--out-dir", "target/bench-pkg", "--no-pack", "--", "--locked"]);
  // Measure the wasm the plugin ships: optimised as `npm run build:wasm` does.
  run("bash", ["scripts/wasm-opt.sh", "target/bench-pkg/vault_agent_bg.wasm"]);
}

const parts = args.includes("--parts");
if (parts) {
  const esbuild = await import("esbuild");
  // The worker's wasm is the bench's release build, not the plugin's pkg/.
  const benchPkg = {
    name: "bench-pkg",
    setup: (build) => build.onResolve({ filter: /pkg\/vault_agent\.js$/ }, () => ({ path: "../bench-pkg/vault_agent.js", external: true })),
  };
  for (const [entry, out] of [["js/worker/indexer.ts", "indexer.mjs"], ["js/core/indexWorkers.ts", "indexWorkers.mjs"]]) {
    await esbuild.build({ entryPoints: [path.join(repo, entry)], bundle: true, format: "esm", outfile: path.join(repo, "target/bench", out), plugins: [benchPkg], logLevel: "warning" });
  }
}

const { server, port } = await serveRepo(repo);

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--js-flags=--expose-gc", "--enable-precise-memory-info"],
});
const browserResults = {};
try {
  for (const corpus of wanted) {
    // A fresh page per corpus, so one run's memory does not weigh on the next.
    const page = await browser.newPage();
    page.on("console", (m) => console.log(`[page] ${m.text()}`));
    await page.goto(`http://127.0.0.1:${port}/bench/page.html`);
    await page.waitForFunction(() => window.benchReady === true);
    browserResults[corpus] = await page.evaluate(([c, p]) => window.runBench(c, { parts: p }), [corpus, parts]);
    console.log(corpus, browserResults[corpus]);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}

const native = JSON.parse(await readFile(path.join(repo, "target/bench/native.json"), "utf8").catch(() => "{}"));
const cpu = execSync("lscpu | sed -n 's/^Model name:\\s*//p'").toString().trim();
const chromeVersion = execSync("chromium --version").toString().trim();
const f = (x, d = 2) => (x === undefined ? "–" : x < 10 ? x.toFixed(d) : x.toFixed(0));
const ratio = (a, b) => (a && b ? `${(b / a).toFixed(1)}×` : "–");

let md = `# Benchmarks

Full-text search (\`src/search/\`), measured by \`npm run bench\` (\`bench/run.mjs\`): the native
numbers come from \`cargo bench --bench search\` (release build), the browser numbers from the
release wasm (\`wasm-pack build --release --target web\`) in headless Chromium, driven by
Playwright, with MiniSearch ${JSON.parse(await readFile(path.join(repo, "node_modules/minisearch/package.json"), "utf8")).version}
(the engine of the Omnisearch plugin) indexing the same notes and answering the same queries in the same page.

- Machine: ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB
- Browser: ${chromeVersion}; Node ${process.version}
- Date: ${new Date().toISOString().slice(0, 10)}
- Command: \`npm run bench\`

Corpora (\`bench/corpus.mjs\`, deterministic): **real** — the sample vault \`../shared/vaults/obsidian-help/\`
(notes outside hidden folders); **gen50k** — 50,000 notes generated with a seeded PRNG from the real
vault's titles and paragraphs (2–5 paragraphs each). Queries: 210 per corpus, derived with a seed:
80 note titles, 40 headings, 40 body words, 50 title words with two letters swapped (typos).

Query latency is per query, 10 hits, after a warm-up pass; "with snippets" includes building the
highlighted snippet of every hit. Build time includes reading every note through the host,
parsing Markdown and frontmatter, and yielding to the event loop between chunks (wasm). Update =
re-indexing one changed note. Load = reading a saved index back (wasm: through the host's
\`readBinary\`, checksums verified). MiniSearch's build includes the same title/heading extraction
a plugin does; its "load" is \`MiniSearch.loadJSON\` of its own serialized index.

`;
for (const corpus of wanted) {
  const b = browserResults[corpus] || {};
  const n = native[corpus] || {};
  md += `## ${corpus} — ${b.notes ?? n.notes} notes${n.mb ? `, ${n.mb.toFixed(1)} MB` : ""}

| measure | Vault Agent native | Vault Agent wasm | MiniSearch 7 (browser) | wasm vs MiniSearch |
| --- | ---: | ---: | ---: | ---: |
| full build | ${f(n.build_ms)} ms | ${f(b.wasm_build_ms)} ms | ${f(b.mini_build_ms)} ms | ${ratio(b.wasm_build_ms, b.mini_build_ms)} faster |
| query p50 (with snippets) | ${f(n.query_p50_ms, 3)} ms | ${f(b.wasm_query_p50_ms, 3)} ms | ${f(b.mini_query_p50_ms, 3)} ms | ${ratio(b.wasm_query_p50_ms, b.mini_query_p50_ms)} faster |
| query p99 (with snippets) | ${f(n.query_p99_ms, 3)} ms | ${f(b.wasm_query_p99_ms, 3)} ms | ${f(b.mini_query_p99_ms, 3)} ms | ${ratio(b.wasm_query_p99_ms, b.mini_query_p99_ms)} faster |
| query p50 (ranking only) | ${f(n.query_nosnippet_p50_ms, 3)} ms | ${f(b.wasm_query_nosnippet_p50_ms, 3)} ms | — | ${ratio(b.wasm_query_nosnippet_p50_ms, b.mini_query_p50_ms)} faster |
| query p99 (ranking only) | ${f(n.query_nosnippet_p99_ms, 3)} ms | ${f(b.wasm_query_nosnippet_p99_ms, 3)} ms | — | ${ratio(b.wasm_query_nosnippet_p99_ms, b.mini_query_p99_ms)} faster |
| one-note update p50 | ${f(n.update_p50_ms, 3)} ms | ${f(b.wasm_update_p50_ms, 3)} ms | ${f(b.mini_update_p50_ms, 3)} ms | |
| first save after the build | ${f(n.parts_persist_ms)} ms (in parts) | ${f(b.wasm_first_save_ms)} ms${b.wasm_parts > 1 ? " (in parts)" : ""} | — | |
| save after the updates (the changes beside the saved index) | ${f(n.save_changes_ms)} ms (${f(n.save_changes_bytes && n.save_changes_bytes / 1e6, 2)} MB) | ${f(b.wasm_persist_ms)} ms (${f(b.wasm_persisted_mb, 2)} MB) | — | |
| save after a compaction (compact + save) | ${f(n.compact_save_ms)} ms | ${f(b.wasm_compact_save_ms)} ms (${f(b.wasm_compact_save_mb, 1)} MB) | — | |
| persisted load | ${f(n.load_ms)} ms | ${f(b.wasm_load_ms)} ms | ${f(b.mini_load_ms)} ms | |
| persisted load, changes beside | ${f(n.load_with_changes_ms)} ms | ${f(b.wasm_load_changes_ms)} ms | — | |
| a restarted core: load, then one edit saved (its wasm memory, and what the edit and the save added) | — | ${f(b.wasm_restarted_save_ms)} ms (${f(b.wasm_restarted_mb, 0)} MB, +${f(b.wasm_restarted_save_growth_mb, 1)} MB) | — | |
| memory | — | ${f(b.wasm_memory_mb, 0)} MB wasm memory | ${b.mini_heap_mb > 0 ? `${f(b.mini_heap_mb, 0)} MB JS heap` : "–"} | |

`;
}
await writeFile(path.join(repo, "target/bench/browser.json"), JSON.stringify(browserResults, null, 2));
// Only a whole run (native side and both corpora) replaces the tables at the top of
// BENCHMARKS.md: a partial one would blank the native column or drop a corpus's table.
const whole = !args.includes("--skip-native") && ["real", "gen50k"].every((c) => wanted.includes(c));
if (whole) {
  // A hand-written "## Notes" section (analysis, targets) survives regeneration.
  const previous = await readFile(path.join(repo, "BENCHMARKS.md"), "utf8").catch(() => "");
  const notes = previous.indexOf("\n## Notes");
  if (notes >= 0) md += previous.slice(notes + 1);
  await writeFile(path.join(repo, "BENCHMARKS.md"), md);
  console.log("wrote BENCHMARKS.md");
} else {
  await writeFile(path.join(repo, "target/bench/BENCHMARKS-partial.md"), md);
  console.log(`a partial run: BENCHMARKS.md left as it is; its tables are in target/bench/BENCHMARKS-partial.md`);
}
