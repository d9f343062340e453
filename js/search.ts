import { debounce, moment, type Debouncer } from "obsidian";
import type { CoreHandle } from "./context";
import type { SearchEngine } from "./core";
import { Handover } from "./handover";
import type { DatedNote, RelatedNote, SearchHit } from "./generated/protocol";
import type { VaultAgentSettings } from "./settings";
import { errorMessage } from "./views/turn";

/** Obsidian's interface language (Obsidian sets moment's locale to it). */
export function obsidianLanguage(): string {
  return moment.locale() || "en";
}

/** The language searches prefer (`SearchQuery.language`): the setting, else Obsidian's. */
export function searchLanguage(settings: VaultAgentSettings): string {
  return settings.indexing.language || obsidianLanguage();
}

export type { RelatedNote, SearchHit };

export type IndexState =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "indexing"; done: number; total: number }
  | { kind: "ready"; notes: number }
  | { kind: "failed"; message: string };

/** A change in the vault the index has to follow. */
type Change = { kind: "update"; path: string } | { kind: "remove"; path: string } | { kind: "rename"; from: string; to: string };

/** Changes are applied this long after the last one (typing in a note modifies it often). */
const UPDATE_DELAY_MS = 1500;
/** The index is saved this long after the last change applied. */
const SAVE_DELAY_MS = 30_000;

/**
 * The vault's search index, kept by the core: loaded (or built, with progress) once, then kept
 * up to date from vault events — queued, debounced and applied one note at a time — and saved
 * a while after the last change. The index itself, and every decision about it, is the core's.
 */
