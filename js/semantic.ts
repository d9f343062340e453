import { debounce, Notice, type Debouncer } from "obsidian";
import type { CoreHandle } from "./context";
import type { SearchEngine } from "./core";
import { Handover } from "./handover";
import { detach } from "./core/client";
import type { EmbedderOptions, EmbedReport, HybridHit, Signals } from "./generated/protocol";
import type { SearchService } from "./search";
import { modelsNeeded, type LocalModel, type SearchMode } from "./settings";
import { errorMessage } from "./views/turn";
// The one place the plugin's repository and version are written: the core derives the release
// address of the static model from them (esbuild bundles just these two fields).
import { repository, version } from "../package.json";

/** Which signals found a hit, and where each ranked it (`Signals`, src/embed/hybrid.rs). */
export type FoundBy = Signals;

/** A hit of `searchMode` (`HybridHit`): a search hit that says which signal found it. */
export type ModeHit = HybridHit;

/** What one `embedNotes` run did (`EmbedReport`, src/embed/semantic.rs). */
export type { EmbedReport };

/** What the settings say about semantic search, read each time it is set up. */
export interface SemanticConfig {
  /** `null`: off. */
  embedder: EmbedderOptions | { missing: string } | null;
  /** Where models are downloaded from; empty: each model's own source. */
  modelBaseUrl: string;
  /** Embed in the background, and again after the vault changes (the index follows the vault). */
  background: boolean;
}

export type SemanticState =
  | { kind: "off" }
  | { kind: "unconfigured"; missing: string }
  | { kind: "no-model"; model: LocalModel }
  | { kind: "installing"; file: string; done: number; total: number }
  | { kind: "loading" }
  | { kind: "embedding"; done: number; total: number }
  | { kind: "ready"; notes: number; total: number }
  | { kind: "stopped"; notes: number; total: number }
  | { kind: "failed"; message: string };

/** The label of the signal that found a hit: its words, its meaning, both, or a link. */
export function foundByLabel(found: FoundBy): "words" | "meaning" | "both" | "link" {
  const words = typeof found.fulltext === "number";
  const meaning = typeof found.semantic === "number";
  if (words && meaning) return "both";
  if (words) return "words";
  if (meaning) return "meaning";
  return "link";
}

/** Embedding starts again this long after the last change (it looks at every note's date). */
const EMBED_DELAY_MS = 2000;

/**
 * Semantic search, kept by the core: the embedder the settings choose, set once the full-text
 * index is ready; the saved vectors loaded; every note not embedded yet (or changed since)
 * embedded in the background, with progress, cancellable, and again a while after the vault
 * changes. A local model is downloaded only when the user asks ({@link install}).
 */
export class SemanticService {
  state: SemanticState = { kind: "off" };
  private engine: SearchEngine | null = null;
  /** Whether the engine has an embedder (so searching by meaning can answer once notes are embedded). */
  private embedderSet = false;
  /** Notes with vectors, as last heard from the core (the core is across a worker's channel). */
  private embeddedNotes = 0;
  /** Notes the embedding runs of this core embedded. */
  embeddedByJobs = 0;
  private started: Promise<void> | null = null;
  /** Set-ups run one after another. */
  private setup: Promise<void> = Promise.resolve();
  private job: Promise<void> | null = null;
  /** Changes arrived while a run was going: run once more after it. */
  private again = false;
  /** Stopped by the user, or failed: changes do not start a run until asked again. */
  private held = false;
  private readonly listeners = new Set<() => void>();
  /**
   * Set while the core restarts to give memory back (see {@link reset}): the new core's engine
   * once set up again (null if it cannot search by meaning). Meanwhile semantic search stays
   * "ready" to the user, and a query waits for the new core instead of finding nothing.
   */
  private restart: Handover<SearchEngine> | null = null;
  private readonly embedSoon: Debouncer<[], void>;
  private readonly reconfigureSoon: Debouncer<[], void>;

  constructor(
    private readonly core: () => Promise<CoreHandle>,
    private readonly search: SearchService,
    private readonly config: () => SemanticConfig,
  ) {
    this.embedSoon = debounce(() => void this.embed(), EMBED_DELAY_MS, true);
    this.reconfigureSoon = debounce(() => void this.reconfigure(), 1000, true);
  }

  /** Calls `listener` whenever the state changes; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sets up what the settings choose, once the full-text index is ready (loads it if need be),
   * then embeds in the background if the settings say so. Once; {@link reconfigure} after changes.
   */
  start(): Promise<void> {
    this.started ??= this.reconfigure();
    return this.started;
  }

  /** Sets up again from the settings: a running embedding stops first. */
  reconfigure(): Promise<void> {
    this.setup = this.setup.then(() => this.configure()).catch((error: unknown) => this.set(this.failure(error)));
    return this.setup;
  }

  /** A setting changed: set up again, if semantic search was started at all. */
  settingsChanged(): void {
    if (this.started) void this.reconfigure();
  }

  /** The same, after typing in a setting has paused. */
  reconfigureLater(): void {
    if (this.started) this.reconfigureSoon();
  }

