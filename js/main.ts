import { Notice, Platform, Plugin, TFile, TFolder, type Editor, type TAbstractFile, type WorkspaceLeaf } from "obsidian";
import type { CoreHandle, PluginContext } from "./context";
import { startCore, type CoreThread } from "./core";
import { ObsidianVaultHost } from "./host/obsidianVaultHost";
import { Processes } from "./host/processes";
import { SIGN_IN_ACTION, signInAnswered } from "./mcpSignIn";
import type { Spend, Transport } from "./protocol";
import { ApiKeys, DEFAULT_SETTINGS, embedderOptions, migrateSettings, type VaultAgentSettings } from "./settings";
import { VaultAgentSettingTab } from "./settingsTab";
import { SearchService } from "./search";
import { SemanticService } from "./semantic";
import { requestWithObsidian } from "./transport";
import { describeUndo } from "./views/UndoModal";
import { ChatView, VIEW_TYPE_CHAT } from "./views/ChatView";
import { SearchModal } from "./views/SearchModal";
import { editSelection, editorView, inlineEditExtension } from "./views/inlineEdit";
import { suggestExtension } from "./views/suggest";
import { isAttachable } from "./views/media";
import { errorMessage } from "./views/turn";

/**
 * Lifecycle only: settings, the sidebar view, commands, the ribbon icon, the settings tab, and
 * the wasm core, started lazily once. Everything the agent does happens in the core.
 */
export default class VaultAgentPlugin extends Plugin implements PluginContext {
  settings: VaultAgentSettings = structuredClone(DEFAULT_SETTINGS);
  /** Where the core runs, once started. */
  thread: CoreThread | null = null;
  private keys!: ApiKeys;
  private started: Promise<CoreHandle> | null = null;
  /** What the model calls of the cores before a restart took (the new core counts on from it). */
  private spendingCarried: Spend[] | null = null;
  /** A restart that gives memory back is due (see `settleSoon`), or under way. */
  private settleTimer: number | null = null;
  private restarting = false;
  /** MCP servers that are commands, on desktop. */
  private readonly processes = new Processes();
  readonly search = new SearchService(
    () => this.core(),
    () => this.app.vault.getMarkdownFiles().map((file) => ({ path: file.path, mtime: file.stat.mtime })),
  );
  readonly semantic = new SemanticService(
    () => this.core(),
    this.search,
    () => ({
      embedder: embedderOptions(this.settings, this.keys.get("embeddings")),
      modelBaseUrl: this.settings.semantic.modelBaseUrl,
      background: this.settings.indexing.enabled,
    }),
  );

