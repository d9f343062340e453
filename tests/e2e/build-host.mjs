// Bundles the fake Obsidian host page (tests/e2e/host/page.js, with obsidian-test-mocks and its
// glue) into target/host-page/host.js, which tests/servers/routes/host_page.mjs serves.
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
