import { Notice, Plugin } from "obsidian";
import { loadCore } from "./core";
import { ObsidianVaultHost } from "./host/obsidianVaultHost";

/** Lifecycle only: commands and the lazily started core. Logic lives in the Rust core. */
export default class VaultAgentPlugin extends Plugin {
  async onload(): Promise<void> {
    this.addCommand({
      id: "show-core-status",
      name: "Show core status",
      callback: () => void this.showStatus(),
    });
    this.addRibbonIcon("bot", "Vault Agent: core status", () => void this.showStatus());
    // Start the core once the workspace is ready, off the critical path of app start-up.
    this.app.workspace.onLayoutReady(() => void this.showStatus());
  }

  private async showStatus(): Promise<void> {
    try {
      const core = await loadCore();
      const notes = await core.open(new ObsidianVaultHost(this.app)).noteCount();
      new Notice(`Vault Agent ${core.version} is ready (${notes} notes).`);
    } catch (error) {
      console.error("Vault Agent: the core failed to start", error);
      new Notice(`Vault Agent could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
