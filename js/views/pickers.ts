import { FuzzySuggestModal, SuggestModal, TFile, type App } from "obsidian";
import { isAttachable } from "./media";
import type { ChatSummary } from "../protocol";

/** Picks a note, an image or a PDF to attach to the message (`@`). */
export class NotePickerModal extends FuzzySuggestModal<TFile> {
  constructor(
    app: App,
    private readonly onPick: (file: TFile) => void,
  ) {
    super(app);
    this.setPlaceholder("Attach a note, an image or a PDF…");
  }

  getItems(): TFile[] {
    return this.app.vault.getFiles().filter((f) => isAttachable(f.path));
  }

  getItemText(file: TFile): string {
    return file.path;
  }

  onChooseItem(file: TFile): void {
    this.onPick(file);
  }
}

/** Picks a slash prompt: a note in the prompts folder. */
export class PromptPickerModal extends FuzzySuggestModal<TFile> {
  constructor(
    app: App,
    private readonly folder: string,
    private readonly onPick: (file: TFile) => void,
  ) {
    super(app);
    this.setPlaceholder(`Prompts in ${folder}/…`);
    this.emptyStateText = `No notes in ${folder}/ yet. Each note there becomes a prompt.`;
  }

  getItems(): TFile[] {
    const prefix = `${this.folder.replace(/\/+$/, "")}/`;
    return this.app.vault.getMarkdownFiles().filter((f) => f.path.startsWith(prefix));
  }

  getItemText(file: TFile): string {
    return file.basename;
  }

  onChooseItem(file: TFile): void {
    this.onPick(file);
  }
}

/** Picks an earlier chat to continue. */
export class ChatHistoryModal extends SuggestModal<ChatSummary> {
  constructor(
    app: App,
    private readonly chats: ChatSummary[],
    private readonly onPick: (chat: ChatSummary) => void,
  ) {
    super(app);
    this.setPlaceholder("Continue an earlier chat…");
    this.emptyStateText = "No saved chats yet.";
  }

  getSuggestions(query: string): ChatSummary[] {
    const q = query.toLowerCase();
    return this.chats.filter((c) => c.title.toLowerCase().includes(q));
  }

  renderSuggestion(chat: ChatSummary, el: HTMLElement): void {
    el.addClass("vault-agent-history-item");
    el.createDiv({ cls: "vault-agent-history-title", text: chat.title });
    el.createDiv({
      cls: "vault-agent-history-meta",
      text: `${new Date(chat.updatedMs).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })} · ${chat.requests} ${chat.requests === 1 ? "request" : "requests"}`,
    });
  }

  onChooseSuggestion(chat: ChatSummary): void {
    this.onPick(chat);
  }
}

/** The text of a prompt note, without its frontmatter. */
export function promptText(markdown: string): string {
  return markdown.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, "").trim();
}
