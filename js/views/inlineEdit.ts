import { Notice, setIcon, type Editor, type MarkdownFileInfo, type TFile, type Workspace } from "obsidian";
import {
  Prec,
  StateEffect,
  StateField,
  type ChangeDesc,
  type EditorState,
  type Extension,
  type Range,
  type StateEffectType,
  type Transaction,
} from "@codemirror/state";
import { Decoration, EditorView, WidgetType, keymap, showTooltip, type DecorationSet, type Tooltip } from "@codemirror/view";
import { detach } from "../core/client";
import type { PluginContext } from "../context";
import type { AgentEvent, ApprovalRequest, DiffRow, InlineEditReport } from "../protocol";
import { agentConfig, providerConfig } from "../settings";
import { describeUndo } from "./UndoModal";
import { errorMessage } from "./turn";

/**
 * The editor's inline edit, as the user sees it: a small prompt at the selection, then the
 * core's diff of the note write laid over the text (removed words struck through, added lines
 * below them with the new words highlighted) with Accept and Reject. The diff is the write's
 * approval: the core rewrote the selection and waits on it; nothing here decides what to write.
 */

/** The prompt at the selection: where it sits, whether the model is at work, and its answers. */
interface Prompt {
  /** The edit it belongs to. */
  owner: object;
  pos: number;
  busy: boolean;
  /** What the user typed (shown again while the model works). */
  instruction: string;
  submit: (instruction: string) => void;
  cancel: () => void;
}

/** The diff shown: its decorations and what Escape does (reject). */
interface Shown {
  owner: object;
  decorations: DecorationSet;
  reject: () => void;
}

const setPrompt = StateEffect.define<Prompt | null>();
const setDiff = StateEffect.define<Shown | null>();
/** Takes away the prompt and the diff of one edit (a later edit's stay). */
const clear = StateEffect.define<object>();

/**
 * The update of a field holding one edit's `T`: set by `set`, taken away by `clear` for its
 * owner, moved with the text by `map` as the document changes.
 */
function ownedUpdate<T extends { owner: object }>(set: StateEffectType<T | null>, map: (value: T, changes: ChangeDesc) => T) {
  return (value: T | null, tr: Transaction): T | null => {
    for (const e of tr.effects) {
      if (e.is(set)) value = e.value;
      if (e.is(clear) && value?.owner === e.value) value = null;
    }
    return value && tr.docChanged ? map(value, tr.changes) : value;
  };
}

const promptField = StateField.define<Prompt | null>({
  create: () => null,
  update: ownedUpdate(setPrompt, (prompt, changes) => ({ ...prompt, pos: changes.mapPos(prompt.pos) })),
  provide: (field) => showTooltip.compute([field], (state) => promptTooltip(state.field(field))),
});

const diffField = StateField.define<Shown | null>({
  create: () => null,
  update: ownedUpdate(setDiff, (shown, changes) => ({ ...shown, decorations: shown.decorations.map(changes) })),
  provide: (field) => EditorView.decorations.from(field, (shown) => shown?.decorations ?? Decoration.none),
});

/** What the plugin registers with `registerEditorExtension`. */
export function inlineEditExtension(): Extension {
  return [
    promptField,
    diffField,
    Prec.highest(
      keymap.of([
        {
          key: "Escape",
          run: (view) => {
            const shown = view.state.field(diffField, false);
            if (!shown) return false;
            shown.reject();
            return true;
          },
        },
      ]),
    ),
  ];
}

/** The CodeMirror view under an Obsidian `Editor` (Obsidian's editor is CodeMirror 6). */
export function editorView(editor: Editor): EditorView | null {
  const cm = (editor as Editor & { cm?: unknown }).cm;
  return cm instanceof EditorView ? cm : null;
}

function promptTooltip(prompt: Prompt | null): Tooltip | null {
  if (!prompt) return null;
  return {
    pos: prompt.pos,
    above: false,
    create: () => {
      const dom = createDiv({ cls: "vault-agent-inline-prompt" });
      const row = dom.createDiv({ cls: "vault-agent-inline-row" });
      const input = row.createEl("input", {
        type: "text",
        cls: "vault-agent-inline-input",
        value: prompt.instruction,
        attr: { placeholder: "Edit the selection: make it shorter, fix the grammar…", "aria-label": "Edit instruction" },
      });
      // Escape's twin, for a phone.
      const close = row.createDiv({
        cls: "clickable-icon vault-agent-inline-close",
        attr: { "aria-label": prompt.busy ? "Stop" : "Cancel", role: "button" },
      });
      setIcon(close, "x");
      close.addEventListener("click", () => prompt.cancel());
      const hint = dom.createDiv({ cls: "vault-agent-inline-hint" });
      if (prompt.busy) {
        // Read-only, not disabled: it keeps the focus, so Escape still reaches it.
        input.readOnly = true;
        dom.addClass("is-busy");
        keys(hint, "Rewriting…", [["Esc", "to stop"]]);
      } else {
        keys(hint, "", [["Enter", "to send"], ["Esc", "to cancel"]]);
      }
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && !e.isComposing && !prompt.busy && input.value.trim()) {
          e.preventDefault();
          prompt.submit(input.value.trim());
        } else if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          prompt.cancel();
        }
      });
      return { dom, mount: () => input.focus() };
    },
  };
}

