// esbuild's "binary" loader turns an imported file into its bytes: the core's wasm, gzip-compressed
// by esbuild.config.mjs.
declare module "*.wasm.gz" {
  const bytes: Uint8Array;
  export default bytes;
}
