import { Modal, Notice, Setting, normalizePath, type App } from "obsidian";
import { errorMessage } from "./turn";

/** What to edit: one file, or a new file in `folder` named by the user. */
export type EditTarget = { path: string } | { folder: string };

/**
 * A plain-text editor for one of the agent's files that Obsidian does not show: the rules and
 * skills under `.obsidian-agent/`, the ignore and protect lists at the vault's root. It reads
 * and writes through the vault's adapter (Obsidian indexes no dot-folder); a missing file
 * starts from `template`.
 */
export class VaultFileModal extends Modal {
  constructor(
    app: App,
    private readonly target: EditTarget,
    private readonly help: string,
    private readonly template: string,
    private readonly saved: () => void = () => {},
  ) {
    super(app);
  }

  async onOpen(): Promise<void> {
    const { contentEl, target } = this;
    const adapter = this.app.vault.adapter;
    this.modalEl.addClass("vault-agent-file-modal");
    this.setTitle("path" in target ? target.path : `New file in ${target.folder}/`);
    contentEl.createEl("p", { cls: "setting-item-description", text: this.help });
    let name = "";
    if ("folder" in target) {
      new Setting(contentEl).setName("File name").addText((t) =>
        t.setPlaceholder("Style").onChange((value) => {
          name = value.trim();
        }),
      );
    }
    const text = contentEl.createEl("textarea", { cls: "vault-agent-file-text" });
    text.spellcheck = false;
    text.value = this.template;
    if ("path" in target && (await adapter.exists(target.path))) text.value = await adapter.read(target.path);

    new Setting(contentEl)
      .addButton((b) => b.setButtonText("Cancel").onClick(() => this.close()))
      .addButton((b) =>
        b
          .setButtonText("Save")
          .setCta()
          .onClick(async () => {
            const path = "path" in target ? target.path : this.newPath(target.folder, name);
            if (!path) {
              new Notice("Give the file a name.");
              return;
            }
            if ("folder" in target && (await adapter.exists(path))) {
              new Notice(`${path} exists already: edit it from the settings.`);
              return;
            }
            try {
              const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
              if (folder && !(await adapter.exists(folder))) await adapter.mkdir(folder);
              await adapter.write(path, text.value);
              this.saved();
              this.close();
            } catch (error) {
              new Notice(`Not saved: ${errorMessage(error)}`);
            }
          }),
      );
    text.focus();
  }

  onClose(): void {
    this.contentEl.empty();
  }

  /** `folder/name.md` for a name the user typed (its own `.md` or none), or `null` for none. */
  private newPath(folder: string, name: string): string | null {
    const stem = name.replace(/\.md$/i, "").replace(/[\\/:]+/g, "-").trim();
    return stem ? normalizePath(`${folder}/${stem}.md`) : null;
  }
}

/** The `.md` files directly in `folder` (none when it does not exist yet), sorted. */
export async function markdownFiles(app: App, folder: string): Promise<string[]> {
  const adapter = app.vault.adapter;
  if (!(await adapter.exists(folder))) return [];
  const { files } = await adapter.list(folder);
  return files.filter((f) => f.toLowerCase().endsWith(".md")).sort();
}
