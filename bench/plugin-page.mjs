// What the benchmarks that drive the built plugin share (`bench/ui.mjs`, `bench/embed-workers.mjs`):
// the test server with the fake Obsidian host page over a vault folder, headless Chromium, and
// the memory of its renderer processes.
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The test server (`tests/servers/server.mjs`) hosting `mainJs` in the fake host over `vault`. */
export async function serve(mainJs, vault) {
  const port = await freePort();
  const server = spawn(process.execPath, ["tests/servers/server.mjs", "--port", String(port)], {
    cwd: repo,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, VAULT_AGENT_MAIN_JS: mainJs, VAULT_AGENT_VAULT: vault, VAULT_AGENT_PROVIDER: "" },
  });
  await new Promise((resolve, reject) => {
    server.stdout.on("data", (d) => String(d).includes("listening") && resolve());
    server.on("exit", (code) => reject(new Error(`the server exited (${code})`)));
  });
  return { origin: `http://127.0.0.1:${port}`, stop: () => server.kill() };
}

/**
 * Debian's Chromium, headless, with `gc()` exposed. `BENCH_JS_FLAGS` adds V8 flags, e.g.
 * `--trace-gc --trace-incremental-marking` (printed with `DEBUG=pw:browser`) to see what the
 * collector does in the page and the workers.
 */
export function launch() {
  const jsFlags = ["--expose-gc", ...(process.env.BENCH_JS_FLAGS ?? "").split(/\s+/).filter(Boolean)];
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", `--js-flags=${jsFlags.join(" ")}`],
  });
}

/** The PSS of the renderer processes started by this script's browser, in MB (Linux /proc). */
export async function rendererPssMb() {
  const procs = new Map();
  for (const pid of (await readdir("/proc")).filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8");
      procs.set(Number(pid), { ppid, renderer: cmdline.includes("--type=renderer") });
    } catch {
      // The process ended while we looked.
    }
  }
  const ours = (pid) => {
    for (let p = procs.get(pid)?.ppid; p; p = procs.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const [pid, info] of procs) {
    if (!info.renderer || !ours(pid)) continue;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
    kb += Number(rollup.match(/^Pss:\s+(\d+)/m)?.[1] ?? 0);
  }
  return kb / 1024;
}