  /** Whether searching by meaning can answer now: an embedder is set and some notes are embedded. */
  canSearch(): boolean {
    return this.restart !== null || this.answers();
  }

  /** Whether this core's engine can answer by meaning now. */
  private answers(): boolean {
    return this.embedderSet && this.engine !== null && this.embeddedNotes > 0;
  }

  /** Whether "Embed now" can start a run: an embedder is set and none is going. */
  canEmbed(): boolean {
    return this.embedderSet && this.job === null;
  }

  /** Whether an embedding run is going. */
  get running(): boolean {
    return this.job !== null;
  }

  /** Up to `limit` notes for `text` by `mode`, each saying which signal found it. */
  async query(text: string, mode: SearchMode, limit: number, language?: string): Promise<ModeHit[]> {
    if (!text.trim()) return [];
    const engine = this.engine ?? (await this.restart?.next) ?? null;
    return engine ? await engine.searchMode({ text, mode, limit, language }) : [];
  }

  /** Whether a local model's files are in the vault. */
  async isInstalled(model: LocalModel): Promise<boolean> {
    return this.withEngine((engine) => engine.isModelInstalled(model));
  }

  /**
   * Downloads `model` into `.obsidian-agent/models/` (each file checked against its pinned
   * SHA-256 before it is written), with progress, then sets semantic search up with it. The only
   * way a model is ever fetched. Rejects with the reason when the download fails.
   */
  async install(model: LocalModel): Promise<void> {
    const baseUrl = this.config().modelBaseUrl.trim();
    const release = { repository, version };
    const options = baseUrl ? { model, baseUrl, release } : { model, release };
    const before = this.state;
    this.set({ kind: "installing", file: "", done: 0, total: 0 });
    try {
      await this.withEngine((engine) =>
        engine.installModel(options, (file: string, done: number, total: number) =>
          this.set({ kind: "installing", file, done, total }),
        ),
      );
    } catch (error) {
      this.set(before);
      throw error;
    }
    await this.reconfigure();
  }

  /**
   * Places a model file the user picked (offline: no download) where {@link install} would put
   * it, once the core has checked it against the pinned size and SHA-256; then sets semantic
   * search up if that completed the model. Resolves to the file's name in the model; rejects
   * with the reason for any other file.
   */
  async installFromFile(model: LocalModel, file: File): Promise<string> {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const placed = await this.withEngine((engine) => engine.installModelFile(model, file.name, bytes));
    if (await this.isInstalled(model)) await this.reconfigure();
    return placed;
  }

  /** A note was created, changed, renamed or deleted: embed what changed, shortly. */
  changed(): void {
    if (this.embedderSet && !this.held) this.embedSoon();
  }

  /** Stops the running embedding (the "Stop embedding" command); what is done is kept. */
  cancel(): void {
    this.held = true;
    this.embedSoon.cancel();
    detach(this.engine?.cancelEmbedding());
  }

  /** Embeds what is missing now (the settings' button, after a stop or a failure). */
  resume(): void {
    this.held = false;
    void this.embed();
  }

  /** On unload: a running embedding stops (it saves what it has). */
  stop(): void {
    this.embedSoon.cancel();
    this.reconfigureSoon.cancel();
    detach(this.engine?.cancelEmbedding());
  }

  /**
   * Saves what the runs left unsaved, before the core ends or the app quits: a running
   * embedding stops first (it saves what it has). A run that changed little leaves its vectors
   * unsaved (the core's SAVE_SHARE); unsaved, the next core would embed the same notes again.
   * The service carries on: the next vault change embeds as usual.
   */
  async save(): Promise<void> {
    this.stop();
    await this.job;
    await this.setup;
    if (this.engine && this.embedderSet) {
      await this.engine.saveEmbeddings().catch((error: unknown) => console.error("Vault Agent: the embeddings could not be saved", error));
    }
  }

  /**
   * Lets the engine go, whose core is ending (a restart), after {@link save}. The next
   * {@link start} sets up again in the new core. With `reload` (a {@link start} follows at
   * once), semantic search that could answer stays so to the user through the restart, and a
   * query meanwhile waits for the new core to have the vectors again.
   */
  async reset(reload = false): Promise<void> {
    await this.save();
    const searchable = this.canSearch();
    this.engine = null;
    this.embedderSet = false;
    this.started = null;
    this.embeddedByJobs = 0;
    this.endRestart(null);
    if (reload && searchable) {
      this.restart = new Handover();
    }
  }

  private endRestart(engine: SearchEngine | null): void {
    this.restart?.done(engine);
    this.restart = null;
  }

  /** One line for the settings. */
  describe(): string {
    const s = this.state;
    switch (s.kind) {
      case "off":
        return "Off: search finds notes by their words only.";
      case "unconfigured":
        return `Not set up: it needs ${s.missing}.`;
      case "no-model":
        return "No model yet: download it above, or load it from a file. Nothing is fetched until you do.";
      case "installing":
        return s.total ? `Downloading ${s.file}: ${megabytes(s.done)} of ${megabytes(s.total)}` : "Downloading…";
      case "loading":
        return "Loading the model and the saved embeddings…";
      case "embedding":
        return s.total ? `Embedding ${count(s.done)}/${count(s.total)} notes…` : "Embedding…";
      case "ready":
        return `${count(s.notes)}/${count(s.total)} notes embedded.`;
      case "stopped":
        return `Stopped: ${count(s.notes)}/${count(s.total)} notes embedded.`;
      case "failed":
        return `Embedding failed: ${s.message}`;
    }
  }