/** A hint naming keys: `lead`, then each key and what it does. */
function keys(el: HTMLElement, lead: string, pairs: [string, string][]): void {
  if (lead) el.createSpan({ cls: "vault-agent-inline-status", text: lead });
  for (const [key, does] of pairs) {
    const item = el.createSpan({ cls: "vault-agent-inline-key" });
    item.createEl("kbd", { text: key });
    item.appendText(` ${does}`);
  }
}

/** The added lines of one change, shown below what they replace. */
class AddedLines extends WidgetType {
  constructor(readonly rows: DiffRow[]) {
    super();
  }

  eq(other: AddedLines): boolean {
    return other.rows === this.rows;
  }

  toDOM(): HTMLElement {
    const block = createDiv({ cls: "vault-agent-inline-added" });
    for (const row of this.rows) {
      const line = block.createDiv({ cls: "vault-agent-inline-added-line" });
      for (const part of row.parts) {
        if (part.changed) line.createEl("mark", { cls: "vault-agent-inline-word", text: part.text });
        else line.appendText(part.text);
      }
      // An empty line keeps its height.
      if (!row.parts.length) line.appendText("\u200b");
    }
    return block;
  }
}

/** Accept and Reject, after the last change. */
class Choices extends WidgetType {
  constructor(
    readonly accept: () => void,
    readonly reject: () => void,
  ) {
    super();
  }

  eq(other: Choices): boolean {
    return other.accept === this.accept;
  }

  toDOM(): HTMLElement {
    const bar = createDiv({ cls: "vault-agent-inline-choices" });
    const accept = bar.createEl("button", { cls: "mod-cta vault-agent-inline-accept", text: "Accept" });
    const reject = bar.createEl("button", { cls: "vault-agent-inline-reject", text: "Reject" });
    keys(bar.createSpan({ cls: "vault-agent-inline-hint" }), "", [["Esc", "to reject"]]);
    accept.addEventListener("click", () => this.accept());
    reject.addEventListener("click", () => this.reject());
    return bar;
  }

  ignoreEvent(): boolean {
    return true;
  }
}

/**
 * The core's diff rows over the editor's text (which is the diff's old text): each removed line
 * tinted with its changed words struck through, the added lines as a block below the line they
 * follow, and the choices after the last change.
 */
export function diffDecorations(state: EditorState, rows: DiffRow[], accept: () => void, reject: () => void): DecorationSet {
  const doc = state.doc;
  const ranges: Range<Decoration>[] = [];
  let after = 0; // the old line the next added lines follow (0: the start of the note)
  let last = 0;
  let added: DiffRow[] = [];
  const flush = () => {
    if (!added.length) return;
    const at = after ? doc.line(after).to : 0;
    ranges.push(Decoration.widget({ widget: new AddedLines(added), block: true, side: after ? 1 : -1 }).range(at));
    last = Math.max(last, after);
    added = [];
  };
  for (const row of rows) {
    if (row.kind === "added") {
      added.push(row);
      continue;
    }
    flush();
    if (row.kind === "hunk" || !row.oldLine) continue;
    after = row.oldLine;
    if (row.kind !== "removed") continue;
    const line = doc.line(row.oldLine);
    last = Math.max(last, row.oldLine);
    ranges.push(Decoration.line({ class: "vault-agent-inline-removed-line" }).range(line.from));
    let pos = line.from;
    for (const part of row.parts) {
      const end = Math.min(pos + part.text.length, line.to);
      if (part.changed && end > pos) ranges.push(Decoration.mark({ class: "vault-agent-inline-removed" }).range(pos, end));
      pos = end;
    }
  }
  flush();
  const at = last ? doc.line(last).to : 0;
  ranges.push(Decoration.widget({ widget: new Choices(accept, reject), block: true, side: 2 }).range(at));
  return Decoration.set(ranges, true);
}

/**
 * Runs one inline edit of `editor`'s selection in `file`: the prompt, the core's rewrite, the
 * diff to accept or reject, and what happened in a notice (with Undo once applied).
 */
