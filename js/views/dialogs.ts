import { Modal, type App } from "obsidian";

/** Asks for one line of text (a chat's new title); `done` gets it, or null when cancelled. */
export class TextPromptModal extends Modal {
  private answered = false;

  constructor(
    app: App,
    private readonly title: string,
    private readonly value: string,
    private readonly done: (text: string | null) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.modalEl.addClass("vault-agent-prompt-modal");
    this.titleEl.setText(this.title);
    const input = this.contentEl.createEl("input", { type: "text", cls: "vault-agent-prompt-input", value: this.value });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && input.value.trim()) this.answer(input.value.trim());
    });
    const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
    buttons.createEl("button", { text: "Save", cls: "mod-cta" }).addEventListener("click", () => {
      if (input.value.trim()) this.answer(input.value.trim());
    });
    buttons.createEl("button", { text: "Cancel" }).addEventListener("click", () => this.close());
    input.focus();
    input.select();
  }

  onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.done(null);
  }

  private answer(text: string): void {
    this.answered = true;
    this.done(text);
    this.close();
  }
}

/** Asks to confirm something that cannot be taken back; `done(true)` when confirmed. */
export class ConfirmModal extends Modal {
  private confirmed = false;

  constructor(
    app: App,
    private readonly title: string,
    private readonly message: string,
    private readonly action: string,
    private readonly done: (confirmed: boolean) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.titleEl.setText(this.title);
    this.contentEl.createDiv({ text: this.message });
    const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
    buttons.createEl("button", { text: this.action, cls: "mod-warning vault-agent-confirm" }).addEventListener("click", () => {
      this.confirmed = true;
      this.close();
    });
    buttons.createEl("button", { text: "Cancel" }).addEventListener("click", () => this.close());
  }

  onClose(): void {
    this.contentEl.empty();
    this.done(this.confirmed);
  }
}
