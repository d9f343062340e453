import { Keymap, Notice, Platform, setIcon, SuggestModal, type App } from "obsidian";
import type { PluginContext } from "../context";
import { searchLanguage, type SearchHit } from "../search";
import { foundByLabel, type FoundBy, type ModeHit } from "../semantic";
import type { SearchMode } from "../settings";
import { errorMessage } from "./turn";
import { count } from "./count";

const MODES: { mode: SearchMode; name: string; title: string }[] = [
  { mode: "fulltext", name: "Full text", title: "Notes that contain your words (the query language applies)" },
  { mode: "semantic", name: "Semantic", title: "Notes that mean what you ask, in whatever words" },
  { mode: "hybrid", name: "Hybrid", title: "Both: notes with your words and notes with your meaning" },
];

/** Rows drawn with the results; the rest, below the modal's fold, are drawn just after the paint. */
const FIRST_ROWS = 12;

/**
 * Search over the vault's indexes, no model needed: results as you type, each with its title,
 * path, the section it comes from and a snippet whose matched words are highlighted; Enter opens
 * the note (with Ctrl/Cmd, in a new tab), and a hit's link button inserts a link to it at the
 * cursor of the open note. Full text, semantic or hybrid (Tab switches); in the last two each hit
 * says whether its words, its meaning or both found it. The mode bar counts the notes found.
 */
export class SearchModal extends SuggestModal<SearchHit | ModeHit> {
  private unsubscribe: (() => void)[] = [];
  private modesEl: HTMLElement | null = null;
  private hintEl: HTMLElement | null = null;
  private countEl: HTMLElement | null = null;
  /** The newest query's answer: an older one that resolves later answers with it instead. */
  private latest: Promise<(SearchHit | ModeHit)[]> | null = null;
  /** Rows below the fold waiting to be drawn once the first ones are painted. */
  private deferred: (() => void)[] = [];
  /** The link button's icon, drawn once and cloned into each row (drawing one parses an SVG). */
  private linkIcon: HTMLElement | null = null;

  constructor(
    app: App,
    private readonly ctx: PluginContext,
  ) {
    super(app);
    this.modalEl.addClass("vault-agent-search-modal");
    this.setPlaceholder("Search the vault…");
    const refine = { command: '"…" -word #tag folder:', purpose: "to refine" };
    // A phone has no keys to name: only the query syntax is worth its line there.
    this.setInstructions(
      Platform.isPhone
        ? [refine]
        : [
            { command: "↑↓", purpose: "to move" },
            { command: "↵", purpose: "to open" },
            { command: "ctrl ↵", purpose: "to open in a new tab" },
            { command: "tab", purpose: "to switch mode" },
            refine,
          ],
    );
    this.limit = 30;
  }

  onOpen(): void {
    void super.onOpen();
    this.modeBar();
    this.showState();
    // While the indexes load, show their progress; once ready, search what was typed again.
    const refresh = () => {
      this.showState();
      this.inputEl.dispatchEvent(new Event("input"));
    };
    this.unsubscribe.push(this.ctx.search.onChange(refresh));
    // Embedding progress only changes which modes can answer, not the results shown.
    this.unsubscribe.push(this.ctx.semantic.onChange(() => this.showModes()));
    this.inputEl.addEventListener("keydown", (evt) => {
      if (evt.key !== "Tab") return;
      evt.preventDefault();
      this.cycleMode(evt.shiftKey ? -1 : 1);
    });
    void this.ctx.search.start().catch(() => this.showState());
    void this.ctx.semantic.start();
  }

  onClose(): void {
    for (const stop of this.unsubscribe) stop();
    this.unsubscribe = [];
    super.onClose();
  }

  /** The mode searches run in: the chosen one, or full text while nothing can search by meaning. */
  get mode(): SearchMode {
    return this.ctx.semantic.canSearch() ? this.ctx.settings.semantic.searchMode : "fulltext";
  }

