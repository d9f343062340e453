import { Modal, type App } from "obsidian";
import { errorMessage } from "./turn";

/**
 * A large tool result the core saved in `.obsidian-agent/tmp/` (a hidden folder Obsidian does not
 * open as a note), shown as text. The core removes the file when its task ends, so the result
 * can be looked at while the task runs.
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
        body.setText(`This result is gone: the core removes a task's saved results when the task ends (${errorMessage(error)}).`),
    );
  }

  onClose(): void {
    this.contentEl.empty();
  }
}