  /** A short note for the status bar, or "" when there is nothing to say. */
  statusText(): string {
    const s = this.state;
    switch (s.kind) {
      case "installing":
        return s.total ? `downloading the model ${Math.floor((100 * s.done) / s.total)}%` : "downloading the model";
      case "embedding":
        return s.total ? `embedding ${count(s.done)}/${count(s.total)}` : "embedding…";
      case "ready":
        return `${count(s.notes)} embedded`;
      case "stopped":
        return `embedding stopped at ${count(s.notes)}/${count(s.total)}`;
      case "failed":
        return "embedding failed";
      default:
        return "";
    }
  }

  private async configure(): Promise<void> {
    try {
      await this.setUp();
    } finally {
      // A restart's reload is done: queries waiting for it go to the new core, if it can answer.
      this.endRestart(this.answers() ? this.engine : null);
    }
  }

  private async setUp(): Promise<void> {
    let engine: SearchEngine;
    try {
      engine = await this.search.start();
    } catch {
      return; // the full-text index says why, in the status bar
    }
    this.engine = engine;
    this.reconfigureSoon.cancel();
    this.embedSoon.cancel();
    if (this.job) {
      await engine.cancelEmbedding();
      await this.job;
    }
    const { embedder, background } = this.config();
    this.held = false;
    this.embedderSet = false;
    try {
      if (!embedder || "missing" in embedder) {
        await engine.clearEmbedder();
        this.set(embedder ? { kind: "unconfigured", missing: embedder.missing } : { kind: "off" });
        return;
      }
      for (const model of modelsNeeded(embedder)) {
        if (await engine.isModelInstalled(model)) continue;
        await engine.clearEmbedder();
        this.set({ kind: "no-model", model });
        return;
      }
      // A restart's reload keeps showing what was there: the same vectors, loaded again.
      if (!this.restart) this.set({ kind: "loading" });
      const set = await engine.setEmbedder(embedder);
      if (set.workersFailed) console.warn(`Vault Agent: MiniLM runs in the core's own thread: ${set.workersFailed}`);
      await engine.loadEmbeddings();
      this.embedderSet = true;
      this.set({ kind: "ready", notes: await engine.embeddedNoteCount(), total: await engine.noteCount() });
    } catch (error) {
      this.set(this.failure(error));
      return;
    }
    if (background) void this.embed();
  }

  /** Whether the model is being set up or loaded, or notes are being embedded. */
  busy(): boolean {
    return this.job !== null || this.restart !== null || ["installing", "loading", "embedding"].includes(this.state.kind);
  }

  /** Runs the core's embedding job (again while changes keep arriving), in the background. */
  private embed(): Promise<void> {
    const engine = this.engine;
    if (!engine || !this.embedderSet || this.held) return Promise.resolve();
    if (this.job) {
      this.again = true;
      return this.job;
    }
    this.job = (async () => {
      let end: SemanticState = this.state;
      try {
        do {
          this.again = false;
          this.set({ kind: "embedding", done: 0, total: 0 });
          const report = await engine.embedNotes((done: number, total: number) =>
            this.set({ kind: "embedding", done, total }),
          );
          const notes = await engine.embeddedNoteCount();
          this.embeddedByJobs += report.embeddedNotes;
          end = { kind: report.cancelled ? "stopped" : "ready", notes, total: report.notes };
          if (report.cancelled) break;
        } while (this.again && !this.held);
      } catch (error) {
        this.held = true;
        end = this.failure(error);
      }
      // Not running any more when listeners hear the outcome.
      this.job = null;
      this.set(end);
    })();
    return this.job;
  }

  /** Says what went wrong (a notice, the console) and returns the state that shows it. */
  private failure(error: unknown): SemanticState {
    const message = errorMessage(error);
    console.error("Vault Agent: semantic search", error);
    new Notice(`Semantic search: ${message}`);
    return { kind: "failed", message };
  }

  /** Runs `f` on the engine without waiting for the full-text index (a download needs none). */
  private async withEngine<T>(f: (engine: SearchEngine) => Promise<T>): Promise<T> {
    if (this.engine) return f(this.engine);
    const engine = await (await this.core()).vault.searchEngine();
    try {
      return await f(engine);
    } finally {
      engine.free();
    }
  }

  private set(state: SemanticState): void {
    this.state = state;
    if (state.kind === "ready" || state.kind === "stopped") this.embeddedNotes = state.notes;
    else if (state.kind === "embedding") this.embeddedNotes = Math.max(this.embeddedNotes, state.done);
    else if (state.kind !== "loading" && state.kind !== "installing") this.embeddedNotes = 0;
    for (const listener of this.listeners) listener();
  }
}

const count = (n: number): string => n.toLocaleString();
const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
