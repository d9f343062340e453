// Serves the sample vault (read-only) to browser tests and benchmarks.
//   GET /vault/bundle?limit=N&prefix=P → {"files": {"path": "text", ...}}, every .md note (those
//                                   whose path starts with P, the first N of them, if given)
//   GET /vault/file?path=P     → the raw bytes of one file
// The vault is $VAULT_AGENT_VAULT or ../shared/vaults/obsidian-help beside the repo.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const root = process.env.VAULT_AGENT_VAULT || path.resolve(repo, "../shared/vaults/obsidian-help");

async function walk(dir, prefix, out) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) await walk(path.join(dir, entry.name), rel, out);
    else if (entry.name.endsWith(".md")) out.push(rel);
  }
  return out;
}

let cached;
export const routes = {
  "/vault/bundle": async (req, res, url) => {
    cached ??= (async () => {
      const files = {};
      for (const rel of (await walk(root, "", [])).sort()) files[rel] = await readFile(path.join(root, rel), "utf8");
      return files;
    })();
    const files = await cached;
    const limit = Number(url.searchParams.get("limit") || 0);
    const prefix = url.searchParams.get("prefix") || "";
    const entries = Object.entries(files).filter(([p]) => p.startsWith(prefix));
    const chosen = Object.fromEntries(limit > 0 ? entries.slice(0, limit) : entries);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ files: chosen }));
    return true;
  },
  "/vault/file": async (req, res, url) => {
    const rel = url.searchParams.get("path") || "";
    const full = path.resolve(root, rel);
    if (!full.startsWith(root + path.sep)) {
      res.writeHead(400).end("path escapes the vault");
      return true;
    }
    res.writeHead(200).end(await readFile(full));
    return true;
  },
};
