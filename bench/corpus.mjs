// Benchmark corpora and queries, written to target/bench/ (deterministic: same output every run).
//   real.json      {"files": {path: text}}  the sample vault's notes (hidden folders skipped)
//   gen50k.json    {"files": {path: text}}  50,000 notes generated from the real vault's text
//   queries-real.json, queries-gen50k.json   ["query", ...]  210 queries each
// Usage: node bench/corpus.mjs   (the vault is $VAULT_AGENT_VAULT or ../shared/vaults/obsidian-help)
import { readdir, readFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = process.env.VAULT_AGENT_VAULT || path.resolve(repo, "../shared/vaults/obsidian-help");
const out = path.join(repo, "target/bench");

// mulberry32: a tiny seeded PRNG, so the generated vault and the queries never change.
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function walk(dir, prefix, acc) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith(".")) continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) await walk(path.join(dir, e.name), rel, acc);
    else if (e.name.endsWith(".md")) acc.push(rel);
  }
  return acc;
}

const stripFrontmatter = (t) => t.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, "");
const titleOf = (p) => p.split("/").pop().replace(/\.md$/, "");

export async function loadReal() {
  const files = {};
  for (const rel of (await walk(root, "", [])).sort()) files[rel] = await readFile(path.join(root, rel), "utf8");
  return files;
}

/** 50,000 notes: a title from a real note plus a number, 2–5 paragraphs drawn from the whole vault. */
export function generate(real, count = 50_000) {
  const rand = rng(42);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const paragraphs = [];
  const titles = [];
  for (const [p, text] of Object.entries(real)) {
    titles.push(titleOf(p));
    for (const para of stripFrontmatter(text).split(/\n\s*\n/)) if (para.trim().length > 40) paragraphs.push(para.trim());
  }
  const files = {};
  for (let i = 0; i < count; i++) {
    const title = `${pick(titles)} ${i}`;
    const n = 2 + Math.floor(rand() * 4);
    const body = Array.from({ length: n }, () => pick(paragraphs)).join("\n\n");
    const tag = `#gen/t${Math.floor(rand() * 50)}`;
    files[`gen/f${String(i % 100).padStart(2, "0")}/${title.replace(/[\\/:]/g, " ")}.md`] = `# ${title}\n\n${body}\n\n${tag}\n`;
  }
  return files;
}

/** 210 queries: 80 titles, 40 headings, 40 body words, 50 titles with a typo (two letters swapped). */
export function queries(files, seed) {
  const rand = rng(seed);
  const paths = Object.keys(files);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const out = [];
  for (let i = 0; i < 80; i++) out.push(titleOf(pick(paths)).replace(/ \d+$/, ""));
  const headings = [];
  for (const p of paths.slice(0, 3000)) for (const m of files[p].matchAll(/^#{2,3} (.+)$/gm)) headings.push(m[1].trim());
  for (let i = 0; i < 40; i++) out.push(pick(headings));
  for (let i = 0; i < 40; i++) {
    const words = stripFrontmatter(files[pick(paths)]).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4);
    out.push(words.length ? pick(words) : "obsidian");
  }
  let typos = 0;
  while (typos < 50) {
    const words = titleOf(pick(paths)).split(/\s+/).filter((w) => /^[A-Za-z]{5,}$/.test(w));
    if (!words.length) continue;
    const w = pick(words);
    const i = 1 + Math.floor(rand() * (w.length - 2));
    out.push(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2));
    typos++;
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await mkdir(out, { recursive: true });
  const real = await loadReal();
  const gen = generate(real);
  await writeFile(path.join(out, "real.json"), JSON.stringify({ files: real }));
  await writeFile(path.join(out, "gen50k.json"), JSON.stringify({ files: gen }));
  await writeFile(path.join(out, "queries-real.json"), JSON.stringify(queries(real, 7)));
  await writeFile(path.join(out, "queries-gen50k.json"), JSON.stringify(queries(gen, 8)));
  const mb = (f) => (Object.values(f).reduce((s, t) => s + Buffer.byteLength(t), 0) / 1e6).toFixed(1);
  console.log(`corpora: real ${Object.keys(real).length} notes (${mb(real)} MB), gen50k ${Object.keys(gen).length} notes (${mb(gen)} MB)`);
}