  async onload(): Promise<void> {
    this.settings = migrateSettings(await this.loadData());
    this.keys = new ApiKeys(this.app, () => this.settings);

    this.registerView(VIEW_TYPE_CHAT, (leaf: WorkspaceLeaf) => new ChatView(leaf, this));
    // The browser comes back here after signing in to an MCP server.
    this.registerObsidianProtocolHandler(SIGN_IN_ACTION, (params) => signInAnswered(params));
    this.addRibbonIcon("bot", "Open Vault Agent", () => void this.openChat());
    this.addSettingTab(new VaultAgentSettingTab(this.app, this, this));

    this.addCommand({ id: "open-chat", name: "Open chat", callback: () => void this.openChat() });
    this.addCommand({
      id: "ask-about-current-note",
      name: "Ask about the current note",
      checkCallback: (checking) => {
        const file = this.app.workspace.getActiveFile();
        if (!file || file.extension !== "md") return false;
        if (!checking) this.askAbout(file);
        return true;
      },
    });
    this.addCommand({
      id: "ask-about-selection",
      name: "Ask about the selection",
      editorCheckCallback: (checking, editor, ctx) => {
        const selection = editor.getSelection();
        if (!selection.trim()) return false;
        if (!checking) this.askAboutSelection(selection, ctx.file);
        return true;
      },
    });
    this.registerEditorExtension(inlineEditExtension());
    this.registerEditorExtension(suggestExtension(this, this.app));
    // No default hotkey: users bind one under Settings → Hotkeys.
    this.addCommand({
      id: "edit-selection",
      name: "Edit the selection",
      editorCheckCallback: (checking, editor, ctx) => {
        const file = ctx.file;
        if (!file || !canEditSelection(editor, file)) return false;
        if (!checking) editSelection(this, this.app.workspace, editor, file, ctx);
        return true;
      },
    });
    // The same actions where Obsidian's users look for them: the editor's and the file
    // explorer's right-click menus.
    this.registerEvent(
      this.app.workspace.on("editor-menu", (menu, editor, info) => {
        const file = info.file;
        // The selection as the menu opened on it (clicking the menu may move the editor's).
        const selection = editor.getSelection();
        if (selection.trim()) {
          menu.addItem((item) =>
            item.setTitle("Ask Vault Agent about the selection").setIcon("bot").onClick(() => this.askAboutSelection(selection, file)),
          );
          if (file && canEditSelection(editor, file)) {
            const [from, to] = [editor.getCursor("from"), editor.getCursor("to")];
            menu.addItem((item) =>
              item
                .setTitle("Edit the selection with Vault Agent")
                .setIcon("pencil")
                .onClick(() => {
                  editor.setSelection(from, to);
                  editSelection(this, this.app.workspace, editor, file, info);
                }),
            );
          }
        } else if (file?.extension === "md") {
          menu.addItem((item) => item.setTitle("Ask Vault Agent about this note").setIcon("bot").onClick(() => this.askAbout(file)));
        }
      }),
    );
    this.registerEvent(
      this.app.workspace.on("file-menu", (menu, file) => {
        if (file instanceof TFolder) {
          menu.addItem((item) => item.setTitle("Ask Vault Agent about this folder").setIcon("bot").onClick(() => this.askAboutFolder(file)));
        }
        if (!(file instanceof TFile) || !isAttachable(file.path)) return;
        menu.addItem((item) => item.setTitle("Ask Vault Agent about this file").setIcon("bot").onClick(() => this.askAbout(file)));
      }),
    );
    this.addCommand({ id: "undo-last-task", name: "Undo the last task", callback: () => void this.undoLastTask() });
    // No default hotkey (Obsidian's guidelines): users bind one under Settings → Hotkeys.
    this.addCommand({ id: "search-vault", name: "Search the vault", callback: () => this.openSearch() });
    this.addCommand({ id: "index-vault", name: "Index the vault again", callback: () => void this.reindex() });
    this.addCommand({
      id: "stop-embedding",
      name: "Stop embedding",
      checkCallback: (checking) => {
        if (!this.semantic.running) return false;
        if (!checking) this.semantic.cancel();
        return true;
      },
    });
    this.addCommand({
      id: "stop-task",
      name: "Stop the running task",
      checkCallback: (checking) => {
        const running = this.chatViews().filter((v) => v.isRunning());
        if (!running.length) return false;
        if (!checking) running.forEach((v) => v.stop());
        return true;
      },
    });

    // Indexing progress, then the index's size, in the status bar, with embedding's after it;
    // a click opens search.
    const status = this.addStatusBarItem();
    status.addClass("vault-agent-index-status", "mod-clickable");
    status.addEventListener("click", () => this.openSearch());
    const showStatus = () => {
      const embedding = this.semantic.statusText();
      status.setText(embedding ? `${this.search.describe()} · ${embedding}` : this.search.describe());
    };
    this.register(this.search.onChange(showStatus));
    this.register(this.semantic.onChange(showStatus));
    this.register(this.search.onChange(() => this.settleSoon()));
    this.register(this.semantic.onChange(() => this.settleSoon()));

    // The indexes follow the vault. Events arrive for every file; the core indexes notes only.
    // Embedding looks at every note again (cheaply: unchanged ones by their date) a while later.
    // Registered once the layout is ready: Obsidian reports every file of the vault as created
    // while it loads, and the saved index catches up with the vault's dates instead (one call,
    // reading only the notes that changed while the app was closed).
    const note = (file: TAbstractFile) => this.settings.indexing.enabled && file instanceof TFile && file.extension === "md";
    const follow = (file: TAbstractFile, apply: () => void) => {
      if (!note(file)) return;
      apply();
      this.semantic.changed();
    };
    this.app.workspace.onLayoutReady(() => {
      this.registerEvent(this.app.vault.on("create", (file) => follow(file, () => this.search.changed(file.path))));
      this.registerEvent(this.app.vault.on("modify", (file) => follow(file, () => this.search.changed(file.path))));
      this.registerEvent(this.app.vault.on("delete", (file) => follow(file, () => this.search.removed(file.path))));
      this.registerEvent(
        this.app.vault.on("rename", (file, oldPath) => follow(file, () => this.search.renamed(oldPath, file.path))),
      );
    });
    // Obsidian waits for these tasks before it quits (onunload does not run then): the index's
    // changes of the last half minute and the vectors of the last few edited notes are saved, so
    // the next start need not redo them (with an embeddings API, pay for them again). The event
    // is best effort both ways: where the app goes on after all, embedding resumes a while later.
    this.registerEvent(
      this.app.workspace.on("quit", (tasks) =>
        tasks.add(async () => {
          await this.saveIndexes();
          this.semantic.changed();
        }),
      ),
    );

    // Start the core once the workspace is ready, off the critical path of app start-up; sweep
    // temporary files that tasks interrupted by a closed app left behind; load the index.
    this.app.workspace.onLayoutReady(() => {
      showStatus();
      void this.core()
        .then(async ({ vault }) => {
          await vault.sweepTemporaryFiles();
          const { days, tasks } = this.settings.retention;
          const open = this.chatViews().flatMap((view) => view.taskIds());
          await vault.pruneTasks({ maxAgeDays: days, maxTasks: tasks }, open);
          if (!this.settings.indexing.enabled) return;
          await this.search.start();
          // Then semantic search, in the background: what the settings choose, never a download.
          await this.semantic.start();
        })
        .catch((error: unknown) => console.error("Vault Agent: the core failed to start", error));
    });
  }

