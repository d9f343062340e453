// Z85, ZeroMQ's base-85 (https://rfc.zeromq.org/spec/32/): five characters for four bytes, a
// quarter more where base64 is a third, and none of them a quote, a backslash or a newline, so
// the text sits in a JS string literal as it is. esbuild.config.mjs inlines the packed core this
// way; js/core/unpackWasm.ts decodes it (the tests check the two against each other).
export const Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

/** `bytes` as `<length>:<Z85 of the bytes, zero-padded to a multiple of four>`. */
export function z85Encode(bytes) {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  const out = [];
  for (let i = 0; i < padded.length; i += 4) {
    let value = view.getUint32(i);
    const group = new Array(5);
    for (let j = 4; j >= 0; j--) {
      group[j] = Z85[value % 85];
      value = Math.floor(value / 85);
    }
    out.push(group.join(""));
  }
  return `${bytes.length}:${out.join("")}`;
}
