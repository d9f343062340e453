import { Component, Platform, type App } from "obsidian";
import type { SearchService } from "../search";

/**
 * "Related notes" for the note open in the editor: notes linking to it or from it, sharing its
 * tags, or like it in text — ranked by the core's index. Hidden while there is no open note or
 * no index yet; a click opens the note.
 */
export class RelatedNotes extends Component {
  private readonly el: HTMLDetailsElement;
  private readonly summary: HTMLElement;
  private readonly list: HTMLElement;
  private shownFor: string | null = null;
  /** Updates asked for, so an answer that arrives late gives way to a newer one. */
  private asked = 0;

  constructor(
    parent: HTMLElement,
    private readonly app: App,
    private readonly search: SearchService,
  ) {
    super();
    this.el = parent.createEl("details", { cls: "vault-agent-related" });
    // On a phone the list would take a quarter of the chat's height: it starts folded there.
    this.el.open = !Platform.isPhone;
    this.summary = this.el.createEl("summary", { cls: "vault-agent-related-title" });
    this.list = this.el.createDiv({ cls: "vault-agent-related-list" });
  }

  onload(): void {
    this.registerEvent(this.app.workspace.on("file-open", () => this.update()));
    this.register(
      this.search.onChange(() => {
        // Progress reports change nothing here; a ready index (or a changed note) does.
        if (this.search.state.kind === "ready") this.update();
      }),
    );
    this.update();
  }

  onunload(): void {
    this.el.remove();
  }

  update(): void {
    void this.show();
  }

  private async show(): Promise<void> {
    const file = this.app.workspace.getActiveFile();
    const asked = ++this.asked;
    const related = file && file.extension === "md" ? await this.search.related(file.path, 6) : [];
    // The core answers across its channel: a later update (another note opened) wins.
    if (asked !== this.asked) return;
    this.el.toggleClass("is-hidden", !file || this.search.state.kind !== "ready");
    if (!file) return;
    this.shownFor = file.path;
    // The count tells what a folded list holds.
    this.summary.setText(related.length ? `Related to ${file.basename} · ${related.length}` : `Related to ${file.basename}`);
    this.list.empty();
    if (!related.length) {
      this.list.createDiv({ cls: "vault-agent-muted", text: "Nothing related found yet." });
      return;
    }
    for (const note of related) {
      const item = this.list.createDiv({ cls: "vault-agent-related-item", attr: { "data-path": note.path } });
      item.createSpan({ cls: "vault-agent-related-name", text: note.title || note.path });
      const why = note.reasons.join(", ");
      item.createSpan({ cls: "vault-agent-related-why", text: why, attr: { title: why } });
      item.addEventListener("click", () => void this.app.workspace.openLinkText(note.path, this.shownFor ?? "", false));
    }
  }
}
