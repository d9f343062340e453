import type { BatchRead, EmbedWorkersRequest } from "../generated/protocol";
import type { EmbedWorker } from "../core/embedWorkers";
import type { IndexWorker } from "../core/indexWorkers";

/**
 * The vault as the Rust core sees it (`JsVault` in `src/wasm/vault.rs`).
 *
 * Paths are vault-relative and `/`-separated; the root is `""`. The core checks every path before
 * it reaches the host, so a host never sees one that escapes the vault.
 *
 * Every method returns a promise. To signal a condition the core acts on, reject with an `Error`
 * whose `code` is one of {@link VaultErrorCode}; any other rejection reaches the core as a host
 * error carrying its message.
 */
export interface VaultHost {
  /** The whole file as text. Rejects with `EILSEQ` if the bytes are not UTF-8. */
  read(path: string): Promise<string>;
  /** The whole file as bytes. */
  readBinary(path: string): Promise<Uint8Array | ArrayBuffer>;
  /** Replaces or creates the file, creating missing parent folders. */
  write(path: string, content: string): Promise<void>;
  /** Replaces or creates the file, creating missing parent folders. */
  writeBinary(path: string, data: Uint8Array): Promise<void>;
  /** The direct children of a folder, as vault-relative paths. */
  list(path: string): Promise<{ files: string[]; folders: string[] }>;
  /** Kind, size and mtime (ms since the epoch), or `null` when nothing is there. */
  stat(path: string): Promise<HostStat | null>;
  /** Creates the folder and missing parents; succeeds if it exists. */
  mkdir(path: string): Promise<void>;
  /** Moves a file or folder; rejects with `EEXIST` if `to` exists. */
  rename(from: string, to: string): Promise<void>;
  /** Moves a user's file or folder to the trash (in Obsidian, as the user's deletion preference says). */
  trash(path: string): Promise<void>;
  /** Deletes a file or folder recursively. The core uses it only for its own files. */
  remove(path: string): Promise<void>;
  /**
   * Optional: several notes as text or bytes with their mtime, one answer per path (the index
   * build reads in batches, one round trip each where the host is across a worker's channel).
   * Bytes are handed over: where the core runs in a worker they move to it and are gone here,
   * so a host answers buffers it read for this call and does not keep.
   */
  readBatch?(paths: string[]): Promise<BatchRead[]>;
  /**
   * Optional: the text of the PDF at `path`, one string a page (Obsidian's PDF.js). Without it
   * the core cannot give a PDF's text to a model that reads no PDFs itself.
   */
  pdfPages?(path: string): Promise<string[]>;
  /**
   * Optional: a web page's HTML as Markdown, without scripts, styles and forms (Obsidian's
   * `htmlToMarkdown`). Without it the core's `web_fetch` reads only text and JSON pages.
   */
  htmlToMarkdown?(html: string): Promise<string>;
  /**
   * Optional, desktop only: starts a child process (an MCP server that is a command) and
   * resolves with its id. With it come {@link processSend}, {@link processRead} and
   * {@link processClose}.
   */
  processStart?(command: string, args: string[], env: Record<string, string>): Promise<number>;
  /** Writes `line` and a newline to the process's stdin. */
  processSend?(id: number, line: string): Promise<void>;
  /** The next line of the process's stdout; `null` once it ended. */
  processRead?(id: number): Promise<string | null>;
  /** Ends the process. */
  processClose?(id: number): Promise<void>;
  /**
   * Optional, where the core runs in a worker: starts workers running MiniLM
   * (`js/core/embedWorkers.ts`), all ready, or rejects. Without it MiniLM runs in the core's thread.
   */
  embedWorkers?(request: EmbedWorkersRequest): Promise<EmbedWorker[]>;
  /**
   * Optional, where the core runs in a worker: starts up to `count` workers that build parts of
   * a large vault's index (`js/core/indexWorkers.ts`), resolving with those that started.
   * Without it the whole index is built in the core's thread.
   */
  indexWorkers?(count: number): Promise<IndexWorker[]>;
}

/** `readBatch` over a host's `read` and `stat`, each path's failure its own answer. */
export function readBatch(host: VaultHost, paths: string[]): Promise<BatchRead[]> {
  return Promise.all(
    paths.map(async (path): Promise<BatchRead> => {
      try {
        const [text, stat] = await Promise.all([host.read(path), host.stat(path)]);
        return { text, mtime: stat?.mtime ?? 0 };
      } catch (error) {
        return batchFailure(error);
      }
    }),
  );
}

/** A note of a batch that could not be read: the error's message, and its `code` if it has one. */
export function batchFailure(error: unknown): BatchRead {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? { error: message, code } : { error: message };
}

export interface HostStat {
  kind: "file" | "folder";
  size: number;
  mtime: number;
}

/** Error codes the core maps to its own errors (not found, exists, wrong kind, not text). */
export type VaultErrorCode = "ENOENT" | "EEXIST" | "EISDIR" | "ENOTDIR" | "EILSEQ";

/** An error the core recognises by its `code`. */
export class VaultHostError extends Error {
  constructor(
    readonly code: VaultErrorCode,
    path: string,
  ) {
    super(`${code}: ${path}`);
    this.name = "VaultHostError";
  }
}
