// An embedding worker: MiniLM in a worker of its own, started by the core
// (`js/core/embedWorkers.ts`). It loads the core's wasm and the model once, then answers each
// batch of texts with their vectors, one batch at a time.
import init, { MiniLmWorker } from "../../pkg/vault_agent.js";
import type { FromEmbedWorker, ToEmbedWorker } from "../generated/protocol";
import type { Port } from "../core/port";

export function serveEmbedder(port: Port<FromEmbedWorker, ToEmbedWorker>): void {
  let model: MiniLmWorker | null = null;
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  port.listen((request) => {
    if (request.kind === "start") {
      init({ module_or_path: request.wasm })
        .then(() => {
          model = new MiniLmWorker(new Uint8Array(request.weights), request.vocab, request.config, request.maxTokens);
          port.post(model.describe());
        })
        .catch((error: unknown) => port.post({ kind: "failed", message: `MiniLM could not start in a worker: ${message(error)}` }));
      return;
    }
    if (!model) {
      port.post({ kind: "failed", id: request.id, message: "the embedding worker has no model" });
      return;
    }
    try {
      const data = model.embed(request.texts);
      port.post({ kind: "vectors", id: request.id, data }, [data.buffer]);
    } catch (error) {
      port.post({ kind: "failed", id: request.id, message: message(error) });
    }
  });
}
