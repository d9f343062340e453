// `npm run bench:workers`: MiniLM in the plugin as the number of its embedding workers grows
// (issue 13: "MiniLM runs across min(hardwareConcurrency − 1, 4) workers; report how chunks/s
// scales"). The built main.js in the fake Obsidian host page (tests/e2e/host/), headless
// Chromium, over the first `--notes` English notes of the sample vault. For each worker count
// (0: MiniLM in the core's own worker, as before), in a fresh page: the model's files are put
// in the vault, `setEmbedder({kind: "minilm", workers})` (timed: the workers start and load the
// model), every note embedded (`embedNotes`: chunks per second), while a full-text search is
// asked every 250 ms (how long it waits for the core); then the renderers' memory (PSS).
//   node bench/embed-workers.mjs [--main main.js] [--notes 16] [--workers 0,1,2,3,4] [--max-tokens 256]
// Build first (release: MiniLM in a debug build is far slower): `npm run build`.
// Prints a table and writes target/bench/embed-workers.json.
import { execSync } from "node:child_process";
import { cp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch, rendererPssMb, serve } from "./plugin-page.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const mainJs = path.resolve(option("--main", "main.js"));
const notes = Number(option("--notes", "16"));
const counts = option("--workers", "0,1,2,3,4").split(",").map(Number);
const maxTokens = Number(option("--max-tokens", "256"));
process.env.VAULT_AGENT_MINILM_DIR = execSync("bash scripts/minilm_path.sh", { cwd: repo }).toString().trim();
const MODEL_DIR = ".obsidian-agent/models/all-MiniLM-L6-v2";

/** The first `notes` English notes of the sample vault (by path), copied to a folder of their own. */
async function smallVault() {
  const source = path.resolve(repo, "../shared/vaults/obsidian-help");
  const all = [];
  const walk = async (dir) => {
    for (const entry of await readdir(path.join(source, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(rel);
      else if (entry.name.endsWith(".md")) all.push(rel);
    }
  };
  await walk("en");
  const dir = path.join(repo, `target/bench/minilm-vault-${notes}`);
  await rm(dir, { recursive: true, force: true });
  for (const rel of all.sort().slice(0, notes)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await cp(path.join(source, rel), path.join(dir, rel));
  }
  return dir;
}

async function once(browser, origin, workers) {
  const page = await browser.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  page.on("crash", () => console.error("the page crashed"));
  page.on("console", (m) => m.type() !== "log" && console.error(`console ${m.type()}: ${m.text()}`));
  await page.goto("about:blank");
  const blankPssMb = await rendererPssMb();
  await page.goto(`${origin}/host/`);
  await page.waitForFunction(() => window.fakeObsidian?.plugin?.search?.state?.kind === "ready", null, { timeout: 600_000, polling: 100 });
  const result = await page.evaluate(
    async ({ workers, maxTokens, dir }) => {
      const { plugin, app } = window.fakeObsidian;
      for (const file of ["model.safetensors", "vocab.txt", "config.json"]) {
        // The test server serves them from $VAULT_AGENT_MINILM_DIR.
        const bytes = await (await fetch(`/models/all-MiniLM-L6-v2/${file}`)).arrayBuffer();
        await app.vault.adapter.writeBinary(`${dir}/${file}`, bytes);
      }
      const engine = plugin.search.engine;
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      let start = performance.now();
      const set = await engine.setEmbedder({ kind: "minilm", maxTokens, workers });
      const setupMs = performance.now() - start;
      let embedding = true;
      const waits = [];
      const probe = (async () => {
        while (embedding) {
          const asked = performance.now();
          await engine.search({ text: "links", limit: 10 });
          waits.push(performance.now() - asked);
          await sleep(250);
        }
      })();
      start = performance.now();
      const report = await engine.embedNotes();
      const embedMs = performance.now() - start;
      embedding = false;
      await probe;
      waits.sort((a, b) => a - b);
      return {
        workers: set.workers,
        workersFailed: set.workersFailed ?? null,
        setupMs,
        chunks: report.chunks,
        embedMs,
        chunksPerS: (report.chunks / embedMs) * 1000,
        searchWaitP50Ms: waits[Math.floor(waits.length / 2)],
        searchWaitMaxMs: waits.at(-1),
        searches: waits.length,
      };
    },
    { workers, maxTokens, dir: MODEL_DIR },
  );
  await page.evaluate(() => globalThis.gc?.());
  for (const worker of page.workers()) await worker.evaluate(() => globalThis.gc?.()).catch(() => {});
  await page.waitForTimeout(300);
  result.pssMb = (await rendererPssMb()) - blankPssMb;
  await page.close();
  return result;
}

const vault = await smallVault();
const server = await serve(mainJs, vault);
const browser = await launch();
const rows = [];
try {
  for (const workers of counts) {
    rows.push({ asked: workers, ...(await once(browser, server.origin, workers)) });
    console.error(JSON.stringify(rows.at(-1)));
  }
} finally {
  await browser.close();
  server.stop();
}
const base = rows.find((r) => r.asked === 1)?.chunksPerS ?? rows[0].chunksPerS;
console.log(`\nMiniLM ≤ ${maxTokens} tokens, ${notes} English notes, ${os.cpus().length} cores (${os.cpus()[0].model})`);
console.log(["workers", "chunks", "setup ms", "embed ms", "chunks/s", "× 1 worker", "search wait p50 ms", "max ms", "renderers MB"].join("\t"));
for (const r of rows) {
  console.log(
    [r.asked === 0 ? "0 (core's thread)" : r.asked, r.chunks, r.setupMs.toFixed(0), r.embedMs.toFixed(0), r.chunksPerS.toFixed(2), (r.chunksPerS / base).toFixed(2), r.searchWaitP50Ms.toFixed(1), r.searchWaitMaxMs.toFixed(0), r.pssMb.toFixed(0)].join("\t"),
  );
}
await mkdir(path.join(repo, "target/bench"), { recursive: true });
await writeFile(path.join(repo, "target/bench/embed-workers.json"), JSON.stringify({ mainJs, notes, maxTokens, cores: os.cpus().length, rows }, null, 2));