  onunload(): void {
    // Views close with the plugin (Obsidian detaches their leaves). What the index and the
    // embeddings hold unsaved is saved; then the core (its worker) ends.
    this.processes.closeAll();
    const started = this.started;
    this.started = null;
    void this.saveIndexes().finally(() => void started?.then(({ core }) => core.close(), () => undefined));
  }

  /**
   * Applies the changes the index has not followed yet, then saves what the index and the
   * embeddings hold unsaved (the core writes nothing when nothing changed). A running
   * embedding stops at once (it saves what it has); the next vault change resumes it.
   */
  private async saveIndexes(): Promise<void> {
    this.semantic.stop();
    await this.search.stop();
    await this.semantic.save();
  }

  /**
   * Ends the core and starts a fresh one, which loads the saved index: the memory the old one
   * held (a full rebuild's, the wasm heap never shrinks) goes back. Not while a task runs; then
   * false.
   */
  async restartCore(): Promise<boolean> {
    const running = () => this.chatViews().some((view) => view.isRunning());
    if (running()) return false;
    const started = this.started;
    if (!started) return true;
    await this.search.stop();
    // A task that began while the index was being saved keeps this core.
    if (running()) return false;
    // With indexing on, both load again at once below, quietly: to the user, nothing happened.
    const reload = this.settings.indexing.enabled;
    await this.semantic.reset(reload);
    this.search.reset(reload);
    this.started = null;
    try {
      const old = await started.catch(() => null);
      this.spendingCarried = (await old?.vault.spending().catch(() => null)) ?? this.spendingCarried;
      old?.core.close();
      // Chats re-create themselves in the new core from their history.
      for (const view of this.chatViews()) view.refresh();
    } finally {
      // Searches asked since the resets wait for these, whatever happened above. Semantic
      // search sets up once the index is loaded (or says why not if it failed).
      if (reload) {
        void this.semantic.start();
        await this.search.start();
      }
    }
    return true;
  }

