// The Web Worker the plugin runs the core in (built by esbuild as its own bundle and inlined
// into main.js as text; `js/core.ts` starts it from a Blob URL and posts it the wasm). The same
// script runs the core's embedding workers, started by the core under their own name.
import type { FromCore, FromEmbedWorker, FromIndexWorker, ToCore, ToEmbedWorker, ToIndexWorker } from "../generated/protocol";
import { EMBED_WORKER_NAME, startEmbedWorkers } from "../core/embedWorkers";
import { INDEX_WORKER_NAME, startIndexWorkers } from "../core/indexWorkers";
import { serveCore } from "../core/server";
import { compiledWasm, wasmModule } from "../core/wasmModule";
import { serveEmbedder } from "./embedder";
import { serveIndexer } from "./indexer";

const scope = self as unknown as {
  name: string;
  location: { href: string };
  Worker?: typeof Worker;
  navigator?: { hardwareConcurrency?: number };
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
};

if (scope.name.startsWith(EMBED_WORKER_NAME)) {
  serveEmbedder({
    post: (message: FromEmbedWorker, transfer = []) => scope.postMessage(message, transfer),
    listen: (handler) => (scope.onmessage = (event: MessageEvent<ToEmbedWorker>) => handler(event.data)),
  });
} else if (scope.name.startsWith(INDEX_WORKER_NAME)) {
  serveIndexer({
    post: (message: FromIndexWorker, transfer = []) => scope.postMessage(message, transfer),
    listen: (handler) => (scope.onmessage = (event: MessageEvent<ToIndexWorker>) => handler(event.data)),
  });
} else {
  serveCore(
    {
      post: (message: FromCore, transfer = []) => scope.postMessage(message, transfer),
      listen: (handler) => (scope.onmessage = (event: MessageEvent<ToCore>) => handler(event.data)),
    },
    wasmModule,
    {
      embedWorkers: (host, request) =>
        startEmbedWorkers(host, request, { script: scope.location.href, wasm: compiledWasm, Worker: scope.Worker }),
      indexWorkers: (count) =>
        startIndexWorkers(count, {
          script: scope.location.href,
          wasm: compiledWasm,
          Worker: scope.Worker,
          cores: scope.navigator?.hardwareConcurrency ?? 1,
        }),
    },
  );
}
