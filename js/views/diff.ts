import type { DiffRow } from "../protocol";

const ROW_CLASS: Record<DiffRow["kind"], string> = {
  hunk: "is-hunk",
  context: "is-context",
  removed: "is-removed",
  added: "is-added",
};
const ROW_SIGN: Record<DiffRow["kind"], string> = { hunk: "", context: " ", removed: "-", added: "+" };

/**
 * Renders the core's diff rows: removed lines red, added lines green, with the words that
 * changed inside a changed line marked. `diff` (the unified text) is for previews saved
 * before the core sent rows.
 */
export function renderDiffRows(
  parent: HTMLElement,
  rows: DiffRow[] | undefined,
  diff: string,
  onHunk?: (index: number, kept: boolean) => void,
): HTMLElement {
  if (!rows?.length) return renderDiff(parent, diff);
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
    el.createSpan({ cls: "vault-agent-diff-no", text: r.old_line ? String(r.old_line) : "" });
    el.createSpan({ cls: "vault-agent-diff-no", text: r.new_line ? String(r.new_line) : "" });
    el.createSpan({ cls: "vault-agent-diff-sign", text: ROW_SIGN[r.kind] });
    const text = el.createSpan({ cls: "vault-agent-diff-text" });
    for (const part of r.parts) {
      if (part.changed) text.createEl("mark", { cls: "vault-agent-diff-word", text: part.text });
      else text.appendText(part.text);
    }
  }
  return table;
}

/**
 * Renders a unified diff (as the core computes it for a write's approval preview, with the
 * `similar` crate) as rows: removed lines red, added lines green, with old and new line numbers.
 */
export function renderDiff(parent: HTMLElement, diff: string): HTMLElement {
  const table = parent.createDiv({ cls: "vault-agent-diff" });
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      inHunk = true;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      row(table, "is-hunk", "", "", line);
      continue;
    }
    // The "--- a" / "+++ b" header comes before the first hunk.
    if (!inHunk) continue;
    const sign = line[0];
    const text = line.slice(1);
    if (sign === "+") row(table, "is-added", "", String(newLine++), text, "+");
    else if (sign === "-") row(table, "is-removed", String(oldLine++), "", text, "-");
    else if (sign === "\\") row(table, "is-note", "", "", line);
    else row(table, "is-context", String(oldLine++), String(newLine++), text, " ");
  }
  if (!table.hasChildNodes()) table.createDiv({ cls: "vault-agent-diff-empty", text: "No change to the text." });
  return table;
}

function row(table: HTMLElement, cls: string, oldNo: string, newNo: string, text: string, sign = ""): void {
  const el = table.createDiv({ cls: `vault-agent-diff-line ${cls}` });
  el.createSpan({ cls: "vault-agent-diff-no", text: oldNo });
  el.createSpan({ cls: "vault-agent-diff-no", text: newNo });
  el.createSpan({ cls: "vault-agent-diff-sign", text: sign });
  el.createSpan({ cls: "vault-agent-diff-text", text });
}

/** How many lines a diff adds and removes. */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) inHunk = true;
    else if (inHunk && line.startsWith("+")) added++;
    else if (inHunk && line.startsWith("-")) removed++;
  }
  return { added, removed };
}