  getSuggestions(query: string): Promise<(SearchHit | ModeHit)[]> {
    const mode = this.mode;
    const language = searchLanguage(this.ctx.settings);
    const answer: Promise<(SearchHit | ModeHit)[]> =
      mode === "fulltext"
        ? this.ctx.search.search(query, this.limit, language)
        : this.ctx.semantic.query(query, mode, this.limit, language).then(
            (hits) => {
              this.emptyStateText = "No notes match.";
              return hits;
            },
            (error: unknown) => {
              this.emptyStateText = `Search failed: ${errorMessage(error)}`;
              return [];
            },
          );
    this.latest = answer;
    // An answer that arrives after a newer query's (another mode, same words) gives way to it.
    return answer.then((hits) => {
      if (this.latest !== answer) return this.latest ?? hits;
      this.showCount(query, hits.length);
      return hits;
    });
  }

  /** "12 notes" beside the modes; "30 notes, the best first" when the list stops at its limit. */
  private showCount(query: string, found: number): void {
    if (!this.countEl) return;
    if (!query.trim()) this.countEl.setText("");
    else if (found >= this.limit) this.countEl.setText(`${found} notes, the best first`);
    else this.countEl.setText(count(found, "note"));
  }

  /** Inserts a link to `path` at the cursor of the open note, in the user's link format. */
  private insertLink(path: string): void {
    const active = this.app.workspace.activeEditor;
    const file = this.app.vault.getFileByPath(path);
    if (!active?.editor || !file) {
      new Notice("Open a note first to insert a link into it.");
      return;
    }
    active.editor.replaceSelection(this.app.fileManager.generateMarkdownLink(file, active.file?.path ?? ""));
    this.close();
  }

  /**
   * Draws a result row. A keystroke's wait is mostly drawing (BENCHMARKS.md, "keystroke to
   * painted results"), and only about ten rows are in view: the rows below them are drawn in
   * the task after the first ones are painted, in order, unless a newer answer replaced them.
   */
  renderSuggestion(hit: SearchHit | ModeHit, el: HTMLElement): void {
    el.addClass("vault-agent-search-result");
    // The modal adds each row to its list before drawing it: its place there is its rank.
    const rank = el.parentElement ? Array.prototype.indexOf.call(el.parentElement.children, el) : 0;
    if (rank < FIRST_ROWS) {
      this.drawRow(hit, el);
      return;
    }
    if (!this.deferred.length) {
      window.requestAnimationFrame(() =>
        window.setTimeout(() => {
          const rows = this.deferred;
          this.deferred = [];
          for (const draw of rows) draw();
        }),
      );
    }
    this.deferred.push(() => {
      if (el.isConnected && !el.hasChildNodes()) this.drawRow(hit, el);
    });
  }

  private drawRow(hit: SearchHit | ModeHit, el: HTMLElement): void {
    const top = el.createDiv({ cls: "vault-agent-search-title" });
    top.createSpan({ cls: "vault-agent-search-title-text", text: hit.title || hit.path });
    const link = top.createEl("button", {
      cls: "clickable-icon vault-agent-search-link",
      attr: { "aria-label": "Insert a link to this note into the open note", title: "Insert a link to this note into the open note" },
    });
    link.appendChild(this.icon());
    // The row itself opens the note: the button's click must not reach it.
    link.addEventListener("mousedown", (evt) => evt.stopPropagation());
    link.addEventListener("click", (evt) => {
      evt.preventDefault();
      evt.stopPropagation();
      this.insertLink(hit.path);
    });
    if ("foundBy" in hit) {
      const label = foundByLabel(hit.foundBy);
      top.createSpan({
        cls: `vault-agent-search-found is-${label}`,
        text: label,
        attr: { title: foundByTitle(hit.foundBy) },
      });
    }
    // The section the snippet (or, found by meaning, the best-matching passage) comes from,
    // unless it is just the note's title.
    const section = hit.heading && hit.heading !== hit.title ? ` › ${hit.heading}` : "";
    el.createDiv({ cls: "vault-agent-search-result-path", text: `${hit.path}${section}` });
    if (hit.snippet) highlight(el.createDiv({ cls: "vault-agent-search-snippet" }), hit.snippet);
  }

