import { Prec, StateEffect, StateField, type Extension } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, WidgetType, keymap, type DecorationSet, type ViewUpdate } from "@codemirror/view";
import { editorInfoField, Notice, type App } from "obsidian";
import type { PluginContext } from "../context";
import { coreEnded, detach } from "../core/client";
import type { Suggester } from "../core";
import { agentConfig, providerConfig } from "../settings";

/** How long the writer pauses before a suggestion is asked for. */
const PAUSE_MS = 600;
/** The text around the cursor sent (the core keeps as much of it). */
const BEFORE_CHARS = 3000;
const AFTER_CHARS = 1000;

/** Whether a failed suggestion was said this session: once is enough, not at every pause. */
let told = false;

/** A suggestion shown at `pos`. */
interface Ghost {
  pos: number;
  text: string;
}

const showGhost = StateEffect.define<Ghost | null>();

/** The suggestion on show: gone with any edit or cursor move that is not taking it. */
const ghostField = StateField.define<Ghost | null>({
  create: () => null,
  update(value, tr) {
    for (const e of tr.effects) if (e.is(showGhost)) return e.value;
    return tr.docChanged || tr.selection ? null : value;
  },
  provide: (field) =>
    EditorView.decorations.from(field, (ghost): DecorationSet =>
      ghost ? Decoration.set([Decoration.widget({ widget: new GhostWidget(ghost.text), side: 1 }).range(ghost.pos)]) : Decoration.none,
    ),
});

/** The suggestion as faint text after the cursor; a tap on it takes it (a phone has no Tab). */
class GhostWidget extends WidgetType {
  constructor(readonly text: string) {
    super();
  }
  eq(other: GhostWidget): boolean {
    return other.text === this.text;
  }
  toDOM(view: EditorView): HTMLElement {
    const span = createSpan({ cls: "vault-agent-ghost", text: this.text, attr: { "aria-label": "Suggestion: Tab takes it" } });
    // Before the editor or the browser moves the cursor there, which would dismiss it.
    span.addEventListener("pointerdown", (evt) => {
      evt.preventDefault();
      take(view);
    });
    return span;
  }
  /** The editor leaves a tap on it alone: the handler above takes it. */
  ignoreEvent(): boolean {
    return true;
  }
}

/** Inserts the suggestion on show as the writer's own typing, the cursor after it. */
function take(view: EditorView): boolean {
  const ghost = view.state.field(ghostField, false);
  if (!ghost) return false;
  view.dispatch({
    changes: { from: ghost.pos, insert: ghost.text },
    selection: { anchor: ghost.pos + ghost.text.length },
    effects: showGhost.of(null),
    userEvent: "input.complete",
  });
  return true;
}

/**
 * Whether the cursor at `pos` of `text` is where prose goes on: at the end of a line that has
 * words before it, in the body (not the frontmatter) and outside a code block.
 */