  /**
   * A full build or a long embedding run leaves the core's memory at that work's peak (wasm
   * memory never shrinks). Once such work is done and nothing runs — no indexing, embedding or
   * task — the core restarts and loads what was saved, and that memory goes back
   * (`indexing.restartAfterNotes`; BENCHMARKS.md, "The UI thread while the core works").
   */
  private settleSoon(): void {
    if (!this.heavyWorkDone() || this.settleTimer !== null || this.restarting) return;
    this.settleTimer = window.setTimeout(() => void this.settle(), 2000);
    this.registerInterval(this.settleTimer);
  }

  private heavyWorkDone(): boolean {
    const threshold = this.settings.indexing.restartAfterNotes;
    return threshold > 0 && Math.max(this.search.builtNotes, this.semantic.embeddedByJobs) >= threshold;
  }

  private async settle(): Promise<void> {
    this.settleTimer = null;
    // Still working: the end of that work calls settleSoon again.
    if (!this.heavyWorkDone() || this.search.state.kind !== "ready" || this.semantic.busy()) return;
    this.restarting = true;
    let restarted = false;
    try {
      restarted = await this.restartCore();
    } finally {
      this.restarting = false;
    }
    // A task is running: try again a while later.
    if (!restarted) {
      this.settleTimer = window.setTimeout(() => void this.settle(), 30_000);
      this.registerInterval(this.settleTimer);
    }
  }

  /** Whether a restart that gives memory back is due or under way (benchmarks wait for it). */
  settling(): boolean {
    return this.settleTimer !== null || this.restarting;
  }

