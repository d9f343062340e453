// Browser side of `npm run bench`: the release wasm SearchEngine and MiniSearch 7 over the same
// notes and queries, in the same page. Called by bench/run.mjs through Playwright.
import init, { SearchEngine } from "../target/bench-pkg/vault_agent.js";
import MiniSearch from "../node_modules/minisearch/dist/es/index.js";
import { BenchHost } from "./host.mjs";

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.round((s.length - 1) * p)];
};
const heap = () => {
  globalThis.gc?.();
  return performance.memory?.usedJSHeapSize ?? 0;
};

async function fetchJson(url) {
  return (await fetch(url)).json();
}

// Title and headings for MiniSearch, extracted the way a plugin without a Markdown parser would.
function miniDoc(path, text) {
  const headings = [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]);
  const h1 = text.match(/^# (.+)$/m);
  return { id: path, title: h1 ? h1[1] : path.split("/").pop().replace(/\.md$/, ""), headings: headings.join("\n"), content: text };
}

// Omnisearch-like options: prefix and fuzzy matching, all words required, title boosted.
const MINI_OPTIONS = {
  fields: ["title", "headings", "content"],
  storeFields: ["title"],
  searchOptions: { prefix: true, fuzzy: 0.2, combineWith: "AND", boost: { title: 5, headings: 2 } },
};

/** A host's `indexWorkers`, over module workers running bench/index-worker.mjs. */
async function indexWorkers(module) {
  const { startIndexWorkers } = await import("../target/bench/indexWorkers.mjs");
  class ModuleWorker extends Worker {
    constructor(url, options) {
      super(url, { ...options, type: "module" });
    }
  }
  const script = new URL("./index-worker.mjs", import.meta.url).href;
  return (count) => startIndexWorkers(count, { script, wasm: () => module, Worker: ModuleWorker, cores: navigator.hardwareConcurrency });
}