export class SearchService {
  state: IndexState = { kind: "idle" };
  private engine: SearchEngine | null = null;
  private started: Promise<SearchEngine> | null = null;
  /** Changes not applied yet, in the order they happened. */
  private pending: Change[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly flushSoon: Debouncer<[], void>;
  private readonly saveSoon: Debouncer<[], void>;
  private flushing = false;
  /**
   * Set while the core restarts to give memory back (see {@link reset}): the new core's index,
   * once loaded (null if it failed). Meanwhile the index stays "ready" to the user, and a
   * search waits for the new core's copy instead of finding nothing.
   */
  private restart: Handover<SearchEngine> | null = null;

  /**
   * `files`: every file of the vault now, with its modification date (Obsidian's file list,
   * which it keeps in memory: no disk access).
   */
  constructor(
    private readonly core: () => Promise<CoreHandle>,
    private readonly files: () => DatedNote[],
  ) {
    this.flushSoon = debounce(() => void this.flush(), UPDATE_DELAY_MS, true);
    this.saveSoon = debounce(() => void this.save(), SAVE_DELAY_MS, true);
  }

  /** The notes of the full build this core made (0 when it loaded the saved index). */
  builtNotes = 0;

  /** Calls `listener` whenever the state or the index changes; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The index, loaded from `.obsidian-agent/index/` or built when missing or stale; once. */
  start(): Promise<SearchEngine> {
    this.started ??= this.load().catch((error: unknown) => {
      this.started = null;
      this.endRestart(null);
      this.set({ kind: "failed", message: errorMessage(error) });
      throw error;
    });
    return this.started;
  }

  /** Indexes every note again, from scratch (the "index vault" command). */
  async rebuild(): Promise<number> {
    const engine = await this.start();
    this.set({ kind: "indexing", done: 0, total: 0 });
    const count = await engine.build((done: number, total: number) => this.set({ kind: "indexing", done, total }));
    await engine.persist();
    this.builtNotes = count;
    this.set({ kind: "ready", notes: count });
    return count;
  }

  /** Up to `limit` hits for `text`, or none while the index is not ready. */
  async search(text: string, limit = 30, language?: string): Promise<SearchHit[]> {
    if (!text.trim()) return [];
    const engine = await this.readyEngine();
    return engine ? await engine.search({ text, limit, snippets: true, language }) : [];
  }

  /** Notes related to `path`, or none while the index is not ready. */
  async related(path: string, limit = 6): Promise<RelatedNote[]> {
    const engine = await this.readyEngine();
    if (!engine) return [];
    try {
      return await engine.related(path, limit);
    } catch (error) {
      console.error("Vault Agent: related notes failed", error);
      return [];
    }
  }

  /** A note was created or changed. */
  changed(path: string): void {
    this.enqueue({ kind: "update", path });
  }

  /** A note was deleted. */
  removed(path: string): void {
    this.enqueue({ kind: "remove", path });
  }

  /** A note was renamed. */
  renamed(from: string, to: string): void {
    this.enqueue({ kind: "rename", from, to });
  }

  /**
   * Applies queued changes now and saves what the index holds unsaved (the core writes nothing
   * when nothing changed); resolves once saved (the core can then end).
   */
  async stop(): Promise<void> {
    this.flushSoon.cancel();
    this.saveSoon.cancel();
    if (this.engine && this.state.kind === "ready") await this.flush().then(() => this.save());
  }

  /**
   * Forgets the engine, whose core is ending (a restart): the next {@link start} loads the
   * saved index in the new core. Changes arriving meanwhile wait for it. Call {@link stop} first.
   * With `reload` (a {@link start} follows at once), a ready index stays "ready" to the user
   * through the restart — the status bar does not flash "Indexing…" — and searches meanwhile
   * answer from the new core once it has loaded the index, a moment later.
   */
  reset(reload = false): void {
    this.engine = null;
    this.started = null;
    this.builtNotes = 0;
    this.endRestart(null);
    if (reload && this.state.kind === "ready") {
      this.restart = new Handover();
    } else {
      this.set({ kind: "idle" });
    }
  }

  /** The engine when the index is ready; during a restart, the new core's once loaded. */
  private async readyEngine(): Promise<SearchEngine | null> {
    const engine = this.engine ?? (await this.restart?.next) ?? null;
    return engine && this.state.kind === "ready" ? engine : null;
  }

  private endRestart(engine: SearchEngine | null): void {
    this.restart?.done(engine);
    this.restart = null;
  }

  /** One line for the status bar and the settings. */
  describe(): string {
    switch (this.state.kind) {
      case "idle":
        return "Search index not loaded";
      case "loading":
        return "Loading the search index…";
      case "indexing":
        return this.state.total
          ? `Indexing ${this.state.done.toLocaleString()}/${this.state.total.toLocaleString()} notes`
          : "Indexing…";
      case "ready":
        return `Search index: ${this.state.notes.toLocaleString()} notes`;
      case "failed":
        return `Search index failed: ${this.state.message}`;
    }
  }

  private async load(): Promise<SearchEngine> {
    const { vault } = await this.core();
    const engine = await vault.searchEngine();
    // A restart's reload shows nothing unless it has to build (the saved index was lost).
    const quiet = this.restart !== null;
    if (!quiet) this.set({ kind: "loading" });
    const progress = (done: number, total: number) => this.set({ kind: "indexing", done, total });
    const outcome = await engine.loadOrBuild(progress);
    // A saved index misses what changed while the app was closed: the core compares the
    // vault's file list and dates with it and reads only the notes that differ.
    const caughtUp = outcome.kind === "loaded" ? await engine.catchUp(this.files(), quiet ? () => {} : progress) : 0;
    this.engine = engine;
    if (outcome.kind === "built") await engine.persist();
    else if (caughtUp > 0) this.saveSoon();
    const notes = await engine.noteCount();
    if (outcome.kind === "built") this.builtNotes = notes;
    this.set({ kind: "ready", notes });
    this.endRestart(engine);
    // Changes made while the index was loading.
    if (this.pending.length) this.flushSoon();
    return engine;
  }

  private enqueue(change: Change): void {
    this.pending.push(change);
    if (this.engine) this.flushSoon();
  }

  private async flush(): Promise<void> {
    const engine = this.engine;
    if (!engine || this.flushing) return;
    this.flushing = true;
    let changed = false;
    try {
      while (this.pending.length) {
        for (const change of this.pending.splice(0)) {
          try {
            if (change.kind === "update") changed = (await engine.update(change.path)) || changed;
            else if (change.kind === "remove") changed = (await engine.remove(change.path)) || changed;
            else changed = (await engine.rename(change.from, change.to)) || changed;
          } catch (error) {
            console.error("Vault Agent: the search index could not follow a change", change, error);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
    if (changed) {
      this.set({ kind: "ready", notes: await engine.noteCount() });
      this.saveSoon();
    }
  }

  private async save(): Promise<void> {
    try {
      await this.engine?.persist();
    } catch (error) {
      console.error("Vault Agent: the search index could not be saved", error);
    }
  }

  private set(state: IndexState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
