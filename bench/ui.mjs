// `npm run bench:ui`: how the plugin feels on the UI thread, in the fake Obsidian host page
// (tests/e2e/host/) over the real sample vault, in headless Chromium. For each build of main.js
// given (default: ./main.js), over `--runs` fresh pages:
//   - the first index build: the longest main-thread task and all long tasks together
//     (PerformanceObserver "longtask", tasks over 50 ms), and the worst lateness of a 100 ms
//     interval timer, between the status bar first saying "Indexing"/"Loading" and "Search index";
//   - the same long tasks from the page's start to the index ready (the core's start included);
//   - the plugin's onload (the fake host times `plugin.onload()`);
//   - the plugin reloaded (as after an app restart): from its onload to the first search
//     answered from the saved index;
//   - keystroke to painted results in the search modal (the reloaded plugin, saved index): from
//     each key's `keydown` to the first animation frame after the results list changed for the
//     text that key made (and to the results in the DOM, before that frame), over eight queries typed a key at a time (keys whose answer was
//     overtaken by a newer one are counted apart);
//   - memory: the proportional set size (PSS, /proc) of this browser's renderer processes — the
//     page, and its worker, which lives in the page's renderer — with a blank page open, and
//     once the index is ready; and the host page alone (`?noplugin`) in a page of its own, so
//     the plugin's share is the growth less the host's. Garbage is collected (page and worker)
//     before each reading, which waits for the plugin to settle (after a large build it restarts
//     its core once idle, giving the build's memory back). Also read then: the core's wasm memory, and the files the plugin
//     saved under .obsidian-agent/ (its index), which the fake host keeps in the page's memory
//     where Obsidian writes them to disk — the plugin's share without them is reported too. Each
//     memory reading is taken again after the page has been idle 20 s (…Idle…), once V8 has
//     given back the heap pages its work left unused, the host page's alike.
// Prints a table and writes target/bench/ui.json.
//   node bench/ui.mjs [--main main.js] [--main /tmp/before/main.js] [--runs 3] [--query "links"]
//                     [--corpus real|gen50k] [--semantic]
// gen50k is bench/corpus.mjs's 50,000 generated notes, written once to target/bench/gen50k/.
// A styles.css beside a given main.js is served with it (so a CSS-only change can be compared).
// Build first: `node esbuild.config.mjs && node tests/e2e/build-host.mjs`.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch, rendererPssMb, serve } from "./plugin-page.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const values = argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
  return values.length ? values : fallback;
};
const builds = option("--main", ["main.js"]).map((m) => path.resolve(m));
const runs = Number(option("--runs", ["3"])[0]);
const query = option("--query", ["links"])[0];
const corpus = option("--corpus", ["real"])[0];
// --semantic: once the index is built, the static model is installed from models/ (as the
// settings' "Load model from a file…" does) and every note embedded; memory is read again then,
// and the core's wasm memory once more after one note is edited in the reloaded plugin.
const semantic = argv.includes("--semantic");
const vault = corpus === "gen50k" ? await writeGen50k() : process.env.VAULT_AGENT_VAULT || path.resolve(repo, "../shared/vaults/obsidian-help");
// What is typed into the search modal, a key at a time: titles, words, a question, a typo.
const typed = ["canvas", "internal links", "daily notes", "sync settings", "how do I publish a site", "graph vew", "templates", "embed files"];

/** Writes bench/corpus.mjs's 50k notes under target/bench/gen50k/ (once) and returns the folder. */
async function writeGen50k() {
  const dir = path.join(repo, "target/bench/gen50k");
  const done = path.join(dir, ".complete");
  if (!(await readFile(done, "utf8").catch(() => ""))) {
    const { generate, loadReal } = await import("./corpus.mjs");
    const files = generate(await loadReal());
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), text);
    }
    await writeFile(done, String(Object.keys(files).length));
  }
  return dir;
}

