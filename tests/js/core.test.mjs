// The channel between the plugin's main thread and its core (js/core/): the client and the
// server connected by the in-thread transport the plugin falls back to where no worker can be
// made, over a fake core module. The real core through a real worker runs in the e2e.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load } from "./load.mjs";

const { CoreClient } = await load("js/core/client.ts", "");
const { serveCore } = await load("js/core/server.ts", "");
const { directPorts } = await load("js/core/port.ts", "");

/** A fake wasm-bindgen object: what the server keeps as a handle. */
class Handle {
  __wbg_ptr = 1;
  freed = false;
  constructor(methods) {
    Object.assign(this, methods);
  }
  free() {
    this.freed = true;
  }
}

/** A core module whose core reads the vault and calls back, as the wasm one does. */
function fakeModule(made) {
  return {
    start: async () => "9.9.9",
    open(host, request) {
      const core = new Handle({
        echo: (value) => value,
        readTwo: async (a, b) => host.readBatch([a, b]),
        stat: (path) => host.stat(path),
        fail: () => {
          const error = new Error("nope: a.md");
          error.code = "ENOENT";
          throw error;
        },
        progress: async (onProgress) => {
          for (let i = 1; i <= 3; i++) onProgress(i, 3);
          return "done";
        },
        chat: (onEvent) => {
          const chat = new Handle({ say: (text) => void onEvent({ type: "text_delta", text }) });
          made.push(chat);
          return chat;
        },
        fetch: (url) => request({ method: "GET", url, headers: {} }),
        // What the core's stdio transport does: start a command, write a line, read lines.
        askCommand: async (command, args, line) => {
          const id = await host.processStart(command, args, {});
          await host.processSend(id, line);
          let answer;
          do answer = await host.processRead(id);
          while (answer !== null && !answer.startsWith("{"));
          await host.processClose(id);
          return answer;
        },
        bytes: (data) => data.length,
      });
      made.push(core);
      return core;
    },
  };
}

function connect(host, request) {
  const made = [];
  const [mainSide, coreSide] = directPorts();
  serveCore(coreSide, fakeModule(made));
  const client = new CoreClient(mainSide);
  return { client, made, open: async () => (await client.start("packed")) && client.open({ host, request }) };
}

