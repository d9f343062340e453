import compressed from "../pkg/vault_agent_bg.wasm.gz";

/**
 * The core's WebAssembly bytes. `main.js` carries them gzip-compressed (esbuild.config.mjs), about
 * a third of their size, and they are inflated here with the platform's `DecompressionStream`
 * (Chromium 80+, Safari 16.4+: every Obsidian desktop and mobile app). The one place that knows
 * how the bytes are stored, so whoever instantiates the core (this thread or a worker) asks here.
 */
export async function loadWasmBytes(): Promise<Uint8Array> {
  if (typeof DecompressionStream === "undefined") {
    throw new Error("Vault Agent needs DecompressionStream (Obsidian 1.4 or later on an up-to-date system) to unpack its core");
  }
  const inflated = new Blob([compressed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(inflated).arrayBuffer());
}