// Runs in the page before its scripts: long tasks, a 100 ms timer's lateness, and the moments the
// status bar starts and stops indexing, each with its time.
function instrument() {
  const m = (window.benchUi = { longtasks: [], late: [], indexing: null, ready: null });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) m.longtasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    m.late.push({ from: last, at: now, late: now - last - 100 });
    last = now;
  }, 100);
  new MutationObserver(() => {
    const text = document.querySelector(".vault-agent-index-status")?.textContent ?? "";
    if (m.indexing === null && /^(Indexing|Loading)/.test(text)) m.indexing = performance.mark("bench:indexing").startTime;
    if (m.indexing !== null && m.ready === null && text.startsWith("Search index:")) m.ready = performance.mark("bench:ready").startTime;
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

/**
 * What the plugin's files under .obsidian-agent/ take in the fake host's in-memory vault (on
 * disk in Obsidian), and the core's wasm memory, in MB.
 */
function heldBy(page) {
  return page.evaluate(async () => {
    const { app, plugin } = window.fakeObsidian;
    let files = 0;
    for (const [p, b] of app.vault.adapter.binaryFiles) if (p.startsWith(".obsidian-agent/")) files += b.byteLength;
    for (const [p, t] of app.vault.adapter.textFiles) if (p.startsWith(".obsidian-agent/")) files += t.length;
    const wasm = await (await plugin.core()).vault.memoryBytes();
    return { agentFilesMb: files / 2 ** 20, wasmMb: wasm / 2 ** 20 };
  });
}

/** Waits until the plugin has no restart of its core due or under way, and its index is ready. */
function settled(page) {
  return page.waitForFunction(
    () => {
      const { plugin } = window.fakeObsidian;
      return !plugin.settling() && plugin.search.state.kind === "ready" && !plugin.semantic.busy();
    },
    null,
    { timeout: 600_000, polling: 100 },
  );
}

/** Collects garbage in the page and its workers (Chromium runs with --expose-gc). */
async function collectGarbage(page) {
  await page.evaluate(() => globalThis.gc?.());
  for (const worker of page.workers()) await worker.evaluate(() => globalThis.gc?.()).catch(() => {});
  await page.waitForTimeout(300);
}

/**
 * V8 gives a heap's unused pages back only once the page has been idle a while (its memory
 * reducer, ~8 s after allocation slows down): memory is read at once and again after this long
 * idle, which is what a machine holds for the plugin between a user's actions.
 */
const IDLE_MS = 20_000;

/** Waits {@link IDLE_MS}, then collects garbage: the renderers' PSS then, in MB. */
async function idlePssMb(page) {
  await page.waitForTimeout(IDLE_MS);
  await collectGarbage(page);
  return rendererPssMb();
}

/** The host page alone (`?noplugin`): its renderers' PSS over a blank page's, in MB, at once and idle. */
async function hostOnlyPssMb(browser, origin) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto("about:blank");
  const blank = await rendererPssMb();
  await page.goto(`${origin}/host/?noplugin`);
  await page.waitForFunction(() => window.fakeObsidian?.booted === true, null, { timeout: 600_000, polling: 100 });
  await collectGarbage(page);
  const loaded = await rendererPssMb();
  const idle = await idlePssMb(page);
  await page.close();
  return { now: loaded - blank, idle: idle - blank };
}

let traced = 0;
const traceCategories = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "v8.execute", "disabled-by-default-v8.gc", "blink.user_timing", "toplevel", "disabled-by-default-v8.cpu_profiler"];

