import { Modal, type App } from "obsidian";
import { errorMessage } from "./turn";

/**
 * A large tool result the core saved in `.obsidian-agent/tmp/` (a hidden folder Obsidian does not
 * open as a note), shown as text. The file stays while its chat is open and goes when the chat
 * is closed or deleted.
 */
export class ResultModal extends Modal {
  constructor(
    app: App,
    private readonly path: string,
  ) {
    super(app);
  }

  onOpen(): void {
    this.modalEl.addClass("vault-agent-result");
    this.titleEl.setText(this.path.split("/").pop() ?? this.path);
    const body = this.contentEl.createEl("pre", { cls: "vault-agent-result-text", text: "Loading…" });
    this.app.vault.adapter.read(this.path).then(
      (text) => body.setText(text),
      (error: unknown) =>
        body.setText(`This result is gone: a chat's saved results are removed when the chat is closed (${errorMessage(error)}).`),
    );
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
