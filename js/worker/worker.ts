// The Web Worker the plugin runs the core in (built by esbuild as its own bundle and inlined
// into main.js as text; `js/core.ts` starts it from a Blob URL and posts it the wasm).
import type { FromCore, ToCore } from "../generated/protocol";
import { serveCore } from "../core/server";
import { wasmModule } from "../core/wasmModule";

const scope = self as unknown as {
  postMessage(message: FromCore, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToCore>) => void) | null;
};

serveCore(
  {
    post: (message, transfer = []) => scope.postMessage(message, transfer),
    listen: (handler) => (scope.onmessage = (event) => handler(event.data)),
  },
  wasmModule,
);
