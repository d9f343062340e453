// What a long task was: reads a Chromium trace (`BENCH_TRACE=… node bench/ui.mjs …`) and, for
// every task over 50 ms on a renderer's main thread, prints what ran inside it — the events
// nested in it by self time, and the sampled scripts' functions — and then the thread's major
// garbage collections: when each began and why, and what it freed.
//   node bench/longtasks.mjs target/bench/trace-1.json [--min 50]
import { readFile } from "node:fs/promises";

const [file, ...rest] = process.argv.slice(2);
const at = rest.indexOf("--min");
const min = at >= 0 ? Number(rest[at + 1]) : 50;
const { traceEvents: events } = JSON.parse(await readFile(file, "utf8"));

const names = new Map(); // "pid:tid" → thread name
for (const e of events) if (e.ph === "M" && e.name === "thread_name") names.set(`${e.pid}:${e.tid}`, e.args.name);
// Times are given from the build's start (the bench's `bench:indexing` mark) where the trace has it.
const marks = events.filter((e) => e.name.startsWith("bench:"));
const start = marks.find((e) => e.name === "bench:indexing")?.ts ?? Math.min(...events.filter((e) => e.ts > 0).map((e) => e.ts));
for (const m of marks) console.log(`${m.name} at ${((m.ts - start) / 1000).toFixed(0)} ms`);

/** A complete event's label: its name, and the script it ran where the trace says. */
function label(e) {
  const d = e.args?.data ?? e.args?.beginData ?? {};
  const where = d.url ? ` ${d.functionName || "(anonymous)"} ${d.url.split("/").pop()}:${d.lineNumber ?? "?"}` : d.functionName ? ` ${d.functionName}` : "";
  return `${e.name}${where}${d.type ? ` [${d.type}]` : ""}`;
}

// The sampling profiler's samples (category disabled-by-default-v8.cpu_profiler), per thread:
// each sample's time and its stack, leaf first.
const samples = new Map(); // "pid:tid" → [{ ts, stack }]
{
  const profiles = new Map(); // profile id → { key, nodes, ts }
  for (const e of events) {
    if (e.name === "Profile") profiles.set(`${e.pid}:${e.id}`, { key: `${e.pid}:${e.tid}`, nodes: new Map(), ts: e.args.data.startTime });
    if (e.name !== "ProfileChunk") continue;
    const profile = profiles.get(`${e.pid}:${e.id}`);
    if (!profile) continue;
    const { cpuProfile = {}, timeDeltas = [] } = e.args.data;
    for (const n of cpuProfile.nodes ?? []) profile.nodes.set(n.id, n);
    const list = samples.get(profile.key) ?? samples.set(profile.key, []).get(profile.key);
    (cpuProfile.samples ?? []).forEach((id, i) => {
      profile.ts += timeDeltas[i] ?? 0;
      const stack = [];
      for (let n = profile.nodes.get(id); n; n = profile.nodes.get(n.parent)) stack.push(n.callFrame);
      list.push({ ts: profile.ts, stack });
    });
  }
}
const frame = (f) => `${f.functionName || "(anonymous)"}${f.url ? ` ${f.url.split("/").pop()}:${f.lineNumber + 1}` : ""}`;

// Complete events per thread; B/E pairs folded into complete ones.
const byThread = new Map();
const open = new Map();
for (const e of events) {
  const key = `${e.pid}:${e.tid}`;
  if (e.ph === "B") (open.get(key) ?? open.set(key, []).get(key)).push(e);
  else if (e.ph === "E") {
    const b = open.get(key)?.pop();
    if (b) (byThread.get(key) ?? byThread.set(key, []).get(key)).push({ ...b, ph: "X", dur: e.ts - b.ts });
  } else if (e.ph === "X" && e.dur !== undefined) (byThread.get(key) ?? byThread.set(key, []).get(key)).push(e);
}

for (const [key, list] of byThread) {
  const thread = names.get(key) ?? key;
  if (thread !== "CrRendererMain") continue;
  list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const isTask = (e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask";
  // The outermost tasks only (a task runs nested in another's trace event).
  const tasks = list.filter((e, i) => isTask(e) && e.dur >= min * 1000 && !list.some((p, j) => j !== i && isTask(p) && p.ts <= e.ts && p.ts + p.dur >= e.ts + e.dur && (p.dur > e.dur || j < i)));
  for (const task of tasks) {
    const inside = list.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur);
    // Self time: an event's duration less that of the events directly inside it.
    const self = new Map();
    for (const e of inside) {
      const children = inside.filter((c) => c !== e && c.ts >= e.ts && c.ts + c.dur <= e.ts + e.dur);
      const direct = children.filter((c) => !children.some((p) => p !== c && c.ts >= p.ts && c.ts + c.dur <= p.ts + p.dur));
      const own = e.dur - direct.reduce((s, c) => s + c.dur, 0);
      self.set(label(e), (self.get(label(e)) ?? 0) + own);
    }
    console.log(`\n${key} ${thread}: task at ${((task.ts - start) / 1000).toFixed(0)} ms, ${(task.dur / 1000).toFixed(1)} ms`);
    for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
      if (us >= 1000) console.log(`  ${(us / 1000).toFixed(1).padStart(7)} ms  ${name}`);
    }
    // The script that ran: samples inside the task, by the functions on their stacks.
    const inTask = (samples.get(key) ?? []).filter((x) => x.ts >= task.ts && x.ts <= task.ts + task.dur);
    if (inTask.length) {
      const leaf = new Map();
      const onStack = new Map();
      for (const { stack } of inTask) {
        leaf.set(frame(stack[0]), (leaf.get(frame(stack[0])) ?? 0) + 1);
        for (const f of new Set(stack.map(frame))) onStack.set(f, (onStack.get(f) ?? 0) + 1);
      }
      const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([f, n]) => `    ${String(n).padStart(5)}  ${f}`).join("\n");
      console.log(`  ${inTask.length} samples; by leaf:\n${top(leaf)}\n  on the stack:\n${top(onStack)}`);
    }
  }
}

// The main thread's major collections: why each began (V8's reason) and the heap before and after.
for (const [key, list] of byThread) {
  if (names.get(key) !== "CrRendererMain") continue;
  for (const e of list) {
    const v = e.args?.value ?? {};
    const mb = (b) => (b / 2 ** 20).toFixed(0);
    if (e.name === "V8.GCIncrementalMarkingStart")
      console.log(`${key} ${((e.ts - start) / 1000).toFixed(0)} ms: major GC begins (${v.reason}; global ${mb(v.global_consumed_bytes)} of ${mb(v.global_allocation_limit)} MB, old generation ${mb(v.old_gen_consumed_bytes)} of ${mb(v.old_gen_allocation_limit)} MB)`);
    if (e.name === "MajorGC")
      console.log(`${key} ${((e.ts - start) / 1000).toFixed(0)} ms: major GC ends, ${(e.dur / 1000).toFixed(1)} ms pause (${e.args.type}), heap ${mb(e.args.usedHeapSizeBefore)} → ${mb(e.args.usedHeapSizeAfter)} MB`);
  }
}