  // ---- PluginContext ---------------------------------------------------------------------------

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
  }

  core(): Promise<CoreHandle> {
    this.started ??= startCore()
      .then(async (core) => {
        // requestUrl: the transport without CORS, and the only one on mobile.
        const host = new ObsidianVaultHost(this.app, Platform.isDesktopApp ? this.processes : undefined);
        const vault = await core.open(host, requestWithObsidian);
        // After a restart, the session's spending goes on counting from the old core's totals.
        if (this.spendingCarried) await vault.carrySpending(this.spendingCarried);
        this.thread = core.thread;
        return { core, vault };
      })
      .catch((error: unknown) => {
        this.started = null;
        throw error;
      });
    return this.started;
  }

  apiKey(): string {
    return this.keys.get(this.settings.provider.preset);
  }

  vaultPath(): string | undefined {
    // Desktop's adapter knows the vault's folder; a phone's has none a server could use.
    const adapter = this.app.vault.adapter as { getBasePath?: () => string };
    return Platform.isDesktopApp && typeof adapter.getBasePath === "function" ? adapter.getBasePath() : undefined;
  }

  transport(): Transport {
    // The same on mobile: the app's webview streams with fetch wherever the provider allows CORS
    // (Anthropic, OpenAI, OpenRouter…); where it refuses, "auto" goes on through requestUrl.
    return this.settings.transport;
  }

  apiKeyStore(): ApiKeys {
    return this.keys;
  }

  openSettings(): void {
    // Obsidian has no public call to open a plugin's tab; this is the one every plugin uses.
    const setting = (this.app as unknown as { setting?: { open(): void; openTabById(id: string): void } }).setting;
    setting?.open();
    setting?.openTabById(this.manifest.id);
  }

  openSearch(): void {
    new SearchModal(this.app, this).open();
  }

  indexStatus(): string {
    const state = this.search.describe();
    const where = this.thread?.kind === "main" ? ` The core runs in the main thread (no worker: ${this.thread.reason}).` : "";
    return this.settings.indexing.enabled
      ? `${state}. Notes are indexed as they change.${where}`
      : `${state}. Off: the index loads when you search and does not follow changes.${where}`;
  }

  onSettingsChanged(): void {
    for (const view of this.chatViews()) view.refresh();
  }

  // ---- commands --------------------------------------------------------------------------------

  /** Opens (or reveals) the chat in the right sidebar. */
  async openChat(): Promise<ChatView | null> {
    const { workspace } = this.app;
    let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(VIEW_TYPE_CHAT)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return null;
      await leaf.setViewState({ type: VIEW_TYPE_CHAT, active: true });
    }
    await workspace.revealLeaf(leaf);
    return leaf.view instanceof ChatView ? leaf.view : null;
  }

  /** The chat with `file` attached (a note, an image or a PDF), waiting for the question. */
  private askAbout(file: TFile): void {
    void this.openChat().then((view) => {
      view?.attach(file);
      view?.focusInput(`Ask about ${file.basename}…`);
    });
  }

  /** The chat with the folder named in its box (the agent lists and reads it), waiting for the question. */
  private askAboutFolder(folder: TFolder): void {
    void this.openChat().then((view) => view?.fillInput(`About the notes in ${folder.isRoot() ? "the whole vault" : `${folder.path}/`}: `));
  }

  /** The chat with `selection` quoted in its box (its note attached), a line to ask on. */
  private askAboutSelection(selection: string, file: TFile | null): void {
    void this.openChat().then((view) => {
      if (file) view?.attach(file);
      // The user writes the question and sends it.
      view?.fillInput(`${quote(selection)}\n\n`);
    });
  }

  async deleteChat(id: string): Promise<boolean> {
    const showing = this.chatViews().filter((view) => view.chatId() === id);
    if (showing.some((view) => view.isRunning())) {
      new Notice("That chat is running a task: stop it first.");
      return false;
    }
    try {
      const { vault } = await this.core();
      await vault.deleteChat(id);
    } catch (error) {
      new Notice(`The chat could not be deleted: ${errorMessage(error)}`);
      return false;
    }
    for (const view of showing) view.chatDeleted();
    return true;
  }

  private chatViews(): ChatView[] {
    return this.app.workspace
      .getLeavesOfType(VIEW_TYPE_CHAT)
      .map((leaf) => leaf.view)
      .filter((view): view is ChatView => view instanceof ChatView);
  }

  async reindex(): Promise<void> {
    try {
      const count = await this.search.rebuild();
      new Notice(`Indexed ${count.toLocaleString()} notes.`);
      // A full build leaves the core's memory at its peak: a fresh core loads the saved index.
      await this.restartCore();
    } catch (error) {
      new Notice(`Indexing failed: ${errorMessage(error)}`);
    }
  }

  private async undoLastTask(): Promise<void> {
    try {
      const { vault } = await this.core();
      const tasks = await vault.listCheckpoints();
      const last = tasks.find((t) => !t.taskId.startsWith("undo-") && (t.undoneMs === undefined || t.undoneMs === null));
      if (!last) {
        new Notice("No task to undo.");
        return;
      }
      // Files changed since the task are kept (the chat's Undo asks about each one).
      const report = await vault.undoTask(last.taskId);
      new Notice(`Task ${last.taskId}: ${describeUndo(report)}`);
    } catch (error) {
      new Notice(`Undo failed: ${errorMessage(error)}`);
    }
  }
}

/** Whether inline edit can rewrite `editor`'s selection in `file` (a note, in an editor it can draw in). */
function canEditSelection(editor: Editor, file: TFile): boolean {
  return file.extension === "md" && !!editor.getSelection() && !!editorView(editor);
}

/** `text` as a Markdown quote. */
function quote(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}
