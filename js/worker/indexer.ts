// An index worker: one part of a large vault's first index build, in a worker of its own
// (started by the core: `js/core/indexWorkers.ts`). It loads the core's wasm once, indexes each
// batch of notes it is handed, and sends its part back when asked.
import init, { IndexPartWorker } from "../../pkg/vault_agent.js";
import type { FromIndexWorker, ToIndexWorker } from "../generated/protocol";
import type { Port } from "../core/port";

export function serveIndexer(port: Port<FromIndexWorker, ToIndexWorker>): void {
  let part: IndexPartWorker | null = null;
  let failure: string | null = null;
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  // The core sends notes only once this worker said it is ready.
  const handle = (request: ToIndexWorker) => {
    if (failure || !part) return;
    try {
      if (request.kind === "add") part.add(request.paths, request.texts, new Float64Array(request.mtimes));
      else if (request.kind === "finish") {
        const done = part.finish();
        port.post(done, [done.segments.buffer, done.catalog.buffer]);
      }
    } catch (error) {
      failure = message(error);
      port.post({ kind: "failed", message: `an index part failed: ${failure}` });
    }
  };
  port.listen((request) => {
    if (request.kind !== "start") {
      handle(request);
      return;
    }
    init({ module_or_path: request.wasm })
      .then(() => {
        part = new IndexPartWorker();
        port.post({ kind: "ready" });
      })
      .catch((error: unknown) => {
        failure = message(error);
        port.post({ kind: "failed", message: `an index worker could not start: ${failure}` });
      });
  });
}
