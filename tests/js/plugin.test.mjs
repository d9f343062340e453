// Loads the built main.js (with its inlined wasm core) against a stand-in `obsidian` module.
// Run after `npm run bundle`: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import Module from "node:module";

const require = createRequire(import.meta.url);
const fake = require("./fake-obsidian.cjs");
const originalLoad = Module._load;
Module._load = function (request, ...rest) {
  return request === "obsidian" ? fake : originalLoad.call(this, request, ...rest);
};

const manifest = JSON.parse(readFileSync(new URL("../../manifest.json", import.meta.url), "utf8"));
const { default: VaultAgentPlugin } = require("../../main.js");

async function settle(predicate) {
  for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 10));
}

test("main.js loads the inlined wasm core and reports its version and the vault's notes", async () => {
  const app = new fake.App({ "a.md": "# A", "Folder/b.md": "# B", "Folder/c.png": "x", ".obsidian/app.md": "{}" });
  const plugin = new VaultAgentPlugin(app, manifest);
  await plugin.onload();
  await settle(() => fake.notices.length > 0);
  assert.equal(fake.notices.at(-1), `Vault Agent ${manifest.version} is ready (2 notes).`);
  assert.ok(plugin.commands.some((c) => c.id === "show-core-status"));
});

test("the core starts once, however often it is asked", async () => {
  const before = fake.notices.length;
  const app = new fake.App({ "x.md": "x" });
  const plugin = new VaultAgentPlugin(app, manifest);
  await plugin.onload();
  plugin.commands[0].callback();
  await settle(() => fake.notices.length >= before + 2);
  assert.deepEqual(fake.notices.slice(before), [
    `Vault Agent ${manifest.version} is ready (1 notes).`,
    `Vault Agent ${manifest.version} is ready (1 notes).`,
  ]);
});

test("the manifest is what Obsidian needs", () => {
  assert.equal(manifest.id, "vault-agent");
  assert.equal(manifest.name, "Vault Agent");
  assert.equal(manifest.isDesktopOnly, false);
  assert.match(manifest.minAppVersion, /^\d+\.\d+\.\d+$/);
  assert.ok(manifest.description.length > 20);
});
