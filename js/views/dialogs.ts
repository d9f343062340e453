import { Modal, type App } from "obsidian";
import type { ServerPrompt } from "../protocol";

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

/** Asks before the saved chat `title` is deleted (from the chat's header or the history). */
export function confirmDeleteChat(app: App, title: string, done: (confirmed: boolean) => void): void {
  const message = `“${title}” and its saved results go. Undo data of its tasks stays until it expires.`;
  new ConfirmModal(app, "Delete this chat?", message, "Delete", done).open();
}

/**
 * Asks for the values an MCP server's prompt takes (each a line of text); `done` gets them by
 * argument name, or null when cancelled. A required one left blank is named, and the dialog stays.
 */
export class PromptArgumentsModal extends Modal {
  private answered = false;

  constructor(
    app: App,
    private readonly prompt: ServerPrompt,
    private readonly done: (args: Record<string, string> | null) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.modalEl.addClass("vault-agent-prompt-modal", "vault-agent-prompt-arguments");
    this.titleEl.setText(this.prompt.title ?? this.prompt.name);
    const about = this.prompt.description ? `${this.prompt.description} ` : "";
    this.contentEl.createDiv({ cls: "vault-agent-prompt-about", text: `${about}(A prompt of the MCP server “${this.prompt.server}”.)` });
    const inputs = this.prompt.arguments.map((arg) => {
      const field = this.contentEl.createDiv({ cls: "vault-agent-prompt-argument" });
      const label = field.createEl("label", { text: arg.title ?? arg.name });
      if (arg.required) label.createSpan({ cls: "vault-agent-form-required", text: " *", attr: { "aria-label": "required" } });
      if (arg.description) field.createDiv({ cls: "vault-agent-form-description", text: arg.description });
      const input = field.createEl("input", { type: "text", cls: "vault-agent-prompt-input" });
      label.htmlFor = input.id = `vault-agent-prompt-arg-${arg.name}`;
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter") submit();
      });
      return { arg, input };
    });
    const problem = this.contentEl.createDiv({ cls: "vault-agent-form-problem" });
    problem.hide();
    for (const { input } of inputs) input.addEventListener("input", () => problem.hide());
    const submit = () => {
      const missing = inputs.find(({ arg, input }) => arg.required && !input.value.trim());
      if (missing) {
        problem.setText(`${missing.arg.title ?? missing.arg.name}: fill this in.`);
        problem.show();
        missing.input.focus();
        return;
      }
      this.answered = true;
      this.done(Object.fromEntries(inputs.filter(({ input }) => input.value.trim()).map(({ arg, input }) => [arg.name, input.value.trim()])));
      this.close();
    };
    const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
    buttons.createEl("button", { text: "Use prompt", cls: "mod-cta" }).addEventListener("click", submit);
    buttons.createEl("button", { text: "Cancel" }).addEventListener("click", () => this.close());
    inputs[0]?.input.focus();
  }

  onClose(): void {
    this.contentEl.empty();
    if (!this.answered) this.done(null);
  }
}