const VAULT = { "a.md": "alpha", "b.md": "beta" };
const memoryHost = () => ({
  read: async (path) => {
    if (!(path in VAULT)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    return VAULT[path];
  },
  stat: async (path) => (path in VAULT ? { kind: "file", size: VAULT[path].length, mtime: 7 } : null),
});

test("calls answer with values, and errors keep their vault code", async () => {
  const { client, open } = connect(memoryHost());
  assert.equal(await client.start("packed"), "9.9.9");
  const core = await open();
  assert.deepEqual(await core.echo({ nested: [1, "two"] }), { nested: [1, "two"] });
  assert.equal(await core.bytes(new Uint8Array([1, 2, 3])), 3);
  await assert.rejects(core.fail(), (error) => error.message === "nope: a.md" && error.code === "ENOENT");
  await assert.rejects(core.missing(), /no method missing/);
});

test("the core reads the vault through the host, a batch in one call, each path's failure its own", async () => {
  const { open } = connect(memoryHost());
  const core = await open();
  // The host has no readBatch: the client answers it from read and stat.
  assert.deepEqual(await core.readTwo("a.md", "gone.md"), [
    { text: "alpha", mtime: 7 },
    { error: "ENOENT: gone.md", code: "ENOENT" },
  ]);
  assert.deepEqual(await core.stat("b.md"), { kind: "file", size: 4, mtime: 7 });
  // A host with its own readBatch answers it in one call.
  const calls = [];
  const batched = { ...memoryHost(), readBatch: async (paths) => (calls.push(paths), paths.map((p) => ({ text: p, mtime: 1 }))) };
  const other = await connect(batched).open();
  assert.deepEqual(await other.readTwo("x.md", "y.md"), [{ text: "x.md", mtime: 1 }, { text: "y.md", mtime: 1 }]);
  assert.deepEqual(calls, [["x.md", "y.md"]]);
});

test("a batch's bytes move to the core's thread: the host's buffers are gone, a view on part of one is copied", async () => {
  // A real channel, as between the plugin and its worker: what is transferred is detached here.
  const { port1, port2 } = new MessageChannel();
  const port = (end) => ({ post: (message, transfer) => end.postMessage(message, transfer ?? []), listen: (handler) => end.on("message", handler) });
  serveCore(port(port2), fakeModule([]));
  const client = new CoreClient(port(port1));
  const answered = [];
  const shared = new Uint8Array([104, 105, 33, 33]);
  const host = {
    ...memoryHost(),
    readBatch: async (paths) => {
      const reads = paths.map((p) => (p === "part.md" ? { bytes: shared.subarray(0, 2), mtime: 2 } : { bytes: new TextEncoder().encode(p), mtime: 1 }));
      answered.push(...reads.map((r) => r.bytes));
      return reads;
    },
  };
  try {
    await client.start("packed");
    const core = await client.open({ host });
    const [whole, part] = await core.readTwo("x.md", "part.md");
    assert.deepEqual([...whole.bytes], [...new TextEncoder().encode("x.md")]);
    assert.deepEqual([...part.bytes], [104, 105]);
    assert.equal(answered[0].byteLength, 0, "the note's own buffer moved");
    assert.equal(shared.byteLength, 4, "a buffer the note is only part of stays");
  } finally {
    client.close("done");
    port1.close();
  }
});

test("callbacks cross in order, and live as long as the object that calls them", async () => {
  const { client, made, open } = connect(memoryHost());
  const core = await open();
  const seen = [];
  assert.equal(await core.progress((done, total) => seen.push(`${done}/${total}`)), "done");
  assert.deepEqual(seen, ["1/3", "2/3", "3/3"]);
  // A call's callbacks end with it.
  assert.equal(client.callbacks.size, 0);

  const events = [];
  const chat = await core.chat((event) => events.push(event.text));
  // Not a promise, though every method is a call.
  assert.equal(typeof chat.then, "undefined");
  await chat.say("hello");
  await chat.say("again");
  assert.deepEqual(events, ["hello", "again"]);
  chat.free();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.ok(made.at(-1).freed, "the core frees what the client lets go");
  assert.equal(client.callbacks.size, 0);
  await assert.rejects(chat.say("after"), /gone/);
});

test("requests go through the main thread's transport; a closed client fails every call", async () => {
  const urls = [];
  const request = async (req) => (urls.push(req.url), { status: 200, headers: {}, body: new ArrayBuffer(2) });
  const { client, open } = connect(memoryHost(), request);
  const core = await open();
  const response = await core.fetch("https://example.test/model");
  assert.equal(response.status, 200);
  assert.deepEqual(urls, ["https://example.test/model"]);
  // A call in flight when the core ends fails with the reason, as do later ones.
  const pending = core.echo(1);
  client.close("the core was stopped");
  await assert.rejects(pending, /stopped/);
  await assert.rejects(core.echo(2), /stopped/);
});

test("a command the core starts runs on the main thread (desktop): lines cross both ways; without one, desktop only", async () => {
  // The desktop app's window has Node's require; node's own stands in for it.
  const { createRequire } = await import("node:module");
  globalThis.window = { require: createRequire(import.meta.url), process, setTimeout };
  const { Processes } = await load("js/host/processes.ts", "");
  const processes = new Processes();
  const host = {
    ...memoryHost(),
    processStart: (c, a, e) => processes.start(c, a, e),
    processSend: (id, line) => processes.send(id, line),
    processRead: (id) => processes.read(id),
    processClose: (id) => processes.close(id),
  };
  const core = await connect(host).open();
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
  const answer = JSON.parse(await core.askCommand(process.execPath, [everything, "stdio"], initialize));
  assert.equal(answer.id, 1);
  assert.equal(answer.result.serverInfo.name, "mcp-servers/everything");
  // A command that cannot start says so.
  await assert.rejects(core.askCommand("/no/such/program", [], "{}"), /cannot start \/no\/such\/program/);
  // A host without processes (mobile) refuses.
  const mobile = await connect(memoryHost()).open();
  await assert.rejects(mobile.askCommand("node", [], "{}"), /desktop only|not a function/);
  processes.closeAll();
  delete globalThis.window;
});