async function once(browser, origin) {
  const { now: hostPssMb, idle: hostIdlePssMb } = await hostOnlyPssMb(browser, origin);
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto("about:blank");
  const blankPssMb = await rendererPssMb();
  page.on("crash", () => console.error("the page crashed"));
  page.on("pageerror", (error) => console.error("page error:", error));
  await page.addInitScript(instrument);
  // BENCH_TRACE=file.json: a Chromium trace (the page's and the worker's threads) from the page's
  // start to the index ready, for reading what a long task was (bench/longtasks.mjs).
  const trace = process.env.BENCH_TRACE;
  if (trace) await browser.startTracing(page, { path: trace.replace(/\.json$/, `-${++traced}.json`), categories: traceCategories });
  await page.goto(`${origin}/host/`);
  await page.waitForFunction(() => window.benchUi.ready !== null, null, { timeout: 600_000, polling: 100 });
  if (trace) await browser.stopTracing();
  const build = await page.evaluate(() => {
    const m = window.benchUi;
    const inside = (t) => t >= m.indexing && t <= m.ready;
    const tasks = m.longtasks.filter((t) => inside(t.start) || inside(t.start + t.duration));
    return {
      buildMs: m.ready - m.indexing,
      longestTaskMs: Math.max(0, ...tasks.map((t) => t.duration)),
      longTasksMs: tasks.reduce((sum, t) => sum + t.duration, 0),
      // A tick whose wait overlaps the build (one held back the whole build counts too).
      timerLateMs: Math.max(0, ...m.late.filter((l) => l.at >= m.indexing && l.from <= m.ready).map((l) => l.late)),
      // From the page's start to the index ready: the core's start (compiling the wasm) too.
      loadLongestTaskMs: Math.max(0, ...m.longtasks.filter((t) => t.start <= m.ready).map((t) => t.duration)),
      loadLongTasksMs: m.longtasks.filter((t) => t.start <= m.ready).reduce((sum, t) => sum + t.duration, 0),
      onloadMs: window.fakeObsidian.onloadMs,
    };
  });
  // A large build's memory goes back when the plugin restarts its core once idle: wait for that.
  await settled(page);
  await collectGarbage(page);
  const indexedPssMb = await rendererPssMb();
  const held = await heldBy(page);
  const indexedIdlePssMb = await idlePssMb(page);
  let embeddedPssMb = NaN;
  let embeddedIdlePssMb = NaN;
  let embedMs = NaN;
  let embeddedHeld = { agentFilesMb: NaN, wasmMb: NaN };
  if (semantic) {
    // The model file reaches the page as a file the user picks would: bytes, fetched (handing
    // it over as base64 made one string per byte, 100+ MB of the page's heap that the memory
    // readings then counted as the plugin's).
    const model = await readFile(path.join(repo, "models/static-minilm-l6-v2-256.vam"));
    await page.route("**/bench/model.vam", (route) => route.fulfill({ body: model, contentType: "application/octet-stream" }));
    embedMs = await page.evaluate(async () => {
      const blob = await (await fetch("/bench/model.vam")).blob();
      const start = performance.now();
      const sem = window.fakeObsidian.plugin.semantic;
      await sem.installFromFile("static", new File([blob], "static-minilm-l6-v2-256.vam"));
      while (sem.state.kind !== "ready" || sem.state.notes < sem.state.total) {
        if (sem.state.kind === "failed") throw new Error(sem.state.message);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return performance.now() - start;
    });
    await settled(page);
    await collectGarbage(page);
    embeddedPssMb = await rendererPssMb();
    embeddedHeld = await heldBy(page);
    embeddedIdlePssMb = await idlePssMb(page);
  }
  // Saved before the reload: the plugin saves a built index at once.
  const firstSearchMs = await page.evaluate(async (q) => {
    const host = window.fakeObsidian;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    while (!(await host.exists(".obsidian-agent/index/manifest.json"))) await pause();
    await host.reloadPlugin();
    for (;;) {
      // `search` answers an array (in-thread core) or a promise of one (worker).
      const hits = await host.plugin.search.search(q);
      if (hits.length) return performance.now() - host.onloadStart;
      await pause();
    }
  }, query);
  const keys = await keystrokes(page);
  // With embeddings: one note edited in the reloaded plugin (its vectors loaded from disk), as a
  // user's first edit of the day; the core's wasm memory once the index and vectors follow it.
  let editedWasmMb = NaN;
  if (semantic) {
    await page.keyboard.press("Escape");
    await page.evaluate(async () => {
      const { app } = window.fakeObsidian;
      const file = app.vault.getMarkdownFiles().sort((a, b) => a.path.localeCompare(b.path))[0];
      await app.vault.modify(file, `${await app.vault.read(file)}\n\nAn edit.\n`);
    });
    // The index follows after 1.5 s, the vectors after 2 s: then wait for both to finish.
    await page.waitForTimeout(3000);
    await settled(page);
    await collectGarbage(page);
    editedWasmMb = (await heldBy(page)).wasmMb;
  }
  await page.close();
  const growthPssMb = indexedPssMb - blankPssMb;
  const pluginPssMb = growthPssMb - hostPssMb;
  const pluginIdlePssMb = indexedIdlePssMb - blankPssMb - hostIdlePssMb;
  const embeddedIdlePluginPssMb = embeddedIdlePssMb - blankPssMb - hostIdlePssMb;
  return { ...build, firstSearchMs, keyP50Ms: keys.p50, keyP90Ms: keys.p90, keyDomP50Ms: keys.domP50, searchCallP50Ms: keys.callP50, keysPainted: keys.painted, keysOvertaken: keys.overtaken, blankPssMb, indexedPssMb, growthPssMb, hostPssMb, pluginPssMb, ...held, pluginLessFilesMb: pluginPssMb - held.agentFilesMb, embedMs, embeddedPluginPssMb: embeddedPssMb - blankPssMb - hostPssMb, embeddedWasmMb: embeddedHeld.wasmMb, embeddedLessFilesMb: embeddedPssMb - blankPssMb - hostPssMb - embeddedHeld.agentFilesMb, editedWasmMb, hostIdlePssMb, pluginIdlePssMb, pluginIdleLessFilesMb: pluginIdlePssMb - held.agentFilesMb, embeddedIdlePluginPssMb, embeddedIdleLessFilesMb: embeddedIdlePluginPssMb - embeddedHeld.agentFilesMb };
}

/**
 * Opens the search modal and types each of `typed` a key at a time (120 ms apart, about a fast
 * typist's pace), timing each key from its `keydown` to the first animation frame after the
 * results list changed for the text it made.
 */
async function keystrokes(page) {
  // The status bar item opens search (the plugin's own click handler).
  await page.locator(".vault-agent-index-status").click();
  const input = page.locator(".vault-agent-search-modal .prompt-input");
  await input.waitFor();
  await page.evaluate(() => {
    const modal = document.querySelector(".vault-agent-search-modal");
    const input = modal.querySelector(".prompt-input");
    const m = (window.benchKeys = { painted: [], inDom: [], pending: new Map() });
    input.addEventListener("keydown", (e) => (m.down = e.timeStamp), { capture: true });
    input.addEventListener("input", () => {
      m.pending.set(input.value, m.down);
    });
    new MutationObserver(() => {
      const start = m.pending.get(input.value);
      if (start === undefined) return;
      m.pending.delete(input.value);
      m.inDom.push(performance.now() - start);
      requestAnimationFrame(() => m.painted.push(performance.now() - start));
    }).observe(modal.querySelector(".prompt-results"), { childList: true, subtree: true });
  });
  for (const q of typed) {
    await input.fill("");
    await page.waitForTimeout(300);
    await page.evaluate(() => window.benchKeys.pending.clear());
    await input.pressSequentially(q, { delay: 120 });
    await page.waitForTimeout(400);
  }
  // The same texts asked of the plugin's search directly: the core's answer through the
  // worker, without the modal's rendering.
  const calls = await page.evaluate(async (texts) => {
    const times = [];
    for (const text of texts) {
      const start = performance.now();
      const { plugin } = window.fakeObsidian;
      // As the modal asks: by meaning too, where the settings and an embedded vault allow.
      if (plugin.semantic.canSearch()) await plugin.semantic.query(text, plugin.settings.semantic.searchMode, 30, "en");
      else await plugin.search.search(text, 30, "en");
      times.push(performance.now() - start);
    }
    return times;
  }, typed.flatMap((q) => [...q].map((_, i) => q.slice(0, i + 1))));
  const { painted, inDom } = await page.evaluate(() => window.benchKeys);
  const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;
  // Typed keys only: clearing the box between queries counts as a key of its own.
  const typedKeys = typed.reduce((n, q) => n + q.length, 0);
  return { p50: at(painted, 0.5), p90: at(painted, 0.9), domP50: at(inDom, 0.5), callP50: at(calls, 0.5), painted: painted.length, overtaken: Math.max(0, typedKeys - painted.length) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const browser = await launch();
const results = {};
try {
  for (const mainJs of builds) {
    const server = await serve(mainJs, vault);
    try {
      const all = [];
      for (let i = 0; i < runs; i++) {
        all.push(await once(browser, server.origin));
        console.error(`${path.relative(repo, mainJs) || mainJs} run ${i + 1}/${runs}: ${JSON.stringify(all.at(-1))}`);
      }
      results[mainJs] = { runs: all, median: Object.fromEntries(Object.keys(all[0]).map((k) => [k, median(all.map((r) => r[k]))])) };
    } finally {
      server.stop();
    }
  }
} finally {
  await browser.close();
}

const keys = ["buildMs", "longestTaskMs", "longTasksMs", "timerLateMs", "loadLongestTaskMs", "loadLongTasksMs", "onloadMs", "firstSearchMs", "keyP50Ms", "keyP90Ms", "keyDomP50Ms", "searchCallP50Ms", "keysPainted", "keysOvertaken", "blankPssMb", "indexedPssMb", "growthPssMb", "hostPssMb", "pluginPssMb", "agentFilesMb", "wasmMb", "pluginLessFilesMb", "hostIdlePssMb", "pluginIdlePssMb", "pluginIdleLessFilesMb", ...(semantic ? ["embedMs", "embeddedPluginPssMb", "embeddedWasmMb", "embeddedLessFilesMb", "editedWasmMb", "embeddedIdlePluginPssMb", "embeddedIdleLessFilesMb"] : [])];
console.log(`\nmedian of ${runs} runs, ms (…PssMb: MB) (vault: ${vault})`);
console.log(["build", ...keys].join("\t"));
for (const [mainJs, r] of Object.entries(results)) console.log([mainJs, ...keys.map((k) => r.median[k].toFixed(0))].join("\t"));
await mkdir(path.join(repo, "target/bench"), { recursive: true });
await writeFile(path.join(repo, `target/bench/ui${corpus === "real" ? "" : `-${corpus}`}.json`), JSON.stringify({ vault, query, typed, results }, null, 2));