export function editSelection(
  plugin: PluginContext,
  workspace: Workspace,
  editor: Editor,
  file: TFile,
  ctx: MarkdownFileInfo,
): void {
  const view = editorView(editor);
  if (!view) {
    new Notice("Inline edit needs the editor in source or live preview mode.");
    return;
  }
  const from = editor.posToOffset(editor.getCursor("from"));
  const to = editor.posToOffset(editor.getCursor("to"));
  const selection = editor.getSelection();
  const owner = {};
  // Stops the core's edit once there is one: the model call ends, a waiting diff is denied.
  let stopCore: (() => void) | null = null;
  let stopped = false;
  const close = () => {
    workspace.offref(leaving);
    if (current.get(view) === stop) current.delete(view);
    view.dispatch({ effects: clear.of(owner) });
  };
  const stop = () => {
    stopped = true;
    stopCore?.();
    close();
  };
  // One edit at a time in an editor: a new one ends the last (its diff is denied).
  current.get(view)?.();
  current.set(view, stop);
  // Another note in this editor: the prompt or the diff would be over its text.
  const leaving = workspace.on("file-open", (opened) => {
    if (opened?.path !== file.path) stop();
  });
  // Under the selection's last line, at its start: the selection stays in sight, and the box
  // stays over the note.
  const doc = view.state.doc;
  const below = doc.lineAt(to > from && doc.sliceString(to - 1, to) === "\n" ? to - 1 : to).from;
  const prompt = (busy: boolean, instruction = ""): Prompt => ({
    owner,
    pos: below,
    busy,
    instruction,
    submit: (instruction) => void run(instruction),
    cancel: stop,
  });

  const run = async (instruction: string) => {
    view.dispatch({ effects: setPrompt.of(prompt(true, instruction)) });
    const config = providerConfig(plugin.settings, plugin.apiKey());
    if ("missing" in config) {
      close();
      new Notice(`Vault Agent needs ${config.missing} first: see its settings.`);
      return;
    }
    try {
      // The core reads the note: what the editor shows must be saved first.
      await (ctx as MarkdownFileInfo & { save?: () => Promise<void> }).save?.();
      const { vault } = await plugin.core();
      let edit: Awaited<ReturnType<typeof vault.newInlineEdit>> | null = null;
      const onEvent = (event: AgentEvent) => {
        if (event.type === "approval_required" && edit && !stopped) showDiff(event.request, edit);
      };
      edit = await vault.newInlineEdit(
        { provider: config, agent: agentConfig(plugin.settings), transport: plugin.transport() },
        onEvent,
      );
      const running = edit;
      try {
        if (stopped) return;
        stopCore = () => detach(running.cancel());
        const report = await running.run({ path: file.path, from, to, selection, instruction });
        close();
        tell(plugin, report);
      } finally {
        running.free();
      }
    } catch (error) {
      close();
      new Notice(`Inline edit failed: ${errorMessage(error)}`);
    }
  };

  const showDiff = (request: ApprovalRequest, edit: { respond(id: string, decision: string): Promise<boolean> }) => {
    const answer = (decision: "approve" | "deny") => () => {
      view.dispatch({ effects: clear.of(owner) });
      detach(edit.respond(request.id, decision));
    };
    const preview = request.preview;
    // The diff is laid over the text it was made from: if the editor holds other text now,
    // the write is turned down (the core refuses a changed note anyway).
    if (preview?.kind !== "write" || preview.old !== view.state.doc.toString()) {
      answer("deny")();
      new Notice("The note changed while the edit was prepared: nothing was written.");
      return;
    }
    const accept = answer("approve");
    const reject = answer("deny");
    view.dispatch({
      // The selection's highlight would hide the struck words.
      selection: { anchor: Math.min(to, view.state.doc.length) },
      effects: [
        setPrompt.of(null),
        setDiff.of({ owner, decorations: diffDecorations(view.state, preview.rows, accept, reject), reject }),
      ],
    });
    // Escape rejects from the editor, where the prompt leaves the focus.
    view.focus();
  };

  view.dispatch({ effects: [setDiff.of(null), setPrompt.of(prompt(false))] });
}

/** The edit running in each editor, by the function that stops it. */
const current = new WeakMap<EditorView, () => void>();

/** What the edit did, in a notice; an applied edit's notice offers Undo. */
function tell(plugin: PluginContext, report: InlineEditReport): void {
  if (report.outcome === "rejected") return;
  if (report.outcome !== "applied") {
    new Notice(report.message);
    return;
  }
  const body = createFragment((f) => {
    f.appendText(report.message + " ");
    const undo = f.createEl("button", { cls: "vault-agent-inline-undo", text: "Undo" });
    undo.addEventListener("click", () => {
      notice.hide();
      void plugin
        .core()
        .then(({ vault }) => vault.undoTask(report.taskId))
        .then((undone) => new Notice(`Inline edit: ${describeUndo(undone)}`))
        .catch((error: unknown) => new Notice(`Undo failed: ${errorMessage(error)}`));
    });
  });
  const notice = new Notice(body, 10_000);
}
