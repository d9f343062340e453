// esbuild.config.mjs builds js/worker/worker.ts as its own bundle and hands its text to main.js
// under this name.
declare module "vault-agent:worker" {
  const source: string;
  export default source;
}
