/**
 * One end of the channel between the plugin's main thread and the core: a Web Worker's
 * `postMessage`, or — where no worker can be made — a direct hand-over in the same thread.
 * Messages arrive in the order sent, always on a later turn (never inside `post`).
 */
export interface Port<Out, In> {
  post(message: Out, transfer?: Transferable[]): void;
  listen(handler: (message: In) => void): void;
}

/**
 * Two connected ends in one thread, for the in-thread core: messages are handed over as they
 * are (no copy), each on a microtask, so both sides see the same asynchronous order a worker
 * gives them.
 */
export function directPorts<A, B>(): [Port<A, B>, Port<B, A>] {
  let toB: ((message: A) => void) | null = null;
  let toA: ((message: B) => void) | null = null;
  const deliver = <T>(handler: () => ((message: T) => void) | null, message: T) =>
    queueMicrotask(() => handler()?.(message));
  return [
    { post: (message) => deliver(() => toB, message), listen: (handler) => (toA = handler) },
    { post: (message) => deliver(() => toA, message), listen: (handler) => (toB = handler) },
  ];
}

/**
 * The buffer under `bytes` when they are all of it: one that can move across the channel
 * (a transfer) instead of being copied. A view on part of a buffer answers null.
 */
export function wholeBuffer(bytes: Uint8Array): ArrayBuffer | null {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? buffer : null;
}
