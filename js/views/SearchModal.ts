import { Keymap, SuggestModal, type App } from "obsidian";
import type { SearchHit, SearchService } from "../search";

/**
 * Full-text search over the vault's index, no model needed: results as you type, each with
 * its title, path and a snippet whose matched words are highlighted; Enter opens the note
 * (with Ctrl/Cmd, in a new tab).
 */
export class SearchModal extends SuggestModal<SearchHit> {
  private unsubscribe: (() => void) | null = null;

  constructor(
    app: App,
    private readonly search: SearchService,
  ) {
    super(app);
    this.modalEl.addClass("vault-agent-search-modal");
    this.setPlaceholder("Search the vault…");
    this.setInstructions([
      { command: "↑↓", purpose: "to move" },
      { command: "↵", purpose: "to open" },
      { command: "ctrl ↵", purpose: "to open in a new tab" },
      { command: '"…" -word #tag folder:', purpose: "to refine" },
    ]);
    this.limit = 30;
  }

  onOpen(): void {
    void super.onOpen();
    this.showState();
    // While the index loads, show its progress; once it is ready, search what was typed.
    this.unsubscribe = this.search.onChange(() => {
      this.showState();
      this.inputEl.dispatchEvent(new Event("input"));
    });
    void this.search.start().catch(() => this.showState());
  }

  onClose(): void {
    this.unsubscribe?.();
    super.onClose();
  }

  getSuggestions(query: string): SearchHit[] {
    return this.search.search(query, this.limit);
  }

  renderSuggestion(hit: SearchHit, el: HTMLElement): void {
    el.addClass("vault-agent-search-result");
    el.createDiv({ cls: "vault-agent-search-title", text: hit.title || hit.path });
    // The section the snippet comes from, unless it is just the note's title.
    const section = hit.heading && hit.heading !== hit.title ? ` › ${hit.heading}` : "";
    el.createDiv({ cls: "vault-agent-search-result-path", text: `${hit.path}${section}` });
    if (hit.snippet) highlight(el.createDiv({ cls: "vault-agent-search-snippet" }), hit.snippet);
  }

  onChooseSuggestion(hit: SearchHit, evt: MouseEvent | KeyboardEvent): void {
    void this.app.workspace.openLinkText(hit.path, "", Keymap.isModEvent(evt));
  }

  private showState(): void {
    const state = this.search.state;
    this.emptyStateText = state.kind === "ready" ? "No notes match." : this.search.describe();
  }
}

/** Writes a snippet whose matches are wrapped in `**…**` with those parts in `<mark>`. */
export function highlight(el: HTMLElement, snippet: string): void {
  snippet.split("**").forEach((part, i) => {
    if (!part) return;
    if (i % 2 === 1) el.createEl("mark", { text: part });
    else el.appendText(part);
  });
}
