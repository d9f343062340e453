// esbuild's "binary" loader turns an imported file into its bytes: the core's wasm, zstd-compressed
// by esbuild.config.mjs.
declare module "*.wasm.zst" {
  const bytes: Uint8Array;
  export default bytes;
}
