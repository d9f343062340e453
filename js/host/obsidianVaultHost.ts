import { normalizePath, TFile, type App, type DataAdapter } from "obsidian";
import type { BatchRead } from "../generated/protocol";
import { pageMarkdown } from "./htmlMarkdown";
import { pdfPages } from "./pdfText";
import type { Processes } from "./processes";
import { batchFailure, VaultHostError, type HostStat, type VaultHost } from "./VaultHost";

/** Whether a path is inside a hidden folder or names a hidden file (Obsidian does not track those). */
const isHidden = (path: string): boolean => path.split("/").some((segment) => segment.startsWith("."));

/** Obsidian's adapter wants "/" for the vault root. */
const adapterPath = (path: string): string => (path === "" ? "/" : normalizePath(path));

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * {@link VaultHost} over Obsidian's API. Writes to notes Obsidian already knows go through
 * `app.vault.modify`, so open editors, the metadata cache and other plugins see them; everything
 * else (the agent's own index and temp files) goes through the adapter.
 */
export class ObsidianVaultHost implements VaultHost {
  private readonly adapter: DataAdapter;
  processStart?: VaultHost["processStart"];
  processSend?: VaultHost["processSend"];
  processRead?: VaultHost["processRead"];
  processClose?: VaultHost["processClose"];

  /** `processes`: given on desktop only, where MCP servers may be commands. */
  constructor(
    private readonly app: App,
    processes?: Processes,
  ) {
    this.adapter = app.vault.adapter;
    if (processes) {
      this.processStart = (command, args, env) => processes.start(command, args, env);
      this.processSend = (id, line) => processes.send(id, line);
      this.processRead = (id) => processes.read(id);
      this.processClose = (id) => processes.close(id);
    }
  }

  async read(path: string): Promise<string> {
    const bytes = await this.readBinary(path);
    try {
      return decoder.decode(bytes);
    } catch {
      throw new VaultHostError("EILSEQ", path);
    }
  }

  async readBinary(path: string): Promise<ArrayBuffer> {
    await this.fileStat(path);
    return this.adapter.readBinary(adapterPath(path));
  }

  /** The stat of the file at `path`, which must be one: `ENOENT` when nothing is there, `EISDIR` for a folder. */
  private async fileStat(path: string): Promise<HostStat> {
    const stat = await this.stat(path);
    if (!stat) throw new VaultHostError("ENOENT", path);
    if (stat.kind === "folder") throw new VaultHostError("EISDIR", path);
    return stat;
  }

  /** A PDF's text, one string a page, read with Obsidian's PDF.js. */
  async pdfPages(path: string): Promise<string[]> {
    return pdfPages(await this.readBinary(path));
  }

  /** A web page's HTML as Markdown, with Obsidian's `htmlToMarkdown`. */
  async htmlToMarkdown(html: string): Promise<string> {
    return pageMarkdown(html);
  }

  async write(path: string, content: string): Promise<void> {
    const file = this.app.vault.getAbstractFileByPath(path);
    if (file instanceof TFile) {
      await this.app.vault.modify(file, content);
      return;
    }
    await this.prepareWrite(path);
    // A new note goes through the vault, so Obsidian (and other plugins) see it at once; the
    // agent's own files live in hidden folders, which Obsidian does not track.
    if (isHidden(path)) await this.adapter.write(adapterPath(path), content);
    else await this.app.vault.create(path, content);
  }

  async writeBinary(path: string, data: Uint8Array): Promise<void> {
    await this.prepareWrite(path);
    // The core's bytes arrive as a fresh buffer of their own: hand it over as it is (copying a
    // saved index's tens of MB held the UI thread for a long task).
    const whole = data.buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    const buffer = whole ? data.buffer : data.slice().buffer;
    await this.adapter.writeBinary(adapterPath(path), buffer);
  }

  async list(path: string): Promise<{ files: string[]; folders: string[] }> {
    const stat = await this.stat(path);
    if (path !== "" && !stat) throw new VaultHostError("ENOENT", path);
    if (stat?.kind === "file") throw new VaultHostError("ENOTDIR", path);
    const listed = await this.adapter.list(adapterPath(path));
    const strip = (p: string) => p.replace(/^\/+/, "");
    return { files: listed.files.map(strip), folders: listed.folders.map(strip) };
  }

  /**
   * The notes at once: the reads overlap, and a worker's core waits one round trip. Each comes
   * as the bytes Obsidian read, which the core decodes: decoding them here made a string per
   * note on the UI thread, tens of MB of garbage in a large vault's build (BENCHMARKS.md).
   * The adapter reads each file into a new buffer, which the channel then moves to the worker.
   */
  readBatch(paths: string[]): Promise<BatchRead[]> {
    return Promise.all(
      paths.map(async (path): Promise<BatchRead> => {
        try {
          const stat = await this.fileStat(path);
          return { bytes: new Uint8Array(await this.adapter.readBinary(adapterPath(path))), mtime: stat.mtime };
        } catch (error) {
          return batchFailure(error);
        }
      }),
    );
  }

  async stat(path: string): Promise<HostStat | null> {
    const stat = await this.adapter.stat(adapterPath(path));
    if (!stat) return null;
    return { kind: stat.type, size: stat.size, mtime: stat.mtime };
  }

  async mkdir(path: string): Promise<void> {
    const stat = await this.stat(path);
    if (stat?.kind === "file") throw new VaultHostError("ENOTDIR", path);
    if (stat) return;
    if (isHidden(path)) await this.adapter.mkdir(adapterPath(path));
    else await this.app.vault.createFolder(path);
  }

  async rename(from: string, to: string): Promise<void> {
    if (!(await this.stat(from))) throw new VaultHostError("ENOENT", from);
    if (await this.stat(to)) throw new VaultHostError("EEXIST", to);
    await this.ensureParent(to);
    const file = this.app.vault.getAbstractFileByPath(from);
    // The file manager also updates links to the moved note, as a user's move would.
    if (file) await this.app.fileManager.renameFile(file, to);
    else await this.adapter.rename(adapterPath(from), adapterPath(to));
  }

  async trash(path: string): Promise<void> {
    if (!(await this.stat(path))) throw new VaultHostError("ENOENT", path);
    const file = this.app.vault.getAbstractFileByPath(path);
    // As the user's "Deleted files" preference says. Whatever it says, the task's checkpoint
    // holds the note's bytes, so undo brings it back.
    if (file) await this.app.fileManager.trashFile(file);
    else await this.adapter.trashLocal(adapterPath(path));
  }

  async remove(path: string): Promise<void> {
    const stat = await this.stat(path);
    if (!stat) throw new VaultHostError("ENOENT", path);
    if (stat.kind === "folder") await this.adapter.rmdir(adapterPath(path), true);
    else await this.adapter.remove(adapterPath(path));
  }

  private async prepareWrite(path: string): Promise<void> {
    const stat = await this.stat(path);
    if (stat?.kind === "folder") throw new VaultHostError("EISDIR", path);
    await this.ensureParent(path);
  }

  private async ensureParent(path: string): Promise<void> {
    const slash = path.lastIndexOf("/");
    if (slash <= 0) return;
    const parent = path.slice(0, slash);
    const stat = await this.stat(parent);
    if (stat?.kind === "file") throw new VaultHostError("ENOTDIR", parent);
    if (!stat) {
      if (isHidden(parent)) await this.adapter.mkdir(adapterPath(parent));
      else await this.app.vault.createFolder(parent);
    }
  }
}
