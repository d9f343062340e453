import type { Chat, InlineEdit, SearchEngine, Suggester, VaultCore } from "../../pkg/vault_agent.js";
import type { BatchRead, CallbackArg, FromCore, HostCall, Reply, ToCore } from "../generated/protocol";
import { readBatch, type VaultHost } from "../host/VaultHost";
import type { HttpAnswer, HttpRequest } from "../protocol";
import { wholeBuffer, type Port } from "./port";
import { coded, failure } from "./server";

/** A core object seen from the main thread: the same methods, each answering a promise. */
export type Remote<T> = {
  [K in Exclude<keyof T, "free" | symbol>]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Remoted<Awaited<R>>>
    : never;
} & {
  /** The core frees the object (it is not called again). */
  free(): void;
};

type Remoted<R> = R extends SearchEngine
  ? RemoteSearchEngine
  : R extends Chat
    ? RemoteChat
    : R extends InlineEdit
      ? RemoteInlineEdit
      : R extends Suggester
        ? RemoteSuggester
        : R;

export type RemoteVaultCore = Remote<VaultCore>;
export type RemoteSearchEngine = Remote<SearchEngine>;
export type RemoteChat = Remote<Chat>;
export type RemoteInlineEdit = Remote<InlineEdit>;
export type RemoteSuggester = Remote<Suggester>;

type Callback = (...args: unknown[]) => unknown;

/** The `code` of a call's error when the core ended (a restart, an unload) before it answered. */
const STOPPED = "ESTOPPED";

/**
 * Lets a call go on without awaiting its answer (cancel, respond, …): a failure is logged,
 * except the core's ending, after which there is nothing left for the call to do.
 */
export function detach(call: Promise<unknown> | undefined): void {
  call?.catch((error: unknown) => {
    if (!coreEnded(error)) console.error("Vault Agent:", error);
  });
}

/** Whether `error` says the core ended (a restart, an unload) before it answered the call. */
export function coreEnded(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === STOPPED;
}

/** Where the core's calls to the main thread go. */
export interface HostSide {
  host: VaultHost;
  request?: (request: HttpRequest) => Promise<HttpAnswer>;
}

/**
 * The main thread's side of the channel to the core: calls become messages and their replies
 * promises; objects the core hands out become {@link Remote} proxies; function arguments stay
 * here and are called when the core says so; the core's vault and request calls are answered
 * from the host given to {@link CoreClient.open}.
 */
