import workerSource from "vault-agent:worker";
import type { FromCore, ToCore } from "./generated/protocol";
import type { VaultHost } from "./host/VaultHost";
import type { HttpAnswer, HttpRequest } from "./protocol";
import { CoreClient, type RemoteVaultCore } from "./core/client";
import { directPorts, type Port } from "./core/port";
import { serveCore } from "./core/server";
import { wasmModule } from "./core/wasmModule";
import { packedWasm } from "./wasmBytes";

export type {
  RemoteChat as Chat,
  RemoteInlineEdit as InlineEdit,
  RemoteSearchEngine as SearchEngine,
  RemoteSuggester as Suggester,
  RemoteVaultCore as VaultCore,
} from "./core/client";

/** Where the core runs: its own worker, or this thread (and why: no worker could be made). */
export type CoreThread = { kind: "worker" } | { kind: "main"; reason: string };

export interface Core {
  version: string;
  thread: CoreThread;
  /**
   * A core bound to one vault host. `request` is the non-streaming transport without CORS
   * (Obsidian's `requestUrl`), used when `fetch` cannot reach a server or when asked for.
   */
  open(host: VaultHost, request?: (request: HttpRequest) => Promise<HttpAnswer>): Promise<RemoteVaultCore>;
  /** Ends the core (its worker, and the memory it holds): calls not answered yet fail. */
  close(): void;
}

/** How to start the core; by default in a worker when one can be made. */
export interface CoreOptions {
  /** The `Worker` constructor (absent where the platform has none). */
  Worker?: typeof Worker;
}

/**
 * Starts the core: in a dedicated Web Worker made from the inlined bundle, so indexing, search,
 * embedding and the agent never hold the UI thread; where no worker can be made (no `Worker`,
 * a sandbox refusing Blob URLs), in this thread through the same client, and says so once.
 */
export async function startCore(options: CoreOptions = { Worker: window.Worker }): Promise<Core> {
  let refusal: string;
  try {
    return await inWorker(packedWasm(), options.Worker);
  } catch (error) {
    refusal = error instanceof Error ? error.message : String(error);
  }
  console.warn(`Vault Agent: no worker for the core (${refusal}); it runs in the main thread.`);
  const [mainSide, coreSide] = directPorts<ToCore, FromCore>();
  serveCore(coreSide, wasmModule);
  return connect(mainSide, packedWasm(), { kind: "main", reason: refusal }, () => undefined);
}

async function inWorker(wasm: string, WorkerClass: typeof Worker | undefined): Promise<Core> {
  if (typeof WorkerClass !== "function") throw new Error("this platform has no Worker");
  const url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
  // The URL lives as long as the core: its embedding workers are started from it.
  const release = () => URL.revokeObjectURL(url);
  let worker: Worker;
  try {
    worker = new WorkerClass(url, { name: "vault-agent-core" });
  } catch (error) {
    release();
    throw error;
  }
  const port: Port<ToCore, FromCore> = {
    post: (message, transfer = []) => worker.postMessage(message, transfer),
    listen: (handler) => worker.addEventListener("message", (event: MessageEvent<FromCore>) => handler(event.data)),
  };
  // A worker whose script cannot load fails by an event, not a throw.
  const failed = new Promise<never>((_, reject) =>
    worker.addEventListener("error", (event) => reject(new Error(event.message || "the worker failed to start")), {
      once: true,
    }),
  );
  try {
    // The worker unpacks the core's text itself (js/core/unpackWasm.ts), off this thread.
    const core = await Promise.race([connect(port, wasm, { kind: "worker" }, () => {
          worker.terminate();
          release();
        }), failed]);
    // Calls fail with their own errors; anything thrown outside one is only for the console.
    worker.addEventListener("error", (event) => console.error("Vault Agent: the core's worker:", event.message));
    return core;
  } catch (error) {
    worker.terminate();
    release();
    throw error;
  }
}

async function connect(
  port: Port<ToCore, FromCore>,
  wasm: string,
  thread: CoreThread,
  end: () => void,
): Promise<Core> {
  const client = new CoreClient(port);
  const version = await client.start(wasm);
  return {
    version,
    thread,
    open: (host, request) => client.open({ host, request }),
    close: () => {
      client.close("the core was stopped");
      end();
    },
  };
}
