// An index worker for the bench page (`node bench/run.mjs --parts`): the plugin's own
// `js/worker/indexer.ts`, bundled by bench/run.mjs over the bench's release wasm.
import { serveIndexer } from "../target/bench/indexer.mjs";

serveIndexer({
  post: (message, transfer = []) => self.postMessage(message, transfer),
  listen: (handler) => (self.onmessage = (event) => handler(event.data)),
});