export class CoreClient {
  private nextCall = 1;
  private nextCallback = 1;
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void; callbacks: number[] }>();
  private readonly callbacks = new Map<number, Callback>();
  /** The callbacks that live as long as an object (a chat's event listener). */
  private readonly owned = new Map<number, number[]>();
  private hostSide: HostSide | null = null;
  private closed: string | null = null;

  constructor(private readonly port: Port<ToCore, FromCore>) {
    port.listen((message) => this.receive(message));
  }

  /** Starts the core from its packed WebAssembly (`js/wasmBytes.ts`); resolves with its version. */
  async start(wasm: string | WebAssembly.Module): Promise<string> {
    const id = this.nextCall++;
    const reply = new Promise<Reply>((resolve) => this.pending.set(id, { resolve, callbacks: [] }));
    this.port.post({ kind: "start", id, wasm });
    return (await this.settle(await reply)) as string;
  }

  /** The core bound to `host` (and `request`, the transport without CORS). */
  async open(side: HostSide): Promise<RemoteVaultCore> {
    this.hostSide = side;
    const withProcesses = typeof side.host.processStart === "function";
    return (await this.call(0, "open", [side.request !== undefined, withProcesses])) as RemoteVaultCore;
  }

  /** Calls the module's free function `method`. */
  callModule(method: string, args: unknown[]): Promise<unknown> {
    return this.call(0, method, args);
  }

  /** Every call not answered yet fails with `reason`, and later ones at once. */
  close(reason: string): void {
    this.closed = reason;
    for (const { resolve } of this.pending.values()) resolve({ outcome: "error", message: reason, code: STOPPED });
    this.pending.clear();
    this.callbacks.clear();
    this.owned.clear();
  }

  private call(target: number, method: string, args: unknown[]): Promise<unknown> {
    if (this.closed) return Promise.reject(coded(this.closed, STOPPED));
    const id = this.nextCall++;
    const slots: CallbackArg[] = [];
    const values = args.map((arg, index) => {
      if (typeof arg !== "function") return arg;
      const callback = this.nextCallback++;
      this.callbacks.set(callback, arg as Callback);
      slots.push({ index, callback });
      return null;
    });
    const reply = new Promise<Reply>((resolve) =>
      this.pending.set(id, { resolve, callbacks: slots.map((s) => s.callback) }),
    );
    try {
      this.port.post({ kind: "call", id, target, method, args: values, callbacks: slots });
    } catch (error) {
      // An argument that cannot be cloned (a DataCloneError): the call never left.
      this.pending.delete(id);
      for (const { callback } of slots) this.callbacks.delete(callback);
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return reply.then((r) => this.settle(r));
  }

  private settle(reply: Reply): unknown {
    switch (reply.outcome) {
      case "value":
        return reply.value;
      case "handle":
        return this.remote(reply.handle);
      case "error":
        throw coded(reply.message, reply.code);
    }
  }

  /** A proxy whose every method is a call to the core's object `handle`. */
  private remote(handle: number): unknown {
    const methods = new Map<string, unknown>();
    return new Proxy(
      {},
      {
        get: (_target, name) => {
          // Not a promise: `await` must not take the proxy for one.
          if (typeof name !== "string" || name === "then") return undefined;
          let method = methods.get(name);
          if (!method) {
            method =
              name === "free"
                ? () => this.release(handle)
                : (...args: unknown[]) => this.call(handle, name, args);
            methods.set(name, method);
          }
          return method;
        },
      },
    );
  }

  private release(handle: number): void {
    for (const callback of this.owned.get(handle) ?? []) this.callbacks.delete(callback);
    this.owned.delete(handle);
    if (!this.closed) this.port.post({ kind: "release", target: handle });
  }

  private receive(message: FromCore): void {
    switch (message.kind) {
      case "reply": {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        // A call's callbacks end with it, unless it made an object that keeps calling them.
        if (message.reply.outcome === "handle") this.owned.set(message.reply.handle, pending.callbacks);
        else for (const callback of pending.callbacks) this.callbacks.delete(callback);
        pending.resolve(message.reply);
        return;
      }
      case "callback":
        try {
          void this.callbacks.get(message.callback)?.(...message.args);
        } catch (error) {
          console.error("Vault Agent: a callback from the core failed", error);
        }
        return;
      case "host":
        void this.answerHost(message.id, message.call);
        return;
    }
  }

  private async answerHost(id: number, call: HostCall): Promise<void> {
    let reply: Reply;
    try {
      reply = { outcome: "value", value: await this.runHost(call) };
    } catch (error) {
      reply = failure(error);
    }
    if (!this.closed) this.port.post({ kind: "host_reply", id, reply }, reply.outcome === "value" ? handedOver(call, reply.value) : []);
  }

  private runHost(call: HostCall): Promise<unknown> {
    const side = this.hostSide;
    if (!side) return Promise.reject(new Error("the core has no vault yet"));
    const { host } = side;
    switch (call.op) {
      case "read":
        return host.read(call.path);
      case "readBinary":
        return host.readBinary(call.path);
      case "readBatch":
        return host.readBatch ? host.readBatch(call.paths) : readBatch(host, call.paths);
      case "pdfPages":
        return host.pdfPages ? host.pdfPages(call.path) : Promise.reject(new Error("this host cannot read PDFs"));
      case "htmlToMarkdown":
        return host.htmlToMarkdown
          ? host.htmlToMarkdown(call.html)
          : Promise.reject(new Error("this host cannot read HTML pages"));
      case "write":
        return host.write(call.path, call.content);
      case "writeBinary":
        return host.writeBinary(call.path, call.data);
      case "list":
        return host.list(call.path);
      case "stat":
        return host.stat(call.path);
      case "mkdir":
        return host.mkdir(call.path);
      case "rename":
        return host.rename(call.from, call.to);
      case "trash":
        return host.trash(call.path);
      case "remove":
        return host.remove(call.path);
      case "request":
        if (!side.request) return Promise.reject(new Error("no request transport"));
        return side.request(call.request);
      case "processStart":
      case "processSend":
      case "processRead":
      case "processClose":
        return runProcess(host, call);
    }
  }
}

type ProcessCall = Extract<HostCall, { op: "processStart" | "processSend" | "processRead" | "processClose" }>;

/** A process call, on a host that can start processes (desktop). */
function runProcess(host: VaultHost, call: ProcessCall): Promise<unknown> {
  if (!host.processStart || !host.processSend || !host.processRead || !host.processClose) {
    return Promise.reject(new Error("commands run on desktop only"));
  }
  switch (call.op) {
    case "processStart":
      return host.processStart(call.command, call.args, call.env);
    case "processSend":
      return host.processSend(call.id, call.line);
    case "processRead":
      return host.processRead(call.id);
    case "processClose":
      return host.processClose(call.id);
  }
}

/**
 * The buffers of a host's answer that move to the core's thread instead of being copied: a
 * batch's note bytes, which the host read for this answer alone ({@link VaultHost.readBatch}).
 * Copied, each stayed on the UI thread as garbage until its collector ran — tens of MB in a
 * large vault's first build. A buffer only part of which is the note is copied, as before.
 */
function handedOver(call: HostCall, value: unknown): Transferable[] {
  if (call.op !== "readBatch" || !Array.isArray(value)) return [];
  const buffers = new Set<ArrayBuffer>();
  for (const read of value as BatchRead[]) {
    const buffer = "bytes" in read ? wholeBuffer(read.bytes) : null;
    if (buffer) buffers.add(buffer);
  }
  return [...buffers];
}
