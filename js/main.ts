import { Notice, Platform, Plugin, type WorkspaceLeaf } from "obsidian";
import type { CoreHandle, PluginContext } from "./context";
import { loadCore, type Core } from "./core";
import { ObsidianVaultHost } from "./host/obsidianVaultHost";
import type { CheckpointSummary, ModelPrice, ProviderConfig, Transport, Usage, UndoReport } from "./protocol";
import { ApiKeys, DEFAULT_SETTINGS, migrateSettings, type VaultAgentSettings } from "./settings";
import { VaultAgentSettingTab } from "./settingsTab";
import { requestWithObsidian } from "./transport";
import { ChatView, VIEW_TYPE_CHAT } from "./views/ChatView";
import { errorMessage } from "./views/turn";

/**
 * Lifecycle only: settings, the sidebar view, commands, the ribbon icon, the settings tab, and
 * the wasm core, started lazily once. Everything the agent does happens in the core.
 */
export default class VaultAgentPlugin extends Plugin implements PluginContext {
  settings: VaultAgentSettings = structuredClone(DEFAULT_SETTINGS);
  private keys!: ApiKeys;
  private started: Promise<CoreHandle> | null = null;
  private loaded: Core | null = null;

  async onload(): Promise<void> {
    this.settings = migrateSettings(await this.loadData());
    this.keys = new ApiKeys(this.app, () => this.settings);

    this.registerView(VIEW_TYPE_CHAT, (leaf: WorkspaceLeaf) => new ChatView(leaf, this));
    this.addRibbonIcon("bot", "Open Vault Agent", () => void this.openChat());
    this.addSettingTab(new VaultAgentSettingTab(this.app, this, this));

    this.addCommand({ id: "open-chat", name: "Open chat", callback: () => void this.openChat() });
    this.addCommand({
      id: "ask-about-current-note",
      name: "Ask about the current note",
      checkCallback: (checking) => {
        const file = this.app.workspace.getActiveFile();
        if (!file || file.extension !== "md") return false;
        if (!checking) {
          void this.openChat().then((view) => {
            view?.attach(file);
            view?.focusInput(`Ask about ${file.basename}…`);
          });
        }
        return true;
      },
    });
    this.addCommand({ id: "undo-last-task", name: "Undo the last task", callback: () => void this.undoLastTask() });
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

    // Start the core once the workspace is ready, off the critical path of app start-up, and
    // sweep temporary files that tasks interrupted by a closed app left behind.
    this.app.workspace.onLayoutReady(() => {
      void this.core()
        .then(({ vault }) => vault.sweepTemporaryFiles())
        .catch((error: unknown) => console.error("Vault Agent: the core failed to start", error));
    });
  }

  onunload(): void {
    // Views close with the plugin (Obsidian detaches their leaves); nothing else holds resources.
    this.started = null;
  }

  // ---- PluginContext ---------------------------------------------------------------------------

  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
  }

  core(): Promise<CoreHandle> {
    this.started ??= loadCore()
      .then((core) => {
        this.loaded = core;
        // requestUrl: the transport without CORS, and the only one on mobile.
        const vault = core.open(new ObsidianVaultHost(this.app), requestWithObsidian);
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

  transport(): Transport {
    // On mobile, streaming fetch is bound by CORS with no way around it: requestUrl is.
    return Platform.isMobileApp && this.settings.transport === "auto" ? "request" : this.settings.transport;
  }

  apiKeyStore(): ApiKeys {
    return this.keys;
  }

  modelPrice(provider: ProviderConfig): ModelPrice | null {
    return this.loaded?.modelPrice(provider) ?? null;
  }

  costOf(price: ModelPrice, usage: Usage): number {
    return this.loaded?.costOf(price, usage) ?? 0;
  }

  openSettings(): void {
    // Obsidian has no public call to open a plugin's tab; this is the one every plugin uses.
    const setting = (this.app as unknown as { setting?: { open(): void; openTabById(id: string): void } }).setting;
    setting?.open();
    setting?.openTabById(this.manifest.id);
  }

  openSearch(): void {
    new Notice("Full-text search arrives with the search index.");
  }

  renderRelated(): void {
    // The related-notes section arrives with the search index.
  }

  indexStatus(): string {
    return this.settings.indexing.enabled ? "On." : "Off: search uses the index as it was last saved.";
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

  private chatViews(): ChatView[] {
    return this.app.workspace
      .getLeavesOfType(VIEW_TYPE_CHAT)
      .map((leaf) => leaf.view)
      .filter((view): view is ChatView => view instanceof ChatView);
  }

  private async undoLastTask(): Promise<void> {
    try {
      const { vault } = await this.core();
      const tasks = (await vault.listCheckpoints()) as CheckpointSummary[];
      const last = tasks.find((t) => t.undone_ms === undefined || t.undone_ms === null);
      if (!last) {
        new Notice("No task to undo.");
        return;
      }
      const report = (await vault.undoTask(last.task_id)) as UndoReport;
      const changed = report.restored.length + report.trashed.length + report.recreated_folders.length;
      const failed = report.failed.length ? ` ${report.failed.length} could not be restored.` : "";
      new Notice(`Undid task ${last.task_id}: ${changed} paths put back.${failed}`);
    } catch (error) {
      new Notice(`Undo failed: ${errorMessage(error)}`);
    }
  }
}
