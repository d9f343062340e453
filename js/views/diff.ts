import type { DiffRow } from "../protocol";

const ROW_CLASS: Record<DiffRow["kind"], string> = {
  hunk: "is-hunk",
  context: "is-context",
  removed: "is-removed",
  added: "is-added",
};
const ROW_SIGN: Record<DiffRow["kind"], string> = { hunk: "", context: " ", removed: "-", added: "+" };

/**
 * Renders the core's diff rows: removed lines red, added lines green, with old and new line
 * numbers and the words that changed inside a changed line marked.
 */
export function renderDiffRows(
  parent: HTMLElement,
  rows: DiffRow[],
  onHunk?: (index: number, kept: boolean) => void,
): HTMLElement {
  const table = parent.createDiv({ cls: "vault-agent-diff" });
  let hunk = -1;
  for (const r of rows) {
    const el = table.createDiv({ cls: `vault-agent-diff-line ${ROW_CLASS[r.kind]}` });
    if (r.kind === "hunk") hunk++;
    if (r.kind === "hunk" && onHunk) {
      // Each change of the note can be kept or turned down on its own.
      const index = hunk;
      const label = el.createEl("label", { cls: "vault-agent-hunk-toggle" });
      const box = label.createEl("input", { type: "checkbox", attr: { "aria-label": `Apply change ${index + 1}` } });
      box.checked = true;
      box.dataset.hunk = String(index);
      box.addEventListener("change", () => {
        el.parentElement?.toggleClass("is-partial", true);
        onHunk(index, box.checked);
      });
      label.appendText("Apply");
    }
    el.createSpan({ cls: "vault-agent-diff-no", text: r.oldLine ? String(r.oldLine) : "" });
    el.createSpan({ cls: "vault-agent-diff-no", text: r.newLine ? String(r.newLine) : "" });
    el.createSpan({ cls: "vault-agent-diff-sign", text: ROW_SIGN[r.kind] });
    const text = el.createSpan({ cls: "vault-agent-diff-text" });
    for (const part of r.parts) {
      if (part.changed) text.createEl("mark", { cls: "vault-agent-diff-word", text: part.text });
      else text.appendText(part.text);
    }
  }
  if (!rows.length) table.createDiv({ cls: "vault-agent-diff-empty", text: "No change to the text." });
  return table;
}

/** How many lines a diff adds and removes. */
export function diffStats(rows: DiffRow[]): { added: number; removed: number } {
  return {
    added: rows.filter((r) => r.kind === "added").length,
    removed: rows.filter((r) => r.kind === "removed").length,
  };
}
