// Bundles the fake Obsidian host page (tests/e2e/host/page.js, with obsidian-test-mocks and its
// glue) into target/host-page/host.js, which tests/servers/routes/host_page.mjs serves.
import { copyFileSync, mkdirSync } from "node:fs";
import esbuild from "esbuild";

await esbuild.build({
  entryPoints: ["tests/e2e/host/page.js"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  outfile: "target/host-page/host.js",
  sourcemap: "inline",
  logLevel: "warning",
  // moment's locale loader names files that the page never needs.
  external: [],
});

// PDF.js runs its parser in a worker of its own, loaded from beside the page (loadPdfJs).
mkdirSync("target/host-page", { recursive: true });
copyFileSync("node_modules/pdfjs-dist/build/pdf.worker.min.mjs", "target/host-page/pdf.worker.mjs");
