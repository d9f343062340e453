import type { CallbackArg, EmbedWorkersRequest, FromCore, HostCall, Reply, ToCore } from "../generated/protocol";
import type { VaultHost } from "../host/VaultHost";
import type { HttpAnswer, HttpRequest } from "../protocol";
import type { EmbedWorker } from "./embedWorkers";
import type { IndexWorker } from "./indexWorkers";
import { wholeBuffer, type Port } from "./port";

/** What the core side needs of the wasm module (`wasmModule.ts`; a fake in the tests). */
export interface CoreModule {
  /** Instantiates the core from its packed text (`js/wasmBytes.ts`) or a compiled module; resolves with its version. */
  start(wasm: string | WebAssembly.Module): Promise<string>;
  /** A core bound to `host`, with `request` as its transport without CORS. */
  open(host: VaultHost, request?: (request: HttpRequest) => Promise<HttpAnswer>): object;
}

/** What the core's side offers beyond the main thread's host (in a worker: embedding and index workers). */
export interface CoreSideHost {
  embedWorkers?: (host: VaultHost, request: EmbedWorkersRequest) => Promise<EmbedWorker[]>;
  indexWorkers?: (count: number) => Promise<IndexWorker[]>;
}

/** An object the core hands out (a wasm-bindgen class instance) rather than a plain value. */
const isHandle = (value: unknown): value is { free?: () => void } =>
  typeof value === "object" && value !== null && "__wbg_ptr" in value;

type Method = (...args: unknown[]) => unknown;

/**
 * The core's side of the channel: it runs the module's calls, keeps the objects it hands out
 * (search engines, chats) as numbered handles, and reaches the main thread for the vault and
 * for requests without CORS. The same in a worker and in the main thread.
 */
export function serveCore(port: Port<FromCore, ToCore>, module: CoreModule, local: CoreSideHost = {}): void {
  const objects = new Map<number, object>();
  let nextHandle = 1;
  const hostCalls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextHostCall = 1;

  const askHost = (call: HostCall, transfer: Transferable[] = []): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextHostCall++;
      hostCalls.set(id, { resolve, reject });
      port.post({ kind: "host", id, call }, transfer);
    });

  // The vault and the transport, on the main thread. Bytes sent are fresh copies out of the
  // wasm memory, so their buffers move instead of being copied again.
  const moved = (data: Uint8Array): Transferable[] => {
    const buffer = wholeBuffer(data);
    return buffer ? [buffer] : [];
  };
  const host: VaultHost = {
    read: (path) => askHost({ op: "read", path }) as Promise<string>,
    readBinary: (path) => askHost({ op: "readBinary", path }) as Promise<ArrayBuffer>,
    readBatch: (paths) => askHost({ op: "readBatch", paths }) as ReturnType<NonNullable<VaultHost["readBatch"]>>,
    pdfPages: (path) => askHost({ op: "pdfPages", path }) as Promise<string[]>,
    htmlToMarkdown: (html) => askHost({ op: "htmlToMarkdown", html }) as Promise<string>,
    write: (path, content) => askHost({ op: "write", path, content }) as Promise<void>,
    writeBinary: (path, data) => askHost({ op: "writeBinary", path, data }, moved(data)) as Promise<void>,
    list: (path) => askHost({ op: "list", path }) as ReturnType<VaultHost["list"]>,
    stat: (path) => askHost({ op: "stat", path }) as ReturnType<VaultHost["stat"]>,
    mkdir: (path) => askHost({ op: "mkdir", path }) as Promise<void>,
    rename: (from, to) => askHost({ op: "rename", from, to }) as Promise<void>,
    trash: (path) => askHost({ op: "trash", path }) as Promise<void>,
    remove: (path) => askHost({ op: "remove", path }) as Promise<void>,
  };
  const processes: Pick<VaultHost, "processStart" | "processSend" | "processRead" | "processClose"> = {
    processStart: (command, args, env) => askHost({ op: "processStart", command, args, env }) as Promise<number>,
    processSend: (id, line) => askHost({ op: "processSend", id, line }) as Promise<void>,
    processRead: (id) => askHost({ op: "processRead", id }) as Promise<string | null>,
    processClose: (id) => askHost({ op: "processClose", id }) as Promise<void>,
  };
  const { embedWorkers } = local;
  if (embedWorkers) host.embedWorkers = (request) => embedWorkers(host, request);
  if (local.indexWorkers) host.indexWorkers = local.indexWorkers;
  const request = (req: HttpRequest) =>
    askHost({ op: "request", request: req }, req.body ? moved(req.body) : []) as Promise<HttpAnswer>;

  // Target 0: the module itself.
  const root: Record<string, unknown> = {
    open: (withRequest: boolean, withProcesses = false) =>
      module.open(withProcesses ? { ...host, ...processes } : host, withRequest ? request : undefined),
  };

  const reply = (id: number, value: Reply) => port.post({ kind: "reply", id, reply: value });

  const call = async (id: number, target: number, method: string, args: unknown[], callbacks: CallbackArg[]) => {
    try {
      const object = target === 0 ? root : objects.get(target);
      if (!object) throw new Error(`the core's object ${target} is gone (it was freed, or the core restarted)`);
      const fn: unknown = (object as Record<string, unknown>)[method];
      if (typeof fn !== "function") throw new Error(`the core has no method ${method}`);
      for (const { index, callback } of callbacks) {
        args[index] = (...values: unknown[]) => port.post({ kind: "callback", callback, args: values });
      }
      const value: unknown = await (fn as Method).apply(object, args);
      if (isHandle(value)) {
        const handle = nextHandle++;
        objects.set(handle, value);
        reply(id, { outcome: "handle", handle });
      } else {
        reply(id, { outcome: "value", value });
      }
    } catch (error) {
      reply(id, failure(error));
    }
  };

  port.listen((message) => {
    switch (message.kind) {
      case "start":
        module.start(message.wasm).then(
          (version) => reply(message.id, { outcome: "value", value: version }),
          (error: unknown) => reply(message.id, failure(error)),
        );
        break;
      case "call":
        void call(message.id, message.target, message.method, message.args, message.callbacks);
        break;
      case "release": {
        const object = objects.get(message.target);
        objects.delete(message.target);
        (object as { free?: () => void } | undefined)?.free?.();
        break;
      }
      case "host_reply": {
        const pending = hostCalls.get(message.id);
        hostCalls.delete(message.id);
        if (!pending) break;
        if (message.reply.outcome === "error") pending.reject(coded(message.reply.message, message.reply.code));
        else pending.resolve(message.reply.outcome === "value" ? message.reply.value : undefined);
        break;
      }
    }
  });
}

/** A thrown value as a reply, keeping a vault error's `code`. */
export function failure(error: unknown): Reply {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { outcome: "error", message, code } : { outcome: "error", message };
}

/** An `Error` with the `code` a reply carried (the core maps vault codes to its own errors). */
export function coded(message: string, code?: string): Error {
  const error = new Error(message) as Error & { code?: string };
  if (code) error.code = code;
  return error;
}
