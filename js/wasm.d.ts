// esbuild.config.mjs turns the core's wasm into a module whose default export is its
// zstd-compressed bytes as Z85 text (scripts/z85.mjs).
declare module "*.wasm.zst" {
  const packed: string;
  export default packed;
}