export async function runBench(corpus, { parts = false } = {}) {
  const module = await WebAssembly.compileStreaming(fetch("../target/bench-pkg/vault_agent_bg.wasm"));
  const wasm = await init({ module_or_path: module });
  const { files } = await fetchJson(`../target/bench/${corpus}.json`);
  const queries = await fetchJson(`../target/bench/queries-${corpus}.json`);
  const paths = Object.keys(files);
  const result = { notes: paths.length, queries: queries.length };

  // --- Vault Agent (wasm) ---
  const host = new BenchHost(files);
  let t = performance.now();
  // When the core had handed out every batch (and asked the parts to finish), and when the last
  // part came back: the rest of the build is the core finishing its own part and opening theirs.
  const timeline = {};
  if (parts) {
    const start = await indexWorkers(module);
    host.indexWorkers = async (count) =>
      (await start(count)).map((worker) => ({
        add: (...args) => worker.add(...args),
        close: () => worker.close(),
        finish: () => {
          timeline.handed ??= performance.now() - t;
          return worker.finish().then((part) => ((timeline.back = performance.now() - t), part));
        },
      }));
  }
  const engine = new SearchEngine(host);
  let progressCalls = 0;
  t = performance.now();
  await engine.build(() => progressCalls++);
  result.wasm_build_ms = performance.now() - t;
  result.wasm_progress_calls = progressCalls;
  result.wasm_parts = engine.builtInParts();
  result.wasm_parts_handed_ms = timeline.handed;
  result.wasm_parts_back_ms = timeline.back;
  // The first save, as the plugin makes it after a build (a build in parts is saved in its
  // parts, a segment each; the save after a change folds them into one, timed below).
  t = performance.now();
  await engine.persist();
  result.wasm_first_save_ms = performance.now() - t;
  const timeQueries = (snippets) =>
    queries.map((text) => {
      const t0 = performance.now();
      engine.search({ text, limit: 10, snippets });
      return performance.now() - t0;
    });
  timeQueries(true); // warm-up
  const withSnippets = timeQueries(true);
  const rankingOnly = timeQueries(false);
  result.wasm_query_p50_ms = pct(withSnippets, 0.5);
  result.wasm_query_p99_ms = pct(withSnippets, 0.99);
  result.wasm_query_nosnippet_p50_ms = pct(rankingOnly, 0.5);
  result.wasm_query_nosnippet_p99_ms = pct(rankingOnly, 0.99);
  const target = paths[Math.floor(paths.length / 2)];
  const updates = [];
  for (let i = 0; i < 50; i++) {
    await host.write(target, `${files[target]}\n\nedit ${i}`);
    const t0 = performance.now();
    await engine.update(target);
    updates.push(performance.now() - t0);
  }
  result.wasm_update_p50_ms = pct(updates, 0.5);
  result.wasm_update_p99_ms = pct(updates, 0.99);
  // The save after the updates writes the changes beside the index the first save wrote; then
  // a save after a compaction (what every save after a change cost before), and the loads of
  // each.
  t = performance.now();
  const bytes = await engine.persist();
  result.wasm_persist_ms = performance.now() - t;
  result.wasm_persisted_mb = bytes / 1e6;
  const timeLoads = async () => {
    const loads = [];
    for (let i = 0; i < 3; i++) {
      const again = new SearchEngine(host);
      const t0 = performance.now();
      const outcome = await again.loadOrBuild();
      loads.push(performance.now() - t0);
      if (outcome.kind !== "loaded") throw new Error(`expected a load, got ${JSON.stringify(outcome)}`);
      again.free();
    }
    return Math.min(...loads);
  };
  result.wasm_load_changes_ms = await timeLoads();
  // A core restarted, as the plugin restarts its worker to give a large build's memory back: a
  // fresh wasm instance loads the saved index, takes one edit and saves it. What its memory
  // grows by over the edit and the save is what they held at once (wasm memory keeps its peak).
  {
    const restarted = await import("../target/bench-pkg/vault_agent.js?restarted");
    const { memory } = await restarted.default({ module_or_path: module });
    const core = new restarted.SearchEngine(host);
    await core.loadOrBuild();
    result.wasm_restarted_mb = memory.buffer.byteLength / 1e6;
    await host.write(target, `${files[target]}\n\nafter a restart`);
    await core.update(target);
    t = performance.now();
    await core.persist();
    result.wasm_restarted_save_ms = performance.now() - t;
    result.wasm_restarted_save_growth_mb = memory.buffer.byteLength / 1e6 - result.wasm_restarted_mb;
    core.free();
  }
  await host.write(target, `${files[target]}\n\nonce more`);
  await engine.update(target);
  t = performance.now();
  engine.compact();
  result.wasm_compact_save_mb = (await engine.persist()) / 1e6;
  result.wasm_compact_save_ms = performance.now() - t;
  result.wasm_load_ms = await timeLoads();
  result.wasm_memory_mb = wasm.memory.buffer.byteLength / 1e6;

  // --- MiniSearch 7 over the same notes and queries ---
  const before = heap();
  t = performance.now();
  const mini = new MiniSearch(MINI_OPTIONS);
  mini.addAll(paths.map((p) => miniDoc(p, files[p])));
  result.mini_build_ms = performance.now() - t;
  // Only meaningful when the page can force a GC (Chromium started with --expose-gc).
  result.mini_heap_mb = globalThis.gc ? (heap() - before) / 1e6 : undefined;
  const miniTimes = () =>
    queries.map((q) => {
      const t0 = performance.now();
      mini.search(q).slice(0, 10);
      return performance.now() - t0;
    });
  miniTimes();
  const mq = miniTimes();
  result.mini_query_p50_ms = pct(mq, 0.5);
  result.mini_query_p99_ms = pct(mq, 0.99);
  const mu = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    mini.replace(miniDoc(target, `${files[target]}\n\nedit ${i}`));
    mu.push(performance.now() - t0);
  }
  result.mini_update_p50_ms = pct(mu, 0.5);
  const json = JSON.stringify(mini);
  const ml = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    MiniSearch.loadJSON(json, MINI_OPTIONS);
    ml.push(performance.now() - t0);
  }
  result.mini_load_ms = Math.min(...ml);
  engine.free();
  return result;
}
