// Browser side of `npm run bench:semantic`: the release wasm SearchEngine embeds notes with the
// static model and with MiniLM (through the same background job the plugin runs: read, parse,
// chunk, embed, yield), and answers semantic queries over ~50,000 chunk vectors. Called by
// bench/semantic.mjs through Playwright, once per wasm build (with and without simd128).
import { BenchHost } from "./host.mjs";

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.round((s.length - 1) * p)];
};
const bytes = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());
const json = async (url) => (await fetch(url)).json();

async function engineOver(SearchEngine, files, models) {
  const host = new BenchHost(files);
  for (const [p, data] of Object.entries(models)) await host.writeBinary(p, data);
  return new SearchEngine(host);
}

async function embedAll(engine) {
  const start = performance.now();
  const report = await engine.embedNotes();
  const ms = performance.now() - start;
  return { notes: report.notes, chunks: report.chunks, ms, chunksPerS: report.chunks / (ms / 1000) };
}

export async function runSemantic(pkg) {
  const { default: init, SearchEngine } = await import(`../target/${pkg}/vault_agent.js`);
  const wasm = await init({ module_or_path: `../target/${pkg}/vault_agent_bg.wasm` });
  const out = { pkg };
  const staticModel = {
    ".obsidian-agent/models/static-minilm-l6-v2-256/static-minilm-l6-v2-256.vam": await bytes("../models/static-minilm-l6-v2-256.vam"),
  };
  const minilm = {};
  for (const f of ["model.safetensors", "vocab.txt", "config.json"]) {
    minilm[`.obsidian-agent/models/all-MiniLM-L6-v2/${f}`] = await bytes(`/minilm/${f}`);
  }
  const { files: en } = await json("../target/bench/semantic-en.json");
  const { files: real } = await json("../target/bench/real.json");

  // Static model: the English notes, then the whole sample vault.
  let engine = await engineOver(SearchEngine, en, staticModel);
  await engine.setEmbedder({ kind: "static" });
  out.staticEn = await embedAll(engine);
  engine.free();
  engine = await engineOver(SearchEngine, real, staticModel);
  await engine.setEmbedder({ kind: "static" });
  out.staticReal = await embedAll(engine);
  engine.free();

  // MiniLM on the first English notes, inputs cut at 128 and at 256 tokens.
  const few = Object.fromEntries(Object.entries(en).slice(0, 12));
  for (const maxTokens of [128, 256]) {
    engine = await engineOver(SearchEngine, few, minilm);
    await engine.setEmbedder({ kind: "minilm", maxTokens });
    out[`minilm${maxTokens}`] = await embedAll(engine);
    engine.free();
  }

  // Query latency over ~50,000 chunk vectors: the generated corpus embedded with the static
  // model (f32 and int8), then semantic queries (embedding the query included).
  const { files: gen } = await json("../target/bench/gen50k.json");
  const queries = (await json("../target/bench/queries-gen50k.json")).map((q) => (typeof q === "string" ? q : q.text ?? q.query));
  for (const precision of ["f32", "int8"]) {
    engine = await engineOver(SearchEngine, gen, staticModel);
    await engine.setEmbedder({ kind: "static", precision });
    const embedded = await embedAll(engine);
    const times = [];
    for (const [i, q] of queries.slice(0, 220).entries()) {
      const t = performance.now();
      await engine.searchMode({ text: q, mode: "semantic", limit: 10 });
      if (i >= 20) times.push(performance.now() - t);
    }
    out[`gen50k_${precision}`] = { ...embedded, p50: pct(times, 0.5), p99: pct(times, 0.99) };
    engine.free();
  }
  out.memoryMb = wasm.memory.buffer.byteLength / 2 ** 20;
  return out;
}
