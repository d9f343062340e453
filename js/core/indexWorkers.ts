// The core's side of its index workers: parts of a large vault's first index build made in
// workers of their own (issue 18), so the build runs on several cores. `src/wasm/index_worker.rs`
// asks for them through the host's `indexWorkers`, hands each batches of notes, and takes each
// part back when the build ends; each worker runs `js/worker/indexer.ts`.
import type { FromIndexWorker, ToIndexWorker } from "../generated/protocol";

/** A started index worker (`IndexWorkerHandle` in `src/wasm/index_worker.rs`). */
export interface IndexWorker {
  /** Notes to index in this order; not answered (a failure shows at {@link finish}). */
  add(paths: string[], texts: string[], mtimes: Float64Array): void;
  /** The finished part; the worker ends afterwards. */
  finish(): Promise<Extract<FromIndexWorker, { kind: "part" }>>;
  /** Ends the worker; a part not sent yet is lost. */
  close(): void;
}

/** Where index workers come from: the script they run and the core's compiled wasm. */
export interface IndexWorkerSource {
  /** The URL of the worker bundle (the core's own: the worker's `name` picks its role). */
  script: string;
  /** The core's wasm, compiled. */
  wasm: () => WebAssembly.Module | null;
  /** The `Worker` constructor, where this thread has one. */
  Worker: typeof Worker | undefined;
  /** The device's cores (`navigator.hardwareConcurrency`). */
  cores: number;
}

/** The name an index worker is started with; `js/worker/worker.ts` reads it. */
export const INDEX_WORKER_NAME = "vault-agent-index";

/**
 * How long a worker may take to start, and to send its part once asked, before it is given up
 * (the core then builds every note itself): a worker that died without an `error` event (out of
 * memory) must not hold the build for ever.
 */
const START_MS = 20_000;
const FINISH_MS = 120_000;

/**
 * Starts up to `count` index workers — no more than the device has cores besides the core's
 * own — and resolves with those that started (none where workers cannot be made).
 */
export async function startIndexWorkers(count: number, source: IndexWorkerSource): Promise<IndexWorker[]> {
  const WorkerClass = source.Worker;
  const wasm = source.wasm();
  const width = Math.max(0, Math.min(count, source.cores - 1));
  if (typeof WorkerClass !== "function" || !wasm || width === 0) return [];
  const started = await Promise.allSettled(
    Array.from({ length: width }, async (_, i) =>
      startOne(new WorkerClass(source.script, { name: `${INDEX_WORKER_NAME}-${i + 1}` }), wasm),
    ),
  );
  return started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
}

/** Sends `start` to `worker` and resolves with its handle once its part is ready. */
function startOne(worker: Worker, wasm: WebAssembly.Module): Promise<IndexWorker> {
  let ended: Error | null = null;
  let finished: { resolve: (part: Extract<FromIndexWorker, { kind: "part" }>) => void; reject: (e: Error) => void } | null =
    null;
  const end = (error: Error) => {
    if (ended) return;
    ended = error;
    self.clearTimeout(timer);
    worker.terminate();
    finished?.reject(error);
    finished = null;
  };
  const post = (message: ToIndexWorker, transfer: Transferable[] = []) => worker.postMessage(message, transfer);
  // `self`'s timers: this runs in the core's worker, which has no `window`.
  let timer: number | undefined;
  // The build goes on without a failed worker (the core indexes every note itself, only
  // slower): said in the console, or a failing worker would go unnoticed.
  const fail = (error: Error, reject: (e: Error) => void) => {
    if (!ended) console.warn(`Vault Agent: ${error.message}; the core indexes every note itself.`);
    end(error);
    reject(error);
  };
  const giveUpAfter = (ms: number, what: string, reject: (e: Error) => void) => {
    self.clearTimeout(timer);
    timer = self.setTimeout(() => fail(new Error(`an index worker did not ${what} within ${ms / 1000} s`), reject), ms);
  };
  return new Promise<IndexWorker>((resolve, reject) => {
    giveUpAfter(START_MS, "start", reject);
    worker.addEventListener("error", (event) => {
      fail(new Error(`an index worker failed: ${event.message || "it could not run"}`), reject);
    });
    worker.addEventListener("message", (event: MessageEvent<FromIndexWorker>) => {
      const message = event.data;
      switch (message.kind) {
        case "ready":
          self.clearTimeout(timer);
          resolve({
            add: (paths, texts, mtimes) => {
              if (!ended) post({ kind: "add", paths, texts, mtimes: Array.from(mtimes) });
            },
            finish: () =>
              ended
                ? Promise.reject(ended)
                : new Promise((resolvePart, rejectPart) => {
                    finished = { resolve: resolvePart, reject: rejectPart };
                    giveUpAfter(FINISH_MS, "send its part", rejectPart);
                    post({ kind: "finish" });
                  }),
            close: () => end(new Error("the index worker was closed")),
          });
          break;
        case "part":
          self.clearTimeout(timer);
          finished?.resolve(message);
          finished = null;
          end(new Error("the index worker sent its part"));
          break;
        case "failed":
          fail(new Error(message.message), reject);
          break;
      }
    });
    post({ kind: "start", wasm });
  });
}
