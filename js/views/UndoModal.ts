import { Modal, type App } from "obsidian";
import type { UndoChoice, UndoChoices, UndoPlan, UndoReport } from "../protocol";
import { count } from "./count";

const CHOICE_WORDS: Record<UndoChoice, string> = {
  keep_mine: "Keep mine",
  restore: "Restore the version from before",
  save_copy: "Keep mine, and save the version from before as a copy",
};

/**
 * Before an undo (or redo) that would touch files changed since the task: each changed file,
 * why it is listed (changed since, or by a later task), and its choices — keep mine (the
 * default), restore the version from before, or keep mine and save the version from before
 * beside it. Resolves with the choices, or null when the user cancels.
 */
export class UndoModal extends Modal {
  private readonly choices: UndoChoices = {};
  private settled = false;

  constructor(
    app: App,
    private readonly plan: UndoPlan,
    private readonly redo: boolean,
    private readonly done: (choices: UndoChoices | null) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { plan } = this;
    this.modalEl.addClass("vault-agent-undo-modal");
    this.titleEl.setText(`${this.redo ? "Redo" : "Undo"}: ${count(plan.conflicts.length, "file")} changed since`);
    const body = this.contentEl;
    body.empty();
    body.createDiv({
      cls: "vault-agent-undo-intro",
      text: `These files changed after the task ${this.redo ? "was undone" : "left them"}. Nothing of yours is changed unless you choose it.`,
    });
    const list = body.createDiv({ cls: "vault-agent-undo-conflicts" });
    plan.conflicts.forEach((conflict, i) => {
      const row = list.createDiv({ cls: "vault-agent-undo-conflict" });
      row.dataset.path = conflict.path;
      row.createDiv({ cls: "vault-agent-undo-path", text: conflict.path });
      row.createDiv({ cls: "vault-agent-undo-reason", text: reasonText(conflict.reason, conflict.now) });
      const options = row.createDiv({ cls: "vault-agent-undo-choices" });
      for (const choice of conflict.choices) {
        const label = options.createEl("label", { cls: "vault-agent-undo-choice" });
        const input = label.createEl("input", { type: "radio" });
        input.name = `vault-agent-undo-${i}`;
        input.value = choice;
        input.checked = choice === "keep_mine";
        input.addEventListener("change", () => {
          if (input.checked) this.choices[conflict.path] = choice;
        });
        const words = choice === "save_copy" && conflict.copyPath ? `${CHOICE_WORDS[choice]} (${conflict.copyPath})` : CHOICE_WORDS[choice];
        label.createSpan({ text: words });
      }
    });
    const others = plan.restore.length + plan.remove.length;
    if (others > 0) {
      body.createDiv({
        cls: "vault-agent-undo-others",
        text: `${count(others, "other path")} the task changed ${others === 1 ? "goes" : "go"} back as before.`,
      });
    }
    const buttons = body.createDiv({ cls: "modal-button-container" });
    const apply = buttons.createEl("button", { text: this.redo ? "Redo" : "Undo", cls: "mod-cta vault-agent-undo-apply" });
    apply.addEventListener("click", () => this.settle({ ...this.choices }));
    const cancel = buttons.createEl("button", { text: "Cancel", cls: "vault-agent-undo-cancel" });
    cancel.addEventListener("click", () => this.settle(null));
    apply.focus();
  }

  onClose(): void {
    this.contentEl.empty();
    this.settle(null);
  }

  private settle(choices: UndoChoices | null): void {
    if (this.settled) return;
    this.settled = true;
    this.done(choices);
    this.close();
  }
}

function reasonText(reason: string, now: string): string {
  const what = now === "absent" ? "It is gone now." : now === "folder" ? "A folder is there now." : "";
  return `${reason[0].toUpperCase()}${reason.slice(1)}.${what ? ` ${what}` : ""}`;
}

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: string[]): string {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** What an undo or redo did, path by path: restored, removed, kept (and why), copies, failures. */
export function describeUndo(report: UndoReport, redo = false): string {
  const parts: string[] = [];
  if (report.restored.length) parts.push(`restored ${inWords(report.restored)}`);
  if (report.trashed.length) parts.push(`moved ${inWords(report.trashed)} to the trash`);
  if (report.recreatedFolders.length) parts.push(`recreated ${inWords(report.recreatedFolders)}`);
  for (const kept of report.kept) parts.push(`kept ${kept.path} (${kept.reason})`);
  if (report.failed.length) parts.push(`could not restore ${report.failed.map(([p, why]) => `${p} (${why})`).join(", ")}`);
  if (!parts.length) return `Nothing to ${redo ? "redo" : "undo"}: everything was already as before.`;
  const text = parts.join("; ");
  return `${redo ? "Redone" : "Undone"}: ${text[0].toUpperCase()}${text.slice(1)}.`;
}