export function suggestsAt(text: string, pos: number): boolean {
  const lineEnd = text.indexOf("\n", pos);
  if (text.slice(pos, lineEnd < 0 ? undefined : lineEnd).trim()) return false;
  const before = text.slice(0, pos);
  if (!before.slice(before.lastIndexOf("\n") + 1).trim()) return false;
  if (/^---\r?\n/.test(text)) {
    const closing = text.indexOf("\n---", 3);
    if (closing < 0 || pos <= closing + 4) return false;
  }
  const fences = before.match(/^\s*(```|~~~)/gm)?.length ?? 0;
  return fences % 2 === 0;
}

/**
 * Suggestions as the writer types (`settings.editor.suggestions`): after a pause at a line's
 * end, the chat's model continues the note and the words show faint after the cursor; Tab (or
 * a tap) takes them, Escape or any other key dismisses them.
 */
export function suggestExtension(ctx: PluginContext, app: App): Extension {
  const asker = ViewPlugin.fromClass(
    class {
      private timer: number | null = null;
      private suggester: Promise<Suggester> | null = null;
      /** The settings `suggester` was made with: others make a new one. */
      private madeWith = "";
      /** Counts questions: an answer to an older one is dropped. */
      private asked = 0;
      private inFlight = false;
      constructor(private readonly view: EditorView) {}

      update(update: ViewUpdate): void {
        if (!update.docChanged && !update.selectionSet) return;
        this.stop();
        // Typing, not a paste, an undo or a word still being composed (an IME's).
        const typed = update.transactions.some(
          (tr) => (tr.isUserEvent("input.type") && !tr.isUserEvent("input.type.compose")) || tr.isUserEvent("delete"),
        );
        if (!typed || !ctx.settings.editor.suggestions) return;
        this.timer = window.setTimeout(() => void this.ask(), PAUSE_MS);
      }

      destroy(): void {
        this.stop();
        this.forget();
      }

      /** Frees the suggester: the next question makes a new one. */
      private forget(): void {
        const made = this.suggester;
        this.suggester = null;
        made?.then((s) => s.free()).catch(() => {});
      }

      /** Forgets the timer, and stops the question in flight (its answer is dropped). */
      private stop(): void {
        if (this.timer !== null) window.clearTimeout(this.timer);
        this.timer = null;
        this.asked++;
        if (this.inFlight) void this.suggester?.then((s) => detach(s.cancel())).catch(() => {});
      }

      /** `again`: the first try found its core ended (see below). */
      private async ask(again = false): Promise<void> {
        const state = this.view.state;
        const selection = state.selection.main;
        const text = state.doc.toString();
        const file = state.field(editorInfoField, false)?.file ?? app.workspace.getActiveFile();
        if (this.view.composing || !selection.empty || !file || !suggestsAt(text, selection.head)) return;
        const chat = providerConfig(ctx.settings, ctx.apiKey());
        if ("missing" in chat) return;
        const config = { ...chat, model: ctx.settings.editor.suggestionModel || chat.model };
        const mine = this.asked;
        const pos = selection.head;
        try {
          const options = { provider: config, agent: agentConfig(ctx.settings), transport: ctx.transport() };
          const key = JSON.stringify(options);
          if (key !== this.madeWith) {
            this.forget();
            this.madeWith = key;
          }
          this.suggester ??= ctx.core().then(({ vault }) => vault.newSuggester(options));
          const suggester = await this.suggester;
          if (mine !== this.asked) return;
          const before = text.slice(Math.max(0, pos - BEFORE_CHARS), pos);
          const after = text.slice(pos, pos + AFTER_CHARS);
          this.inFlight = true;
          const suggestion = await suggester.suggest({ path: file.path, before, after }).finally(() => (this.inFlight = false));
          // Typed or moved meanwhile: the answer is for a cursor that is gone.
          if (mine !== this.asked || !suggestion || this.view.state.selection.main.head !== pos) return;
          this.view.dispatch({ effects: showGhost.of({ pos, text: suggestion }) });
        } catch (error) {
          // The core restarted (it does, to give memory back after a large build): the
          // suggester was the old core's. The new core is asked, with nothing said.
          if (coreEnded(error) && !again && mine === this.asked) {
            this.forget();
            return this.ask(true);
          }
          // The next pause makes a new suggester: the settings may have been fixed meanwhile.
          if (!told) new Notice(`Vault Agent could not suggest how the note goes on: ${error instanceof Error ? error.message : String(error)}`);
          told = true;
          this.forget();
        }
      }
    },
  );
  return [
    ghostField,
    asker,
    Prec.highest(
      keymap.of([
        { key: "Tab", run: take },
        {
          key: "Escape",
          run: (view) => {
            if (!view.state.field(ghostField, false)) return false;
            view.dispatch({ effects: showGhost.of(null) });
            return true;
          },
        },
      ]),
    ),
  ];
}
