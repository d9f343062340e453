// The core's side of its embedding workers: MiniLM run in workers of its own (issue 13), so the
// vault is embedded on several cores and the core's worker stays free to answer searches.
// `src/wasm/embed_worker.rs` asks for them through the host's `embedWorkers`; each worker runs
// `js/worker/embedder.ts`.
import type { EmbedWorkersRequest, FromEmbedWorker, ToEmbedWorker } from "../generated/protocol";
import type { VaultHost } from "../host/VaultHost";

/** A started embedding worker (`EmbedWorkerHandle` in `src/wasm/embed_worker.rs`). */
export interface EmbedWorker {
  /** The model's id: vectors of one id compare. */
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;
  /** One unit vector per text, back to back. */
  embed(texts: string[]): Promise<Float32Array>;
  /** Ends the worker; calls not answered yet fail. */
  close(): void;
}

/** Where embedding workers come from: the script they run and the core's compiled wasm. */
export interface EmbedWorkerSource {
  /** The URL of the worker bundle (the core's own: the worker's `name` picks its role). */
  script: string;
  /** The core's wasm, compiled (sent to each worker, which then need not compile it). */
  wasm: () => WebAssembly.Module | null;
  /** The `Worker` constructor, where this thread has one. */
  Worker: typeof Worker | undefined;
}

/** The name an embedding worker is started with; `js/worker/worker.ts` reads it. */
export const EMBED_WORKER_NAME = "vault-agent-embed";

/**
 * Starts `request.count` workers, each loading MiniLM from the vault's files (read once, through
 * `host`); resolves when all are ready. If one cannot start, the others are ended and the
 * promise rejects with its reason.
 */
export async function startEmbedWorkers(
  host: VaultHost,
  request: EmbedWorkersRequest,
  source: EmbedWorkerSource,
): Promise<EmbedWorker[]> {
  const WorkerClass = source.Worker;
  if (typeof WorkerClass !== "function") throw new Error("workers cannot be started here");
  const wasm = source.wasm();
  if (!wasm) throw new Error("the core's wasm is not loaded");
  const [weights, vocab, config] = await Promise.all([
    host.readBinary(request.weights),
    host.read(request.vocab),
    host.read(request.config),
  ]);
  // Each worker gets its own copy (structured clone); the file is not held here afterwards.
  const buffer = weights instanceof ArrayBuffer ? weights : weights.slice().buffer;
  const start: ToEmbedWorker = { kind: "start", wasm, weights: buffer, vocab, config, maxTokens: request.maxTokens };
  const started = await Promise.allSettled(
    // async: a worker refused at construction is a rejection like any other.
    Array.from({ length: request.count }, async (_, i) =>
      startOne(new WorkerClass(source.script, { name: `${EMBED_WORKER_NAME}-${i + 1}` }), start),
    ),
  );
  const ready = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const refused = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (refused) {
    ready.forEach((w) => w.close());
    throw refused.reason instanceof Error ? refused.reason : new Error(String(refused.reason));
  }
  return ready;
}

/** Sends `start` to `worker` and resolves with its handle once the model is loaded. */
function startOne(worker: Worker, start: ToEmbedWorker): Promise<EmbedWorker> {
  const pending = new Map<number, { resolve: (data: Float32Array) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let ended: Error | null = null;
  const end = (error: Error) => {
    if (ended) return;
    ended = error;
    worker.terminate();
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  return new Promise<EmbedWorker>((resolve, reject) => {
    worker.addEventListener("error", (event) => {
      const error = new Error(`an embedding worker failed: ${event.message || "it could not run"}`);
      end(error);
      reject(error);
    });
    worker.addEventListener("message", (event: MessageEvent<FromEmbedWorker>) => {
      const message = event.data;
      switch (message.kind) {
        case "ready":
          resolve({
            model: message.model,
            dimensions: message.dimensions,
            batchSize: message.batchSize,
            embed: (texts) =>
              ended
                ? Promise.reject(ended)
                : new Promise((resolveCall, rejectCall) => {
                    const id = nextId++;
                    pending.set(id, { resolve: resolveCall, reject: rejectCall });
                    worker.postMessage({ kind: "embed", id, texts } satisfies ToEmbedWorker);
                  }),
            close: () => end(new Error("the embedding worker was closed")),
          });
          break;
        case "vectors":
          pending.get(message.id)?.resolve(message.data);
          pending.delete(message.id);
          break;
        case "failed":
          if (message.id === undefined) {
            const error = new Error(message.message);
            end(error);
            reject(error);
          } else {
            pending.get(message.id)?.reject(new Error(message.message));
            pending.delete(message.id);
          }
          break;
      }
    });
    worker.postMessage(start);
  });
}