  private icon(): Node {
    if (!this.linkIcon) {
      this.linkIcon = createSpan();
      setIcon(this.linkIcon, "link");
    }
    return this.linkIcon.firstChild?.cloneNode(true) ?? document.createTextNode("");
  }

  onChooseSuggestion(hit: SearchHit | ModeHit, evt: MouseEvent | KeyboardEvent): void {
    void this.app.workspace.openLinkText(hit.path, "", Keymap.isModEvent(evt));
  }

  /** The mode switch, under the input. */
  private modeBar(): void {
    const bar = createDiv({ cls: "vault-agent-search-modes" });
    const anchor = this.inputEl.closest(".prompt-input-container") ?? this.inputEl;
    anchor.insertAdjacentElement("afterend", bar);
    for (const { mode, name, title } of MODES) {
      const button = bar.createEl("button", { cls: "vault-agent-search-mode", text: name, attr: { "data-mode": mode, title } });
      button.addEventListener("click", () => void this.choose(mode));
    }
    this.countEl = bar.createSpan({ cls: "vault-agent-search-count" });
    this.hintEl = bar.createSpan({ cls: "vault-agent-search-mode-hint" });
    this.modesEl = bar;
    this.showModes();
  }

  private showModes(): void {
    if (!this.modesEl) return;
    const ready = this.ctx.semantic.canSearch();
    const current = this.mode;
    this.modesEl.querySelectorAll<HTMLButtonElement>(".vault-agent-search-mode").forEach((button) => {
      const mode = button.dataset.mode as SearchMode;
      button.disabled = mode !== "fulltext" && !ready;
      button.toggleClass("is-active", mode === current);
    });
    this.hintEl?.setText(ready ? "" : semanticHint(this.ctx));
  }

  private async choose(mode: SearchMode): Promise<void> {
    if (mode !== "fulltext" && !this.ctx.semantic.canSearch()) return;
    this.ctx.settings.semantic.searchMode = mode;
    this.showModes();
    this.inputEl.dispatchEvent(new Event("input"));
    this.inputEl.focus();
    await this.ctx.saveSettings();
  }

  private cycleMode(step: number): void {
    if (!this.ctx.semantic.canSearch()) return;
    const at = MODES.findIndex((m) => m.mode === this.mode);
    void this.choose(MODES[(at + step + MODES.length) % MODES.length].mode);
  }

  private showState(): void {
    const state = this.ctx.search.state;
    this.emptyStateText = state.kind === "ready" ? "No notes match." : this.ctx.search.describe();
  }
}

/** Why searching by meaning is not available, and what to do about it. */
function semanticHint(ctx: PluginContext): string {
  const state = ctx.semantic.state;
  switch (state.kind) {
    case "off":
    case "unconfigured":
    case "no-model":
      return "Semantic search needs an embedding model: settings → Vault Agent → Semantic search.";
    case "failed":
      return `Semantic search failed: ${state.message}`;
    default:
      return `Semantic search: ${ctx.semantic.describe()}`;
  }
}

function foundByTitle(found: FoundBy): string {
  const parts: string[] = [];
  if (typeof found.fulltext === "number") parts.push(`its words (rank ${found.fulltext})`);
  if (typeof found.semantic === "number") parts.push(`its meaning (rank ${found.semantic})`);
  if (found.linkedFrom) parts.push(`a link with ${found.linkedFrom}`);
  return `Found by ${parts.join(" and ")}`;
}

/** Writes a snippet whose matches are wrapped in `**…**` with those parts in `<mark>`. */
export function highlight(el: HTMLElement, snippet: string): void {
  snippet.split("**").forEach((part, i) => {
    if (!part) return;
    if (i % 2 === 1) el.createEl("mark", { text: part });
    else el.appendText(part);
  });
}
