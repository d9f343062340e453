// End to end: the built main.js in a fake Obsidian host page (tests/e2e/host/, built on
// obsidian-test-mocks), in headless Chromium driven by playwright-core, with the scriptable mock
// provider of tests/servers/ standing in for the model.
//
// Run after `node esbuild.config.mjs` and `node tests/e2e/build-host.mjs`:
//   node --test tests/e2e/plugin.test.mjs
// Screenshots go to artifacts/ (chat and approval, light and dark).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import net from "node:net";
import { chromium } from "playwright-core";
import { demoScript } from "../servers/routes/host_page.mjs";

const ARTIFACTS = "artifacts";
mkdirSync(ARTIFACTS, { recursive: true });

let server;
let origin;
let browser;

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // The test server serves MiniLM's files too (from the package scripts/setup.sh installs), as a mirror does.
  const minilm = execSync("bash scripts/minilm_path.sh").toString().trim();
  server = spawn(process.execPath, ["tests/servers/server.mjs", "--port", String(port)], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, VAULT_AGENT_MINILM_DIR: minilm },
  });
  await new Promise((resolve, reject) => {
    server.stdout.on("data", (d) => String(d).includes("listening") && resolve());
    server.on("exit", (code) => reject(new Error(`the test server exited (${code})`)));
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    // Google's, Mistral's and Azure's API hosts reach the test server (over plain HTTP, at its
    // port), so the plugin can talk to a "Gemini" whose address is Google's, a "Mistral" at
    // Mistral's and an "Azure" resource at Azure's.
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      `--host-resolver-rules=MAP ${GOOGLE_HOST} 127.0.0.1, MAP ${MISTRAL_HOST} 127.0.0.1, MAP *.${AZURE_DOMAIN} 127.0.0.1`,
    ],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

/** Google's and Mistral's API hosts, which the test browser resolves to this machine. */
const GOOGLE_HOST = "generativelanguage.googleapis.com";
const MISTRAL_HOST = "api.mistral.ai";
const AZURE_DOMAIN = "openai.azure.com";

const NOTES = {
  "Cooking/Bread.md": "# Bread\n\nSourdough at 230 °C.\n\nLet the loaf cool for an hour.\n",
  "Cooking/Pizza.md": "# Pizza\n\nDough rests 48 h. Bake it like [[Bread]], hotter.\n",
  "Travel/Kyoto.md": "# Kyoto\n\nTemples, gardens and a sourdough bakery near the station. #travel\n",
  "Prompts/Summarise.md": "---\ntags: prompt\n---\nSummarise the open note in three bullet points.\n",
};

async function script(id, responses) {
  const r = await fetch(`${origin}/mock/${id}/script`, { method: "POST", body: JSON.stringify({ responses }) });
  assert.equal(r.status, 200);
}

async function requests(id) {
  return (await fetch(`${origin}/mock/${id}/requests`)).json();
}

/**
 * A fresh page: the fake host with `files`, the plugin's data.json `data` and secrets, the chat
 * open. `provider` names a mock session to point an Anthropic provider at (null: none).
 */
async function openHost({ mock = null, data = {}, theme = "light", files = NOTES, transport, gate, noWorker, mobile, pageOrigin = origin, baseUrl, keys = {}, routes, timezoneId } = {}) {
  const viewport = mobile ? { width: 390, height: 844 } : { width: 1280, height: 860 };
  const page = await browser.newPage({ viewport, hasTouch: !!mobile, timezoneId });
  // Requests to other addresses (the page's and its workers'), answered by the test.
  if (routes) await routes(page);
  // A platform that cannot make a worker: the core runs in the page's thread.
  if (noWorker) await page.addInitScript(() => delete window.Worker);
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  // The end-of-task memory extraction is one more model call after each task: off, so each
  // test's script is its tasks' own calls, unless a test turns it on.
  const pluginData = { version: 1, ...data, agent: { memoryExtraction: false, ...(data.agent ?? {}) } };
  const secrets = {};
  if (mock) {
    pluginData.provider = {
      preset: "anthropic",
      model: "claude-sonnet-4-5",
      baseUrl: baseUrl ?? `${origin}/mock/${mock}/anthropic`,
      ...(data.provider ?? {}),
    };
    secrets["vault-agent-anthropic-key"] = "test-key";
  }
  Object.assign(secrets, keys);
  if (transport) pluginData.transport = transport;
  await page.addInitScript((config) => {
    window.FAKE_HOST_CONFIG = config;
  }, { vaultName: "Test vault", files, data: pluginData, secrets, theme, open: "Cooking/Bread.md", gate, mobile });
  await page.goto(`${pageOrigin}/host/`);
  await page.evaluate(() => window.fakeObsidian.ready);
  await page.evaluate(() => window.fakeObsidian.runCommand("open-chat"));
  await page.locator(".vault-agent-chat").waitFor();
  page.errors = errors;
  return page;
}

async function send(page, text) {
  await page.locator(".vault-agent-input").fill(text);
  await page.locator(".vault-agent-send").click();
}

/** Waits until `predicate` (run in the page; it may be async: the core answers across its worker) holds. */
async function until(page, predicate, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${predicate}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const read = (page, path) => page.evaluate((p) => window.fakeObsidian.read(p), path);

async function setTheme(page, theme) {
  await page.evaluate((dark) => {
    document.body.toggleClass("theme-dark", dark);
    document.body.toggleClass("theme-light", !dark);
  }, theme === "dark");
}

test("with no provider the chat says how to connect one", async () => {
  const page = await openHost();
  const help = page.locator(".vault-agent-connect");
  await help.waitFor();
  const text = await help.innerText();
  assert.match(text, /API key/);
  assert.match(text, /Ollama/);
  assert.match(text, /LM Studio/);
  assert.match(text, /Search works without a model/);
  // Sending says the same instead of failing.
  await send(page, "hello");
  await help.waitFor();
  assert.equal(await page.locator(".vault-agent-user").count(), 0);
  // The core started once, however often it is asked for.
  assert.ok(await page.evaluate(() => window.fakeObsidian.plugin.core() === window.fakeObsidian.plugin.core()));

  // Search needs no model: the index was built at start-up (progress in the status bar).
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  await page.locator(".vault-agent-search").click();
  const modal = page.locator(".vault-agent-search-modal");
  await modal.locator(".prompt-input").fill("sourdogh bakery"); // a typo, and two words
  const first = modal.locator(".suggestion-item").first();
  await first.locator(".vault-agent-search-title", { hasText: "Kyoto" }).waitFor();
  // The rows' text, not their rendered text: `innerText` depends on layout, and a row's content
  // is skipped until Chromium lays it out (`content-visibility: auto`). Once, in a loaded run,
  // the first row's path read as "" right after its title had been found.
  assert.equal(await first.locator(".vault-agent-search-result-path").textContent(), "Travel/Kyoto.md");
  assert.deepEqual(await first.locator(".vault-agent-search-snippet mark").allTextContents(), ["sourdough", "bakery"]);
  await page.screenshot({ path: `${ARTIFACTS}/search-light.png` });
  await page.keyboard.press("Enter");
  await modal.waitFor({ state: "detached" });
  await page.locator(".view-header-title", { hasText: "Travel/Kyoto.md" }).waitFor();

  // The modes bar counts the notes found, and a hit's link button inserts a link to it into the
  // open note (Kyoto, at its cursor: its end here) and closes the search.
  await page.locator(".vault-agent-search").click();
  await modal.locator(".prompt-input").fill("pizza");
  const pizza = modal.locator(".suggestion-item", { has: page.locator(".vault-agent-search-result-path", { hasText: "Cooking/Pizza.md" }) });
  await pizza.waitFor();
  const shown = await modal.locator(".suggestion-item").count();
  assert.equal(await modal.locator(".vault-agent-search-count").innerText(), shown === 1 ? "1 note" : `${shown} notes`);
  await pizza.locator(".vault-agent-search-link").click();
  await modal.waitFor({ state: "detached" });
  assert.match(await read(page, "Travel/Kyoto.md"), /\[\[Pizza\]\]$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the index follows the vault, with progress, and the sidebar shows related notes", async () => {
  const page = await openHost();
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  // Bread is open: Pizza links to it.
  const related = page.locator(".vault-agent-related");
  await related.locator('.vault-agent-related-item[data-path="Cooking/Pizza.md"]', { hasText: "links here" }).waitFor();
  assert.equal(await related.evaluate((el) => el.open), true, "open beside a wide chat");
  await related.locator('.vault-agent-related-item[data-path="Cooking/Pizza.md"]').click();
  await page.locator(".view-header-title", { hasText: "Cooking/Pizza.md" }).waitFor();
  await related.locator('.vault-agent-related-item[data-path="Cooking/Bread.md"]', { hasText: "linked from here" }).waitFor();

  // Notes created, changed, renamed and deleted in the vault are found (or not) shortly after.
  const found = (query) =>
    page.evaluate(async (q) => (await window.fakeObsidian.plugin.search.search(q)).map((h) => h.path), query);
  await page.evaluate(async () => {
    const { vault } = window.fakeObsidian.app;
    await vault.create("Garden/Tomatoes.md", "# Tomatoes\n\nPlant after the last frost.");
    await vault.modify(vault.getAbstractFileByPath("Cooking/Pizza.md"), "# Pizza\n\nA wood oven at 450 °C.");
  });
  // Applied one note at a time: wait for both.
  await until(page, async () => {
    const { search } = window.fakeObsidian.plugin;
    return (await search.search("frost")).length === 1 && (await search.search("wood oven"))[0]?.path === "Cooking/Pizza.md";
  });
  assert.deepEqual(await found("wood oven"), ["Cooking/Pizza.md"]);
  assert.deepEqual(await found("48"), []);
  await page.evaluate(async () => {
    const { app } = window.fakeObsidian;
    await app.fileManager.renameFile(app.vault.getAbstractFileByPath("Garden/Tomatoes.md"), "Garden/Tomato plants.md");
    await app.vault.delete(app.vault.getAbstractFileByPath("Travel/Kyoto.md"));
  });
  await until(page, async () => (await window.fakeObsidian.plugin.search.search("frost"))[0]?.path === "Garden/Tomato plants.md");
  assert.deepEqual(await found("temples"), []);

  // Indexing again shows its progress as done/total, then the index's size.
  const seen = await page.evaluate(async () => {
    const { plugin } = window.fakeObsidian;
    const states = [];
    const stop = plugin.search.onChange(() => states.push(document.querySelector(".vault-agent-index-status").textContent));
    await plugin.search.rebuild();
    stop();
    return states;
  });
  assert.ok(seen.includes("Indexing 0/4 notes") && seen.includes("Indexing 4/4 notes"), seen.join(" | "));
  assert.equal(seen.at(-1), "Search index: 4 notes");
  assert.ok(await page.evaluate(() => window.fakeObsidian.exists(".obsidian-agent/index/manifest.json")));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("notes changed while Obsidian was closed are found after it starts again; unchanged ones are not read again", async () => {
  const page = await openHost();
  const status = page.locator(".vault-agent-index-status");
  await status.filter({ hasText: "Search index: 4 notes" }).waitFor();
  // The saved index is in place (a build saves at once); then the app closes, and while it is
  // closed (no events reach the plugin) a note is edited, one added and one deleted.
  await until(page, () => window.fakeObsidian.exists(".obsidian-agent/index/manifest.json"));
  const indexFiles = () =>
    page.evaluate(async () =>
      (await window.fakeObsidian.app.vault.adapter.list(".obsidian-agent/index")).files.map((f) => f.split("/").pop()).sort(),
    );
  const built = await indexFiles();
  assert.equal(await page.evaluate(() => window.fakeObsidian.liveWorkers()), 1, "the core's worker");
  await page.evaluate(() => {
    const { app } = window.fakeObsidian;
    window.notesRead = [];
    const read = app.vault.adapter.readBinary.bind(app.vault.adapter);
    app.vault.adapter.readBinary = (path) => {
      if (path.endsWith(".md") && !path.startsWith(".")) window.notesRead.push(path);
      return read(path);
    };
  });
  await page.evaluate(() =>
    window.fakeObsidian.reloadPlugin(async (app) => {
      await app.vault.modify(app.vault.getFileByPath("Cooking/Pizza.md"), "# Pizza\n\nA blistered crust from the wood oven.\n");
      await app.vault.create("Garden/Basil.md", "# Basil\n\nPinch the flowers off.\n");
      await app.vault.delete(app.vault.getFileByPath("Travel/Kyoto.md"));
    }),
  );
  await status.filter({ hasText: "Search index: 4 notes" }).waitFor();
  // The plugin that closed ended its core's worker: one is left, the new plugin's.
  await page.waitForFunction(() => window.fakeObsidian.liveWorkers() === 1);
  const found = (text) => page.evaluate(async (text) => (await window.fakeObsidian.plugin.search.search(text)).map((h) => h.path), text);
  await until(page, async () => (await window.fakeObsidian.plugin.search.search("blistered"))[0]?.path === "Cooking/Pizza.md");
  assert.deepEqual(await found("flowers"), ["Garden/Basil.md"]);
  assert.deepEqual(await found("temples"), []);
  // The start read the two notes that changed, not the two that did not.
  assert.deepEqual((await page.evaluate(() => window.notesRead)).sort(), ["Cooking/Pizza.md", "Garden/Basil.md"]);

  // Those changes are saved beside the index the build saved, whose segments are not written
  // again; a fresh core loads them, reading no note.
  assert.ok(await page.evaluate(() => window.fakeObsidian.plugin.restartCore()));
  await status.filter({ hasText: "Search index: 4 notes" }).waitFor();
  const saved = await indexFiles();
  const segments = built.find((f) => f.startsWith("segments-"));
  assert.ok(saved.includes(segments), `${saved} after ${built}`);
  assert.ok(saved.some((f) => f.startsWith("deltas-")) && !built.some((f) => f.startsWith("deltas-")), `${saved}`);
  await page.evaluate(() => (window.notesRead = []));
  assert.deepEqual(await found("blistered"), ["Cooking/Pizza.md"]);
  assert.deepEqual(await found("flowers"), ["Garden/Basil.md"]);
  assert.deepEqual(await found("temples"), []);
  assert.deepEqual(await page.evaluate(() => window.notesRead), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the core runs in a worker: a click is handled while the first index build is still running", async () => {
  // Reading the last note waits for the test, so the build is surely under way at the click.
  const page = await openHost({ files: { ...NOTES, "Zz/Last.md": "# Last\n\nThe gate." }, gate: "Zz/Last.md" });
  await page.locator(".vault-agent-index-status", { hasText: "Indexing" }).waitFor();
  await page.evaluate(() => {
    const { plugin } = window.fakeObsidian;
    window.order = [];
    plugin.search.onChange(() => plugin.search.state.kind === "ready" && window.order.push("index ready"));
  });
  // The status bar item opens search: the plugin's own click handler, on the UI thread.
  await page.locator(".vault-agent-index-status").click();
  await page.locator(".vault-agent-search-modal").waitFor();
  await page.evaluate(() => window.order.push(`search opened while ${window.fakeObsidian.plugin.search.state.kind}`));
  await page.evaluate(() => window.fakeObsidian.openGate());
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 5 notes" }).waitFor();
  assert.deepEqual(await page.evaluate(() => window.order), ["search opened while indexing", "index ready"]);
  assert.equal(await page.evaluate(() => window.fakeObsidian.plugin.thread.kind), "worker");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("where no worker can be made the core runs in the page, says so, and searches the same", async () => {
  const page = await openHost({ noWorker: true });
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  const found = await page.evaluate(async () => (await window.fakeObsidian.plugin.search.search("sourdough")).map((h) => h.path));
  assert.deepEqual(found.sort(), ["Cooking/Bread.md", "Travel/Kyoto.md"]);
  const thread = await page.evaluate(() => window.fakeObsidian.plugin.thread);
  assert.equal(thread.kind, "main");
  assert.match(thread.reason, /no Worker/);
  assert.match(await page.evaluate(() => window.fakeObsidian.plugin.indexStatus()), /runs in the main thread/);
  // The settings say it, where the index's state is.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.getByText("The core runs in the main thread (no worker: this platform has no Worker).").waitFor();
  await settings.getByText("The core runs in the main thread").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/no-worker-settings-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/no-worker-settings-dark.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("indexing again ends the worker and starts a fresh one, which loads the saved index", async () => {
  const page = await openHost();
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  const outcome = await page.evaluate(async () => {
    const { plugin } = window.fakeObsidian;
    const before = await plugin.core();
    const engine = await before.vault.searchEngine();
    await plugin.reindex();
    const after = await plugin.core();
    // The old core is gone: its objects answer no more.
    const old = await engine.noteCount().then(
      () => "answered",
      (error) => error.message,
    );
    const hits = await plugin.search.search("pizza");
    return { fresh: before !== after, old, hits: hits.map((h) => h.path), state: plugin.search.state };
  });
  assert.ok(outcome.fresh);
  assert.match(outcome.old, /stopped/);
  assert.deepEqual(outcome.hits, ["Cooking/Pizza.md"]);
  assert.deepEqual(outcome.state, { kind: "ready", notes: 4 });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("once a large build is done and nothing runs, the core restarts by itself and loads the saved index", async () => {
  // The threshold is 2,000 notes by default; here the four notes of the test vault are enough.
  const page = await openHost({ data: { indexing: { restartAfterNotes: 4 } } });
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  const outcome = await page.evaluate(async () => {
    const { plugin } = window.fakeObsidian;
    // What the status bar says from now on, and a search asked while the core restarts.
    const status = document.querySelector(".vault-agent-index-status");
    const shown = new Set([status.textContent]);
    new MutationObserver(() => shown.add(status.textContent)).observe(status, { subtree: true, childList: true, characterData: true });
    const first = await plugin.core();
    const built = plugin.search.builtNotes;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    while (!plugin.settling() || (await plugin.core()) === first) await pause();
    const during = plugin.search.search("pizza");
    while (plugin.settling() || plugin.search.state.kind !== "ready") await pause();
    const hits = await plugin.search.search("pizza");
    return {
      built,
      builtAfter: plugin.search.builtNotes,
      fresh: (await plugin.core()) !== first,
      during: (await during).map((h) => h.path),
      hits: hits.map((h) => h.path),
      settling: plugin.settling(),
      shown: [...shown],
    };
  });
  assert.equal(outcome.built, 4, "the first core built the index");
  assert.ok(outcome.fresh, "a new core");
  assert.equal(outcome.builtAfter, 0, "the new core loaded the saved index instead");
  assert.deepEqual(outcome.hits, ["Cooking/Pizza.md"]);
  assert.deepEqual(outcome.during, ["Cooking/Pizza.md"], "a search during the restart waits for the new core");
  assert.deepEqual(outcome.shown, ["Search index: 4 notes"], "the restart does not show in the status bar");
  assert.equal(outcome.settling, false, "once: a loaded index is no heavy work");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the demo's canned conversation runs to its end: a read, a note approved, the answer, no warning", async () => {
  const id = `e2e-demo-${Date.now()}`;
  await script(id, demoScript().responses);
  const files = { ...NOTES, "en/Linking notes and files/Internal links.md": "# Internal links\n\nLink notes with [[Note name]].\n" };
  // As `scripts/demo.sh` runs it: memory extraction on (the default), so the task ends with the memory call.
  const page = await openHost({ mock: id, files, data: { agent: { memoryExtraction: true } } });
  await send(page, "Sum up what the vault says about internal links in a new note");
  await page.locator(".modal.vault-agent-approval").locator('button[data-decision="approve"]').click();
  await page.locator(".vault-agent-text", { hasText: "sums up internal links" }).waitFor();
  await page.locator(".vault-agent-undo").waitFor();
  await until(page, async () => (await window.fakeObsidian.read("Demo/Links summary.md")).startsWith("# Links summary"));
  await until(page, () => !document.querySelector(".vault-agent-send")?.innerText.includes("Stop"));
  const calls = await requests(id);
  assert.equal(calls.length, demoScript().responses.length, "every scripted answer was asked for, and no more");
  assert.equal(await page.locator(".vault-agent-warning").count(), 0, await page.locator(".vault-agent-warning").allInnerTexts().then(String));
  await page.close();
});

test("a task streams, shows tool cards and a diff to approve; the note changes; undo restores it", async () => {
  const id = `e2e-task-${Date.now()}`;
  await script(id, [
    {
      text: "I'll read the bread note first, then add the baking time.",
      hold: true,
      toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }],
      usage: { input: 1200, output: 40 },
    },
    {
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 230 °C for 40 minutes." },
      }],
      usage: { input: 1500, output: 60 },
    },
    { text: "Done: **Bread** now says how long to bake.", usage: { input: 1700, output: 20 } },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Add the baking time to my bread note");

  // Streamed: the first piece shows while the rest of the answer is still held by the server.
  const text = page.locator(".vault-agent-text").first();
  await text.waitFor();
  await page.waitForFunction(() => document.querySelector(".vault-agent-text")?.textContent.startsWith("I'll r"));
  assert.ok(!(await text.innerText()).includes("baking time"), "the whole answer arrived before it was released");
  assert.ok(await page.locator(".vault-agent-send").innerText().then((t) => t.includes("Stop")));
  await fetch(`${origin}/mock/${id}/release`, { method: "POST" });
  await page.waitForFunction(() => document.querySelector(".vault-agent-text")?.textContent.includes("add the baking time."));

  // A card per tool call, with the argument summary and the result.
  const readCard = page.locator('.vault-agent-tool-card[data-tool="read_file"]');
  await readCard.locator(".vault-agent-tool-label", { hasText: "Read Bread" }).waitFor();
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();

  // The approval modal shows the diff of the note.
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  await modal.locator(".vault-agent-diff-line.is-removed", { hasText: "Sourdough at 230 °C." }).waitFor();
  await modal.locator(".vault-agent-diff-line.is-added", { hasText: "Sourdough at 230 °C for 40 minutes." }).waitFor();
  for (const decision of ["approve", "always_allow", "skip", "deny"]) {
    assert.equal(await modal.locator(`button[data-decision="${decision}"]`).count(), 1, decision);
  }
  await page.locator('.vault-agent-tool-card[data-tool="edit_file"].is-waiting').waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"], "written before approval");
  await page.screenshot({ path: `${ARTIFACTS}/approval-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/approval-dark.png` });
  await setTheme(page, "light");
  await modal.locator('button[data-decision="approve"]').click();
  await modal.waitFor({ state: "detached" });

  // The note changed in the vault and in the open editor; the answer is rendered markdown.
  await page.locator(".vault-agent-undo").waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), "# Bread\n\nSourdough at 230 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n");
  await page.locator(".fake-host-note", { hasText: "for 40 minutes" }).waitFor();
  await page.locator(".vault-agent-text strong", { hasText: "Bread" }).waitFor();
  assert.match(await page.locator(".vault-agent-tool-approval").innerText(), /Approved/);

  // The meter: the task's tokens, its cost at Sonnet's list price, and how full Sonnet's
  // 200k-token context was at its last call (under 2k tokens).
  const meter = await page.locator(".vault-agent-meter").last().innerText();
  assert.match(meter, /^4\.4k in · 120 out · \$0\.0150 · \d+\.\d s · <1% of 200k context$/);
  // The footer comes with the task's report; the button turns back once the run has returned.
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();

  // The provider got the browser header and the tool results.
  const sent = await requests(id);
  assert.equal(sent.length, 3);
  assert.equal(sent[0].headers["anthropic-dangerous-direct-browser-access"], "true");
  assert.equal(sent[0].headers["x-api-key"], "test-key");
  assert.match(JSON.stringify(sent[1].body.messages), /Let the loaf cool/);

  await page.screenshot({ path: `${ARTIFACTS}/chat-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/chat-dark.png` });
  await setTheme(page, "light");

  // Undo restores the note and says what it restored.
  await page.locator(".vault-agent-undo").click();
  await page.locator(".vault-agent-undo-report", { hasText: "Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"]);
  await page.locator(".fake-host-note", { hasText: "Sourdough at 230 °C." }).waitFor();
  await page.locator(".vault-agent-undo.is-redo").waitFor();

  // The chat was saved: a new chat, then the history brings it back.
  await page.locator(".vault-agent-new-chat").click();
  assert.equal(await page.locator(".vault-agent-user").count(), 0);
  await page.locator(".vault-agent-history").click();
  const saved = page.locator(".suggestion-item", { hasText: "Add the baking time to my bread note" });
  // One request, however many messages the model and the tools added to it.
  assert.match(await saved.locator(".vault-agent-history-meta").innerText(), / · 1 request$/);
  await saved.click();
  await page.locator(".vault-agent-user", { hasText: "Add the baking time" }).waitFor();
  await page.locator('.vault-agent-tool-card[data-tool="edit_file"]').waitFor();
  assert.ok(await page.locator(".vault-agent-undo").evaluate((b) => b.classList.contains("is-redo")), "the restored chat knows the task was undone");
  // Rendered from the core's transcript: the request, the call in words, the answer, the footer.
  await page.locator(".vault-agent-text", { hasText: "now says how long to bake" }).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/chat-restored-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/chat-restored-dark.png` });
  await page.evaluate(() => document.querySelector(".mod-right-split").setCssStyles({ width: "300px", flex: "0 0 300px" }));
  await page.screenshot({ path: `${ARTIFACTS}/chat-restored-narrow-dark.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a sub-task shows as one card with its own steps; its approval says it asks; one undo reverts it", async () => {
  const id = `e2e-subtask-${Date.now()}`;
  await script(id, [
    {
      toolCalls: [{ id: "n1", name: "new_task", arguments: { mode: "agent", message: "Add the baking time to Cooking/Bread.md." } }],
      usage: { input: 1000, output: 30 },
    },
    {
      text: "Reading the bread note.",
      toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }],
      usage: { input: 600, output: 20 },
    },
    {
      text: "Editing the bread note.",
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 230 °C for 40 minutes." },
      }],
      usage: { input: 800, output: 40 },
    },
    { text: "Added: 40 minutes.", usage: { input: 900, output: 10 } },
    { text: "The sub-task added the baking time to **Bread**.", usage: { input: 1100, output: 20 } },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Have a sub-task add the baking time");

  // The sub-task's approval reaches the user, saying who asks; its card waits inside the sub-task's.
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  assert.match(await modal.locator(".vault-agent-approval-subtask").innerText(), /sub-task \(agent mode\): Add the baking time to Cooking\/Bread\.md\./);
  const card = page.locator('.vault-agent-tool-card[data-tool="new_task"]');
  await card.locator(".vault-agent-tool-label", { hasText: "Sub-task in agent mode" }).waitFor();
  const steps = card.locator(".vault-agent-subtask");
  await steps.locator('.vault-agent-tool-card[data-tool="edit_file"].is-waiting').waitFor();
  await steps.locator(".vault-agent-text", { hasText: "Editing the bread note." }).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/subtask-approval-light.png` });
  await modal.locator('button[data-decision="approve"]').click();
  await modal.waitFor({ state: "detached" });

  // Done: the note changed; the card folds to one line, and opens to the sub-task's steps and meter.
  await page.locator(".vault-agent-undo").waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), "# Bread\n\nSourdough at 230 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n");
  await page.locator('.vault-agent-tool-card[data-tool="new_task"].is-done').waitFor();
  assert.ok(!(await steps.isVisible()), "folded once done");
  await card.locator(".vault-agent-tool-head").first().click();
  await steps.locator('.vault-agent-tool-card[data-tool="edit_file"].is-done').waitFor();
  assert.match(await steps.locator(".vault-agent-meter").innerText(), /2\.3k in · 70 out/);
  assert.equal(await steps.locator(".vault-agent-undo").count(), 0, "undo is the task's, not the sub-task's");
  // The task's meter counts the sub-task's calls: 1000 + 600 + 800 + 900 + 1100 in, 120 out.
  assert.match(await page.locator(".vault-agent-meter").last().innerText(), /4\.4k in · 120 out/);
  const sent = await requests(id);
  assert.equal(sent.length, 5);
  assert.match(JSON.stringify(sent[1].body.messages[0]), /Add the baking time to Cooking\/Bread\.md\./);
  assert.equal(sent[1].body.messages.length, 1, "the sub-task starts from its message alone");
  assert.doesNotMatch(JSON.stringify(sent[1].body.messages), /Have a sub-task/);

  await shootLayouts(page, "subtask-card");

  // One undo reverts what the sub-task wrote.
  await page.locator(".vault-agent-undo").last().click();
  await page.locator(".vault-agent-undo-report", { hasText: "Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"]);

  // The chat from the history shows the sub-task folded in its card, with its calls and meter.
  await page.locator(".vault-agent-new-chat").click();
  await page.locator(".vault-agent-history").click();
  await page.locator(".suggestion-item", { hasText: "Have a sub-task add the baking time" }).click();
  const saved = page.locator('.vault-agent-tool-card[data-tool="new_task"]');
  await saved.locator(".vault-agent-tool-label", { hasText: "Sub-task in agent mode" }).waitFor();
  assert.ok(!(await saved.locator(".vault-agent-subtask").isVisible()), "folded");
  await saved.locator(".vault-agent-tool-head").first().click();
  await saved.locator('.vault-agent-subtask .vault-agent-tool-card[data-tool="edit_file"].is-done', { hasText: "Edited Bread" }).waitFor();
  await saved.locator(".vault-agent-subtask .vault-agent-text", { hasText: "Added: 40 minutes." }).waitFor();
  assert.match(await saved.locator(".vault-agent-subtask .vault-agent-meter").innerText(), /2\.3k in · 70 out/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The user's own edit, through the vault as the editor makes it. */
async function userWrites(page, path, text) {
  await page.evaluate(async ([p, t]) => {
    const vault = window.fakeObsidian.app.vault;
    const file = vault.getAbstractFileByPath(p);
    if (file) await vault.modify(file, t);
    else await vault.create(p, t);
  }, [path, text]);
}

async function approve(page) {
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.locator('button[data-decision="approve"]').click();
  await modal.waitFor({ state: "detached" });
}

test("sub-tasks: at the depth limit new_task is neither offered nor run; Stop cancels a running sub-task", async () => {
  const id = `e2e-subtask-depth-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "d1", name: "new_task", arguments: { mode: "ask", message: "Level one: look at Bread." } }] },
    { toolCalls: [{ id: "d2", name: "new_task", arguments: { mode: "ask", message: "Level two: read Bread." } }] },
    { toolCalls: [{ id: "d3", name: "new_task", arguments: { mode: "ask", message: "Level three: one too deep." } }] },
    { text: "Level two done." },
    { text: "Level one done." },
    { text: "All levels done." },
    // The second task: its sub-task's answer is held until the user stops.
    { toolCalls: [{ id: "c1", name: "new_task", arguments: { mode: "ask", message: "A long look at Pizza." } }] },
    { text: "A sub-task answer the user will not wait for.", hold: true },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Delegate three levels deep");
  await page.locator(".vault-agent-text", { hasText: "All levels done." }).waitFor();
  const sent = await requests(id);
  const offered = (request) => request.body.tools.map((t) => t.name);
  // Depth 0 and 1 may delegate; depth 2 (max_subtask_depth) is not offered new_task…
  assert.ok(offered(sent[0]).includes("new_task"));
  assert.ok(offered(sent[1]).includes("new_task"));
  assert.ok(!offered(sent[2]).includes("new_task"), offered(sent[2]).join());
  assert.doesNotMatch(JSON.stringify(sent[2].body.system), /new_task/);
  // …and its call anyway is not run: the grandchild is told why.
  const refused = sent[3].body.messages.at(-1).content.find((b) => b.type === "tool_result");
  assert.equal(refused.is_error, true);
  assert.match(JSON.stringify(refused.content), /Not run: new_task is not available here/);
  // Each level is a card in its parent's steps (the grandchild's refused call is not run, so no card).
  await page.locator('.vault-agent-tool-card[data-tool="new_task"].is-done').first().waitFor();
  assert.equal(await page.locator('.vault-agent-subtask-turn .vault-agent-tool-card[data-tool="new_task"]').count(), 1);

  // Stop while a sub-task is streaming: the parent's cancel reaches the child, whose held
  // answer would otherwise keep the task waiting.
  await send(page, "Delegate and wait");
  // The held stream has shown its first piece inside the sub-task's steps.
  await page.locator(".vault-agent-subtask-turn .vault-agent-text", { hasText: "A sub" }).waitFor({ state: "attached" });
  await page.locator(".vault-agent-send", { hasText: "Stop" }).click();
  // The sub-task's own card may say "Stopped" first; the task has ended once Send is back.
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
  assert.equal((await requests(id)).length, 8, "nothing is asked after the stop");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("undo keeps what the user typed after the task unless they choose to restore it; redo applies it again", async () => {
  const id = `e2e-undo-typed-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }] },
    {
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 230 °C for 40 minutes." },
      }],
    },
    { text: "Added the baking time." },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Add the baking time");
  await approve(page);
  await page.locator(".vault-agent-undo").waitFor();
  const byTask = "# Bread\n\nSourdough at 230 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n";
  assert.equal(await read(page, "Cooking/Bread.md"), byTask);

  // The user types into the note after the task.
  const typed = `${byTask}\nMy own line, typed after the task.\n`;
  await userWrites(page, "Cooking/Bread.md", typed);

  // Undo asks first: the note changed since; keep mine is the default.
  await page.locator(".vault-agent-undo").click();
  const modal = page.locator(".modal.vault-agent-undo-modal");
  await modal.waitFor();
  const row = modal.locator('.vault-agent-undo-conflict[data-path="Cooking/Bread.md"]');
  await row.locator(".vault-agent-undo-reason", { hasText: "Changed since the task left it" }).waitFor();
  assert.ok(await row.locator('input[value="keep_mine"]').isChecked());
  assert.equal(await row.locator("input").count(), 3);
  await row.locator(".vault-agent-undo-choice", { hasText: "Bread (before task" }).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/undo-conflict-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/undo-conflict-dark.png` });
  await page.setViewportSize({ width: 300, height: 640 });
  await page.screenshot({ path: `${ARTIFACTS}/undo-conflict-narrow-dark.png` });
  await setTheme(page, "light");
  await page.screenshot({ path: `${ARTIFACTS}/undo-conflict-narrow-light.png` });
  await page.setViewportSize({ width: 1280, height: 860 });
  await modal.locator(".vault-agent-undo-apply").click();
  await modal.waitFor({ state: "detached" });
  await page.locator(".vault-agent-undo-report", { hasText: "kept Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), typed, "the typing survived the undo");
  await page.locator(".vault-agent-undo.is-redo").waitFor();

  // Redo (nothing was changed), then Undo again, this time choosing to restore.
  await page.locator(".vault-agent-undo.is-redo").click();
  await page.locator(".vault-agent-undo-report", { hasText: "Nothing to redo" }).waitFor();
  await page.locator(".vault-agent-undo:not(.is-redo)").click();
  await modal.waitFor();
  await modal.locator('.vault-agent-undo-conflict[data-path="Cooking/Bread.md"] input[value="restore"]').check();
  await modal.locator(".vault-agent-undo-apply").click();
  await page.locator(".vault-agent-undo-report", { hasText: "Undone: Restored Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"]);

  // Redo brings back what was there before the undo: the task's change and the typing.
  await page.locator(".vault-agent-undo.is-redo").click();
  await page.locator(".vault-agent-undo-report", { hasText: "Redone: Restored Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), typed);
  await page.locator(".vault-agent-undo:not(.is-redo)").waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/undo-redo-light.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("undo of a task that created a folder keeps the user's own note in it", async () => {
  const id = `e2e-undo-folder-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "Demo/Links summary.md", content: "# Links\n\n- [[Bread]]\n" } }] },
    { text: "Wrote the summary." },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Summarise the links into Demo");
  await approve(page);
  await page.locator(".vault-agent-undo").waitFor();
  assert.ok(await page.evaluate(() => window.fakeObsidian.exists("Demo/Links summary.md")));
  await userWrites(page, "Demo/My own note.md", "Mine, not the task's.\n");

  // Nothing of the user's changed since the task, so no question: the task's file goes, the
  // folder stays for the user's note, and the report says why.
  await page.locator(".vault-agent-undo").click();
  await page.locator(".vault-agent-undo-report", { hasText: "moved Demo/Links summary.md to the trash" }).waitFor();
  const report = await page.locator(".vault-agent-undo-report").innerText();
  assert.match(report, /kept Demo \(holds files the task did not create \(Demo\/My own note\.md\)\)/);
  assert.equal(await page.locator(".modal.vault-agent-undo-modal").count(), 0);
  assert.equal(await read(page, "Demo/My own note.md"), "Mine, not the task's.\n");
  assert.ok(!(await page.evaluate(() => window.fakeObsidian.exists("Demo/Links summary.md"))));
  await page.locator(".vault-agent-undo.is-redo").waitFor();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a task waiting for approval survives a reload: Resume asks again, approve, it finishes", async () => {
  const id = `e2e-resume-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }], usage: { input: 900, output: 20 } },
    {
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 230 °C for 40 minutes." },
      }],
      usage: { input: 1000, output: 30 },
    },
    { text: "Done: the bread note now has its baking time.", usage: { input: 1100, output: 15 } },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "Add the baking time to my bread note");
  await page.locator(".modal.vault-agent-approval").waitFor();

  // The app goes away while the approval waits; the plugin comes back with the same vault.
  await page.evaluate(() => window.fakeObsidian.reloadPlugin());
  await page.evaluate(() => window.fakeObsidian.runCommand("open-chat"));
  const bar = page.locator(".vault-agent-interrupted");
  await bar.waitFor();
  assert.match(await bar.innerText(), /Add the baking time to my bread note/);
  assert.match(await bar.innerText(), /Waiting for your approval: Edit Cooking\/Bread\.md/);
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"], "nothing written yet");
  await page.screenshot({ path: `${ARTIFACTS}/resume-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/resume-dark.png` });
  await page.evaluate(() => document.querySelector(".mod-right-split").setCssStyles({ width: "300px", flex: "0 0 300px" }));
  await page.screenshot({ path: `${ARTIFACTS}/resume-narrow-dark.png` });
  await setTheme(page, "light");
  await page.screenshot({ path: `${ARTIFACTS}/resume-narrow-light.png` });

  // Resume: the chat shows the request and the step before the reload, and asks again.
  await bar.locator(".vault-agent-resume").click();
  await page.locator(".vault-agent-user", { hasText: "Add the baking time" }).waitFor();
  await page.locator('.vault-agent-tool-card[data-tool="read_file"]').waitFor();
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  await modal.locator(".vault-agent-diff-line.is-added", { hasText: "for 40 minutes" }).waitFor();
  await modal.locator('button[data-decision="approve"]').click();
  await page.locator(".vault-agent-text", { hasText: "Done: the bread note" }).waitFor();
  await page.locator(".vault-agent-undo").waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/resumed-light.png` });
  assert.equal(await read(page, "Cooking/Bread.md"), "# Bread\n\nSourdough at 230 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n");
  assert.equal(await page.locator(".vault-agent-interrupted").count(), 0);
  const sent = await requests(id);
  assert.equal(sent.length, 3, "no model call repeated across the reload");
  assert.match(JSON.stringify(sent[2].body.messages), /for 40 minutes/);
  // Nothing is left to resume after a reload.
  await page.evaluate(() => window.fakeObsidian.reloadPlugin());
  await page.evaluate(() => window.fakeObsidian.runCommand("open-chat"));
  await page.locator(".vault-agent-chat").waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.locator(".vault-agent-interrupted").count(), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("at the step limit the task still answers and Continue goes on with a fresh budget", async () => {
  const id = `e2e-continue-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "l1", name: "list_files", arguments: { path: "Cooking" } }], usage: { input: 500, output: 10 } },
    { text: "So far: two cooking notes. The summary is not written yet.", usage: { input: 600, output: 12 } },
    { text: "Summary: Bread and Pizza, both baked hot.", usage: { input: 700, output: 12 } },
  ]);
  const page = await openHost({ mock: id, data: { agent: { maxIterations: 1 } } });
  await send(page, "Summarise my cooking notes");
  const stopped = page.locator(".vault-agent-end", { hasText: "step limit" });
  await stopped.waitFor();
  await page.locator(".vault-agent-text", { hasText: "So far: two cooking notes" }).waitFor();
  await shootLayouts(page, "limit-continue");
  await page.locator(".vault-agent-continue").click();
  await page.locator(".vault-agent-text", { hasText: "Summary: Bread and Pizza" }).waitFor();
  await page.locator(".vault-agent-user", { hasText: "Continue" }).waitFor();
  const sent = await requests(id);
  assert.equal(sent.length, 3);
  assert.match(JSON.stringify(sent[2].body.messages.at(-1)), /Continue the task from where you stopped/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a provider error shows a clear line with a retry; stop ends a task; questions get answers", async () => {
  const id = `e2e-error-${Date.now()}`;
  await script(id, [
    { status: 401, message: "invalid x-api-key" },
    { text: "Hello again.", thinking: "The user greets me twice." },
    { text: "A very long answer that the user will not wait for.", hold: true },
    { toolCalls: [{ id: "q1", name: "ask_followup_question", arguments: { question: "Which note?", suggestions: ["Bread", "Pizza"] } }] },
    { text: "Pizza it is." },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "hello");
  const error = page.locator(".vault-agent-error");
  await error.waitFor();
  // Plain words first, the provider's own words below; no Rust names.
  assert.match(await error.locator(".vault-agent-error-message").innerText(), /^The provider did not accept the API key\.$/);
  assert.match(await error.locator(".vault-agent-error-detail").innerText(), /invalid x-api-key \(HTTP 401\)/);
  assert.doesNotMatch(await error.innerText(), /Auth|RateLimited/);
  // The cause is the key: a button opens the provider settings.
  await error.locator(".vault-agent-open-provider", { hasText: "Check the API key" }).click();
  await page.locator(".vault-agent-settings").waitFor();
  await page.keyboard.press("Escape");
  await error.locator(".vault-agent-retry").click();
  await page.locator(".vault-agent-text", { hasText: "Hello again." }).waitFor();
  let sent = await requests(id);
  assert.equal(sent.length, 2);
  // The retried request does not carry the failed attempt: one user message, once.
  assert.equal(sent[1].body.messages.length, 1);
  // Thinking is shown collapsed.
  const thinking = page.locator("details.vault-agent-thinking");
  assert.match(await thinking.innerText(), /Thinking/);
  assert.equal(await thinking.evaluate((el) => el.open), false);

  // Stop ends a task mid-answer.
  await send(page, "tell me everything");
  await page.waitForFunction(() => document.querySelectorAll(".vault-agent-text").length === 2);
  await page.locator(".vault-agent-send", { hasText: "Stop" }).click();
  await page.locator(".vault-agent-end", { hasText: "Stopped" }).waitFor();
  // The footer comes with the task's report; the button turns back once the run has returned.
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();

  // The model asks; the user picks a suggestion; the answer goes back to the model.
  await send(page, "summarise a note");
  const question = page.locator(".vault-agent-question");
  await question.locator(".vault-agent-question-text", { hasText: "Which note?" }).waitFor();
  await question.locator("button", { hasText: "Pizza" }).click();
  await page.locator(".vault-agent-text", { hasText: "Pizza it is." }).waitFor();
  sent = await requests(id);
  assert.match(JSON.stringify(sent.at(-1).body.messages.at(-1)), /Pizza/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("@ attaches a note, / fills in a prompt, and the mode picker limits the tools", async () => {
  const id = `e2e-mention-${Date.now()}`;
  await script(id, [{ text: "It rests for 48 hours." }]);
  // A note of the user's with a built-in prompt's name replaces it.
  const files = { ...NOTES, "Prompts/Find related notes.md": "Which of my notes link to the open one?\n" };
  const page = await openHost({ mock: id, files });
  // "Ask about the current note" attaches the open note; a chip's × takes it off again.
  await page.evaluate(() => window.fakeObsidian.runCommand("ask-about-current-note"));
  const chip = page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "Cooking/Bread.md" });
  await chip.waitFor();
  assert.equal(await page.locator(".vault-agent-input").getAttribute("placeholder"), "Ask about Bread…");
  await chip.locator(".vault-agent-chip-remove").click();
  await chip.waitFor({ state: "detached" });
  // A slash prompt from the Prompts folder.
  await page.locator(".vault-agent-input").pressSequentially("/");
  await page.locator(".suggestion-item", { hasText: /^Summarise$/ }).click();
  assert.equal(await page.locator(".vault-agent-input").inputValue(), "Summarise the open note in three bullet points.");
  // The built-in prompts follow the user's own, marked as such; one fills in its text.
  await page.locator(".vault-agent-input").fill("");
  await page.locator(".vault-agent-input").pressSequentially("/");
  const items = page.locator(".suggestion-item");
  await items.first().waitFor();
  const listed = await items.allInnerTexts();
  assert.deepEqual(listed.slice(0, 2).sort(), ["Find related notes", "Summarise"]);
  assert.equal(listed.filter((t) => t.startsWith("Find related notes")).length, 1, listed.join(" | "));
  assert.ok(listed.slice(2).every((t) => t.endsWith("built in")), listed.join(" | "));
  assert.ok(listed.some((t) => t.startsWith("Review my week")), listed.join(" | "));
  await page.locator(".prompt-input").fill("merge");
  await page.keyboard.press("Enter");
  assert.match(await page.locator(".vault-agent-input").inputValue(), /^Find everything I wrote about the topic below.* Topic: $/);
  // @ opens the note picker; the note goes along with the message.
  await page.locator(".vault-agent-input").fill("How long does the dough rest? ");
  await page.locator(".vault-agent-input").pressSequentially("@");
  await page.locator(".prompt-input").fill("pizza");
  await page.keyboard.press("Enter");
  await page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "Cooking/Pizza.md" }).waitFor();
  // A folder is offered too, marked so; it brings its notes.
  await page.locator(".vault-agent-input").pressSequentially("@");
  await page.locator(".prompt-input").fill("travel");
  const folderRow = page.locator(".suggestion-item", { hasText: /^Travel\/\s*folder$/ });
  await folderRow.waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/attach-folder-picker-light.png` });
  await folderRow.click();
  const folderChip = page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "Travel/" });
  await folderChip.waitFor();
  assert.equal(await folderChip.locator(".vault-agent-chip-icon svg").count(), 1, "the folder icon");
  await page.locator(".vault-agent-mode").selectOption("ask");
  await page.locator(".vault-agent-send").click();
  await page.locator(".vault-agent-text", { hasText: "48 hours" }).waitFor();
  await page.locator(".vault-agent-user .vault-agent-chip", { hasText: "Cooking/Pizza.md" }).waitFor();
  await page.locator(".vault-agent-user .vault-agent-chip", { hasText: "Travel/" }).waitFor();
  const [request] = await requests(id);
  const message = request.body.messages[0].content.map((b) => b.text ?? "").join("");
  assert.match(message, /^How long does the dough rest\?\n\n<attached_notes>\n<note path="Cooking\/Pizza.md">\n# Pizza\n\nDough rests 48 h./);
  assert.match(message, /<folder path="Travel\/">\n<note path="Travel\/Kyoto.md">\n# Kyoto/);
  const tools = request.body.tools.map((t) => t.name);
  assert.ok(tools.includes("read_file") && !tools.includes("write_file"), tools.join());
  assert.match(JSON.stringify(request.body.system), /Mode: Ask/);
  assert.equal((await page.evaluate(() => window.fakeObsidian.savedData)).agent.mode, "ask");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a large tool result is saved aside, and its card links to it until the chat is closed", async () => {
  const id = `e2e-large-${Date.now()}`;
  const files = { ...NOTES };
  for (let i = 1; i <= 20; i++) {
    files[`Bread/Variant ${i}.md`] = `# Bread variant ${i}\n\n${"A loaf of bread with seeds, rye and a long, slow proof. ".repeat(8)}\n`;
  }
  await script(id, [
    { toolCalls: [{ id: "s1", name: "search_files", arguments: { query: "bread loaf", limit: 20 } }] },
    { text: "Twenty variants found; here is the summary.", hold: true },
  ]);
  const page = await openHost({ mock: id, files });
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 24 notes" }).waitFor();
  await send(page, "find my bread variants");
  const link = page.locator('.vault-agent-tool-card[data-tool="search_files"] .vault-agent-tool-link a');
  await link.waitFor();
  assert.match(await link.innerText(), /^Full result \([\d,]+ characters\)$/);
  assert.match(await link.getAttribute("title"), /^\.obsidian-agent\/tmp\/.+\/search_files-\d+\.md$/);
  // While the answer is held, the task runs and its saved result can be read.
  await page.waitForFunction(() => document.querySelector(".vault-agent-text")?.textContent.startsWith("Twenty"));
  await link.click();
  const modal = page.locator(".modal.vault-agent-result");
  await modal.locator(".vault-agent-result-text", { hasText: "Bread/Variant 20.md" }).waitFor();
  await modal.locator(".modal-close-button").click();
  await fetch(`${origin}/mock/${id}/release`, { method: "POST" });
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
  // After the task the link still works: later turns of the chat point to it.
  await link.click();
  await modal.locator(".vault-agent-result-text", { hasText: "Bread/Variant 20.md" }).waitFor();
  await modal.locator(".modal-close-button").click();
  const path = await link.getAttribute("title");
  assert.ok(await page.evaluate((p) => window.fakeObsidian.exists(p), path));
  // A new chat closes this one: its saved results go.
  await page.locator(".vault-agent-new-chat").click();
  await page.waitForFunction(async (p) => !(await window.fakeObsidian.exists(p)), path);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("without streaming, requests go through requestUrl and the chat works the same", async () => {
  const id = `e2e-request-${Date.now()}`;
  await script(id, [{ text: "Answered through requestUrl." }]);
  const page = await openHost({ mock: id, transport: "request" });
  await send(page, "hello");
  await page.locator(".vault-agent-text", { hasText: "Answered through requestUrl." }).waitFor();
  const sent = await requests(id);
  assert.equal(sent.length, 1);
  // The request came from the page's server (requestUrl), not from the browser.
  assert.notEqual(sent[0].headers.origin, origin);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("on a phone: a provider that refuses CORS is reached through requestUrl; approval and undo with 44 px targets", async () => {
  const id = `e2e-mobile-${Date.now()}`;
  await script(id, [
    {
      text: "I'll add the baking time.",
      toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }],
    },
    {
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 230 °C for 40 minutes." },
      }],
    },
    { text: "Done: **Bread** now says how long to bake." },
  ]);
  // The page at localhost, the provider at 127.0.0.1 answering without CORS headers: the phone's
  // fetch is refused, as a provider that does not allow browsers refuses the app's webview.
  const port = new URL(origin).port;
  const page = await openHost({
    mock: id,
    mobile: true,
    pageOrigin: `http://localhost:${port}`,
    baseUrl: `${origin}/no-cors/mock/${id}/anthropic`,
  });
  assert.ok(await page.evaluate(() => document.body.classList.contains("is-mobile")));
  assert.equal(await page.evaluate(() => window.fakeObsidian.plugin.transport()), "auto");
  await send(page, "Add the baking time to my bread note");

  const modal = page.locator(".modal.vault-agent-approval");
  await modal.locator(".vault-agent-diff-line.is-added", { hasText: "for 40 minutes" }).waitFor();
  await assertTouchTargets(page, [".vault-agent-approval button", ".vault-agent-approval input"]);
  const box = await modal.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `the approval fits the phone's width: ${JSON.stringify(box)}`);
  for (const theme of ["light", "dark"]) {
    await setTheme(page, theme);
    await page.screenshot({ path: `${ARTIFACTS}/mobile-approval-${theme}.png` });
  }
  await setTheme(page, "light");
  await approve(page);
  await page.locator(".vault-agent-text strong", { hasText: "Bread" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), "# Bread\n\nSourdough at 230 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n");

  // Both model calls reached the server through requestUrl (the page's server sends them: no
  // browser origin), none through the browser.
  const sent = await requests(id);
  assert.equal(sent.length, 3);
  assert.deepEqual(sent.map((r) => r.headers.origin), [undefined, undefined, undefined]);

  await assertTouchTargets(page);
  await page.locator(".vault-agent-undo").click();
  await page.locator(".vault-agent-undo-report", { hasText: "Cooking/Bread.md" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"]);
  await page.locator(".vault-agent-undo.is-redo").waitFor();
  await assertTouchTargets(page);
  for (const theme of ["light", "dark"]) {
    await setTheme(page, theme);
    await page.screenshot({ path: `${ARTIFACTS}/mobile-undo-${theme}.png` });
  }
  // The search window names no keys on a phone, only the query's syntax.
  await page.evaluate(() => window.fakeObsidian.runCommand("search-vault"));
  const instructions = page.locator(".vault-agent-search-modal .prompt-instructions");
  await instructions.waitFor();
  assert.deepEqual(await instructions.locator(".prompt-instruction-command").allInnerTexts(), ['"…" -word #tag folder:']);
  await page.keyboard.press("Escape");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("on a phone: a provider that allows CORS streams through fetch", async () => {
  const id = `e2e-mobile-stream-${Date.now()}`;
  await script(id, [{ text: "Streamed to the phone, piece by piece.", hold: true }]);
  const port = new URL(origin).port;
  const page = await openHost({ mock: id, mobile: true, pageOrigin: `http://localhost:${port}` });
  await send(page, "hello");
  // The first piece shows while the server still holds the rest.
  await page.waitForFunction(() => document.querySelector(".vault-agent-text")?.textContent.startsWith("Stre"));
  assert.ok(!(await page.locator(".vault-agent-text").first().innerText()).includes("piece by piece"));
  await fetch(`${origin}/mock/${id}/release`, { method: "POST" });
  await page.locator(".vault-agent-text", { hasText: "piece by piece." }).waitFor();
  // Sent by the browser (the app's webview), across origins.
  assert.deepEqual((await requests(id)).map((r) => r.headers.origin), [`http://localhost:${port}`]);
  // Related notes start folded on a phone, the count in their title.
  const related = page.locator(".vault-agent-related");
  await related.locator("summary", { hasText: /^Related to .+ · \d+$/ }).waitFor();
  assert.equal(await related.evaluate((el) => el.open), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("two sends before the chat exists make one chat in the core and one task", async () => {
  const id = `e2e-double-send-${Date.now()}`;
  await script(id, [{ text: "Once." }, { text: "Twice." }]);
  const page = await openHost({ mock: id });
  // Count the chats made in the core (the handle's vault is a proxy for the worker's object).
  await page.evaluate(async () => {
    const { plugin } = window.fakeObsidian;
    const handle = await plugin.core();
    window.newChats = 0;
    const vault = new Proxy(handle.vault, {
      get: (target, name) => (name === "newChat" ? (...args) => (window.newChats++, target.newChat(...args)) : target[name]),
    });
    plugin.started = Promise.resolve({ ...handle, vault });
  });
  await page.locator(".vault-agent-input").fill("hello");
  await page.evaluate(() => {
    const button = document.querySelector(".vault-agent-send");
    button.click();
    button.click();
  });
  await page.locator(".vault-agent-text", { hasText: "Once." }).waitFor();
  await page.waitForFunction(() => document.querySelector(".vault-agent-send").textContent.trim() === "Send");
  assert.equal(await page.evaluate(() => window.newChats), 1);
  assert.equal(await page.locator(".vault-agent-user").count(), 1);
  assert.equal((await requests(id)).length, 1);

  // Whatever asks for the chat while it is being made (a send, Continue, Resume) gets that one.
  await page.locator(".vault-agent-new-chat").click();
  const same = await page.evaluate(async () => {
    const view = window.fakeObsidian.app.workspace.getLeavesOfType("vault-agent-chat")[0].view;
    const [a, b] = await Promise.all([view.ensureChat(), view.ensureChat()]);
    return a !== null && a === b;
  });
  assert.ok(same);
  assert.equal(await page.evaluate(() => window.newChats), 2);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the settings tab tests the connection", async () => {
  const id = `e2e-settings-${Date.now()}`;
  await script(id, [{ text: "OK" }, { status: 401, message: "invalid x-api-key" }]);
  const page = await openHost({ mock: id });
  await page.locator(".vault-agent-welcome").waitFor();
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.waitFor();
  const button = settings.locator("button", { hasText: "Test" });
  await button.click();
  await settings.locator(".vault-agent-test-result.is-ok", { hasText: "Connected: claude-sonnet-4-5 answered in" }).waitFor();
  await button.click();
  // A failure in plain words, then the provider's own.
  await settings.locator(".vault-agent-test-result.is-error", { hasText: "The provider did not accept the API key. The provider said: invalid x-api-key (HTTP 401)" }).waitFor();
  // Indexing again from the settings shows its progress there.
  await page.evaluate(() => {
    const el = document.querySelector(".vault-agent-index-progress");
    window.progressSeen = [];
    new MutationObserver(() => window.progressSeen.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });
  await settings.locator("button", { hasText: "Index again" }).click();
  await page.waitForFunction(() => window.progressSeen.some((t) => t.startsWith("Indexing 4/4 notes")));
  await page.waitForFunction(() => window.progressSeen.at(-1).startsWith("Search index: 4 notes. Notes are indexed as they change."));
  await page.screenshot({ path: `${ARTIFACTS}/settings-light.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Google Gemini: the settings say where to get a key; a tool call in Gemini's shape runs, and goes back signed and named", async () => {
  const id = `e2e-gemini-${Date.now()}`;
  // Gemini's OpenAI-compatible stream: the call has no index, carries a thought signature, and
  // the turn ends with "stop".
  const chunk = (choice) => `data: ${JSON.stringify({ choices: [{ index: 0, ...choice }], model: "gemini-flash-latest", object: "chat.completion.chunk" })}\n\n`;
  const raw =
    chunk({ delta: { role: "assistant", content: "Let me read it." } }) +
    chunk({
      delta: {
        role: "assistant",
        tool_calls: [{
          extra_content: { google: { thought_signature: "CpwCAdHt" } },
          function: { name: "read_file", arguments: JSON.stringify({ path: "Cooking/Bread.md" }) },
          id: "function-call-1",
          type: "function",
        }],
      },
      finish_reason: "stop",
    }) +
    "data: [DONE]\n\n";
  await script(id, [{ raw, chunkSize: 40 }, { text: "Bake the sourdough at 230 °C." }]);
  // At Google's address (which this browser resolves to the test server): the plugin speaks
  // Gemini's dialect there.
  const google = `http://${GOOGLE_HOST}:${new URL(origin).port}`;
  const page = await openHost({
    mock: id,
    data: { provider: { preset: "gemini", model: "", baseUrl: `${google}/mock/${id}/openai/v1` } },
    keys: { "vault-agent-gemini-key": "AIza-e2e" },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  const sent = await requests(id);
  assert.equal(sent.length, 2);
  assert.equal(sent[0].body.model, "gemini-flash-latest", "the preset's model when none is named");
  assert.equal(sent[0].headers.authorization, "Bearer AIza-e2e");
  // The next request gives the call back with its signature, and the result names its tool.
  const call = sent[1].body.messages.find((m) => m.role === "assistant" && m.tool_calls).tool_calls[0];
  assert.deepEqual(call.extra_content, { google: { thought_signature: "CpwCAdHt" } });
  const result = sent[1].body.messages.find((m) => m.role === "tool");
  assert.equal(result.tool_call_id, "function-call-1");
  assert.equal(result.name, "read_file");
  assert.match(result.content, /230 °C/);

  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  const link = settings.locator('a[href="https://aistudio.google.com/apikey"]');
  await link.waitFor();
  assert.equal(await link.innerText(), "aistudio.google.com/apikey");
  assert.equal(await settings.locator("select").first().inputValue(), "gemini");
  await page.screenshot({ path: `${ARTIFACTS}/settings-gemini.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Mistral AI: Magistral's thinking shows, its call runs, and every request is one Mistral accepts", async () => {
  const id = `e2e-mistral-${Date.now()}`;
  // Magistral's stream: thinking and text as lists of chunks, a call with Mistral's nine-letter
  // id, usage in the last chunk.
  const chunk = (delta, extra = {}) =>
    `data: ${JSON.stringify({ id: "c3c7", object: "chat.completion.chunk", model: "magistral-medium-2509", choices: [{ index: 0, delta, finish_reason: null, ...extra.choice }], ...extra.top })}\n\n`;
  const raw =
    chunk({ role: "assistant", content: "" }) +
    chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "The user asks about baking. " }] }] }) +
    chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "I should read the bread note." }] }] }) +
    chunk({ content: [{ type: "text", text: "Let me read it." }] }) +
    chunk(
      { tool_calls: [{ id: "D681PevKs", function: { name: "read_file", arguments: JSON.stringify({ path: "Cooking/Bread.md" }) }, index: 0 }] },
      { choice: { finish_reason: "tool_calls" }, top: { usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 } } },
    ) +
    "data: [DONE]\n\n";
  await script(id, [{ raw, chunkSize: 40 }, { text: "Bake the sourdough at 230 °C." }]);
  // The mock answers at Mistral's address as Mistral's API would: a field it does not know, a
  // tool call id that is not nine letters and digits, or a user message right after a tool
  // result is refused. A reminder every step puts such a message after the call's result.
  const mistral = `http://${MISTRAL_HOST}:${new URL(origin).port}`;
  const page = await openHost({
    mock: id,
    data: {
      provider: { preset: "mistral", model: "magistral-medium-latest", baseUrl: `${mistral}/mock/${id}/mistral/v1` },
      agent: { powerSteeringFrequency: 1 },
    },
    keys: { "vault-agent-mistral-key": "mistral-e2e" },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  assert.match(await page.locator(".vault-agent-thinking-body").first().textContent(), /I should read the bread note\./);
  const sent = await requests(id);
  assert.equal(sent.length, 2);
  assert.equal(sent[0].headers.authorization, "Bearer mistral-e2e");
  for (const { body } of sent) assert.equal(body.stream_options, undefined, "Mistral answers 422 to stream_options");
  const call = sent[1].body.messages.find((m) => m.role === "assistant" && m.tool_calls).tool_calls[0];
  assert.equal(call.id, "D681PevKs");
  const result = sent[1].body.messages.find((m) => m.role === "tool");
  assert.equal(result.tool_call_id, "D681PevKs");
  assert.match(result.content, /230 °C/);
  // The reminder after the result: an assistant message stands between them.
  const roles = sent[1].body.messages.map((m) => m.role);
  assert.deepEqual(roles.slice(-3), ["tool", "assistant", "user"]);
  assert.match(sent[1].body.messages.at(-1).content, /\[Reminder\]/);

  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.locator('a[href="https://console.mistral.ai/api-keys"]').waitFor();
  assert.equal(await settings.locator("select").first().inputValue(), "mistral");
  await page.screenshot({ path: `${ARTIFACTS}/settings-mistral.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Azure OpenAI: the endpoint as the portal shows it, the key in Azure's header, the model a deployment", async () => {
  const id = `e2e-azure-${Date.now()}`;
  await script(id, [{ text: "Bake the sourdough at 230 °C." }]);
  // A deployment's target URI as Azure AI Foundry shows it, pasted whole.
  const resource = `http://${id}.${AZURE_DOMAIN}:${new URL(origin).port}`;
  const page = await openHost({
    mock: id,
    data: {
      provider: {
        preset: "azure",
        model: "bread-gpt",
        baseUrl: `${resource}/openai/deployments/bread-gpt/chat/completions?api-version=2025-01-01-preview`,
      },
    },
    keys: { "vault-agent-azure-key": "azure-e2e" },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  const [sent] = await requests(id);
  assert.equal(sent.path, `/mock/${id}/openai/v1/chat/completions`, "the resource's v1 API, no api-version");
  assert.equal(sent.headers["api-key"], "azure-e2e");
  assert.equal(sent.headers.authorization, undefined, "a bearer token is Entra ID's on Azure");
  assert.equal(sent.body.model, "bread-gpt");
  assert.equal(sent.body.max_completion_tokens, 8192);
  assert.equal(sent.body.max_tokens, undefined);

  // The picker lists no models (Azure's list is not of deployments) and says so; a name typed works.
  await page.locator(".vault-agent-model").click();
  const picker = page.locator(".modal.prompt");
  await picker.locator(".suggestion-empty", { hasText: "not your deployments" }).waitFor();
  await picker.locator(".prompt-input").fill("bread-gpt-mini");
  await picker.locator(".vault-agent-model-item", { hasText: "not in the server's list" }).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/model-picker-azure.png` });
  await page.keyboard.press("Escape");
  assert.equal((await requests(id)).length, 1, "the models list is not asked for");

  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.locator('a[href="https://portal.azure.com"]').waitFor();
  assert.equal(await settings.locator("select").first().inputValue(), "azure");
  assert.match(await settingRow(settings, "Model").textContent(), /deployment/);
  await page.screenshot({ path: `${ARTIFACTS}/settings-azure.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Groq refuses a tool call after the answer began: the chat keeps the words so far, says why, and the model writes the call again", async () => {
  const id = `e2e-groq-refused-${Date.now()}`;
  const chunk = (delta) => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "moonshotai/kimi-k2-instruct", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  // Groq's stream, as its users' reports show it: some text, then an error event for the call.
  const raw =
    chunk({ role: "assistant", content: "Let me read " }) +
    chunk({ content: "your bread note." }) +
    `data: ${JSON.stringify({ error: { message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.", type: "invalid_request_error", code: "tool_use_failed", failed_generation: '<function=read_file>{"path": "Cooking/Bread.md"' } })}\n\n`;
  await script(id, [
    { raw, chunkSize: 30 },
    { toolCalls: [{ id: "g1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }] },
    { text: "Bake the sourdough at 230 °C." },
  ]);
  const page = await openHost({
    mock: id,
    data: { provider: { preset: "custom", model: "moonshotai/kimi-k2-instruct", baseUrl: `${origin}/mock/${id}/openai/v1` } },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Let me read your bread note." }).waitFor();
  await page.locator(".vault-agent-chat", { hasText: "refused the tool call the model wrote" }).waitFor();
  assert.equal(await page.locator(".vault-agent-chat", { hasText: "Failed to call a function" }).count(), 0, "no error ends the task");
  const sent = await requests(id);
  assert.equal(sent.length, 3);
  const asked = sent[1].body.messages.slice(-2);
  assert.deepEqual(asked.map((m) => m.role), ["assistant", "user"]);
  assert.equal(asked[0].content, "Let me read your bread note.");
  assert.match(asked[1].content, /The server refused your last tool call/);
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/groq-refused-call.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a local model that takes no tools and thinks in <think> tags: its tools go as text, its thinking shows as thinking", async () => {
  const id = `e2e-notools-${Date.now()}`;
  // Ollama's answer to tools for a model whose template has none: a 400 typed as an api_error.
  const refusal = { error: { message: "registry.ollama.ai/library/gemma3:4b does not support tools", type: "api_error", param: null, code: null } };
  const call = '<think>\nThe user asks about baking. I should read the bread note.\n</think>\n\n```tool_call\n{"name": "read_file", "arguments": {"path": "Cooking/Bread.md"}}\n```';
  await script(id, [
    { status: 400, body: refusal },
    { text: call, chunkSize: 5 },
    { text: "Bake the sourdough at 230 °C." },
    // Test connection in the settings, afterwards: refused the same way, then answered.
    { status: 400, body: refusal },
    { text: "OK" },
  ]);
  const page = await openHost({
    mock: id,
    data: { provider: { preset: "ollama", model: "gemma3:4b", baseUrl: `${origin}/mock/${id}/openai/v1` } },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  assert.match(await page.locator(".vault-agent-thinking-body").first().textContent(), /I should read the bread note\./);
  // Said once, as the change happens: the model's tools now go as text.
  assert.match(await page.locator(".vault-agent-warning").textContent(), /does not let gemma3:4b call tools itself \(“registry\.ollama\.ai\/library\/gemma3:4b does not support tools”\)/);
  const shown = await page.locator(".vault-agent-turn").last().textContent();
  assert.doesNotMatch(shown, /<\/?think>|tool_call|overloaded/i);
  assert.equal(await page.locator(".vault-agent-error").count(), 0);
  const sent = await requests(id);
  assert.equal(sent.length, 3, "refused once, then two requests with the tools as text");
  assert.ok(sent[0].body.tools?.length > 0, "natively first");
  for (const { body } of sent.slice(1)) {
    assert.equal(body.tools, undefined);
    assert.match(body.messages[0].content, /### read_file/);
  }
  // The thinking is not sent back as the answer.
  assert.doesNotMatch(JSON.stringify(sent[2].body.messages), /I should read the bread note/);
  await page.locator(".vault-agent-thinking").first().click();
  await page.screenshot({ path: `${ARTIFACTS}/no-tools-thinking.png` });
  // Where the model is set up, Test connection says it too (its request offers a tool).
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const test = settingRow(page.locator(".vault-agent-settings"), "Test connection");
  await test.locator("button").click();
  await test.locator(".vault-agent-test-result.is-ok", { hasText: "Connected: gemma3:4b" }).waitFor();
  assert.match(await test.locator(".vault-agent-test-warning").textContent(), /does not let gemma3:4b call tools itself \(“registry\.ollama\.ai\/library\/gemma3:4b does not support tools”\)/);
  await test.screenshot({ path: `${ARTIFACTS}/test-connection-no-tools.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("OpenAI's Responses API: a reasoning model's summary shows as thinking, its call runs, and its reasoning goes back with the result", async () => {
  const id = `e2e-responses-${Date.now()}`;
  await script(id, [
    { thinking: "**Finding the recipe**\n\nThe bread note should say the oven's heat.", toolCalls: [{ id: "call_bread", name: "read_file", arguments: { path: "Cooking/Bread.md" } }] },
    { text: "Bake the sourdough at 230 °C." },
  ]);
  const page = await openHost({
    mock: id,
    data: { provider: { preset: "openai", model: "gpt-5-mini", baseUrl: `${origin}/mock/${id}/openai/v1`, api: "responses" } },
    keys: { "vault-agent-openai-key": "sk-e2e" },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator('.vault-agent-tool-card[data-tool="read_file"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  const thinking = page.locator(".vault-agent-thinking").first();
  await thinking.click();
  assert.match(await thinking.textContent(), /The bread note should say the oven's heat\./);
  const sent = await requests(id);
  assert.deepEqual(sent.map(({ path }) => path), [`/mock/${id}/openai/v1/responses`, `/mock/${id}/openai/v1/responses`]);
  assert.equal(sent[0].body.reasoning.summary, "auto");
  assert.equal(sent[0].body.store, false);
  // The next request: the reasoning as it came (encrypted), the call, then its result.
  const kinds = sent[1].body.input.map((item) => item.type ?? item.role);
  assert.deepEqual(kinds.slice(-3), ["reasoning", "function_call", "function_call_output"]);
  assert.equal(sent[1].body.input.at(-3).encrypted_content, "mock-encrypted-reasoning");
  assert.equal(sent[1].body.input.at(-1).call_id, "call_bread");
  assert.match(sent[1].body.input.at(-1).output, /230 °C/);
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/openai-responses-thinking.png` });
  await setTheme(page, "dark");
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/openai-responses-thinking-dark.png` });
  // The settings offer the choice for OpenAI's preset.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const api = settingRow(page.locator(".vault-agent-settings"), "API");
  assert.equal(await api.locator("select").inputValue(), "responses");
  await api.screenshot({ path: `${ARTIFACTS}/settings-openai-api.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("an OpenAI account that may not stream GPT-5: the answer comes whole, and the chat says why", async () => {
  const id = `e2e-nostream-${Date.now()}`;
  const refusal = { error: { message: "Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.", type: "invalid_request_error", param: "stream", code: "unsupported_value" } };
  const whole = (content) => ({ id: "chatcmpl-1", object: "chat.completion", model: "gpt-5", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content, refusal: null } }], usage: { prompt_tokens: 900, completion_tokens: 12, total_tokens: 912 } });
  await script(id, [{ status: 400, body: refusal }, { status: 200, body: whole("Bake the sourdough at 230 °C.") }, { status: 200, body: whole("Let it cool for an hour.") }]);
  const page = await openHost({
    mock: id,
    data: { provider: { preset: "openai", model: "gpt-5", baseUrl: `${origin}/mock/${id}/openai/v1` } },
    keys: { "vault-agent-openai-key": "sk-e2e" },
  });
  await send(page, "How hot do I bake my bread?");
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  assert.match(await page.locator(".vault-agent-warning").textContent(), /^Answers arrive whole from now on, once written: the server does not stream this model to this account \(“Your organization must be verified to stream this model/);
  await send(page, "And after?");
  await page.locator(".vault-agent-text", { hasText: "Let it cool for an hour." }).waitFor();
  assert.equal(await page.locator(".vault-agent-warning").count(), 1, "said once");
  assert.equal(await page.locator(".vault-agent-error").count(), 0);
  const sent = await requests(id);
  assert.deepEqual(sent.map(({ body }) => body.stream), [true, false, false]);
  assert.ok(sent.slice(1).every(({ body }) => body.stream_options === undefined));
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/openai-whole-answers.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the model picker lists the server's models in the chat and the settings; the next message goes to the one picked", async () => {
  const id = `e2e-models-${Date.now()}`;
  const models = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "voyage-embed-3"];
  const scripted = await fetch(`${origin}/mock/${id}/script`, { method: "POST", body: JSON.stringify({ responses: [{ text: "From Opus." }], models }) });
  assert.equal(scripted.status, 200);
  const page = await openHost({ mock: id });
  const chip = page.locator(".vault-agent-model");
  await chip.filter({ hasText: "claude-sonnet-4-5" }).waitFor();
  await chip.click();
  const picker = page.locator(".modal.prompt");
  const rows = picker.locator(".vault-agent-model-item");
  // The server's chat models in its order (the embedding model left out), the one in use marked.
  await until(page, () => document.querySelectorAll(".vault-agent-model-item").length === 3);
  assert.deepEqual(await rows.locator(".vault-agent-model-id").allTextContents(), ["claude-sonnet-4-5in use", "claude-opus-4-1", "claude-haiku-4-5"]);
  // Each with the price the cost meter would use.
  assert.equal(await rows.first().locator(".vault-agent-model-meta").textContent(), "$3 / $15 per M tokens");
  await page.screenshot({ path: `${ARTIFACTS}/model-picker-light.png` });
  // Words filter; a name the list lacks can be used as typed.
  await picker.locator(".prompt-input").fill("opus");
  await until(page, () => document.querySelectorAll(".vault-agent-model-item").length === 2);
  assert.deepEqual(await rows.locator(".vault-agent-model-id").allTextContents(), ["claude-opus-4-1", "Use “opus”"]);
  await page.keyboard.press("Enter");
  await chip.filter({ hasText: "claude-opus-4-1" }).waitFor();
  await send(page, "Which model are you?");
  await page.locator(".vault-agent-text", { hasText: "From Opus." }).waitFor();
  const [list, call] = await requests(id);
  assert.equal(list.method, "GET");
  assert.match(list.path, /\/anthropic\/v1\/models$/);
  assert.equal(list.headers["x-api-key"], "test-key");
  assert.equal(call.body.model, "claude-opus-4-1");

  // In the settings: the Model field's list button, and a name typed there.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.waitFor();
  const modelRow = settingRow(settings, "Model");
  assert.equal(await modelRow.locator("input").inputValue(), "claude-opus-4-1");
  await modelRow.locator(".extra-setting-button").click();
  await picker.locator(".prompt-input").fill("my-own-model");
  await picker.locator(".vault-agent-model-item", { hasText: "not in the server's list" }).waitFor();
  await page.keyboard.press("Enter");
  assert.equal(await modelRow.locator("input").inputValue(), "my-own-model");
  assert.equal(await page.evaluate(() => window.fakeObsidian.plugin.settings.provider.model), "my-own-model");
  await chip.filter({ hasText: "my-own-model" }).waitFor();

  // A server that has no models list: the picker says why, and a typed name still works.
  await settingRow(settings, "Base URL").locator("input").fill(`${origin}/mock/${id}/elsewhere`);
  await modelRow.locator(".extra-setting-button").click();
  await picker.locator(".suggestion-empty", { hasText: "Could not list the server's models. " }).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/model-picker-error.png` });
  await page.keyboard.press("Escape");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the model picker says which of the server's models call no tools (as OpenRouter's list does)", async () => {
  const id = `e2e-models-tools-${Date.now()}`;
  const models = [{ id: "anthropic/claude-sonnet-4.5", tools: true }, { id: "google/gemma-2-9b-it", tools: false }, "mistral/unsaid"];
  assert.equal((await fetch(`${origin}/mock/${id}/script`, { method: "POST", body: JSON.stringify({ responses: [], models }) })).status, 200);
  const page = await openHost({ data: { provider: { preset: "custom", model: "anthropic/claude-sonnet-4.5", baseUrl: `${origin}/mock/${id}/openai/v1` } } });
  await page.locator(".vault-agent-model").click();
  const rows = page.locator(".modal.prompt .vault-agent-model-item");
  await until(page, () => document.querySelectorAll(".vault-agent-model-item").length === 3);
  const meta = async (i) => (await rows.nth(i).locator(".vault-agent-model-meta").count()) ? rows.nth(i).locator(".vault-agent-model-meta").textContent() : "";
  assert.doesNotMatch(await meta(0), /no tool calling/);
  assert.match(await meta(1), /no tool calling/);
  assert.doesNotMatch(await meta(2), /no tool calling/, "a list that does not say is not taken to mean no");
  await page.screenshot({ path: `${ARTIFACTS}/model-picker-tools.png` });
  await page.keyboard.press("Escape");
  assert.deepEqual(page.errors, []);
  await page.close();

  // Ollama says it of each model on its own page (/api/show), which the picker asks.
  const ollamaId = `e2e-models-ollama-${Date.now()}`;
  const capabilities = { "qwen2.5:7b": ["completion", "tools"], "gemma3:4b": ["completion", "vision"] };
  const script = { responses: [], models: ["qwen2.5:7b", "gemma3:4b"], capabilities };
  assert.equal((await fetch(`${origin}/mock/${ollamaId}/script`, { method: "POST", body: JSON.stringify(script) })).status, 200);
  const ollama = await openHost({ data: { provider: { preset: "ollama", model: "qwen2.5:7b", baseUrl: `${origin}/mock/${ollamaId}/openai/v1` } } });
  await ollama.locator(".vault-agent-model").click();
  await until(ollama, () => document.querySelectorAll(".vault-agent-model-item").length === 2);
  const items = ollama.locator(".modal.prompt .vault-agent-model-item");
  assert.doesNotMatch(await items.nth(0).textContent(), /no tool calling/);
  assert.match(await items.nth(1).textContent(), /gemma3:4b.*no tool calling/);
  assert.deepEqual(ollama.errors, []);
  await ollama.close();
});

test("Ollama serving a model with too small a window: the chat says how to give it more", async () => {
  const id = `e2e-ollama-window-${Date.now()}`;
  const body = { responses: [{ text: "Hi from a small window." }, { text: "OK" }], served: { "qwen2.5:latest": 4096 } };
  assert.equal((await fetch(`${origin}/mock/${id}/script`, { method: "POST", body: JSON.stringify(body) })).status, 200);
  const page = await openHost({ data: { provider: { preset: "ollama", baseUrl: `${origin}/mock/${id}/openai/v1`, model: "qwen2.5" } } });
  await send(page, "Hello?");
  await page.locator(".vault-agent-text", { hasText: "Hi from a small window." }).waitFor();
  const warning = page.locator(".vault-agent-warning", { hasText: "OLLAMA_CONTEXT_LENGTH" });
  await warning.waitFor();
  assert.match(await warning.textContent(), /^Ollama serves qwen2\.5 with 4,096 tokens of context, too few for the agent/);
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/ollama-small-window.png` });
  // Where a local model is set up, Test connection says it too.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const test = settingRow(page.locator(".vault-agent-settings"), "Test connection");
  await test.locator("button").click();
  await test.locator(".vault-agent-test-result.is-ok", { hasText: "The server gives it 4,096 tokens of context." }).waitFor();
  assert.match(await test.locator(".vault-agent-test-warning").textContent(), /^Ollama serves qwen2\.5 with 4,096 tokens.*OLLAMA_CONTEXT_LENGTH=32768/);
  await test.screenshot({ path: `${ARTIFACTS}/test-connection-small-window.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a model the server does not know: the error offers the picker, and Retry asks the one picked", async () => {
  const id = `e2e-model-error-${Date.now()}`;
  await script(id, [{ status: 400, message: "model: claude-nope is not a model we have" }, { text: "From mock-mini." }]);
  const page = await openHost({ mock: id, data: { provider: { model: "claude-nope" } } });
  await send(page, "Hello?");
  const error = page.locator(".vault-agent-error");
  await error.waitFor();
  await error.locator(".vault-agent-pick-model", { hasText: "Pick another model" }).click();
  await page.locator(".vault-agent-model-item", { hasText: "mock-mini" }).click();
  await page.locator(".vault-agent-model", { hasText: "mock-mini" }).waitFor();
  await error.locator(".vault-agent-retry").click();
  await page.locator(".vault-agent-text", { hasText: "From mock-mini." }).waitFor();
  const calls = (await requests(id)).filter((r) => r.method === "POST");
  assert.deepEqual(calls.map((r) => r.body.model), ["claude-nope", "mock-mini"]);
  assert.equal(calls[1].body.messages.at(-1).content.at(-1).text, "Hello?");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a server that needs a model named: the chat offers the server's list (asked through requestUrl)", async () => {
  const id = `e2e-no-model-${Date.now()}`;
  await script(id, [{ text: "Hi from mock-large." }]);
  const page = await openHost({
    data: { provider: { preset: "lmstudio", baseUrl: `${origin}/mock/${id}/openai/v1`, model: "" } },
    transport: "request",
  });
  await send(page, "Hello?");
  const connect = page.locator(".vault-agent-connect");
  await connect.locator("text=The chat needs a model name.").waitFor();
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/connect-pick-model.png` });
  await connect.locator(".vault-agent-connect-pick").click();
  const large = page.locator(".vault-agent-model-item", { hasText: "mock-large" });
  assert.equal(await large.locator(".vault-agent-model-meta").textContent(), "33k tokens · free");
  await large.click();
  await page.locator(".vault-agent-model", { hasText: "mock-large" }).waitFor();
  // The window the server listed is kept for the core, which condenses by it ("Automatic").
  const agent = await page.evaluate(() => window.fakeObsidian.plugin.settings.agent);
  assert.deepEqual([agent.contextWindow, agent.modelWindows], [0, { "mock-large": 32768 }]);
  await send(page, "Hello?");
  await page.locator(".vault-agent-text", { hasText: "Hi from mock-large." }).waitFor();
  const sent = await requests(id);
  const calls = sent.filter((r) => r.method === "POST");
  assert.equal(calls[0].body.model, "mock-large");
  // Both the list and the call came from the page's server (requestUrl), not from the browser.
  assert.deepEqual(sent.map((r) => [r.method, r.headers.origin === origin]), [["GET", false], ["POST", false]]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The settings row named `name` (its whole name, not a part of another's): its name's element's row. */
const settingRow = (settings, name) => settings.locator("div:not(:has(div))", { hasText: new RegExp(`^${name.replace(".", "\\.")}$`) }).locator("xpath=../..");

test("the settings reach the core: temperature, custom instructions, rules, a mode's own model, the ignore list", async () => {
  const id = `e2e-knobs-${Date.now()}`;
  await script(id, [{ text: "Bonjour." }]);
  const page = await openHost({ mock: id, files: { ...NOTES, "Private/Diary.md": "# Diary\n\nSecret.\n" } });
  await page.locator(".vault-agent-welcome").waitFor();
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.waitFor();
  await settingRow(settings, "Temperature").locator("input").fill("0.4");
  await settingRow(settings, "Rate limit").locator("input").fill("0.5");
  await settingRow(settings, "Power steering").locator("input").fill("3");
  await settings.locator(".vault-agent-custom-instructions").fill("Reply in French.");
  // A rule, written in the settings' editor, lands in .obsidian-agent/rules/.
  await settingRow(settings, "Rules").locator("button", { hasText: "New rule" }).click();
  const editor = page.locator(".modal.vault-agent-file-modal");
  await editor.locator("input").fill("dates");
  await editor.locator(".vault-agent-file-text").fill("Write dates as YYYY-MM-DD.");
  await page.screenshot({ path: `${ARTIFACTS}/settings-rule-editor-light.png` });
  await editor.locator("button", { hasText: "Save" }).click();
  await editor.waitFor({ state: "detached" });
  await settingRow(settings, "dates.md").waitFor();
  assert.equal(await read(page, ".obsidian-agent/rules/dates.md"), "Write dates as YYYY-MM-DD.");
  // The ignore list starts from an example, and is saved as written.
  await settingRow(settings, "Hidden from the agent").locator("button", { hasText: "Edit" }).click();
  assert.match(await editor.locator(".vault-agent-file-text").inputValue(), /^# Private/);
  await editor.locator(".vault-agent-file-text").fill("Private/\n");
  await editor.locator("button", { hasText: "Save" }).click();
  await editor.waitFor({ state: "detached" });
  assert.equal(await read(page, ".obsidian-agentignore"), "Private/\n");
  // A mode of one's own with its own model, chosen as the default.
  await settings.locator("button", { hasText: "Add a mode" }).click();
  await settings.locator(".vault-agent-mode-editor").waitFor();
  await settingRow(settings.locator(".vault-agent-mode-editor"), "Model").locator("input").fill("claude-haiku-4-5");
  await settingRow(settings, "Default mode").locator("select").selectOption("mode-1");
  // The new rows, light and dark, and in a 300 px window.
  await settingRow(settings, "Instructions").scrollIntoViewIfNeeded();
  await settingRow(settings, "Instructions").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: `${ARTIFACTS}/settings-instructions-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/settings-instructions-dark.png` });
  await setTheme(page, "light");
  // A 300 px settings pane (as on a phone).
  const pane = page.locator(".modal.mod-settings");
  await pane.evaluate((el) => Object.assign(el.style, { width: "300px", minWidth: "0", boxSizing: "border-box" }));
  await settingRow(settings, "Instructions").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await pane.screenshot({ path: `${ARTIFACTS}/settings-instructions-narrow.png` });
  await pane.evaluate((el) => Object.assign(el.style, { width: "", minWidth: "", boxSizing: "" }));
  await page.locator(".modal.mod-settings .modal-close-button").click();

  const saved = (await page.evaluate(() => window.fakeObsidian.savedData)).agent;
  assert.deepEqual(
    [saved.temperature, saved.rateLimitSeconds, saved.powerSteeringFrequency, saved.customInstructions, saved.mode],
    [0.4, 0.5, 3, "Reply in French.", "mode-1"],
  );
  await send(page, "hello");
  await page.locator(".vault-agent-text", { hasText: "Bonjour." }).waitFor();
  const [request] = await requests(id);
  assert.equal(request.body.temperature, 0.4);
  assert.equal(request.body.model, "claude-haiku-4-5");
  const system = JSON.stringify(request.body.system);
  assert.match(system, /Reply in French\./);
  assert.match(system, /### dates\\nWrite dates as YYYY-MM-DD\./);
  assert.doesNotMatch(system, /Mode: Agent/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("memory: among 201 remembered facts, the prompt gets the one the request is about", async () => {
  const id = `e2e-recall-${Date.now()}`;
  await script(id, [{ text: "Your log is Hives/Log.md." }]);
  const topics = ["astronomy", "cycling", "pottery", "chess", "sailing", "baking", "birding", "knitting"];
  const entries = Array.from({ length: 200 }, (_, i) => ({
    id: `m${i + 1}`,
    kind: "fact",
    text: `The ${topics[i % topics.length]} notes of year ${1800 + i} are kept in Archive/${topics[i % topics.length]}-${i}/.`,
    createdMs: 1790000000000 + i,
  }));
  entries.push({ id: "m201", kind: "fact", text: "The user's beekeeping log is Hives/Log.md; one entry per inspection.", createdMs: 1791000000000 });
  const files = { ...NOTES, ".obsidian-agent/memory/memory.json": JSON.stringify({ version: 1, entries }) };
  const page = await openHost({ mock: id, files });
  await send(page, "When did I last inspect the hives? Check my beekeeping log.");
  await page.locator(".vault-agent-text", { hasText: "Hives/Log.md" }).waitFor();
  const [request] = await requests(id);
  const system = JSON.stringify(request.body.system);
  assert.match(system, /The user's beekeeping log is Hives\/Log.md/);
  assert.doesNotMatch(system, /Archive\//, "unrelated facts stay out of the prompt");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("memory: a finished task teaches the agent; the settings list, edit and forget what it remembers", async () => {
  const id = `e2e-memory-${Date.now()}`;
  // The task's answer, then the extraction's.
  await script(id, [{ text: "Hello, Ada." }, { text: "- The user is called Ada.\n- Preference: answers in French" }]);
  const store = {
    version: 1,
    entries: [
      { id: "m1", kind: "fact", text: "Bread recipes are in Cooking/.", createdMs: 1790000000000 },
      { id: "m2", kind: "fact", text: "The user travels to Kyoto every spring.", createdMs: 1791000000000 },
    ],
  };
  const files = { ...NOTES, ".obsidian-agent/memory/memory.json": JSON.stringify(store) };
  const page = await openHost({ mock: id, files, data: { agent: { memoryExtraction: true } } });
  await page.locator(".vault-agent-welcome").waitFor();
  await send(page, "Hi, I'm Ada. Any bread notes?");
  await page.locator(".vault-agent-text", { hasText: "Hello, Ada." }).waitFor();
  await until(page, async () => (await window.fakeObsidian.read(".obsidian-agent/memory/memory.json")).includes("called Ada"));
  const [first, extraction] = await requests(id);
  assert.match(JSON.stringify(first.body.system), /Bread recipes are in Cooking\//, "the relevant memory reached the prompt");
  assert.match(JSON.stringify(extraction.body.system), /long-term memory/);

  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.waitFor();
  const memory = settings.locator(".vault-agent-memory");
  const entry = (text) => memory.locator(".vault-agent-memory-entry", { hasText: text });
  await entry("The user is called Ada.").waitFor();
  assert.equal(await memory.locator(".vault-agent-memory-entry").count(), 4);
  await entry("answers in French").scrollIntoViewIfNeeded();
  await settingRow(settings, "Memory").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: `${ARTIFACTS}/settings-memory-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/settings-memory-dark.png` });
  await setTheme(page, "light");
  const pane = page.locator(".modal.mod-settings");
  await pane.evaluate((el) => Object.assign(el.style, { width: "300px", minWidth: "0", boxSizing: "border-box" }));
  await settingRow(settings, "Memory").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await pane.screenshot({ path: `${ARTIFACTS}/settings-memory-narrow.png` });
  await pane.evaluate((el) => Object.assign(el.style, { width: "", minWidth: "", boxSizing: "" }));

  const saved = async () => JSON.parse(await read(page, ".obsidian-agent/memory/memory.json")).entries.map((e) => [e.id, e.kind, e.text]);
  // Edit: the kind and the text.
  await entry("Kyoto").locator("button", { hasText: "Edit" }).click();
  const editor = memory.locator(".vault-agent-memory-text");
  await editor.fill("The user travels to Kyoto every autumn.");
  await page.screenshot({ path: `${ARTIFACTS}/settings-memory-edit-light.png` });
  await memory.locator("button", { hasText: "Save" }).click();
  await entry("every autumn").waitFor();
  assert.deepEqual((await saved()).find(([id]) => id === "m2"), ["m2", "fact", "The user travels to Kyoto every autumn."]);
  // Delete one.
  await entry("Bread recipes").locator("button", { hasText: "Forget" }).click();
  await entry("Bread recipes").waitFor({ state: "detached" });
  assert.deepEqual((await saved()).map(([id]) => id), ["m2", "m3", "m4"]);
  // Forget everything: one button, clicked twice.
  const forget = memory.locator("button", { hasText: "Forget everything" });
  await forget.click();
  await memory.locator("button", { hasText: "Click again to forget everything" }).click();
  await memory.getByText("Nothing remembered yet.").waitFor();
  assert.deepEqual(await saved(), []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("recipes: the fourth time the same kind of request takes the fast path, its answer marked with the recipe; a bad plan falls back, saying so", async () => {
  const id = `e2e-recipes-${Date.now()}`;
  const request = "What does my bread note say about baking?";
  const normal = (n) => [
    { toolCalls: [{ id: `r${n}`, name: "read_file", arguments: { path: "Cooking/Bread.md" } }] },
    { text: `Sourdough bakes at 230 °C (${n}).` },
  ];
  await script(id, [
    ...normal(1),
    ...normal(2),
    ...normal(3),
    // The fourth run: the plan, then the final turn's answer.
    { text: '{"calls": [{"tool": "read_file", "args": {"path": "Cooking/Bread.md"}}]}' },
    { text: "Sourdough bakes at 230 °C, then cools for an hour." },
    // The fifth: a plan that is not JSON, then the normal loop.
    { text: "I would read the bread note." },
    { text: "It bakes at 230 °C." },
  ]);
  const page = await openHost({ mock: id });
  await page.locator(".vault-agent-welcome").waitFor();
  const answered = async (n) => {
    await page.locator(".vault-agent-meter").nth(n - 1).waitFor();
    await until(page, () => document.querySelector(".vault-agent-send")?.textContent.trim() === "Send");
  };
  for (let n = 1; n <= 3; n++) {
    await send(page, request);
    await page.locator(".vault-agent-text", { hasText: `(${n})` }).waitFor();
    await answered(n);
  }
  assert.equal(await page.locator(".vault-agent-recipe-label").count(), 0, "no fast path before three successes");
  const recipes = JSON.parse(await read(page, ".obsidian-agent/memory/recipes.json")).recipes;
  assert.deepEqual(recipes.map((r) => [r.id, r.successes, r.steps.map((s) => s.tool)]), [["r1", 3, ["read_file"]]]);

  await send(page, request);
  const label = page.locator(".vault-agent-recipe-label", { hasText: "Fast path · recipe r1" });
  await label.waitFor();
  await page.locator(".vault-agent-text", { hasText: "then cools for an hour" }).waitFor();
  await page.locator(".vault-agent-fast-path", { hasText: "Fast path: following recipe r1" }).waitFor();
  assert.match(await label.getAttribute("title"), /What does my bread note say about baking\?.*worked 3 times/);
  const sent = await requests(id);
  assert.equal(sent.length, 8, "the fourth run made two model calls");
  assert.ok(!sent[6].body.tools?.length, "the planning call offers no tools");
  assert.deepEqual(sent[7].body.tools.map((t) => t.name), ["read_file", "attempt_completion"]);
  // The planned read still went through the pipeline: its card, and its line in the audit log.
  assert.equal(await page.locator('.vault-agent-tool-card[data-tool="read_file"]').count(), 4);
  const taskId = await page.locator("[data-task-id]").last().getAttribute("data-task-id");
  assert.match(await read(page, `.obsidian-agent/logs/${taskId}.jsonl`), /"read_file"/);
  await label.scrollIntoViewIfNeeded();
  await shootLayouts(page, "recipe-fast-path");

  await answered(4);
  await send(page, request);
  await page.locator(".vault-agent-warning", { hasText: "The fast path gave up (the plan was not JSON); going on step by step." }).waitFor();
  await page.locator(".vault-agent-text", { hasText: "It bakes at 230 °C." }).waitFor();
  await answered(5);
  assert.equal(await page.locator(".vault-agent-recipe-label").count(), 1, "only the fast path's answer is marked");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("Ask about the selection puts the selection, quoted, in the input with its note attached; nothing is sent", async () => {
  const id = `e2e-selection-${Date.now()}`;
  await script(id, [{ text: "unused" }]);
  const page = await openHost({ mock: id });
  await page.locator(".vault-agent-welcome").waitFor();
  await page.evaluate(() => {
    window.fakeObsidian.select("Sourdough at 230 °C.\n\nLet the loaf cool for an hour.");
    window.fakeObsidian.runCommand("ask-about-selection");
  });
  await page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "Cooking/Bread.md" }).waitFor();
  const input = page.locator(".vault-agent-input");
  await page.waitForFunction(() => document.querySelector(".vault-agent-input").value.length > 0);
  assert.equal(await input.inputValue(), "> Sourdough at 230 °C.\n>\n> Let the loaf cool for an hour.\n\n");
  assert.ok(await input.evaluate((el) => document.activeElement === el && el.selectionStart === el.value.length));
  await input.pressSequentially("Why so long?");
  assert.match(await input.inputValue(), /hour\.\n\nWhy so long\?$/);
  assert.equal((await requests(id)).length, 0);
  // With nothing selected the command is not offered.
  assert.equal(await page.evaluate(() => (window.fakeObsidian.select(""), window.fakeObsidian.commands.get("ask-about-selection").editorCheckCallback(true, window.fakeObsidian.app.workspace.activeEditor.editor, window.fakeObsidian.app.workspace.activeEditor))), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the connect box takes the provider's key: pasted and saved, the chat is connected", async () => {
  const id = `e2e-key-${Date.now()}`;
  await script(id, [{ text: "Connected and answering." }]);
  const page = await openHost({ data: { provider: { preset: "anthropic", model: "", baseUrl: `${origin}/mock/${id}/anthropic` } } });
  const help = page.locator(".vault-agent-connect");
  await help.waitFor();
  const key = help.locator(".vault-agent-connect-key-input");
  assert.equal(await key.getAttribute("type"), "password");
  assert.equal(await key.getAttribute("placeholder"), "Paste your Anthropic API key");
  assert.equal(await help.locator('a[href="https://console.anthropic.com/settings/keys"]').count(), 1);
  assert.equal(await help.locator(".vault-agent-open-settings.mod-cta").count(), 0, "the key is the call to action");
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/connect-key.png` });
  // Saving nothing does nothing; a key connects the chat, kept in secret storage.
  await help.locator("button", { hasText: "Save key" }).click();
  assert.equal(await help.count(), 1);
  await key.fill("sk-ant-pasted");
  await key.press("Enter");
  await page.locator(".vault-agent-welcome", { hasText: "Connected to claude-sonnet-4-5" }).waitFor();
  assert.equal(await page.evaluate(() => window.fakeObsidian.app.secretStorage.getSecret("vault-agent-anthropic-key")), "sk-ant-pasted");
  await send(page, "Hello?");
  await page.locator(".vault-agent-text", { hasText: "Connected and answering." }).waitFor();
  const [call] = await requests(id);
  assert.equal(call.headers["x-api-key"], "sk-ant-pasted");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a model server already running on this computer is offered in the welcome: one click and the chat uses it", async () => {
  const id = `e2e-local-${Date.now()}`;
  await script(id, [{ text: "Bake the sourdough at 230 °C." }]);
  const asked = [];
  const page = await openHost({
    routes: async (page) => {
      // Ollama on its own port, with two chat models and an embedding model; nothing at LM Studio's.
      await page.route("http://localhost:11434/**", (route) => {
        const url = new URL(route.request().url());
        asked.push(`${route.request().method()} ${url.pathname}`);
        if (url.pathname === "/v1/models") {
          const data = [{ id: "gemma3:4b", created: 4 }, { id: "qwen2.5:7b", created: 3 }, { id: "nomic-embed-text", created: 2 }];
          return route.fulfill({ contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ object: "list", data }) });
        }
        if (url.pathname === "/v1/chat/completions") return route.continue({ url: `${origin}/mock/${id}/openai/v1/chat/completions` });
        if (url.pathname === "/api/show") {
          // The newest model takes no tools; the next does, and is the one offered.
          const tools = route.request().postDataJSON().model === "qwen2.5:7b";
          return route.fulfill({ contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ capabilities: tools ? ["completion", "tools"] : ["completion"] }) });
        }
        return route.fulfill({ contentType: "application/json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ models: [] }) });
      });
      await page.route("http://localhost:1234/**", (route) => route.abort("connectionrefused"));
    },
  });
  const offer = page.locator(".vault-agent-connect .vault-agent-local-server");
  await offer.waitFor();
  assert.equal(await offer.locator("div").first().textContent(), "Ollama is running on this computer, with 2 models.");
  assert.equal(await page.locator(".vault-agent-open-settings.mod-cta").count(), 0, "one call to action");
  await page.locator(".vault-agent-chat").screenshot({ path: `${ARTIFACTS}/local-server-offer.png` });
  // The box is drawn again on every settings change (each key typed there): the server is not
  // asked again each time.
  await page.evaluate(() => [1, 2, 3].forEach(() => window.fakeObsidian.plugin.onSettingsChanged()));
  await offer.waitFor();
  assert.equal(asked.filter((a) => a === "GET /v1/models").length, 1, asked.join(", "));
  await offer.locator("button", { hasText: "Use qwen2.5:7b" }).click();
  await page.locator(".vault-agent-welcome", { hasText: "Connected to qwen2.5:7b" }).waitFor();
  const provider = await page.evaluate(() => window.fakeObsidian.plugin.settings.provider);
  assert.deepEqual([provider.preset, provider.model, provider.baseUrl], ["ollama", "qwen2.5:7b", ""]);
  await send(page, "How hot do I bake my bread?");
  await page.locator(".vault-agent-text", { hasText: "Bake the sourdough at 230 °C." }).waitFor();
  const [call] = await requests(id);
  assert.equal(call.body.model, "qwen2.5:7b");
  assert.ok(asked.includes("POST /v1/chat/completions"), asked.join(", "));
  assert.deepEqual(page.errors, []);
  await page.close();

  // On a phone the phone's own address is not asked.
  const phoneAsked = [];
  const phone = await openHost({ mobile: true, routes: (p) => p.route("http://localhost:11434/**", (route) => (phoneAsked.push(route.request().url()), route.abort("connectionrefused"))) });
  await phone.locator(".vault-agent-connect").waitFor();
  await phone.waitForTimeout(500);
  assert.deepEqual(phoneAsked, []);
  assert.equal(await phone.locator(".vault-agent-local-server").count(), 0);
  await phone.close();
});

test("the right-click menus: a file in the explorer, the note in the editor, a selection — each opens the chat with it", async () => {
  const id = `e2e-menus-${Date.now()}`;
  await script(id, [{ text: "unused" }]);
  const page = await openHost({ mock: id });
  await page.locator(".vault-agent-welcome").waitFor();
  const menu = page.locator(".menu");
  const titles = () => menu.locator(".menu-item-title").allTextContents();
  const chips = page.locator(".vault-agent-composer .vault-agent-chip");

  // The file explorer: a note (and only files the chat can attach get the item).
  await page.locator(".nav-file-title", { hasText: "Travel/Kyoto.md" }).click({ button: "right" });
  assert.deepEqual(await titles(), ["Ask Vault Agent about this file"]);
  await page.screenshot({ path: `${ARTIFACTS}/menu-file.png` });
  await menu.locator(".menu-item").click();
  await chips.filter({ hasText: "Travel/Kyoto.md" }).waitFor();
  assert.equal(await page.locator(".vault-agent-input").getAttribute("placeholder"), "Ask about Kyoto…");
  assert.equal(await menu.count(), 0, "the menu closes");

  // A folder: the chat's box names it (the agent lists it), as it does the whole vault.
  await page.evaluate(() => window.fakeObsidian.fileMenu("Cooking"));
  assert.deepEqual(await titles(), ["Ask Vault Agent about this folder"]);
  await menu.locator(".menu-item").click();
  await page.waitForFunction(() => document.querySelector(".vault-agent-input").value === "About the notes in Cooking/: ");
  await page.locator(".vault-agent-input").fill("");

  // The editor with nothing selected: the note.
  await page.evaluate(() => window.fakeObsidian.select(""));
  await page.locator(".fake-host-note .cm-content").click({ button: "right" });
  assert.deepEqual(await titles(), ["Ask Vault Agent about this note"]);
  await page.keyboard.press("Escape");
  assert.equal(await menu.count(), 0, "Escape closes the menu");

  // A selection: asking about it, or editing it.
  await page.evaluate(() => window.fakeObsidian.select("Sourdough at 230 °C."));
  await page.locator(".fake-host-note .cm-content").click({ button: "right" });
  assert.deepEqual(await titles(), ["Ask Vault Agent about the selection", "Edit the selection with Vault Agent"]);
  await page.screenshot({ path: `${ARTIFACTS}/menu-selection.png` });
  await menu.locator(".menu-item", { hasText: "Ask Vault Agent about the selection" }).click();
  await chips.filter({ hasText: "Cooking/Bread.md" }).waitFor();
  await page.waitForFunction(() => document.querySelector(".vault-agent-input").value.includes("> Sourdough at 230 °C."));
  // Editing it: inline edit's prompt opens over that selection.
  await page.evaluate(() => window.fakeObsidian.select("Let the loaf cool"));
  await page.locator(".fake-host-note .cm-content").click({ button: "right" });
  await menu.locator(".menu-item", { hasText: "Edit the selection with Vault Agent" }).click();
  await page.locator(".vault-agent-inline-prompt .vault-agent-inline-input").waitFor();
  assert.equal(await page.evaluate(() => window.fakeObsidian.app.workspace.activeEditor.editor.getSelection()), "Let the loaf cool");
  assert.equal((await requests(id)).length, 0, "nothing is sent");
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The open note alone on a phone (the sidebar drawer closed), or back to the wide window. */
async function noteLayout(page, kind) {
  await page.evaluate((phone) => {
    document.getElementById("vault-agent-e2e-layout")?.remove();
    if (phone) {
      const style = document.createElement("style");
      style.id = "vault-agent-e2e-layout";
      style.textContent = ".workspace-ribbon, .mod-left-split, .mod-right-split { display: none !important; } .mod-root { display: flex !important; }";
      document.head.appendChild(style);
    }
    document.body.classList.toggle("is-mobile", phone);
  }, kind === "mobile");
  await page.setViewportSize(kind === "mobile" ? { width: 390, height: 844 } : { width: 1280, height: 860 });
}

test("suggestions as you type: a pause at a line's end shows the model's words faint; Tab takes them, Escape or typing dismisses them", async () => {
  const id = `e2e-suggest-${Date.now()}`;
  const refused = { status: 401, message: "invalid x-api-key" };
  await script(id, [{ text: "Serve it with butter and salt." }, { text: "Enjoy it warm." }, refused, refused, { text: "never shown" }]);
  const page = await openHost({ mock: id, data: { editor: { suggestions: true, suggestionModel: "claude-haiku-4-5" } } });
  const note = page.locator(".fake-host-note");
  const ghost = note.locator(".vault-agent-ghost");
  const text = () => page.evaluate(() => window.fakeObsidian.read("Cooking/Bread.md"));
  try {
    await note.locator(".cm-content").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("Serve it with ");
    // After the pause: the model's words, less what the line already says, faint after the cursor.
    await ghost.waitFor();
    assert.equal(await ghost.innerText(), "butter and salt.");
    const asked = (await requests(id))[0].body;
    assert.equal(asked.tools, undefined);
    assert.equal(asked.max_tokens, 64);
    // The model set for suggestions, not the chat's.
    assert.equal(asked.model, "claude-haiku-4-5");
    assert.match(JSON.stringify(asked.messages), /Let the loaf cool for an hour\.\\nServe it with <\/before_cursor><cursor\/>/);
    await shootLayouts(page, "suggest", { kinds: ["wide", "mobile"], arrange: noteLayout });
    // Tab takes it, as if typed.
    await page.keyboard.press("Tab");
    await ghost.waitFor({ state: "detached" });
    await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("Serve it with butter and salt."));

    // The next pause's suggestion: Escape dismisses it and the note keeps only what was typed.
    await page.keyboard.type(" Then ");
    await ghost.filter({ hasText: "Enjoy it warm." }).waitFor();
    await page.keyboard.press("Escape");
    await ghost.waitFor({ state: "detached" });
    assert.ok((await text()).endsWith("Serve it with butter and salt. Then "), await text());
    assert.equal((await requests(id)).length, 2);

    // A refused key is said once, not at every pause.
    const notice = page.locator(".notice", { hasText: "Vault Agent could not suggest how the note goes on:" });
    await page.keyboard.type("slice ");
    await notice.waitFor();
    assert.match(await notice.innerText(), /key/i);
    await page.keyboard.type("it ");
    await page.waitForTimeout(1200);
    assert.equal((await requests(id)).length, 4);
    assert.equal(await notice.count(), 1);

    // Turned off, a pause asks nothing.
    await page.evaluate(() => (window.fakeObsidian.plugin.settings.editor.suggestions = false));
    await page.keyboard.type("more");
    await page.waitForTimeout(1200);
    assert.equal(await ghost.count(), 0);
    assert.equal((await requests(id)).length, 4);

    // The settings say what the session's suggestions took: four requests (the refused ones
    // billed nothing), the tokens of the two answered, their cost at Haiku's price.
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const usage = page.locator(".vault-agent-settings .vault-agent-suggestion-usage");
    await usage.locator(".setting-item-description", { hasText: "requests" }).waitFor();
    assert.match(await usage.innerText(), /Suggestions this session\s+4 requests · [\d.]+k? in · \d+ out · \$0\.\d{4}$/);
    await usage.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/settings-suggestion-usage-light.png` });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("suggestions on a phone: a tap on the faint words takes them, the cursor after them", async () => {
  const id = `e2e-suggest-tap-${Date.now()}`;
  await script(id, [{ text: "Serve it with butter and salt." }]);
  const page = await openHost({ mock: id, mobile: true, data: { editor: { suggestions: true } } });
  const note = page.locator(".fake-host-note");
  const ghost = note.locator(".vault-agent-ghost");
  try {
    await noteLayout(page, "mobile");
    await note.locator(".cm-content").tap();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("Serve it with ");
    await ghost.waitFor();
    await ghost.tap();
    await ghost.waitFor({ state: "detached" });
    await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("Serve it with butter and salt."));
    // The cursor is after the words taken: what is typed next follows them.
    await page.keyboard.type(" Enjoy");
    await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("butter and salt. Enjoy"));
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("after the core restarts to give memory back, the next pause asks the new core, says no error, and the count goes on", async () => {
  const id = `e2e-suggest-restart-${Date.now()}`;
  await script(id, [{ text: "It keeps two days." }, { text: "Serve it with butter." }, { text: "Enjoy it warm." }]);
  const page = await openHost({ mock: id, data: { editor: { suggestions: true } } });
  const note = page.locator(".fake-host-note");
  const ghost = note.locator(".vault-agent-ghost");
  try {
    await send(page, "How long does bread keep?");
    await page.locator(".vault-agent-text", { hasText: "It keeps two days." }).waitFor();
    await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
    await note.locator(".cm-content").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("Serve it with ");
    await ghost.filter({ hasText: "butter." }).waitFor();
    await page.keyboard.press("Tab");
    await ghost.waitFor({ state: "detached" });
    // The editor's suggester belonged to the core that ends here.
    assert.ok(await page.evaluate(() => window.fakeObsidian.plugin.restartCore()));
    await page.keyboard.type(" Then ");
    await ghost.filter({ hasText: "Enjoy it warm." }).waitFor();
    assert.equal(await page.locator(".notice", { hasText: "could not suggest" }).count(), 0);
    assert.equal((await requests(id)).length, 3);
    // What the session spent, by what asked: the chat's task and the two suggestions, the old
    // core's counted with the new one's.
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const spent = page.locator(".vault-agent-settings .vault-agent-spending .setting-item-description");
    await spent.filter({ hasText: "requests" }).waitFor();
    assert.match(await spent.innerText(), /^Chat: 1 request · [\d.]+k? in · \d+ out · \$0\.\d{4}; Suggestions: 2 requests · [\d.]+k? in · \d+ out · \$0\.\d{4}$/);
    const usage = page.locator(".vault-agent-settings .vault-agent-suggestion-usage .setting-item-description");
    assert.match(await usage.innerText(), /^2 requests · /);
    await spent.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/settings-spending-light.png` });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("inline edit: a prompt at the selection, the rewrite as a diff in the editor; accept, undo, reject, a conflict", async () => {
  const id = `e2e-inline-${Date.now()}`;
  const original = NOTES["Cooking/Bread.md"];
  await script(id, [
    { text: "Sourdough at 300 °C, never shown.", hold: true },
    { text: "Sourdough at 250 °C for 40 minutes." },
    { text: "Sourdough, very hot." },
    { text: "Let the loaf rest for an hour." },
    { text: "Let the loaf rest for an hour." },
  ]);
  const page = await openHost({ mock: id });
  const note = page.locator(".fake-host-note");
  const prompt = page.locator(".vault-agent-inline-prompt");
  const choices = note.locator(".vault-agent-inline-choices");
  const diffShown = async () => {
    try {
      await choices.waitFor({ timeout: 15_000 });
    } catch (error) {
      const state = { notices: await page.locator(".notice").allInnerTexts(), prompt: await prompt.count() ? await prompt.innerHTML() : null, requests: (await requests(id)).length, note: await note.innerText() };
      throw new Error(`no diff: ${JSON.stringify(state)}`, { cause: error });
    }
  };
  const ask = async (selected, instruction) => {
    await page.evaluate((text) => {
      window.fakeObsidian.select(text);
      window.fakeObsidian.runCommand("edit-selection");
    }, selected);
    await prompt.locator("input").waitFor();
    await until(page, () => document.activeElement?.classList.contains("vault-agent-inline-input"));
    if (instruction) {
      await page.keyboard.type(instruction);
      await page.keyboard.press("Enter");
    }
  };

  // With nothing selected the command is not offered.
  assert.equal(await page.evaluate(() => (window.fakeObsidian.select(""), window.fakeObsidian.commands.get("edit-selection").editorCheckCallback(true, window.fakeObsidian.app.workspace.activeEditor.editor, window.fakeObsidian.app.workspace.activeEditor))), false);

  // The prompt opens at the selection, focused; Escape closes it and nothing is asked.
  await ask("Sourdough at 230 °C.");
  await shootLayouts(page, "inline-edit-prompt", { kinds: ["wide", "mobile"], arrange: noteLayout });
  await prompt.locator("input").focus();
  await page.keyboard.press("Escape");
  await prompt.waitFor({ state: "detached" });
  assert.equal((await requests(id)).length, 0);

  // While the model writes, the prompt keeps the instruction and says so; Escape stops it.
  await ask("Sourdough at 230 °C.", "hotter");
  await prompt.locator(".vault-agent-inline-status", { hasText: "Rewriting…" }).waitFor();
  assert.equal(await prompt.locator("input").inputValue(), "hotter");
  // "Rewriting…" shows before the core has sent the request: stop once the model has it, so
  // the stop ends a request (stopped earlier, nothing is sent and the next edit would get the
  // held answer).
  for (const end = Date.now() + 10_000; (await requests(id)).length < 1; ) {
    if (Date.now() > end) throw new Error("the edit's request never reached the model");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await until(page, () => document.activeElement?.classList.contains("vault-agent-inline-input"));
  await page.keyboard.press("Escape");
  await prompt.waitFor({ state: "detached" });
  assert.equal(await read(page, "Cooking/Bread.md"), original);
  // The held answer's connection is let go (as other stop tests do), then the next edit starts
  // at once: the stopped one, ending meanwhile, leaves it alone.
  await fetch(`${origin}/mock/${id}/release`, { method: "POST" });

  // The rewrite shows as a diff over the text: the old words struck through, the new line below
  // with its new words marked. Nothing is written until it is accepted.
  await ask("Sourdough at 230 °C.", "hotter, and say how long");
  await diffShown();
  assert.equal(await prompt.count(), 0);
  const struck = (await note.locator(".vault-agent-inline-removed").allInnerTexts()).join(" ");
  assert.match(struck, /230/);
  assert.doesNotMatch(struck, /Sourdough/);
  assert.equal(await note.locator(".vault-agent-inline-added").innerText(), "Sourdough at 250 °C for 40 minutes.");
  assert.match((await note.locator(".vault-agent-inline-added mark").allInnerTexts()).join(" "), /250.*40 minutes/);
  assert.equal(await read(page, "Cooking/Bread.md"), original);
  const sent = await requests(id);
  assert.equal(sent.length, 2);
  const asked = JSON.stringify(sent[1].body.messages);
  assert.match(asked, /<selection>Sourdough at 230 °C.<\/selection>/);
  assert.match(asked, /hotter, and say how long/);
  assert.equal(sent[1].body.tools, undefined);
  await shootLayouts(page, "inline-edit-diff", { kinds: ["wide", "mobile"], arrange: noteLayout });

  // Accept writes it (a task with a checkpoint); the notice's Undo brings the old text back.
  await choices.locator("button", { hasText: "Accept" }).click();
  await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).includes("250 °C for 40 minutes."));
  assert.equal(await read(page, "Cooking/Bread.md"), "# Bread\n\nSourdough at 250 °C for 40 minutes.\n\nLet the loaf cool for an hour.\n");
  await note.locator(".cm-content", { hasText: "Sourdough at 250 °C for 40 minutes." }).waitFor();
  assert.equal(await note.locator(".vault-agent-inline-removed, .vault-agent-inline-added, .vault-agent-inline-choices").count(), 0);
  await page.locator(".notice .vault-agent-inline-undo").click();
  await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")) === "# Bread\n\nSourdough at 230 °C.\n\nLet the loaf cool for an hour.\n");
  await note.locator(".cm-content", { hasText: "Sourdough at 230 °C." }).waitFor();

  // Escape on the diff rejects it: nothing is written.
  await ask("Sourdough at 230 °C.", "make it vague");
  await diffShown();
  await page.keyboard.press("Escape");
  await choices.waitFor({ state: "detached" });
  await page.waitForTimeout(300);
  assert.equal(await read(page, "Cooking/Bread.md"), original);

  // The note changes under the diff (another program wrote it): Accept writes nothing, and says so.
  await ask("Let the loaf cool for an hour.", "say rest");
  await diffShown();
  const changed = "# Bread\n\nSourdough at 230 °C.\n\nLet the loaf cool for an hour. Or two.\n";
  await page.evaluate((text) => {
    const app = window.fakeObsidian.app;
    return app.vault.modify(app.vault.getAbstractFileByPath("Cooking/Bread.md"), text);
  }, changed);
  await note.locator(".cm-content", { hasText: "Or two." }).waitFor();
  await choices.locator("button", { hasText: "Accept" }).click();
  await page.locator(".notice", { hasText: "changed while the edit was shown" }).waitFor();
  assert.equal(await read(page, "Cooking/Bread.md"), changed);

  // An accepted edit is the last task: "Undo the last task" reverts it too.
  await ask("Let the loaf cool for an hour. Or two.", "say rest");
  await choices.locator("button", { hasText: "Accept" }).click();
  await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("rest for an hour.\n"));
  await page.evaluate(() => window.fakeObsidian.runCommand("undo-last-task"));
  await until(page, async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("Or two.\n"));
  assert.equal(await read(page, "Cooking/Bread.md"), changed);
  assert.equal((await requests(id)).length, 5);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("offline: the settings load the model from a file, refuse any other file, and embed with it", async () => {
  // No mirror and no download: the model comes from a file the user already has.
  const { files } = await (await fetch(`${origin}/vault/bundle?prefix=en/Plugins/`)).json();
  const count = Object.keys(files).length;
  const page = await openHost({ files, data: { semantic: { embedder: "static" } } });
  await page.locator(".vault-agent-index-status").filter({ hasText: `Search index: ${count} notes` }).waitFor();
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  await settings.locator("button.vault-agent-model-download", { hasText: "Download model (8 MB)" }).waitFor();
  await settings.getByText("Load model from a file…", { exact: true }).waitFor();
  await settings.getByText("Mirror URL", { exact: true }).waitFor();
  const input = settings.locator("input.vault-agent-model-file");
  const model = ".obsidian-agent/models/static-minilm-l6-v2-256/static-minilm-l6-v2-256.vam";

  // Another file is refused, saying what was expected, and nothing is written.
  await input.setInputFiles({ name: "model.vam", mimeType: "application/octet-stream", buffer: Buffer.from("not a model") });
  const result = settings.locator(".vault-agent-model-result");
  await settings.locator(".vault-agent-model-result.is-error").waitFor();
  assert.match(await result.innerText(), /^Not loaded: .*model\.vam is not a file of static-minilm-l6-v2-256 \(got 11 bytes.*want static-minilm-l6-v2-256\.vam \(8167537 bytes/);
  assert.equal(await page.evaluate((p) => window.fakeObsidian.exists(p), model), false);
  await settings.locator("button.vault-agent-model-download", { hasText: "Download model (8 MB)" }).waitFor();

  // The pinned file is checked, placed where a download puts it, and the notes are embedded.
  await input.setInputFiles("models/static-minilm-l6-v2-256.vam");
  await settings.locator(".vault-agent-model-result.is-ok", { hasText: "Loaded static-minilm-l6-v2-256.vam and checked." }).waitFor();
  await settings.locator("button.vault-agent-model-download", { hasText: "Installed" }).waitFor();
  assert.ok(await page.evaluate((p) => window.fakeObsidian.exists(p), model));
  await settings.locator(".vault-agent-embedding-status", { hasText: `${count}/${count} notes embedded.` }).waitFor();
  await settings.getByText("Load model from a file…", { exact: true }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/settings-model-file-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/settings-model-file-dark.png` });
  await page.setViewportSize({ width: 320, height: 860 });
  await settings.getByText("Load model from a file…", { exact: true }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/settings-model-file-narrow.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

/**
 * A BERT of MiniLM's shape but tiny (16 wide, one layer) with seeded random weights: the files
 * MiniLM is loaded from (`model.safetensors`, `vocab.txt`, `config.json`), small enough for the
 * debug build to run. Its vectors mean nothing; what they show is where they were made.
 */
function tinyBert() {
  const words = [...new Set(Object.values(NOTES).join(" ").toLowerCase().match(/[a-z]+/g))];
  const vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ...words, "##s"];
  const [h, inter, positions] = [16, 32, 64];
  const config = { hidden_size: h, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: inter, max_position_embeddings: positions };
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
  const tensors = {};
  const dense = (name, rows, cols) => {
    tensors[`${name}.weight`] = Float32Array.from({ length: rows * cols }, random);
    tensors[`${name}.bias`] = Float32Array.from({ length: rows }, random);
  };
  const norm = (name) => {
    tensors[`${name}.weight`] = new Float32Array(h).fill(1);
    tensors[`${name}.bias`] = new Float32Array(h);
  };
  tensors["embeddings.word_embeddings.weight"] = Float32Array.from({ length: vocab.length * h }, random);
  tensors["embeddings.position_embeddings.weight"] = Float32Array.from({ length: positions * h }, random);
  tensors["embeddings.token_type_embeddings.weight"] = Float32Array.from({ length: 2 * h }, random);
  norm("embeddings.LayerNorm");
  const layer = "encoder.layer.0.";
  for (const part of ["query", "key", "value"]) dense(`${layer}attention.self.${part}`, h, h);
  dense(`${layer}attention.output.dense`, h, h);
  norm(`${layer}attention.output.LayerNorm`);
  dense(`${layer}intermediate.dense`, inter, h);
  dense(`${layer}output.dense`, h, inter);
  norm(`${layer}output.LayerNorm`);
  const header = {};
  let offset = 0;
  for (const [name, data] of Object.entries(tensors)) {
    header[name] = { dtype: "F32", shape: [data.length], data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  const safetensors = Buffer.concat([length, json, ...Object.values(tensors).map((t) => Buffer.from(t.buffer))]);
  return { safetensors: safetensors.toString("base64"), vocab: vocab.join("\n"), config: JSON.stringify(config) };
}

/** Puts {@link tinyBert} where MiniLM's files go, and resolves to the plugin's search engine calls. */
async function withTinyBert(page) {
  await page.evaluate(async ({ safetensors, vocab, config }) => {
    const adapter = window.fakeObsidian.app.vault.adapter;
    const dir = ".obsidian-agent/models/all-MiniLM-L6-v2";
    await adapter.writeBinary(`${dir}/model.safetensors`, Uint8Array.from(atob(safetensors), (c) => c.charCodeAt(0)).buffer);
    await adapter.write(`${dir}/vocab.txt`, vocab);
    await adapter.write(`${dir}/config.json`, config);
  }, tinyBert());
}

/** MiniLM set on the plugin's engine with `workers`, every note embedded; the set-up's answer and a semantic search's hits. */
function embedWith(page, workers) {
  return page.evaluate(async (workers) => {
    const engine = window.fakeObsidian.plugin.search.engine;
    await engine.clearEmbedder();
    const set = await engine.setEmbedder({ kind: "minilm", maxTokens: 32, workers });
    const report = await engine.embedNotes();
    const hits = await engine.searchMode({ text: "sourdough bakery", mode: "semantic", limit: 10 });
    return { set, report, hits: hits.map((h) => ({ path: h.path, heading: h.heading, score: h.score })) };
  }, workers);
}

test("MiniLM runs in workers of its own, splitting each batch between them; their vectors are the in-thread model's; turning it off ends them", async () => {
  const page = await openHost();
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  await withTinyBert(page);
  const before = page.workers().length;
  const inWorkers = await embedWith(page, 3);
  assert.deepEqual(inWorkers.set, { id: "minilm-l6-v2@32", dimensions: 16, workers: 3, workersFailed: null });
  for (let i = 0; i < 100 && page.workers().length !== before + 3; i++) await page.waitForTimeout(50);
  assert.equal(page.workers().length, before + 3, "three embedding workers beside the core's");
  assert.deepEqual([inWorkers.report.embeddedNotes, inWorkers.report.cancelled], [4, false]);
  assert.ok(inWorkers.hits.length > 0);

  // The same model in the core's own thread gives the same vectors, so the same hits and scores
  // (to float rounding: a batch packs other texts together, and int8 codes round at the edges).
  const inThread = await embedWith(page, 0);
  assert.deepEqual(inThread.set, { id: "minilm-l6-v2@32", dimensions: 16, workers: 0, workersFailed: null });
  assert.deepEqual(inThread.hits.map((h) => [h.path, h.heading]), inWorkers.hits.map((h) => [h.path, h.heading]));
  inThread.hits.forEach((h, i) => assert.ok(Math.abs(h.score - inWorkers.hits[i].score) < 1e-3, `${h.score} vs ${inWorkers.hits[i].score}`));
  // Playwright hears of a worker's end by an event: wait for it.
  for (let i = 0; i < 100 && page.workers().length !== before; i++) await page.waitForTimeout(50);
  assert.equal(page.workers().length, before, "the embedding workers ended with their embedder");
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** A vault large enough that its first build is made in parts: each note has a word of its own. */
function largeVault(count) {
  const files = {};
  for (let i = 0; i < count; i++) files[`Notes/${Math.floor(i / 100)}/Note ${i}.md`] = `# Note ${i}\n\nAbout topic${i}, and a link to [[Note ${(i * 7) % count}]].\n`;
  return files;
}

/** The paths full text finds for each of `texts`, through the plugin's engine. */
function searched(page, texts) {
  return page.evaluate(async (texts) => {
    const engine = window.fakeObsidian.plugin.search.engine;
    const out = {};
    for (const text of texts) out[text] = (await engine.search({ text, limit: 5 })).map((h) => h.path);
    return out;
  }, texts);
}

test("a large vault's first index is built in parts, in index workers beside the core's, and finds what one built in the page finds", async () => {
  const files = largeVault(3_010);
  const workers = [];
  const page = await openHost({ files, routes: (p) => p.on("worker", (w) => workers.push(w)) });
  await page.locator(".vault-agent-index-status", { hasText: /Search index: 3,?010 notes/ }).waitFor({ timeout: 60_000 });
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  // The core's worker, and one index worker where the device has a core to spare.
  assert.equal(workers.length, cores > 1 ? 2 : 1, `${workers.length} workers on ${cores} cores`);
  // The index workers end with the build.
  for (let i = 0; i < 100 && page.workers().length !== 1; i++) await page.waitForTimeout(50);
  assert.equal(page.workers().length, 1, "only the core's worker is left");
  // Notes from every batch are found: those built here and those built in the worker.
  const parts = await page.evaluate(() => window.fakeObsidian.plugin.search.engine.builtInParts());
  assert.equal(parts, cores > 1 ? 2 : 1, "the core's part, and the worker's");
  const texts = ["topic5", "topic70", "topic2999", "topic3009", "Note 1234"];
  const inParts = await searched(page, texts);
  assert.equal(inParts.topic70[0], "Notes/0/Note 70.md");
  assert.equal(inParts.topic2999[0], "Notes/29/Note 2999.md");
  assert.equal(inParts.topic3009[0], "Notes/30/Note 3009.md");
  // The first save wrote the parts as they were built; the fresh core a large build's restart
  // starts loads them from it and answers the same.
  const loaded = await page.evaluate(async () => {
    const { plugin } = window.fakeObsidian;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 1500 && (plugin.search.builtNotes !== 0 || plugin.settling() || plugin.search.state.kind !== "ready"); i++) await pause();
    return plugin.search.builtNotes;
  });
  assert.equal(loaded, 0, "the restarted core loaded the saved index");
  assert.deepEqual(await searched(page, texts), inParts);
  assert.deepEqual(page.errors, []);
  await page.close();

  // Where no worker can be made the core runs in the page and builds every note there.
  const inPage = await openHost({ files, noWorker: true });
  await inPage.locator(".vault-agent-index-status", { hasText: /Search index: 3,?010 notes/ }).waitFor({ timeout: 60_000 });
  assert.deepEqual(await searched(inPage, texts), inParts);
  assert.equal(await inPage.evaluate(() => window.fakeObsidian.plugin.search.engine.builtInParts()), 1);
  assert.deepEqual(inPage.errors, []);
  await inPage.close();
});

test("where the core runs in the page, MiniLM runs there too, and says why", async () => {
  const page = await openHost({ noWorker: true });
  await page.locator(".vault-agent-index-status", { hasText: "Search index: 4 notes" }).waitFor();
  await withTinyBert(page);
  const { set, report } = await embedWith(page, 3);
  assert.equal(set.workers, 0);
  assert.match(set.workersFailed, /runs no embedding workers/);
  assert.equal(report.embeddedNotes, 4);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("semantic search: the settings download the model, notes are embedded with progress, the modal finds a paraphrase", async () => {
  // The sample vault's 28 plugin notes (a small set: the static model embeds them in well under a
  // second), and the model downloaded from the test server, never from anywhere on its own.
  const { files } = await (await fetch(`${origin}/vault/bundle?prefix=en/Plugins/`)).json();
  const count = Object.keys(files).length;
  const page = await openHost({ files, data: { semantic: { embedder: "static", modelBaseUrl: `${origin}/models` } } });
  const status = page.locator(".vault-agent-index-status");
  await status.filter({ hasText: `Search index: ${count} notes` }).waitFor();
  await page.evaluate(() => {
    window.statusSeen = [];
    const el = document.querySelector(".vault-agent-index-status");
    new MutationObserver(() => window.statusSeen.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });

  // Before the model is there, the search window offers full text only, and says why.
  await page.locator(".vault-agent-search").click();
  const modal = page.locator(".vault-agent-search-modal");
  await modal.locator(".vault-agent-search-mode-hint", { hasText: "needs an embedding model" }).waitFor();
  assert.equal(await modal.locator('.vault-agent-search-mode[data-mode="semantic"]').isDisabled(), true);
  assert.equal(await modal.locator('.vault-agent-search-mode[data-mode="fulltext"].is-active').count(), 1);
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => window.fakeObsidian.exists(".obsidian-agent/models")), false);

  // The settings' button downloads it, with progress; then the notes are embedded in the background.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  const download = settings.locator("button.vault-agent-model-download", { hasText: "Download model (8 MB)" });
  await download.waitFor();
  await page.evaluate(() => {
    window.downloadSeen = [];
    const el = document.querySelector(".vault-agent-model-result");
    new MutationObserver(() => window.downloadSeen.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });
  await download.click();
  await settings.locator(".vault-agent-model-result.is-ok", { hasText: "Downloaded and checked." }).waitFor();
  const downloads = await page.evaluate(() => window.downloadSeen);
  assert.ok(downloads.some((t) => /^Downloading static-minilm-l6-v2-256\.vam: [\d.]+ MB of 8\.2 MB$/.test(t)), downloads.join(" | "));
  await settings.locator("button", { hasText: "Installed" }).waitFor();
  await settings.locator(".vault-agent-embedding-status", { hasText: `${count}/${count} notes embedded.` }).waitFor();
  await settings.locator("button", { hasText: "Embed now" }).waitFor();
  await status.filter({ hasText: `Search index: ${count} notes · ${count} embedded` }).waitFor();
  const seen = await page.evaluate(() => window.statusSeen);
  assert.ok(seen.some((t) => t.includes("downloading the model")), seen.join(" | "));
  assert.ok(seen.some((t) => t.endsWith(`embedding ${count}/${count}`)), seen.join(" | "));
  assert.ok(await page.evaluate(() => window.fakeObsidian.exists(".obsidian-agent/index/vectors.bin")));
  await settings.locator(".vault-agent-embedding-status").scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/settings-semantic-light.png` });
  // "Stop embedding" is offered only while a run is going.
  assert.equal(await page.evaluate(() => window.fakeObsidian.commands.get("stop-embedding").checkCallback(true)), false);
  await page.keyboard.press("Escape");

  // Semantic mode finds a paraphrase that shares no word with its note, and says so.
  await page.locator(".vault-agent-search").click();
  await modal.locator('.vault-agent-search-mode[data-mode="semantic"]').click();
  await modal.locator(".prompt-input").fill("capture voice memos");
  const recorder = modal.locator(".suggestion-item", { has: page.locator(".vault-agent-search-result-path", { hasText: "en/Plugins/Audio recorder.md" }) });
  await recorder.waitFor();
  // Its text, not its rendered text: a row is laid out only once in view (`content-visibility`).
  assert.equal(await recorder.locator(".vault-agent-search-found").textContent(), "meaning");
  // Tab switches to hybrid: words and meaning agree on the recorder.
  await page.keyboard.press("Tab");
  await modal.locator('.vault-agent-search-mode[data-mode="hybrid"].is-active').waitFor();
  await modal.locator(".prompt-input").fill("audio recorder microphone");
  const first = modal.locator(".suggestion-item").first();
  await first.locator(".vault-agent-search-found", { hasText: "both" }).waitFor();
  assert.match(await first.locator(".vault-agent-search-result-path").textContent(), /^en\/Plugins\/Audio recorder\.md/);
  await page.screenshot({ path: `${ARTIFACTS}/search-semantic-light.png` });
  // A word most plugin notes hold: the rows below the fold (from the 13th) are drawn just after
  // the first ones.
  await modal.locator(".prompt-input").fill("plugin");
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll(".vault-agent-search-modal .suggestion-item")];
    return rows.length > 12 && rows.every((row) => row.querySelector(".vault-agent-search-result-path"));
  });
  await modal.locator(".suggestion-item").last().scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/search-rows-scrolled-light.png` });
  await page.keyboard.press("Escape");
  assert.equal(await page.evaluate(() => window.fakeObsidian.savedData.semantic.searchMode), "hybrid");

  // A new note is embedded shortly after it appears, as the full-text index follows it.
  await page.evaluate(() =>
    window.fakeObsidian.app.vault.create("en/Plugins/Sourdough.md", "# Sourdough\n\nFeed the starter, then bake the loaf hot."),
  );
  await status.filter({ hasText: `Search index: ${count + 1} notes · ${count + 1} embedded` }).waitFor();

  // Obsidian quits: the tasks it waits for save the index's change (saved otherwise 30 s after
  // it) and what the embeddings hold unsaved; a second quit, with nothing new, writes nothing.
  const saves = () =>
    page.evaluate(async () => {
      const stat = async (path) => (await window.fakeObsidian.app.vault.adapter.stat(path))?.mtime ?? null;
      return { index: await stat(".obsidian-agent/index/manifest.json"), vectors: await stat(".obsidian-agent/index/vectors.bin") };
    });
  const quit = () =>
    page.evaluate(async () => {
      const waits = [];
      window.fakeObsidian.app.workspace.trigger("quit", { add: (task) => waits.push(task()), addPromise: (p) => waits.push(p) });
      await Promise.all(waits);
      return waits.length;
    });
  const beforeQuit = await saves();
  assert.equal(await quit(), 1, "one task to wait for");
  const quitSaves = await saves();
  assert.ok(quitSaves.index > beforeQuit.index, "the index's change was saved");
  await page.waitForTimeout(50);
  await quit();
  assert.deepEqual(await saves(), quitSaves, "nothing changed since: nothing written");
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The chat in a layout: a wide sidebar, a 300 px one, or a 390 × 844 phone (Obsidian's is-mobile). */
async function layout(page, kind) {
  await page.evaluate((kind) => {
    document.getElementById("vault-agent-e2e-layout")?.remove();
    const style = document.createElement("style");
    style.id = "vault-agent-e2e-layout";
    style.textContent = {
      wide: ".mod-right-split { width: 520px !important; }",
      narrow: ".mod-right-split { width: 300px !important; }",
      mobile: ".workspace-ribbon, .mod-left-split, .mod-root { display: none !important; } .mod-right-split { width: 100% !important; border: none; }",
    }[kind];
    document.head.appendChild(style);
    document.body.classList.toggle("is-mobile", kind === "mobile");
  }, kind);
  await page.setViewportSize(kind === "mobile" ? { width: 390, height: 844 } : { width: 1280, height: 860 });
}

/**
 * Screenshots, light and dark, in `kinds` of `arrange`'s layouts (the chat's three by default);
 * ends light and wide.
 */
async function shootLayouts(page, name, { kinds = ["wide", "narrow", "mobile"], arrange = layout } = {}) {
  for (const kind of kinds) {
    await arrange(page, kind);
    for (const theme of ["light", "dark"]) {
      await setTheme(page, theme);
      await page.screenshot({ path: `${ARTIFACTS}/${name}-${kind}-${theme}.png` });
    }
  }
  await setTheme(page, "light");
  await arrange(page, "wide");
}

/** Every button, picker and item to tap in the chat (and in `extra`: a modal's) is at least 44 px tall on a phone. */
async function assertTouchTargets(page, extra = []) {
  const selector = [
    ".vault-agent-chat button",
    ".vault-agent-chat .clickable-icon",
    ".vault-agent-chat select",
    ".vault-agent-chat summary",
    ".vault-agent-tool-head",
    ".vault-agent-related-item",
    ...extra,
  ].join(", ");
  const small = await page.evaluate((selector) =>
    [...document.querySelectorAll(selector)]
      .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().height < 44)
      .map((el) => `${el.className} ${Math.round(el.getBoundingClientRect().height)}px`),
  selector);
  assert.deepEqual(small, [], "touch targets under 44 px");
}

test("the agent is told the date and time as the user's clock shows them, and today's daily note, from the core's worker", async () => {
  const id = `e2e-local-time-${Date.now()}`;
  const tokyoToday = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
  await script(id, [
    { toolCalls: [{ id: "r1", name: "recent_notes", arguments: { since: tokyoToday } }] },
    { text: "It is Tuesday morning there." },
  ]);
  // Obsidian's Daily notes, on in the vault's settings folder (the app's `configDir`).
  const files = {
    ...NOTES,
    ".obsidian/core-plugins.json": JSON.stringify({ "daily-notes": true }),
    ".obsidian/daily-notes.json": JSON.stringify({ folder: "Journal", format: "YYYY-MM-DD" }),
  };
  const page = await openHost({ mock: id, timezoneId: "Asia/Tokyo", files });
  await send(page, "What day is it?");
  await page.locator(".vault-agent-text", { hasText: "Tuesday morning" }).waitFor();
  const system = JSON.stringify((await requests(id))[0].body.system);
  const [, date, zone, weekday] = system.match(/Current date and time: (\d{4}-\d\d-\d\d) \d\d:\d\d (\S+), a (\w+)/) ?? [];
  assert.equal(zone, "UTC+09:00", system);
  // The date and weekday are Tokyo's, whatever the machine's own zone.
  const tokyo = new Date(Date.now() + 9 * 3_600_000);
  assert.ok([0, -60_000].some((skew) => new Date(tokyo.getTime() + skew).toISOString().startsWith(date)), `${date} in ${system}`);
  assert.equal(weekday, new Intl.DateTimeFormat("en-US", { weekday: "long", timeZone: "Asia/Tokyo" }).format(new Date()));
  // Today's daily note is Tokyo's today's.
  assert.ok(system.includes(`Today's daily note: Journal/${date}.md (Obsidian's daily notes are in Journal/`), system);
  // The notes changed today, Tokyo's: the vault's four, opened this session; the card says so.
  const card = page.locator('.vault-agent-tool-card[data-tool="recent_notes"]');
  assert.equal(await card.locator(".vault-agent-tool-label").innerText(), `Listed the notes changed since ${tokyoToday} — 4 notes`);
  const told = JSON.stringify((await requests(id))[1].body.messages.at(-1));
  assert.match(told, /4 notes changed since \d{4}-\d\d-\d\d, the most recently changed first \(times in UTC\+09:00\)/);
  await card.locator(".vault-agent-tool-head").click();
  await shootLayouts(page, "recent-notes");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the chat history finds a chat by what was said in it, and opens it where it was said", async () => {
  const id = `e2e-history-search-${Date.now()}`;
  const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long answer about flour.`).join("\n\n");
  await script(id, [
    { text: "Bake the **sourdough** on a stone at 250 °C." },
    { text: long, chunkSize: 400 },
    { text: "Book the ryokan early: Kyoto in April is busy." },
  ]);
  const page = await openHost({ mock: id });
  const idle = () => page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
  await send(page, "Tell me about bread");
  await page.locator(".vault-agent-text", { hasText: "on a stone" }).waitFor();
  await idle();
  await send(page, "And everything else?");
  await page.locator(".vault-agent-text", { hasText: "Line 60 of" }).waitFor();
  await idle();
  await page.locator(".vault-agent-new-chat").click();
  await send(page, "Plan my Kyoto trip");
  await page.locator(".vault-agent-text", { hasText: "Book the ryokan" }).waitFor();
  await idle();

  await page.locator(".vault-agent-history").click();
  const input = page.locator(".prompt-input");
  const items = page.locator(".suggestion-item");
  const rows = (n) => page.waitForFunction((n) => document.querySelectorAll(".suggestion-item").length === n, n);
  await rows(2);
  assert.equal(await page.locator(".vault-agent-history-passage").count(), 0, "no words, no passages");
  // On a desktop a row's delete button shows on the row selected or under the pointer only.
  await page.mouse.move(0, 0);
  const deleteShown = (i) => items.nth(i).locator(".vault-agent-history-delete").evaluate((el) => getComputedStyle(el).opacity);
  assert.deepEqual([await deleteShown(0), await deleteShown(1)], ["1", "0"]);
  await items.nth(1).hover();
  await page.waitForFunction(() => getComputedStyle(document.querySelectorAll(".vault-agent-history-delete")[1]).opacity === "1");
  await page.screenshot({ path: `${ARTIFACTS}/history-list-light.png` });

  // Words of an answer, typed in another case: the chat that said them, and where.
  await input.fill("STONE sourdough");
  await rows(1);
  assert.equal(await items.locator(".vault-agent-history-title").innerText(), "Tell me about bread");
  const passage = items.locator(".vault-agent-history-passage");
  assert.equal(await passage.locator(".vault-agent-history-by").innerText(), "Agent");
  assert.deepEqual(await passage.locator("mark").allInnerTexts(), ["sourdough", "stone"]);
  assert.match(await passage.innerText(), /Bake the sourdough on a stone at 250 °C\./);
  for (const theme of ["light", "dark"]) {
    await setTheme(page, theme);
    await page.screenshot({ path: `${ARTIFACTS}/history-search-${theme}.png` });
  }
  await setTheme(page, "light");

  // A request's words find the chat too, said by the user; words no chat said, nothing.
  await input.fill("kyoto");
  await rows(1);
  assert.equal(await items.locator(".vault-agent-history-by").innerText(), "You");
  await input.fill("croissant");
  await page.locator(".suggestion-empty", { hasText: "No chat said that." }).waitFor();

  // Picked: the chat opens at the turn that said it, not at its end, marked for a moment.
  await input.fill("stone");
  await rows(1);
  await items.first().click();
  const found = page.locator('.vault-agent-found[data-turn="0"]');
  await found.waitFor();
  assert.match(await found.innerText(), /Tell me about bread/);
  const shown = await found.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const pane = el.closest(".vault-agent-messages").getBoundingClientRect();
    return box.top >= pane.top - 1 && box.top < pane.bottom;
  });
  assert.ok(shown, "the turn that said it is in view");
  await page.locator(".vault-agent-jump").waitFor();
  await shootLayouts(page, "history-opened");

  // On a phone the list fits the screen.
  await layout(page, "mobile");
  await page.locator(".vault-agent-history").click();
  await page.locator(".prompt-input").fill("sourdough");
  await rows(1);
  for (const theme of ["light", "dark"]) {
    await setTheme(page, theme);
    await page.screenshot({ path: `${ARTIFACTS}/history-search-mobile-${theme}.png` });
  }

  // Deleted from the list (its button shows on a phone, which has no hover): asked first —
  // Cancel keeps it and opens nothing —, then gone from the list, its search and the vault; the
  // view that showed it starts a new chat.
  const remove = items.first().locator(".vault-agent-history-delete");
  assert.ok(await remove.isVisible());
  await assertTouchTargets(page, [".vault-agent-history-delete"]);
  await remove.click();
  const confirm = page.locator(".modal", { hasText: "Delete this chat?" });
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /“Tell me about bread” and its saved results go\./);
  for (const theme of ["light", "dark"]) {
    await setTheme(page, theme);
    await page.screenshot({ path: `${ARTIFACTS}/history-delete-mobile-${theme}.png` });
  }
  await setTheme(page, "light");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await confirm.waitFor({ state: "detached" });
  await rows(1);
  assert.match(await page.locator(".vault-agent-title").innerText(), /Tell me about bread/);
  await remove.click();
  await confirm.locator(".vault-agent-confirm").click();
  await page.locator(".suggestion-empty", { hasText: "No chat said that." }).waitFor();
  assert.equal(await page.locator(".prompt-input").inputValue(), "sourdough", "the box keeps what was typed");
  await page.locator(".prompt-input").fill("");
  await rows(1);
  assert.equal(await items.locator(".vault-agent-history-title").innerText(), "Plan my Kyoto trip");
  assert.equal(await page.locator(".vault-agent-title").innerText(), "Vault Agent");
  assert.equal(await page.locator(".vault-agent-messages .vault-agent-text").count(), 0);
  const saved = await page.evaluate(async () => (await window.fakeObsidian.app.vault.adapter.list(".obsidian-agent/chats")).files.length);
  assert.equal(saved, 1);
  await page.keyboard.press("Escape");
  await layout(page, "wide");

  // By keyboard: Shift+Delete asks the same for the row selected.
  await page.locator(".vault-agent-history").click();
  await rows(1);
  await page.locator(".prompt-input").press("Shift+Delete");
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /“Plan my Kyoto trip” and its saved results go/);
  await confirm.locator(".vault-agent-confirm").click();
  await page.locator(".suggestion-empty", { hasText: "No saved chats yet." }).waitFor();
  await page.keyboard.press("Escape");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the view follows the answer only while the reader is at the bottom; Jump to latest brings it back", async () => {
  const id = `e2e-scroll-${Date.now()}`;
  const long = Array.from({ length: 60 }, (_, i) => `Line ${i + 1} of a long answer about bread.`).join("\n\n");
  await script(id, [{ text: long, chunkSize: 400 }, { text: `Second answer starts here.\n\n${long}`, hold: true, chunkSize: 400 }]);
  const page = await openHost({ mock: id });
  await send(page, "tell me about bread");
  await page.locator(".vault-agent-text", { hasText: "Line 60 of" }).waitFor();
  await send(page, "and again");
  await page.waitForFunction(() => document.querySelectorAll(".vault-agent-text")[1]?.textContent.includes("Second answer"));
  // The reader scrolls up while the answer is held, then it streams on.
  const messages = page.locator(".vault-agent-messages");
  await messages.evaluate((el) => { el.scrollTop = 0; el.dispatchEvent(new Event("scroll")); });
  await fetch(`${origin}/mock/${id}/release`, { method: "POST" });
  await page.waitForFunction(() => document.querySelectorAll(".vault-agent-text")[1]?.textContent.includes("Line 60 of"));
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
  await page.waitForTimeout(800);
  assert.equal(await messages.evaluate((el) => el.scrollTop), 0, "the view did not snap back to the bottom");
  const jump = page.locator(".vault-agent-jump");
  await jump.waitFor();
  await jump.click();
  await page.waitForFunction(() => {
    const el = document.querySelector(".vault-agent-messages");
    return el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  });
  await jump.waitFor({ state: "hidden" });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("tool cards read as sentences, group runs of calls, link every note, and keep the model's words in the details", async () => {
  const id = `e2e-cards-${Date.now()}`;
  await script(id, [
    {
      text: "Let me look at your notes.",
      toolCalls: [
        { id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } },
        { id: "r2", name: "read_file", arguments: { path: "Cooking/Pizza.md" } },
        { id: "r3", name: "read_file", arguments: { path: "Travel/Kyoto.md" } },
        { id: "s1", name: "search_files", arguments: { query: "sourdough" } },
      ],
    },
    { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "Cooking/Sourdough.md", content: "# Sourdough\n" } }] },
    { text: "Sourdough appears in Cooking/Bread.md and in `Travel/Kyoto.md`.", usage: { input: 900, output: 30 } },
  ]);
  const page = await openHost({ mock: id });
  await page.evaluate(() => {
    const workspace = window.fakeObsidian.app.workspace;
    const open = workspace.openLinkText.bind(workspace);
    window.opened = [];
    workspace.openLinkText = (path, source, newTab) => {
      window.opened.push([path, Boolean(newTab)]);
      return open(path, source, newTab);
    };
  });
  await send(page, "where do I mention sourdough?");
  // The write waits for approval: the user skips it.
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.locator('button[data-decision="skip"]').click();
  await page.locator(".vault-agent-text", { hasText: "Sourdough appears in" }).waitFor();
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();

  // Three reads in a row are one card; it expands to show each.
  const group = page.locator(".vault-agent-tool-group");
  assert.equal(await group.count(), 1);
  assert.equal(await group.locator("> .vault-agent-tool-head .vault-agent-tool-label").innerText(), "Read 3 notes");
  await group.locator("> .vault-agent-tool-head").click();
  assert.deepEqual(await group.locator(".vault-agent-tool-card .vault-agent-tool-label").allInnerTexts(), ["Read Bread", "Read Pizza", "Read Kyoto"]);
  // The search says what it found, and its details list the notes, the arguments and the result.
  const search = page.locator('.vault-agent-tool-card[data-tool="search_files"]');
  assert.match(await search.locator(".vault-agent-tool-label").innerText(), /^Searched for ‘sourdough’ — 2 notes$/);
  await search.locator(".vault-agent-tool-head").click();
  const details = search.locator(".vault-agent-tool-details");
  assert.deepEqual((await details.locator(".vault-agent-tool-notes a").allInnerTexts()).sort(), ["Cooking/Bread.md", "Travel/Kyoto.md"]);
  assert.match(await details.innerText(), /"query": "sourdough"/);
  // The skipped write says so; the words meant for the model are only in its details.
  const write = page.locator('.vault-agent-tool-card[data-tool="write_file"]');
  assert.equal(await write.locator(".vault-agent-tool-outcome").innerText(), "Skipped");
  assert.doesNotMatch(await write.innerText(), /Continue the task without it/);
  await write.locator(".vault-agent-tool-head").click();
  assert.match(await write.locator(".vault-agent-tool-details").innerText(), /Continue the task without it/);

  await shootLayouts(page, "cards-grouped-expanded");

  // A note in a card opens; Ctrl-click asks for a new tab; paths in the answer are links too.
  await group.locator(".vault-agent-tool-card .vault-agent-note-link", { hasText: "Pizza" }).click();
  await page.locator(".view-header-title", { hasText: "Cooking/Pizza.md" }).waitFor();
  await group.locator(".vault-agent-tool-card .vault-agent-note-link", { hasText: "Kyoto" }).click({ modifiers: ["Control"] });
  const answer = page.locator(".vault-agent-text").last();
  await answer.locator(".vault-agent-note-link", { hasText: "Cooking/Bread.md" }).click();
  await answer.locator(".vault-agent-note-link code", { hasText: "Travel/Kyoto.md" }).click();
  assert.deepEqual(await page.evaluate(() => window.opened), [
    ["Cooking/Pizza.md", false],
    ["Travel/Kyoto.md", true],
    ["Cooking/Bread.md", false],
    ["Travel/Kyoto.md", false],
  ]);
  // In a 300 px sidebar a long path loses its start, not its file name.
  await layout(page, "narrow");
  const path = details.locator(".vault-agent-path").first();
  assert.equal(await path.evaluate((el) => getComputedStyle(el).direction), "rtl");
  await layout(page, "mobile");
  await assertTouchTargets(page);
  await layout(page, "wide");

  // A saved chat shows the same cards.
  await page.locator(".vault-agent-new-chat").click();
  await page.locator(".vault-agent-history").click();
  await page.locator(".suggestion-item", { hasText: "where do I mention sourdough?" }).click();
  await page.locator(".vault-agent-tool-group .vault-agent-tool-label", { hasText: "Read 3 notes" }).waitFor();
  await page.locator('.vault-agent-tool-card[data-tool="write_file"] .vault-agent-tool-outcome', { hasText: "Skipped" }).waitFor();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a retried call shows one live line that goes once it answers; a closed local port fails at once", async () => {
  const id = `e2e-retry-${Date.now()}`;
  await script(id, [
    { status: 429, headers: { "retry-after": "3" }, message: "slow down" },
    { text: "Here after the wait." },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "hello");
  const line = page.locator(".vault-agent-retrying");
  await line.waitFor();
  assert.match(await line.innerText(), /too many requests right now\. Retrying in [1-3] s… \(2\/6\)/);
  assert.doesNotMatch(await line.innerText(), /RateLimited/);
  await shootLayouts(page, "retry-line");
  assert.equal(await line.count(), 1);
  await page.locator(".vault-agent-text", { hasText: "Here after the wait." }).waitFor();
  assert.equal(await line.count(), 0, "the line went once the retry answered");
  assert.equal(await page.locator(".vault-agent-warning").count(), 0);
  await page.close();

  // Nothing listens on this port: the error comes at once, with no retries, and names the URL.
  const closed = await freePort();
  const dead = await openHost({
    data: { provider: { preset: "ollama", model: "llama3.2", baseUrl: `http://127.0.0.1:${closed}/v1` } },
  });
  const started = Date.now();
  await send(dead, "hello");
  const error = dead.locator(".vault-agent-error");
  await error.waitFor();
  assert.ok(Date.now() - started < 5000, `failed fast (${Date.now() - started} ms)`);
  assert.equal(await dead.locator(".vault-agent-retrying").count(), 0);
  assert.match(await error.locator(".vault-agent-error-message").innerText(), /Nothing answers at the provider's address/);
  await error.locator(".vault-agent-open-provider", { hasText: "Check the server URL" }).click();
  await dead.locator(".vault-agent-settings").waitFor();
  assert.deepEqual(dead.errors, []);
  await dead.close();
});

test("thinking shows before the first token; Escape stops a task and the meter shows what it used", async () => {
  const id = `e2e-stop-${Date.now()}`;
  await script(id, [{ text: "A slow start, then a long answer.", hold: true, delayMs: 250, usage: { input: 900, output: 40 } }]);
  const page = await openHost({ mock: id });
  await send(page, "tell me everything");
  await page.locator(".vault-agent-pending", { hasText: "Thinking…" }).waitFor();
  await page.locator(".vault-agent-text", { hasText: "A slow" }).waitFor();
  assert.equal(await page.locator(".vault-agent-pending").count(), 0);
  await page.locator(".vault-agent-input").press("Escape");
  await page.locator(".vault-agent-end", { hasText: "Stopped" }).waitFor();
  assert.match(await page.locator(".vault-agent-meter").last().innerText(), /^900 in · \d+ out/);
  assert.deepEqual(page.errors, []);
  await page.close();
});


test("approvals mark the words that changed; Deny with a reason goes back to the model and the task goes on", async () => {
  const id = `e2e-deny-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Bread.md" } }] },
    {
      toolCalls: [{
        id: "e1",
        name: "edit_file",
        arguments: { path: "Cooking/Bread.md", old_string: "Sourdough at 230 °C.", new_string: "Sourdough at 250 °C." },
      }],
    },
    { text: "Understood: the temperature stays at 230 °C." },
  ]);
  const page = await openHost({ mock: id });
  await send(page, "make my bread bake hotter");
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.locator(".vault-agent-diff-line.is-removed mark.vault-agent-diff-word", { hasText: "230" }).waitFor();
  await modal.locator(".vault-agent-diff-line.is-added mark.vault-agent-diff-word", { hasText: "250" }).waitFor();
  assert.equal(await modal.locator(".vault-agent-diff-line.is-added mark", { hasText: "Sourdough" }).count(), 0, "unchanged words are not marked");
  await modal.locator(".vault-agent-deny-reason").fill("keep it at 230, my oven runs hot");
  for (const kind of ["wide", "narrow"]) {
    await layout(page, kind);
    for (const theme of ["light", "dark"]) {
      await setTheme(page, theme);
      await page.screenshot({ path: `${ARTIFACTS}/approval-words-${kind}-${theme}.png` });
    }
  }
  await setTheme(page, "light");
  await layout(page, "wide");
  await modal.locator('button[data-decision="deny"]').click();
  await page.locator(".vault-agent-text", { hasText: "Understood: the temperature stays" }).waitFor();
  const sent = await requests(id);
  assert.equal(sent.length, 3, "the task went on after the denial");
  assert.match(JSON.stringify(sent[2].body.messages.at(-1)), /Their reason: keep it at 230, my oven runs hot/);
  assert.equal(await page.locator('.vault-agent-tool-card[data-tool="edit_file"] .vault-agent-tool-outcome').innerText(), "Denied");
  assert.equal(await read(page, "Cooking/Bread.md"), NOTES["Cooking/Bread.md"]);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("an answer can be copied, inserted, appended or made a note; regenerated; the request edited and sent again", async () => {
  const id = `e2e-actions-${Date.now()}`;
  await script(id, [
    { text: "Rye needs a sour starter." },
    { text: "Regenerated: rye wants a starter." },
    { text: "Spelt is gentler than rye." },
  ]);
  const page = await openHost({ mock: id });
  await page.evaluate(() => {
    window.copied = [];
    navigator.clipboard.writeText = async (text) => void window.copied.push(text);
  });
  await send(page, "tell me about rye");
  await page.locator(".vault-agent-text", { hasText: "Rye needs a sour starter." }).waitFor();
  const action = (name) => page.locator(`.vault-agent-answer-actions [data-action="${name}"]`).last();
  await action("copy").click();
  assert.deepEqual(await page.evaluate(() => window.copied), ["Rye needs a sour starter."]);
  // The open note is Cooking/Bread.md: append, then insert at the cursor (its end here).
  await action("append").click();
  await page.waitForFunction(async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("hour.\n\nRye needs a sour starter.\n"));
  await action("insert").click();
  await page.waitForFunction(async () => (await window.fakeObsidian.read("Cooking/Bread.md")).endsWith("starter.\nRye needs a sour starter."));
  await action("create").click();
  await page.locator(".view-header-title", { hasText: "tell me about rye.md" }).waitFor();
  assert.equal(await read(page, "tell me about rye.md"), "Rye needs a sour starter.\n");

  // Regenerate runs the same request again, without the first answer.
  await page.locator(".vault-agent-regenerate").click();
  await page.locator(".vault-agent-text", { hasText: "Regenerated: rye wants a starter." }).waitFor();
  await page.locator(".vault-agent-send", { hasText: "Send" }).waitFor();
  assert.equal(await page.locator(".vault-agent-regenerate").count(), 1, "only the newest answer regenerates");
  let sent = await requests(id);
  assert.equal(sent[1].body.messages.length, 1);

  // Edit the request and send it again: it replaces the old one and its answers.
  await page.locator(".vault-agent-user .vault-agent-edit").click();
  assert.equal(await page.locator(".vault-agent-input").inputValue(), "tell me about rye");
  await send(page, "tell me about spelt");
  await page.locator(".vault-agent-text", { hasText: "Spelt is gentler than rye." }).waitFor();
  assert.deepEqual(await page.locator(".vault-agent-user-text").allInnerTexts(), ["tell me about spelt"]);
  assert.equal(await page.locator(".vault-agent-text").count(), 1);
  sent = await requests(id);
  assert.equal(sent[2].body.messages.length, 1);
  assert.match(JSON.stringify(sent[2].body.messages[0]), /tell me about spelt/);
  // The chat took its title from the request it no longer has: it follows the edit.
  await page.locator(".vault-agent-rename", { hasText: "tell me about spelt" }).waitFor();
  await shootLayouts(page, "answer-actions");
  await layout(page, "mobile");
  await assertTouchTargets(page);
  await layout(page, "wide");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a chat is named from its first request, and can be renamed, exported to a note and deleted", async () => {
  const id = `e2e-chats-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Cooking/Pizza.md" } }] },
    { text: "Pizza dough rests 48 hours." },
  ]);
  const page = await openHost({ mock: id });
  assert.equal(await page.locator(".vault-agent-chat-actions").isVisible(), false, "no actions before the chat is saved");
  await send(page, "How long does pizza dough rest?");
  await page.locator(".vault-agent-text", { hasText: "48 hours" }).waitFor();
  await page.locator(".vault-agent-title", { hasText: "How long does pizza dough rest?" }).waitFor();

  await page.locator(".vault-agent-rename").click();
  const prompt = page.locator(".modal.vault-agent-prompt-modal");
  await prompt.locator("input").fill("Pizza timing");
  await prompt.locator("button", { hasText: "Save" }).click();
  await page.locator(".vault-agent-title", { hasText: "Pizza timing" }).waitFor();

  await page.locator(".vault-agent-export").click();
  await page.locator(".view-header-title", { hasText: "Pizza timing.md" }).waitFor();
  const note = await read(page, "Pizza timing.md");
  assert.match(note, /^# Pizza timing\n\n## You\n\nHow long does pizza dough rest\?\n\n## Vault Agent\n\n> Read Pizza\n\nPizza dough rests 48 hours\.\n$/);

  await page.locator(".vault-agent-history").click();
  await page.locator(".suggestion-item", { hasText: "Pizza timing" }).waitFor();
  await page.keyboard.press("Escape");
  await page.locator(".vault-agent-delete").click();
  await page.locator(".modal .vault-agent-confirm").click();
  await page.locator(".vault-agent-welcome").waitFor();
  assert.equal(await page.locator(".vault-agent-title").innerText(), "Vault Agent");
  await page.locator(".vault-agent-history").click();
  await page.locator(".suggestion-empty, .suggestion-item").first().waitFor();
  assert.equal(await page.locator(".suggestion-item", { hasText: "Pizza timing" }).count(), 0);
  await page.keyboard.press("Escape");
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** The official MCP reference server (npm) over Streamable HTTP on a free port; stop it with `kill()`. */
async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => String(d).includes("listening") && resolve());
    child.on("exit", (code) => reject(new Error(`the MCP server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, kill: () => child.kill() };
}

/**
 * The host page with the reference MCP server set up as "everything" (its tools `disabledTools`
 * turned off) and the mock model playing `turns`; kill `everything` when done.
 */
async function openWithEverything(name, turns, disabledTools = []) {
  const everything = await startEverything();
  const id = `e2e-${name}-${Date.now()}`;
  await script(id, turns);
  const server = { name: "everything", transport: { type: "http", url: everything.url, headers: [] }, enabled: true, disabledTools, trustReadOnly: false };
  const page = await openHost({ mock: id, data: { mcp: { servers: [server] } } });
  return { everything, id, page };
}

test("MCP: the settings list a server's tools; the agent calls one after approval and reads its answer", async () => {
  const turns = [
    { toolCalls: [{ id: "m1", name: "mcp__everything__echo", arguments: { message: "hello from the vault" } }] },
    { text: "The server answered." },
  ];
  const { everything, id, page } = await openWithEverything("mcp", turns, ["get-env"]);
  try {
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const settings = page.locator(".vault-agent-settings");
    const box = settings.locator(".vault-agent-mcp-server");
    await box.locator("button", { hasText: "Test and list tools" }).click();
    // The tools, and the prompts and resources beside them, with where the chat offers each.
    await box.locator(".vault-agent-mcp-count", { hasText: /^Connected: \d+ tools, \d+ prompts \(\/ in the chat\), \d+ resources \(@ in the chat\)$/ }).waitFor();
    const count = Number((await box.locator(".vault-agent-mcp-count").innerText()).match(/\d+/)[0]);
    assert.ok(count >= 10, `${count} tools`);
    await box.locator(".vault-agent-mcp-tools").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/mcp-settings-light.png` });
    await settings.locator(".setting-item-heading, div", { hasText: /^Safety$/ }).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/safety-settings-light.png` });
    await page.locator(".modal.mod-settings .modal-close-button").click();

    await send(page, "Ask the MCP server to echo a greeting");
    const modal = page.locator(".modal.vault-agent-approval");
    await modal.waitFor();
    assert.match(await modal.innerText(), /mcp__everything__echo|everything/);
    await page.screenshot({ path: `${ARTIFACTS}/mcp-approval-light.png` });
    await modal.locator('button[data-decision="approve"]').click();
    await page.locator('.vault-agent-tool-card[data-tool="mcp__everything__echo"].is-done').waitFor();
    await page.locator(".vault-agent-text", { hasText: "The server answered." }).waitFor();
    const sent = await requests(id);
    assert.equal(sent.length, 2);
    const offered = sent[0].body.tools.map((t) => t.name);
    assert.ok(offered.includes("mcp__everything__echo") && !offered.includes("mcp__everything__get-env"), offered.join(", "));
    assert.ok(JSON.stringify(sent[1].body.messages).includes("Echo: hello from the vault"));
    // The defences are on by default: the server's words reach the model marked as data, and
    // the prompt carries this task's canary.
    assert.match(JSON.stringify(sent[1].body.messages), /<<<data [0-9a-f]{12}>>>/);
    assert.match(JSON.stringify(sent[0].body.system), /VA-CANARY-[0-9a-f]{16}/);
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-card-dark.png` });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a long call shows its server's progress in its card, which goes when the call ends", async () => {
  const { everything, page } = await openWithEverything("mcp-progress", [
    { toolCalls: [{ id: "p1", name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 3, steps: 4 } }] },
    { text: "The long operation finished." },
  ]);
  try {
    await send(page, "Run the server's long operation");
    const modal = page.locator(".modal.vault-agent-approval");
    await modal.waitFor();
    await modal.locator('button[data-decision="approve"]').click();
    const card = page.locator('.vault-agent-tool-card[data-tool="mcp__everything__trigger-long-running-operation"]');
    const progress = card.locator(".vault-agent-tool-progress-text");
    await progress.filter({ hasText: /^[1-3] of 4$/ }).waitFor();
    assert.ok(await card.locator(".vault-agent-tool-progress-fill").isVisible());
    await page.screenshot({ path: `${ARTIFACTS}/mcp-progress-light.png` });
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-progress-dark.png` });
    await setTheme(page, "light");
    await page.locator('.vault-agent-tool-card[data-tool="mcp__everything__trigger-long-running-operation"].is-done').waitFor();
    assert.equal(await card.locator(".vault-agent-tool-progress").count(), 0);
    await page.locator(".vault-agent-text", { hasText: "The long operation finished." }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a server asks for the user's model mid-call; the user sees what it sends, approves, and the reply goes to the server", async () => {
  const { everything, id, page } = await openWithEverything("mcp-sampling", [
    { toolCalls: [{ id: "s1", name: "mcp__everything__trigger-sampling-request", arguments: { prompt: "a haiku about notes", maxTokens: 60 } }] },
    // The reply the server asked for, then the task's answer.
    { text: "Notes pile up softly." },
    { text: "The server has its haiku." },
  ]);
  try {
    await send(page, "Ask the server for a haiku");
    const modal = page.locator(".modal.vault-agent-approval");
    await modal.waitFor();
    await modal.locator('button[data-decision="approve"]').click();
    // The second question: the server's request for the model, its words shown as they go.
    const asked = page.locator(".modal.vault-agent-approval", { hasText: "Let this server use your model?" });
    await asked.waitFor();
    assert.match(await asked.locator(".vault-agent-approval-summary").innerText(), /The MCP server “everything” asks your model \(.+\) to write a reply of at most 60 tokens/);
    assert.deepEqual(await asked.locator(".vault-agent-approval-sampling-text").allInnerTexts(), [
      "You are a helpful test server.",
      "Resource trigger-sampling-request context: a haiku about notes",
    ]);
    assert.deepEqual(await asked.locator("button").allInnerTexts(), ["Approve", "Always allow MCP calls", "Decline"]);
    assert.equal(await asked.locator(".vault-agent-deny-reason").isVisible(), false);
    await page.screenshot({ path: `${ARTIFACTS}/mcp-sampling-light.png` });
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-sampling-dark.png` });
    await setTheme(page, "light");
    await asked.locator('button[data-decision="approve"]').click();
    await page.locator('.vault-agent-tool-card[data-tool="mcp__everything__trigger-sampling-request"].is-done').waitFor();
    await page.locator(".vault-agent-text", { hasText: "The server has its haiku." }).waitFor();
    const sent = await requests(id);
    // The model read the server's messages alone: its instructions, no tools, none of the chat.
    const sampled = sent[1].body;
    assert.match(JSON.stringify(sampled.system), /You are a helpful test server\./);
    assert.equal(sampled.tools, undefined);
    assert.equal(sampled.messages.length, 1);
    assert.doesNotMatch(JSON.stringify(sampled), /Ask the server for a haiku/);
    // The server got the reply, and the task's model read what the server made of it.
    assert.match(JSON.stringify(sent[2].body.messages), /Notes pile up softly\./);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a server's form mid-call is filled in the chat, checked by the core, and its answer reaches the server", async () => {
  const { everything, id, page } = await openWithEverything("mcp-form", [
    { toolCalls: [{ id: "f1", name: "mcp__everything__trigger-elicitation-request", arguments: {} }] },
    { text: "Thanks, the server has your details." },
    { toolCalls: [{ id: "f2", name: "mcp__everything__trigger-elicitation-request", arguments: {} }] },
  ]);
  try {
    await send(page, "Fill in the server's form for me");
    const modal = page.locator(".modal.vault-agent-approval");
    await modal.waitFor();
    await modal.locator('button[data-decision="approve"]').click();
    const form = page.locator(".vault-agent-form");
    await form.waitFor();
    assert.match(await form.locator(".vault-agent-form-head").innerText(), /The MCP server “everything” asks/);
    assert.equal(await form.locator(".vault-agent-form-message").innerText(), "Please provide inputs for the following fields:");
    // The fields in the server's order; the defaults filled in; a choice shows its title, not its value.
    assert.deepEqual((await form.locator(".vault-agent-form-label").allInnerTexts()).slice(0, 3), ["String *", "Boolean", "String with default"]);
    assert.equal(await form.locator("#vault-agent-form-form0-1-integer").inputValue(), "42");
    assert.equal(await form.locator("#vault-agent-form-form0-1-legacyTitledEnum option:checked").innerText(), "Cats");

    // What does not fit the form is refused by the core, in words, and the form stays open.
    await form.locator("button", { hasText: "Send" }).click();
    const problem = form.locator(".vault-agent-form-problem");
    await problem.filter({ hasText: "String: fill this in." }).waitFor();
    await form.locator("#vault-agent-form-form0-1-name").fill("Ada Lovelace");
    await form.locator("#vault-agent-form-form0-1-email").fill("ada at home");
    await form.locator("#vault-agent-form-form0-1-homepage").fill("https://example.org/ada");
    await form.locator("button", { hasText: "Send" }).click();
    await problem.filter({ hasText: "String with email format: expected an email address." }).waitFor();
    await layout(page, "narrow");
    await problem.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/mcp-form-problem-narrow-light.png` });
    await layout(page, "wide");
    // A key is no answer to give a server, whatever its form asks.
    await form.locator("#vault-agent-form-form0-1-email").fill("ada@example.org");
    await form.locator("#vault-agent-form-form0-1-name").fill("sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA");
    await form.locator("button", { hasText: "Send" }).click();
    await problem.filter({ hasText: "String: this looks like a secret (sk-proj-…)." }).waitFor();
    await form.locator("#vault-agent-form-form0-1-name").fill("Ada Lovelace");
    await form.locator(".vault-agent-form-field", { hasText: "Agree to the terms" }).locator("input[type=checkbox]").check();
    await form.locator("#vault-agent-form-form0-1-integer").fill("7");
    await form.locator(".vault-agent-form-field", { hasText: "Choose your favorite instruments" }).locator("label", { hasText: "Piano" }).click();
    await form.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await shootLayouts(page, "mcp-form");
    await layout(page, "mobile");
    await assertTouchTargets(page, [".vault-agent-form-check", ".vault-agent-form-field input:not([type=checkbox])"]);
    await layout(page, "wide");
    await form.locator("button", { hasText: "Send" }).click();
    await form.locator(".vault-agent-form-ended", { hasText: "Sent to the server" }).waitFor();
    assert.equal(await form.locator("button:not([disabled])").count(), 0);
    // Folded to what was sent, as the user read it.
    const sentList = await form.locator(".vault-agent-form-sent li").allInnerTexts();
    assert.ok(sentList.includes("String: Ada Lovelace") && sentList.includes("Boolean: yes"), sentList.join(" | "));
    assert.ok(sentList.includes("Legacy Titled Single Select Enum: Cats") && sentList.includes("Untitled Multiple Select Enum: Guitar, Piano"), sentList.join(" | "));
    await page.locator(".vault-agent-text", { hasText: "Thanks, the server has your details." }).waitFor();

    // The server got the checked answer; the model read only what the server made of it.
    const told = JSON.stringify((await requests(id))[1].body.messages);
    for (const line of ["- Name: Ada Lovelace", "- Agreed to terms: true", "- Email: ada@example.org", "- Favorite Integer: 7"]) {
      assert.ok(told.includes(line), `${line} missing from ${told}`);
    }
    assert.match(told, /Guitar.*Piano|Piano.*Guitar/);
    await setTheme(page, "dark");
    await form.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: `${ARTIFACTS}/mcp-form-sent-dark.png` });
    await setTheme(page, "light");

    // Stopping the task while a form waits cancels it: the card says so and takes no answer.
    await send(page, "Once more, please");
    await page.locator(".modal.vault-agent-approval").waitFor();
    await page.locator('.modal.vault-agent-approval button[data-decision="approve"]').click();
    const second = page.locator(".vault-agent-form").nth(1);
    await second.locator(".vault-agent-form-field").first().waitFor();
    await page.locator(".vault-agent-send", { hasText: "Stop" }).click();
    await second.locator(".vault-agent-form-ended", { hasText: "Cancelled" }).waitFor();
    assert.equal(await second.locator("button:not([disabled])").count(), 0);
    assert.equal((await requests(id)).length, 3, "the model is not asked again after the stop");
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a server asks the user to open a page mid-call; the card shows where it leads, and Open page opens it", async () => {
  const url = "https://pay.example.com/checkout/7?order=1234";
  const { everything, id, page } = await openWithEverything("mcp-page", [
    { toolCalls: [{ id: "u1", name: "mcp__everything__trigger-url-elicitation", arguments: { url, message: "Confirm the payment for your order on the shop's page." } }] },
    { text: "The payment page is open in your browser." },
    { toolCalls: [{ id: "u2", name: "mcp__everything__trigger-url-elicitation", arguments: { url: "http://pay.example.com/plain" } }] },
    { text: "That page could not be offered." },
  ]);
  try {
    // The browser the page opens in: recorded, not opened.
    await page.evaluate(() => {
      window.opened = [];
      window.open = (address) => {
        window.opened.push(String(address));
        return null;
      };
    });
    await send(page, "Pay for my order through the server");
    await page.locator('.modal.vault-agent-approval button[data-decision="approve"]').click();
    const card = page.locator(".vault-agent-form");
    await card.waitFor();
    assert.match(await card.locator(".vault-agent-form-head").innerText(), /The MCP server “everything” asks you to open a page/);
    assert.equal(await card.locator(".vault-agent-form-message").innerText(), "Confirm the payment for your order on the shop's page.");
    // Where it leads on its own, then the whole address; no field, nothing opened yet.
    assert.equal(await card.locator(".vault-agent-form-host").innerText(), "pay.example.com");
    assert.equal(await card.locator(".vault-agent-form-url").innerText(), url);
    assert.equal(await card.locator(".vault-agent-form-field").count(), 0);
    assert.deepEqual(await page.evaluate(() => window.opened), []);
    await card.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await shootLayouts(page, "mcp-page");
    await layout(page, "mobile");
    await assertTouchTargets(page);
    await layout(page, "wide");
    await card.locator("button", { hasText: "Open page" }).click();
    await card.locator(".vault-agent-form-ended", { hasText: "Opened pay.example.com in your browser" }).waitFor();
    assert.deepEqual(await page.evaluate(() => window.opened), [url]);
    await page.locator(".vault-agent-text", { hasText: "The payment page is open in your browser." }).waitFor();
    // The server heard that the user agreed, and the model read what the server made of it.
    assert.match(JSON.stringify((await requests(id))[1].body.messages), /User completed the URL elicitation flow/);

    // A page that is not served over https is never shown: the server's tool fails, and says why.
    await send(page, "Try the other page");
    await page.locator('.modal.vault-agent-approval button[data-decision="approve"]').click();
    await page.locator(".vault-agent-text", { hasText: "That page could not be offered." }).waitFor();
    assert.equal(await page.locator(".vault-agent-form").count(), 1);
    assert.match(JSON.stringify((await requests(id))[3].body.messages), /not served over https/);
    assert.deepEqual(await page.evaluate(() => window.opened), [url]);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a server's prompts join the slash prompts; one that takes values asks for them, then fills the box", async () => {
  const { everything, page } = await openWithEverything("mcp-prompts", [{ text: "unused" }]);
  try {
    await page.locator(".vault-agent-input").pressSequentially("/");
    const row = page.locator(".suggestion-item", { hasText: "Arguments Prompt" });
    await row.waitFor();
    assert.match(await row.innerText(), /Arguments Prompt\s*everything/);
    await layout(page, "narrow");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-prompts-picker-narrow-light.png` });
    await layout(page, "wide");
    await row.click();
    const modal = page.locator(".vault-agent-prompt-arguments");
    await modal.waitFor();
    assert.match(await modal.innerText(), /A prompt with two arguments.*everything/s);
    // A required value left blank is named, and the dialog stays.
    await modal.locator("button", { hasText: "Use prompt" }).click();
    await modal.locator(".vault-agent-form-problem", { hasText: "city: fill this in." }).waitFor();
    await modal.locator("#vault-agent-prompt-arg-city").fill("Paris");
    await modal.locator("#vault-agent-prompt-arg-state").fill("Île-de-France");
    for (const theme of ["light", "dark"]) {
      await setTheme(page, theme);
      await page.screenshot({ path: `${ARTIFACTS}/mcp-prompt-arguments-${theme}.png` });
    }
    await setTheme(page, "light");
    await modal.locator("button", { hasText: "Use prompt" }).click();
    await modal.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.querySelector(".vault-agent-input").value !== "");
    assert.equal(await page.locator(".vault-agent-input").inputValue(), "What's weather in Paris, Île-de-France?");
    // One without values fills the box at once.
    await page.locator(".vault-agent-input").fill("");
    await page.locator(".vault-agent-input").pressSequentially("/");
    await page.locator(".suggestion-item", { hasText: "Simple Prompt" }).click();
    await page.waitForFunction(() => document.querySelector(".vault-agent-input").value !== "");
    assert.match(await page.locator(".vault-agent-input").inputValue(), /simple prompt/i);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: a server's resources join the @ picker; one attached is read into the message, another by the model", async () => {
  const { everything, id, page } = await openWithEverything("mcp-resources", [
    { text: "The server lists its features." },
    { toolCalls: [{ id: "r1", name: "read_mcp_resource", arguments: { server: "everything", uri: "demo://resource/dynamic/text/7" } }] },
    { text: "Resource 7 is a plain text resource." },
  ]);
  try {
    await page.locator(".vault-agent-input").pressSequentially("@");
    const row = page.locator(".suggestion-item", { hasText: "features.md" });
    await row.waitFor();
    assert.match(await row.innerText(), /^features\.md\s+demo:\/\/resource\/static\/document\/features\.md\s+everything$/);
    await layout(page, "narrow");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-resources-picker-narrow-light.png` });
    await setTheme(page, "dark");
    await layout(page, "mobile");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-resources-picker-mobile-dark.png` });
    await setTheme(page, "light");
    await layout(page, "wide");
    await row.click();
    const chip = page.locator(".vault-agent-chips .vault-agent-chip").first();
    await chip.waitFor();
    assert.equal((await chip.innerText()).replace(/\u200e/g, "").trim(), "features.md");
    assert.equal(await chip.getAttribute("title"), "demo://resource/static/document/features.md, from the MCP server “everything”");
    assert.equal(await chip.locator(".vault-agent-chip-icon svg").count(), 1, "the plug icon");
    await page.locator(".vault-agent-input").fill("What does this server offer?");
    await shootLayouts(page, "mcp-resource-chip", { kinds: ["narrow", "mobile"] });
    await page.locator(".vault-agent-send").click();
    await page.locator(".vault-agent-text", { hasText: "The server lists its features." }).waitFor();
    // Read into the message before the task, as data from the server; the request keeps its chip.
    const first = JSON.stringify((await requests(id))[0].body.messages);
    assert.ok(first.includes('<resource server=\\"everything\\" uri=\\"demo://resource/static/document/features.md\\">'), first);
    assert.ok(first.includes("# Everything Server - Features"), first);
    assert.match(first, /<<<data [0-9a-f]{12}>>>\\n\(from the MCP server everything\)/);
    const sentChip = page.locator(".vault-agent-user .vault-agent-chip");
    assert.equal((await sentChip.innerText()).replace(/\u200e/g, "").trim(), "features.md");

    // The model reads another through its tool, with the user's approval.
    await send(page, "And resource 7?");
    const modal = page.locator(".modal.vault-agent-approval");
    await modal.waitFor();
    assert.match(await modal.innerText(), /read_mcp_resource|demo:\/\/resource\/dynamic\/text\/7/);
    await layout(page, "narrow");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-resource-approval-narrow-light.png` });
    await layout(page, "wide");
    await modal.locator('button[data-decision="approve"]').click();
    const card = page.locator('.vault-agent-tool-card[data-tool="read_mcp_resource"].is-done');
    await card.waitFor();
    assert.equal(await card.locator(".vault-agent-tool-label").innerText(), "Read text/7 from everything");
    await page.locator(".vault-agent-text", { hasText: "Resource 7 is a plain text resource." }).waitFor();
    assert.ok(JSON.stringify((await requests(id))[2].body.messages).includes("Resource 7: This is a plaintext resource"));
    await shootLayouts(page, "mcp-resource-read", { kinds: ["wide", "narrow"] });

    // The saved chat shows the attached resource's chip again.
    await page.locator(".vault-agent-new-chat").click();
    await page.locator(".vault-agent-history").click();
    await page.locator(".suggestion-item", { hasText: "What does this server offer?" }).click();
    await page.locator(".vault-agent-user .vault-agent-chip", { hasText: "features.md" }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    everything.kill();
  }
});

test("MCP: signing in to a server that asks for it (OAuth) in the browser, then its tool with the token renewed", async () => {
  const sid = `e2e-${Date.now()}`;
  const id = `e2e-mcp-oauth-${Date.now()}`;
  await script(id, [
    { text: "The notes server wants you to sign in first." },
    { toolCalls: [{ id: "w1", name: "mcp__notes__whoami", arguments: {} }] },
    { text: "You are signed in." },
  ]);
  const url = `${origin}/oauth/${sid}/mcp`;
  const server = { name: "notes", transport: { type: "http", url, headers: [] }, enabled: true, disabledTools: [], trustReadOnly: true };
  const page = await openHost({ mock: id, data: { mcp: { servers: [server] } } });
  const secret = () => page.evaluate(() => window.fakeObsidian.app.secretStorage.getSecret("vault-agent-mcpauth-notes-key"));
  /** Plays the browser: opens the page the plugin opened, agrees, and comes back to Obsidian. */
  const browserSignsIn = async (count) => {
    await until(page, `window.fakeObsidian.opened.length >= ${count}`);
    const opened = await page.evaluate(() => window.fakeObsidian.opened.at(-1));
    assert.ok(opened.startsWith(`${origin}/oauth/${sid}/authorize?`), opened);
    const asked = new URL(opened).searchParams;
    assert.equal(asked.get("redirect_uri"), "obsidian://vault-agent-mcp-auth?vault=Test%20vault");
    assert.equal(asked.get("code_challenge_method"), "S256");
    const back = (await fetch(opened, { redirect: "manual" })).headers.get("location");
    assert.ok(back.startsWith("obsidian://vault-agent-mcp-auth?vault=Test+vault&code="), back);
    await page.evaluate((address) => window.fakeObsidian.openObsidianUrl(address), back);
  };
  try {
    // In the chat: the server asks to sign in; the task goes on without its tools, and the
    // line offers the sign-in.
    await send(page, "Who am I on the notes server?");
    const line = page.locator(".vault-agent-mcp-sign-in-line");
    await line.waitFor();
    assert.match(await line.innerText(), /MCP server notes is not available: .*asks you to sign in/);
    await page.locator(".vault-agent-text", { hasText: "wants you to sign in first" }).waitFor();
    assert.ok((await requests(id))[0].body.tools.every((t) => !t.name.startsWith("mcp__")));
    await page.screenshot({ path: `${ARTIFACTS}/mcp-sign-in-chat-light.png` });
    await line.locator("button", { hasText: "Sign in to notes" }).click();
    await line.locator("button", { hasText: "Waiting for the browser…" }).waitFor();
    await browserSignsIn(1);
    await line.locator(".vault-agent-signed-in", { hasText: "Signed in to notes: ask again to use its tools." }).waitFor();
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-sign-in-chat-dark.png` });
    await setTheme(page, "light");
    const kept = JSON.parse(await secret());
    assert.equal(kept.accessToken, `at-${sid}-1`);

    // The server ends the token early: the chat's next call renews it and the plugin keeps the new one.
    await fetch(`${origin}/oauth/${sid}/expire`, { method: "POST" });
    await send(page, "Who am I now?");
    await page.locator('.vault-agent-tool-card[data-tool="mcp__notes__whoami"].is-done').waitFor();
    await page.locator(".vault-agent-text", { hasText: "You are signed in." }).waitFor();
    const sent = await requests(id);
    assert.ok(JSON.stringify(sent[2].body.messages).includes("signed in as Vault Agent, token 2, scope notes:read"));
    const renewed = JSON.parse(await secret());
    assert.equal(renewed.accessToken, `at-${sid}-2`);
    assert.notEqual(renewed.refreshToken, kept.refreshToken);

    // The settings: signed in, the tools listed; signed out, the test says what to do; signed
    // in again from there.
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const box = page.locator(".vault-agent-settings .vault-agent-mcp-server");
    await box.locator(".setting-item-description", { hasText: "Signed in (notes:read)." }).waitFor();
    await box.locator("button", { hasText: "Test and list tools" }).click();
    await box.locator(".vault-agent-mcp-count", { hasText: "Connected: 1 tool" }).waitFor();
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/mcp-signed-in-light.png` });
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-signed-in-dark.png` });
    await setTheme(page, "light");
    await box.locator("button", { hasText: "Sign out" }).click();
    assert.ok(!(await secret()));
    await box.locator("button", { hasText: "Test and list tools" }).click();
    await box.locator(".vault-agent-mcp-tools .vault-agent-error", { hasText: "asks you to sign in" }).waitFor();
    await box.locator("button", { hasText: "Sign in" }).click();
    await box.locator("button", { hasText: "Waiting for the browser…" }).waitFor();
    await browserSignsIn(2);
    await box.locator(".setting-item-description", { hasText: "Signed in (notes:read)." }).waitFor();
    assert.equal(JSON.parse(await secret()).accessToken, `at-${sid}-3`);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("MCP: a call that needs more access offers the sign-in at once, which asks for it", async () => {
  const sid = `e2e-step-up-${Date.now()}`;
  const id = `e2e-mcp-step-up-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "w1", name: "mcp__notes__whoami", arguments: {} }] },
    { text: "The server wants more access." },
    { toolCalls: [{ id: "w2", name: "mcp__notes__whoami", arguments: {} }] },
    { text: "Now it answered." },
  ]);
  const control = (what, body) => fetch(`${origin}/oauth/${sid}/${what}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  // Listing its tools needs notes:read; calling one needs notes:write too.
  await control("config", { callScope: "notes:write" });
  const url = `${origin}/oauth/${sid}/mcp`;
  const server = { name: "notes", transport: { type: "http", url, headers: [] }, enabled: true, disabledTools: [], trustReadOnly: true };
  const page = await openHost({ mock: id, data: { mcp: { servers: [server] } } });
  /** Plays the browser: opens the page the plugin opened and comes back; the scope it asked for. */
  const browserSignsIn = async (count) => {
    await until(page, `window.fakeObsidian.opened.length >= ${count}`);
    const opened = await page.evaluate(() => window.fakeObsidian.opened.at(-1));
    const back = (await fetch(opened, { redirect: "manual" })).headers.get("location");
    await page.evaluate((address) => window.fakeObsidian.openObsidianUrl(address), back);
    return new URL(opened).searchParams.get("scope");
  };
  try {
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const box = page.locator(".vault-agent-settings .vault-agent-mcp-server");
    await box.locator("button", { hasText: "Sign in" }).click();
    assert.equal(await browserSignsIn(1), "notes:read");
    await box.locator(".setting-item-description", { hasText: "Signed in (notes:read)." }).waitFor();
    await page.locator(".modal.mod-settings .modal-close-button").click();

    await send(page, "Who am I on the notes server?");
    const line = page.locator(".vault-agent-mcp-sign-in-line");
    await line.waitFor();
    assert.match(await line.innerText(), /MCP server notes: the server asks for more access \(notes:read notes:write\) than the sign-in gave: sign in again/);
    await page.locator(".vault-agent-text", { hasText: "The server wants more access." }).waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/mcp-step-up-light.png` });
    // The settings say so too, with the sign-in that asks for it.
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    await box.locator(".setting-item-description", { hasText: "A call needed more access than this sign-in gives (notes:read notes:write): sign in again to grant it." }).waitFor();
    await box.locator("button.mod-cta", { hasText: "Sign in again" }).waitFor();
    await box.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: `${ARTIFACTS}/mcp-step-up-settings-light.png` });
    await page.locator(".modal.mod-settings .modal-close-button").click();
    await line.locator("button", { hasText: "Sign in to notes" }).click();
    assert.equal(await browserSignsIn(2), "notes:read notes:write");
    await line.locator(".vault-agent-signed-in").waitFor();
    await send(page, "And now?");
    await page.locator(".vault-agent-text", { hasText: "Now it answered." }).waitFor();
    const sent = await requests(id);
    assert.match(JSON.stringify(sent[3].body.messages), /scope notes:read notes:write/);
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("MCP: a server that registers no apps is signed in to as the user's own app, given in the settings", async () => {
  const sid = `e2e-app-${Date.now()}`;
  const control = (what, body) => fetch(`${origin}/oauth/${sid}/${what}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await control("config", { noRegistration: true, confidential: true });
  const redirect = "obsidian://vault-agent-mcp-auth?vault=Test%20vault";
  // The user registers an app with the server by hand (its endpoint stands for its page).
  const app = await (await control("register", { client_name: "My Obsidian app", redirect_uris: [redirect] })).json();
  const url = `${origin}/oauth/${sid}/mcp`;
  const server = { name: "notes", transport: { type: "http", url, headers: [] }, enabled: true, disabledTools: [], trustReadOnly: false };
  const page = await openHost({ data: { mcp: { servers: [server] } } });
  try {
    await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
    const box = page.locator(".vault-agent-settings .vault-agent-mcp-server");
    await box.locator("button", { hasText: "Sign in" }).click();
    // Without an app, signing in says what to register, with this vault's redirect URL.
    const problem = box.locator(".vault-agent-mcp-sign-in-error");
    await problem.waitFor();
    assert.match(await problem.innerText(), /registers no new apps .*register an OAuth app there yourself, with obsidian:\/\/vault-agent-mcp-auth\?vault=Test%20vault as its redirect URL/);
    assert.match(await box.locator(".setting-item", { hasText: "Your own sign-in app" }).innerText(), /obsidian:\/\/vault-agent-mcp-auth\?vault=Test%20vault/);
    await box.locator(".vault-agent-mcp-app-id").fill(app.client_id);
    await box.locator(".vault-agent-mcp-app-secret").fill(app.client_secret);
    await box.locator(".setting-item", { hasText: "Your own sign-in app" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/mcp-own-app-light.png` });
    await setTheme(page, "dark");
    await page.screenshot({ path: `${ARTIFACTS}/mcp-own-app-dark.png` });
    await setTheme(page, "light");
    const kept = await page.evaluate(() => window.fakeObsidian.app.secretStorage.getSecret("vault-agent-mcpapp-notes-key"));
    assert.deepEqual(JSON.parse(kept), { clientId: app.client_id, clientSecret: app.client_secret });

    await box.locator("button", { hasText: "Sign in" }).click();
    await until(page, "window.fakeObsidian.opened.length >= 1");
    const opened = await page.evaluate(() => window.fakeObsidian.opened.at(-1));
    assert.equal(new URL(opened).searchParams.get("client_id"), app.client_id);
    const back = (await fetch(opened, { redirect: "manual" })).headers.get("location");
    await page.evaluate((address) => window.fakeObsidian.openObsidianUrl(address), back);
    await box.locator(".setting-item-description", { hasText: /^Signed in/ }).waitFor();
    const signedIn = JSON.parse(await page.evaluate(() => window.fakeObsidian.app.secretStorage.getSecret("vault-agent-mcpauth-notes-key")));
    assert.equal(signedIn.client.clientId, app.client_id);
    assert.equal(signedIn.client.authMethod, "client_secret_basic");
    await box.locator("button", { hasText: "Test and list tools" }).click();
    await box.locator(".vault-agent-mcp-count", { hasText: "Connected: 1 tool" }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

test("an approval can keep some changes of a note and turn the others down", async () => {
  const id = `e2e-hunks-${Date.now()}`;
  const old = Array.from({ length: 30 }, (_, i) => `Line ${i + 1}.`).join("\n") + "\n";
  const changed = old.replace("Line 2.", "Line two.").replace("Line 28.", "Line twenty-eight.");
  await script(id, [
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "Long.md" } }] },
    { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "Long.md", content: changed } }] },
    { text: "Done." },
  ]);
  const page = await openHost({ mock: id, files: { ...NOTES, "Long.md": old } });
  await send(page, "Spell out two of the numbers");
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  const boxes = modal.locator(".vault-agent-hunk-toggle input");
  assert.equal(await boxes.count(), 2);
  await boxes.nth(0).uncheck();
  const approve = modal.locator('button[data-decision="approve"]');
  assert.equal(await approve.innerText(), "Apply 1 of 2 changes");
  await page.screenshot({ path: `${ARTIFACTS}/approval-hunks-light.png` });
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/approval-hunks-dark.png` });
  await approve.click();
  await page.locator(".vault-agent-text", { hasText: "Done." }).waitFor();
  assert.equal(await read(page, "Long.md"), old.replace("Line 28.", "Line twenty-eight."));
  const sent = await requests(id);
  assert.match(JSON.stringify(sent[2].body.messages), /Only 1 of the 2 changes were applied/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("web_fetch: a page is asked for, fetched through the host, and read as Markdown marked as data", async () => {
  const id = `e2e-web-${Date.now()}`;
  const url = `${origin}/pages/recipe`;
  await script(id, [{ toolCalls: [{ id: "f1", name: "web_fetch", arguments: { url } }] }, { text: "Bake it at 250 °C." }]);
  const page = await openHost({ mock: id });
  await send(page, "What does the recipe page say?");
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  assert.equal(await modal.locator(".modal-title").innerText(), "Fetch this page?");
  assert.equal(await modal.locator(".vault-agent-approval-summary").innerText(), `Fetch ${url}`);
  await page.screenshot({ path: `${ARTIFACTS}/web-approval-light.png` });
  await modal.locator('button[data-decision="approve"]').click();
  await page.locator('.vault-agent-tool-card[data-tool="web_fetch"].is-done').waitFor();
  await page.locator(".vault-agent-text", { hasText: "Bake it at 250 °C." }).waitFor();
  const told = JSON.stringify((await requests(id))[1].body.messages);
  // Converted on the main thread by the host's htmlToMarkdown: the fake host's is turndown with
  // its defaults (setext headings); Obsidian's writes `# Sourdough`.
  assert.match(told, /# Sourdough|Sourdough\\n=+/);
  assert.match(told, /Bake at \*\*250 °C\*\* for 40 minutes/);
  assert.match(told, /flour/);
  assert.doesNotMatch(told, /track\(\)/);
  assert.match(told, /<<<data [0-9a-f]{12}>>>/);
  await setTheme(page, "dark");
  await page.screenshot({ path: `${ARTIFACTS}/web-card-dark.png` });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("@ a web address attaches the page: read when sent, through the host, as data; the saved chat keeps its chip", async () => {
  const id = `e2e-web-attach-${Date.now()}`;
  const url = `${origin}/pages/recipe`;
  await script(id, [{ text: "It bakes at 250 °C." }]);
  const page = await openHost({ mock: id });
  await page.locator(".vault-agent-input").pressSequentially("@");
  await page.locator(".prompt-input").fill(url);
  const row = page.locator(".suggestion-item").first();
  assert.match(await row.innerText(), new RegExp(`^Attach the web page ${url.replace(/[.?/]/g, "\\$&")}\\s*web$`));
  await page.keyboard.press("Enter");
  const chip = page.locator(".vault-agent-composer .vault-agent-chip");
  await chip.waitFor();
  assert.equal((await chip.innerText()).replace(/\u200e/g, "").trim(), url.replace(/^http:\/\//, ""));
  assert.equal(await chip.getAttribute("title"), url);
  await page.locator(".vault-agent-input").fill("How hot does it bake?");
  await shootLayouts(page, "attach-web", { kinds: ["narrow", "mobile"] });
  await page.locator(".vault-agent-send").click();
  await page.locator(".vault-agent-text", { hasText: "It bakes at 250 °C." }).waitFor();
  // No approval: the user chose the page. It went as data, converted by the host.
  assert.equal(await page.locator(".modal.vault-agent-approval").count(), 0);
  const told = JSON.stringify((await requests(id))[0].body.messages);
  assert.ok(told.includes(`<page url=\\"${url}\\">`), told);
  assert.match(told, /<<<data [0-9a-f]{12}>>>\\n\(from the web\)/);
  assert.match(told, /Bake at \*\*250 °C\*\* for 40 minutes/);
  await page.locator(".vault-agent-user .vault-agent-chip", { hasText: "/pages/recipe" }).waitFor();
  await page.locator(".vault-agent-new-chat").click();
  await page.locator(".vault-agent-history").click();
  await page.locator(".suggestion-item", { hasText: "How hot does it bake?" }).click();
  await page.locator(".vault-agent-user .vault-agent-chip", { hasText: "/pages/recipe" }).waitFor();
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("web_search: the engine set up in the settings is asked after the user approves; the results reach the model as data", async () => {
  const id = `e2e-search-${Date.now()}`;
  const body = {
    responses: [{ toolCalls: [{ id: "s1", name: "web_search", arguments: { query: "sourdough hydration" } }] }, { text: "About 75 % water." }],
    searchResults: [{ title: "Sourdough hydration explained", url: "https://bread.example/hydration", content: "Most loaves use <b>70–80 %</b> water." }],
  };
  assert.equal((await fetch(`${origin}/mock/${id}/script`, { method: "POST", body: JSON.stringify(body) })).status, 200);
  const page = await openHost({ mock: id, data: { webSearch: { engine: "searxng", baseUrl: `${origin}/mock/${id}/searx` } } });
  // The settings show the engine chosen and its address.
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  assert.equal(await settingRow(settings, "SearXNG address").locator("input").inputValue(), `${origin}/mock/${id}/searx`);
  const test = settingRow(settings, "Test web search");
  await test.locator("button").click();
  await test.locator(".vault-agent-test-result.is-ok", { hasText: "SearXNG works: 1 result for “obsidian”." }).waitFor();
  await settings.locator(".setting-item-heading", { hasText: "Web search" }).evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: `${ARTIFACTS}/web-search-settings.png` });
  await page.keyboard.press("Escape");
  await send(page, "How wet is sourdough?");
  const modal = page.locator(".modal.vault-agent-approval");
  await modal.waitFor();
  assert.equal(await modal.locator(".modal-title").innerText(), "Search the web?");
  assert.equal(await modal.locator(".vault-agent-approval-summary").innerText(), "Search the web for ‘sourdough hydration’: the query leaves the vault");
  await modal.locator('button[data-decision="approve"]').click();
  const card = page.locator('.vault-agent-tool-card[data-tool="web_search"].is-done');
  await card.waitFor();
  assert.match(await card.innerText(), /Searched the web for ‘sourdough hydration’/);
  await page.locator(".vault-agent-text", { hasText: "About 75 % water." }).waitFor();
  const sent = await requests(id);
  const searches = sent.filter((r) => r.method === "GET").map((r) => r.path);
  assert.deepEqual(searches, [`/mock/${id}/searx/search?q=obsidian&format=json`, `/mock/${id}/searx/search?q=sourdough%20hydration&format=json`]);
  const told = JSON.stringify(sent.filter((r) => r.method === "POST")[1].body.messages);
  assert.match(told, /SearXNG results for ‘sourdough hydration’/);
  assert.match(told, /Most loaves use 70–80 % water\./);
  assert.match(told, /<<<data [0-9a-f]{12}>>>/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

/** Pastes the image file `name` (from tests/fixtures/) into the chat's input, as a user would. */
async function pasteImage(page, name) {
  const bytes = [...readFileSync(`tests/fixtures/${name}`)];
  await page.evaluate(
    ({ bytes, name }) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name, { type: "image/png" }));
      document.querySelector(".vault-agent-input").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    },
    { bytes, name },
  );
}

test("images and PDFs: a pasted image and an @-mentioned PDF reach the model; a model that cannot see is said so", async () => {
  const id = `e2e-media-${Date.now()}`;
  await script(id, [
    { toolCalls: [{ id: "img1", name: "read_file", arguments: { path: "Charts/q2.png" } }] },
    { text: "The chart shows blue ahead of red; the report says revenue grew 12 %." },
  ]);
  const page = await openHost({ mock: id });
  const pdf = [...readFileSync("tests/fixtures/report.pdf")];
  const png = [...readFileSync("tests/fixtures/chart.png")];
  await page.evaluate(
    ([pdf, png]) => {
      window.fakeObsidian.app.vault.createBinary("Reports/Q3 report.pdf", new Uint8Array(pdf).buffer);
      window.fakeObsidian.app.vault.createBinary("Charts/q2.png", new Uint8Array(png).buffer);
    },
    [pdf, png],
  );
  // A pasted image is kept in the plugin's folder and shows as a thumbnail chip.
  await pasteImage(page, "chart.png");
  const imageChip = page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "chart.png" });
  await imageChip.locator("img.vault-agent-thumb").waitFor();
  const kept = await imageChip.getAttribute("title");
  assert.match(kept, /^\.obsidian-agent\/attachments\/\d{8}-\d{6}-chart\.png$/);
  assert.ok(await page.evaluate((p) => window.fakeObsidian.exists(p), kept));
  // @ lists PDFs and images next to the notes.
  await page.locator(".vault-agent-input").fill("What do these say? ");
  await page.locator(".vault-agent-input").pressSequentially("@");
  await page.locator(".prompt-input").fill("q3 report");
  await page.keyboard.press("Enter");
  await page.locator(".vault-agent-composer .vault-agent-chip", { hasText: "Reports/Q3 report.pdf" }).waitFor();
  assert.equal(await page.locator(".vault-agent-media-note").count(), 0);
  await page.locator(".vault-agent-send").click();
  await page.locator(".vault-agent-text", { hasText: "revenue grew" }).waitFor();
  const [request] = await requests(id);
  const content = request.body.messages[0].content;
  const image = content.find((b) => b.type === "image");
  assert.equal(image.source.media_type, "image/png");
  assert.equal(image.source.data, readFileSync("tests/fixtures/chart.png").toString("base64"));
  const pdfBlock = content.find((b) => b.type === "document");
  assert.equal(pdfBlock.title, "Q3 report.pdf");
  assert.equal(pdfBlock.source.data, readFileSync("tests/fixtures/report.pdf").toString("base64"));
  assert.match(content[0].text, /<note path="Reports\/Q3 report.pdf">\n\[A PDF: the document follows this text.\]/);
  // read_file on an image gives the model the image, after the call's result.
  const [, second] = await requests(id);
  const results = second.body.messages.at(-1).content;
  assert.deepEqual(results.map((b) => b.type), ["tool_result", "image"]);
  assert.equal(results[1].source.data, readFileSync("tests/fixtures/chart.png").toString("base64"));
  // The sent message shows the image itself.
  const shown = page.locator(".vault-agent-user img.vault-agent-thumb");
  await shown.waitFor();
  await until(page, () => document.querySelector(".vault-agent-user img.vault-agent-thumb")?.naturalWidth > 0);
  await shootLayouts(page, "image-message");
  assert.deepEqual(page.errors, []);
  await page.close();

  // A model set to text only: the chat says so before sending, and the model is told, not sent, the image.
  const blindId = `e2e-media-blind-${Date.now()}`;
  await script(blindId, [{ text: "I cannot see images." }]);
  const blind = await openHost({ mock: blindId, data: { provider: { vision: "no" } }, mobile: true });
  await pasteImage(blind, "chart.png");
  await blind.locator(".vault-agent-media-note", { hasText: "cannot see images" }).waitFor();
  await blind.screenshot({ path: `${ARTIFACTS}/chat-image-blind-mobile-light.png` });
  await send(blind, "What is in it?");
  await blind.locator(".vault-agent-text", { hasText: "cannot see" }).waitFor();
  const [sent] = await requests(blindId);
  assert.ok(!sent.body.messages[0].content.some((b) => b.type === "image"));
  assert.match(sent.body.messages[0].content[0].text, /not shown, because this model cannot see images/);
  assert.deepEqual(blind.errors, []);
  await blind.close();

  // A local model behind a compatible server reads no PDFs: it gets the PDF's text, read on the
  // main thread with (Obsidian's) PDF.js.
  const localId = `e2e-media-local-${Date.now()}`;
  await script(localId, [{ text: "Revenue grew by twelve percent." }]);
  const local = await openHost({
    mock: localId,
    data: { provider: { preset: "custom", model: "qwen2.5:7b", baseUrl: `${origin}/mock/${localId}/openai/v1` } },
  });
  await local.evaluate((bytes) => window.fakeObsidian.app.vault.createBinary("Reports/Q3 report.pdf", new Uint8Array(bytes).buffer), pdf);
  await local.locator(".vault-agent-input").fill("What grew? ");
  await local.locator(".vault-agent-input").pressSequentially("@");
  await local.locator(".prompt-input").fill("q3 report");
  await local.keyboard.press("Enter");
  await local.locator(".vault-agent-send").click();
  await local.locator(".vault-agent-text", { hasText: "twelve percent" }).waitFor();
  const [asked] = await requests(localId);
  const user = asked.body.messages.find((m) => m.role === "user");
  assert.equal(typeof user.content, "string", "text only: no file part for a compatible server");
  assert.match(user.content, /<note path="Reports\/Q3 report.pdf">\n--- page 1 ---\nQuarterly revenue grew by twelve percent.\n--- page 2 ---\nThe Kyoto office opens in March./);
  assert.deepEqual(local.errors, []);
  await local.close();
});

test("stopping a streaming answer ends its request: eight stops in a row, then a ninth answer still comes", async () => {
  const id = `e2e-stops-${Date.now()}`;
  const held = Array.from({ length: 8 }, (_, i) => ({ text: `Held answer ${i} goes on and on.`, hold: true }));
  await script(id, [...held, { text: "The ninth answer arrives." }]);
  const page = await openHost({ mock: id });
  for (let i = 0; i < 8; i++) {
    await send(page, `question ${i}`);
    await page.locator(".vault-agent-text", { hasText: `Held a` }).nth(i).waitFor();
    await page.locator(".vault-agent-send", { hasText: "Stop" }).click();
    await page.locator(".vault-agent-end", { hasText: "Stopped" }).nth(i).waitFor();
  }
  // A browser keeps six connections a host: had the stopped requests stayed open, this one would wait.
  await send(page, "one more");
  await page.locator(".vault-agent-text", { hasText: "The ninth answer arrives." }).waitFor({ timeout: 15_000 });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("MiniLM reads the searches for the static model: the settings download it and its map, the notes keep the static vectors, a paraphrase is found", async () => {
  const { files } = await (await fetch(`${origin}/vault/bundle?prefix=en/Plugins/`)).json();
  const count = Object.keys(files).length;
  const page = await openHost({ files, data: { semantic: { embedder: "static-minilm", modelBaseUrl: `${origin}/models` } } });
  await page.locator(".vault-agent-index-status", { hasText: `Search index: ${count} notes` }).waitFor();
  await page.evaluate(() => window.fakeObsidian.app.setting.openTabById("vault-agent"));
  const settings = page.locator(".vault-agent-settings");
  const status = settings.locator(".vault-agent-embedding-status");

  // Two downloads: the static model for the notes, then MiniLM and its map for the searches.
  await settings.locator("button.vault-agent-model-download", { hasText: "Download model (8 MB)" }).click();
  await settings.locator("button.vault-agent-model-download", { hasText: "Installed" }).waitFor();
  await status.filter({ hasText: "No model yet" }).waitFor();
  assert.equal(await page.evaluate(() => window.fakeObsidian.exists(".obsidian-agent/index/vectors.bin")), false, "nothing embedded without MiniLM");
  await settings.locator("button.vault-agent-model-download", { hasText: "Download model (91 MB)" }).click();
  await settings.locator(".vault-agent-model-result.is-ok", { hasText: "Downloaded and checked." }).nth(1).waitFor({ timeout: 60_000 });
  assert.equal(await settings.locator("button.vault-agent-model-download", { hasText: "Installed" }).count(), 2);
  await status.filter({ hasText: `${count}/${count} notes embedded.` }).waitFor({ timeout: 60_000 });
  for (const file of ["all-MiniLM-L6-v2/model.safetensors", "static-minilm-l6-v2-256/minilm-queries-256.vaqm"]) {
    assert.ok(await page.evaluate((p) => window.fakeObsidian.exists(p), `.obsidian-agent/models/${file}`), file);
  }
  await page.locator(".vault-agent-model-result.is-ok").nth(1).scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/settings-minilm-queries-light.png` });
  await page.keyboard.press("Escape");

  // The search window finds a paraphrase by meaning.
  await page.locator(".vault-agent-search").click();
  const modal = page.locator(".vault-agent-search-modal");
  await modal.locator('.vault-agent-search-mode[data-mode="semantic"]').click();
  await modal.locator(".prompt-input").fill("capture voice memos");
  const recorder = modal.locator(".suggestion-item", { has: page.locator(".vault-agent-search-result-path", { hasText: "en/Plugins/Audio recorder.md" }) });
  await recorder.waitFor();
  await page.keyboard.press("Escape");

  // The notes' vectors are the static model's own: switching to it embeds nothing again, and the
  // same search scores differently there (MiniLM no longer reads it).
  const compared = await page.evaluate(async () => {
    const engine = window.fakeObsidian.plugin.search.engine;
    const search = async () => (await engine.searchMode({ text: "capture voice memos", mode: "semantic", limit: 3 })).map((h) => [h.path, h.score]);
    const read = await search();
    const set = await engine.setEmbedder({ kind: "static" });
    const report = await engine.embedNotes();
    return { read, set, report, own: await search() };
  });
  assert.equal(compared.set.id, "static-minilm-l6-v2-256@2");
  assert.equal(compared.report.embeddedNotes, 0);
  assert.ok(compared.read[0][1] !== compared.own[0][1], JSON.stringify(compared));
  assert.deepEqual(page.errors, []);
  await page.close();
});
