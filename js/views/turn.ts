import { Component, MarkdownRenderer, setIcon, type App } from "obsidian";
import type {
  AgentEvent,
  ApprovalDecision,
  ApprovalRequest,
  CallLabel,
  ContextUse,
  EndReason,
  FormAnswer,
  FormRequest,
  ProviderProblem,
  ProviderSetting,
  Question,
  RecipeUse,
  RunReport,
  SubtaskInfo,
  ToolOutcome,
  TranscriptStep,
  Usage,
} from "../protocol";
import { showForm, type FormCard } from "./form";

/** What the buttons under an answer do. */
export type AnswerAction = "copy" | "insert" | "append" | "create";

const ANSWER_ACTIONS: [AnswerAction, string, string][] = [
  ["copy", "copy", "Copy the answer"],
  ["insert", "text-cursor-input", "Insert at the cursor"],
  ["append", "list-plus", "Append to the current note"],
  ["create", "file-plus", "Create a note from the answer"],
];

/** What a turn needs from the chat view. */
export interface TurnContext {
  app: App;
  /** Answers an approval request (the modal or the card's buttons). */
  review(request: ApprovalRequest, card: ToolCard): void;
  answer(questionId: string, text: string | null): void;
  /** Answers an MCP server's form; rejects, in words, when the answer does not fit it. */
  answerForm(formId: string, answer: FormAnswer): Promise<boolean>;
  retry(): void;
  /** Goes on after a task stopped at a limit, with a fresh budget. */
  continueTask(): void;
  /** Undoes (or with `redo`, applies again) the task; the message to show, or null if the user cancelled. */
  undo(taskId: string, redo: boolean): Promise<string | null>;
  /** Opens a note; `newTab` as Ctrl/Cmd-click asks. */
  openPath(path: string, newTab: boolean): void;
  /** Whether `path` is a file in the vault (an answer's paths become links). */
  isFile(path: string): boolean;
  /** Opens the plugin's settings (an error that names the key or the URL). */
  openSettings(): void;
  /** Opens the model picker (an error that names the model). */
  pickModel(): void;
  /** Signs in to the MCP server `server` (in the browser); rejects with what went wrong. */
  signInMcp(server: string): Promise<void>;
  /** What can be done with an answer: copy it, insert it at the cursor, add it to a note. */
  answerAction(action: AnswerAction, text: string): void;
  /** Shows a large result the core saved while the task runs. */
  openResult(path: string): void;
  scroll(): void;
}

const DECISION_WORDS: Record<ApprovalDecision, string> = {
  approve: "Approved",
  always_allow: "Always allowed",
  skip: "Skipped",
  deny: "Denied",
};

const SETTING_WORDS: Record<Exclude<ProviderSetting, "model">, string> = {
  api_key: "Check the API key",
  base_url: "Check the server URL",
};

/** How often streamed markdown is rendered again, at most. */
const RENDER_INTERVAL_MS = 120;

/**
 * The assistant's side of one task, rendered from its events: streamed markdown, collapsed
 * thinking, a card per tool call, questions, warnings, errors, and a footer with the token and
 * cost meter and the undo button.
 */
export class TurnView extends Component {
  readonly el: HTMLElement;
  private text: { el: HTMLElement; raw: string; timer: number | null; generation: number } | null = null;
  private thinking: { el: HTMLElement; body: HTMLElement; raw: string } | null = null;
  private readonly cards = new Map<string, ToolCard>();
  /** The group each grouped call is in. */
  private readonly groups = new Map<string, ToolGroup>();
  /** The last card or group, while nothing else was shown after it (a new call may join it). */
  private lastCall: { card: ToolCard; group: ToolGroup | null } | null = null;
  /** The one live line of a model call being retried ("Retrying in 4 s… (2/6)"). */
  private retryLine: { el: HTMLElement; timer: number } | null = null;
  /** "Thinking…" from a model call's start to its first output. */
  private pending: HTMLElement | null = null;
  /** Notes the task's calls named or found: where an answer names one, it becomes a link. */
  private readonly notes = new Set<string>();
  /** The text blocks shown, in order (the last is the answer). */
  private readonly texts: string[] = [];
  private readonly footer: HTMLElement;
  private readonly meter: HTMLElement;
  private readonly actions: HTMLElement;
  /** The sub-tasks this task's `new_task` calls started, by call id and by their task id. */
  private readonly subtasks = new Map<string, TurnView>();
  /** MCP servers' forms shown in this turn, closed when it ends. */
  private readonly forms: FormCard[] = [];
  private readonly subtaskIds = new Map<string, TurnView>();
  taskId: string | null = null;

  /** `nested`: a sub-task's steps, inside its parent's card (no answer actions, no undo). */
  constructor(
    parent: HTMLElement,
    private readonly ctx: TurnContext,
    private readonly nested = false,
  ) {
    super();
    this.el = parent.createDiv({ cls: nested ? "vault-agent-turn vault-agent-subtask-turn" : "vault-agent-turn" });
    this.footer = this.el.createDiv({ cls: "vault-agent-turn-footer" });
    this.meter = this.footer.createSpan({ cls: "vault-agent-meter" });
    this.actions = this.footer.createSpan({ cls: "vault-agent-turn-actions" });
  }

  onunload(): void {
    if (this.text?.timer) window.clearTimeout(this.text.timer);
    this.clearRetry();
  }

  /** Shows one event of the running task. */
  handle(event: AgentEvent): void {
    if (event.type !== "retrying" && event.type !== "warning" && event.type !== "step_started") {
      // Anything the model sends (or the end) means the retry got through, or gave up.
      this.clearRetry();
    }
    if (event.type !== "step_started" && event.type !== "retrying" && event.type !== "warning") this.clearPending();
    switch (event.type) {
      case "task_started":
        this.taskId = event.taskId;
        this.el.dataset.taskId = event.taskId;
        this.setRunning(true);
        break;
      case "step_started":
        this.showPending();
        break;
      case "retrying":
        this.clearPending();
        this.showRetry(event);
        break;
      case "text_delta":
        this.closeThinking();
        this.appendText(event.text);
        break;
      case "thinking_delta":
        this.appendThinking(event.text);
        break;
      case "step_finished":
        this.showMeter(event.total, event.cost, undefined, event.context);
        break;
      case "tool_started":
        this.endText();
        this.closeThinking();
        this.card(event.callId, event.tool, event.input, event.label);
        break;
      case "tool_finished": {
        const outcome = event.outcome ?? (event.isError ? "failed" : "done");
        this.finishCard(event.callId, event.isError, outcome, event.label, event.result ?? event.summary, event.durationMs);
        break;
      }
      case "externalized":
        this.cards.get(event.callId)?.link(event.path, event.chars, (path) => this.ctx.openResult(path));
        break;
      case "tool_progress":
        this.cards.get(event.callId)?.progress(event.progress, event.total ?? null, event.message ?? null);
        break;
      case "subtask":
        this.subtask(event.callId, event.taskId).handle(event.event);
        break;
      case "approval_required": {
        if (this.toSubtask(event.request.subtask, event)) break;
        this.endText();
        const request = event.request;
        const card = this.card(request.callId, request.tool, request.input);
        card.waitForApproval(request, () => this.ctx.review(request, card));
        this.ctx.review(request, card);
        break;
      }
      case "approval_resolved":
        for (const card of this.cards.values()) card.resolved(event.requestId, event.decision);
        for (const view of this.subtasks.values()) view.handle(event);
        break;
      case "question_asked":
        if (this.toSubtask(event.question.subtask, event)) break;
        this.endText();
        this.askQuestion(event.question);
        break;
      case "form_requested":
        if (this.toSubtask(event.form.subtask, event)) break;
        this.endText();
        this.askForm(event.form);
        break;
      case "warning":
        this.line("vault-agent-warning", "alert-triangle", event.message);
        break;
      case "mcp_sign_in_needed":
        this.signInLine(event.server, event.message);
        break;
      case "fast_path":
        this.line("vault-agent-fast-path", "zap", `Fast path: following ${recipeName(event.recipe)}.`);
        break;
      case "fast_path_fallback":
        this.line("vault-agent-warning", "alert-triangle", `The fast path gave up (${event.reason}); going on step by step.`);
        break;
      case "error":
        this.endText();
        this.errorLine(event.kind === "cancelled", event.message, event.detail ?? undefined, event.setting ?? undefined);
        break;
      case "done":
        this.endText();
        this.finish(event.report);
        break;
    }
    this.ctx.scroll();
  }

  /** The steps of the sub-task the call `callId` started, shown in that call's card. */
  private subtask(callId: string, taskId: string): TurnView {
    let view = this.subtasks.get(callId);
    if (!view) {
      const card = this.cards.get(callId) ?? this.card(callId, "new_task", {});
      view = this.addChild(new TurnView(card.subtaskBody(), this.ctx, true));
      this.subtasks.set(callId, view);
      this.subtaskIds.set(taskId, view);
    }
    return view;
  }

  /** The view of the sub-task `taskId`, at any depth below this task. */
  /**
   * Hands a sub-task's request (`subtask` set: an approval, a question, a form) to the view of
   * that sub-task, to be shown among its own steps; false when it is this task's own.
   */
  private toSubtask(subtask: SubtaskInfo | null | undefined, event: AgentEvent): boolean {
    const owner = subtask ? this.findSubtask(subtask.taskId) : null;
    owner?.handle(event);
    return owner !== null;
  }

  private findSubtask(taskId: string): TurnView | null {
    const mine = this.subtaskIds.get(taskId);
    if (mine) return mine;
    for (const view of this.subtasks.values()) {
      const found = view.findSubtask(taskId);
      if (found) return found;
    }
    return null;
  }

  /**
   * A tool card for a call, created on first sight. A call right after one of the same group
   * ("Read {n} notes") joins it: the two become one group card.
   */
  card(callId: string, tool: string, input: unknown, label?: CallLabel): ToolCard {
    const known = this.cards.get(callId);
    if (known) return known;
    const card = new ToolCard(this.el, tool, input, label, (path, newTab) => this.ctx.openPath(path, newTab));
    const last = this.lastCall;
    const adjacent = last !== null && (last.group?.el ?? last.card.el) === this.footer.previousElementSibling;
    this.el.insertBefore(card.el, this.footer);
    this.cards.set(callId, card);
    for (const path of label?.notes ?? []) this.notes.add(path);
    let group: ToolGroup | null = null;
    if (adjacent && card.group !== null && last.card.group === card.group) {
      group = last.group;
      if (!group) {
        group = new ToolGroup(this.el, last.card.el, card.group);
        group.add(last.card);
        const first = [...this.cards.entries()].find(([, c]) => c === last.card)?.[0];
        if (first) this.groups.set(first, group);
      }
      group.add(card);
      this.groups.set(callId, group);
    }
    this.lastCall = { card, group };
    return card;
  }

  private finishCard(
    callId: string,
    isError: boolean,
    outcome: ToolOutcome,
    label: CallLabel | undefined,
    result: string,
    durationMs: number | null,
  ): void {
    this.cards.get(callId)?.finish(isError, outcome, label, result, durationMs);
    for (const path of label?.notes ?? []) this.notes.add(path);
    this.groups.get(callId)?.update();
  }

  /** Renders a finished part of a restored chat (no streaming). */
  /** Renders the steps of a turn from a chat's transcript (a saved chat, a task before its restart). */
  renderSteps(steps: TranscriptStep[]): void {
    for (const step of steps) {
      if (step.type === "text") {
        this.appendText(step.text);
        this.endText();
      } else if (step.type === "thinking") {
        this.appendThinking(step.thinking);
        this.closeThinking();
      } else {
        const label = step.label ?? undefined;
        this.card(step.callId, step.name, step.input, label);
        if (step.outcome) this.finishCard(step.callId, step.isError, step.outcome, label, step.result ?? "", null);
        if (step.subtask) this.renderSubtask(step.callId, step.subtask);
      }
    }
  }

  /**
   * A finished sub-task from its report (a restored chat), folded in its call's card: its calls
   * (the report keeps their labels and errors, not their arguments or results), its answer and
   * its meter.
   */
  private renderSubtask(callId: string, report: RunReport): void {
    const view = this.subtask(callId, report.taskId);
    for (const call of report.steps.flatMap((step) => step.toolCalls)) {
      const label = call.label ?? undefined;
      view.card(call.callId, call.tool, undefined, label);
      const told = call.error ?? "Not kept in the saved chat.";
      view.finishCard(call.callId, call.error != null, call.outcome, label, told, call.latencyMs);
      if (call.subtask) view.renderSubtask(call.callId, call.subtask);
    }
    if (report.finalText?.trim()) {
      view.appendText(report.finalText);
      view.endText();
    }
    view.finish(report);
    this.cards.get(callId)?.toggle(false);
  }

  /** The footer for a finished task: how it ended, the meter, retry and undo. */
  finish(report: RunReport, undone = false): void {
    // A form still open when the task ended is no longer waited for.
    for (const form of this.forms.splice(0)) form.close();
    this.closeThinking();
    this.taskId = report.taskId;
    this.el.dataset.taskId = report.taskId;
    this.setRunning(false);
    this.showMeter(report.usage, report.cost, report.durationMs, report.context);
    this.actions.empty();
    const label = endLabel(report);
    if (label) this.actions.createSpan({ cls: "vault-agent-end", text: label });
    if (report.fastPath) {
      const recipe = this.actions.createSpan({ cls: "vault-agent-recipe-label" });
      setIcon(recipe.createSpan({ cls: "vault-agent-recipe-icon" }), "zap");
      recipe.createSpan({ text: `Fast path · recipe ${report.fastPath.id}` });
      recipe.setAttr("title", `Answered by the fast path of ${recipeName(report.fastPath)}`);
    }
    // A sub-task's answer is its parent's to use; its changes are undone with the parent's.
    if (this.nested) return;
    if (canContinue(report.end)) {
      this.button(this.actions, "play", "Continue", () => this.ctx.continueTask()).addClass("vault-agent-continue", "mod-cta");
    } else if (!isSuccess(report.end) && report.end.reason !== "failed") {
      // A failed task already has its error line with a retry.
      this.button(this.actions, "refresh-cw", "Retry", () => this.ctx.retry()).addClass("vault-agent-retry");
    }
    if (report.changedPaths.length > 0) this.undoButton(report, undone);
    this.answerActions(report);
  }

  /** Under an answer: copy, insert at the cursor, append to the note, a new note, regenerate. */
  private answerActions(report: RunReport): void {
    this.el.querySelector(".vault-agent-answer-actions")?.remove();
    const answer = report.finalText?.trim() || this.texts.at(-1)?.trim();
    const row = createDiv({ cls: "vault-agent-answer-actions" });
    this.el.insertBefore(row, this.footer);
    if (answer) {
      for (const [action, icon, label] of ANSWER_ACTIONS) {
        this.iconButton(row, icon, label, () => this.ctx.answerAction(action, answer)).dataset.action = action;
      }
    }
    if (isSuccess(report.end)) {
      this.iconButton(row, "refresh-cw", "Regenerate", () => this.ctx.retry()).addClass("vault-agent-regenerate");
    }
    if (!row.hasChildNodes()) row.remove();
  }

  private iconButton(parent: HTMLElement, icon: string, label: string, onClick: () => void): HTMLElement {
    const button = parent.createDiv({ cls: "clickable-icon", attr: { role: "button", tabindex: "0", "aria-label": label, title: label } });
    setIcon(button, icon);
    onActivate(button, onClick);
    return button;
  }

  /** Undo, or Redo once the task was undone. */
  private undoButton(report: RunReport, undone: boolean): void {
    this.actions.querySelector(".vault-agent-undo")?.remove();
    const button = this.button(this.actions, undone ? "redo-2" : "undo-2", undone ? "Redo" : "Undo", () => {
      void this.undo(button, report, undone);
    });
    button.addClass("vault-agent-undo");
    button.toggleClass("is-redo", undone);
    button.title = `${undone ? "Apply again" : "Restore"} ${report.changedPaths.join(", ")}`;
  }

  private async undo(button: HTMLButtonElement, report: RunReport, redo: boolean): Promise<void> {
    if (!this.taskId) return;
    button.disabled = true;
    try {
      const message = await this.ctx.undo(this.taskId, redo);
      if (message === null) {
        button.disabled = false;
        return;
      }
      this.line("vault-agent-undo-report", redo ? "redo-2" : "undo-2", message);
      this.undoButton(report, !redo);
    } catch (error) {
      button.disabled = false;
      this.line("vault-agent-error", "alert-circle", `${redo ? "Redo" : "Undo"} failed: ${errorMessage(error)}`);
    }
    this.ctx.scroll();
  }

  private setRunning(running: boolean): void {
    this.el.toggleClass("is-running", running);
    if (running) {
      this.actions.empty();
      this.actions.createSpan({ cls: "vault-agent-spinner" });
    }
  }

  /**
   * Tokens, the core's cost (none when the model's price is unknown), the time taken, and how
   * full the model's context is.
   */
  private showMeter(usage: Usage, cost: number | null | undefined, durationMs?: number, context?: ContextUse | null): void {
    const parts = usageParts(usage, cost);
    if (durationMs !== undefined) parts.push(`${(durationMs / 1000).toFixed(1)} s`);
    if (context && context.window > 0) {
      const percent = (100 * context.tokens) / context.window;
      parts.push(`${percent < 1 ? "<1" : Math.round(percent)}% of ${windowSize(context.window)} context`);
      this.meter.title = `The conversation fills ${Math.round(percent)}% of the ${windowSize(context.window)}-token context the model reads; older turns are summed up before it is full.`;
    }
    this.meter.setText(parts.join(" · "));
  }

  private appendText(delta: string): void {
    if (!this.text) {
      const el = this.el.createDiv({ cls: "vault-agent-text markdown-rendered" });
      this.el.insertBefore(el, this.footer);
      this.text = { el, raw: "", timer: null, generation: 0 };
    }
    const text = this.text;
    text.raw += delta;
    text.timer ??= window.setTimeout(() => {
      text.timer = null;
      void this.render(text);
    }, RENDER_INTERVAL_MS);
  }

  /** Renders the text's markdown into a detached element, then swaps it in (no flicker). */
  private async render(text: { el: HTMLElement; raw: string; generation: number }): Promise<void> {
    const generation = ++text.generation;
    const next = createDiv();
    await MarkdownRenderer.render(this.ctx.app, text.raw, next, "", this);
    if (generation !== text.generation) return;
    // A renderer that produced nothing (a host without markdown) still shows the text.
    if (!next.hasChildNodes()) next.createEl("p", { text: text.raw });
    this.linkNotes(next);
    text.el.replaceChildren(...Array.from(next.childNodes));
    this.ctx.scroll();
  }

  /**
   * Makes the notes an answer names open on a click: its internal links, `code` that is a
   * vault path, and the paths of notes this task's calls named or found.
   */
  private linkNotes(root: HTMLElement): void {
    const open: OpenNote = (path, newTab) => this.ctx.openPath(path, newTab);
    root.querySelectorAll<HTMLAnchorElement>("a.internal-link").forEach((a) => {
      const target = a.dataset.href ?? a.getAttribute("href") ?? "";
      a.addEventListener("click", (e) => {
        e.preventDefault();
        open(target, e.ctrlKey || e.metaKey);
      });
    });
    root.querySelectorAll("code").forEach((code) => {
      const path = code.textContent ?? "";
      if (code.closest("pre, a") || !path.includes(".") || !this.ctx.isFile(path)) return;
      const link = noteLink(createDiv(), path, "", open);
      link.empty();
      code.replaceWith(link);
      link.appendChild(code);
    });
    if (this.notes.size === 0) return;
    const paths = [...this.notes].sort((a, b) => b.length - a.length);
    const texts: Text[] = [];
    const walker = root.doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) texts.push(walker.currentNode as Text);
    for (const node of texts) {
      if (!node.parentElement?.closest("a, code, pre")) linkPaths(node, paths, open);
    }
  }

  private endText(): void {
    const text = this.text;
    if (!text) return;
    if (text.raw.trim()) this.texts.push(text.raw);
    if (text.timer) window.clearTimeout(text.timer);
    text.timer = null;
    void this.render(text);
    this.text = null;
  }

  private appendThinking(delta: string): void {
    if (!this.thinking) {
      const el = this.el.createEl("details", { cls: "vault-agent-thinking" });
      this.el.insertBefore(el, this.footer);
      el.createEl("summary", { text: "Thinking" });
      this.thinking = { el, body: el.createDiv({ cls: "vault-agent-thinking-body" }), raw: "" };
    }
    this.thinking.raw += delta;
    this.thinking.body.appendText(delta);
  }

  /** Ends the thinking so far; written in Markdown (OpenAI's summaries head each part in bold), it is rendered as such. */
  private closeThinking(): void {
    const thinking = this.thinking;
    this.thinking = null;
    if (!thinking || !/[*_`#[]/.test(thinking.raw)) return;
    thinking.body.empty();
    thinking.body.addClass("is-rendered");
    void MarkdownRenderer.render(this.ctx.app, thinking.raw, thinking.body, "", this);
  }

  private askForm(form: FormRequest): void {
    this.forms.push(showForm(this.el, this.footer, form, (answer) => this.ctx.answerForm(form.id, answer)));
  }

  private askQuestion(question: Question): void {
    const box = this.el.createDiv({ cls: "vault-agent-question" });
    this.el.insertBefore(box, this.footer);
    box.createDiv({ cls: "vault-agent-question-text", text: question.question });
    const choices = box.createDiv({ cls: "vault-agent-question-choices" });
    const done = (answer: string | null) => {
      box.addClass("is-answered");
      box.querySelectorAll("button, input").forEach((el) => el.setAttr("disabled", "true"));
      box.createDiv({ cls: "vault-agent-question-answer", text: answer === null ? "Declined" : answer });
      this.ctx.answer(question.id, answer);
    };
    for (const suggestion of question.suggestions) {
      choices.createEl("button", { text: suggestion }).addEventListener("click", () => done(suggestion));
    }
    const row = box.createDiv({ cls: "vault-agent-question-row" });
    const input = row.createEl("input", { type: "text", placeholder: "Your answer" });
    row.createEl("button", { text: "Answer", cls: "mod-cta" }).addEventListener("click", () => {
      if (input.value.trim()) done(input.value.trim());
    });
    row.createEl("button", { text: "Decline" }).addEventListener("click", () => done(null));
  }

  /** A fatal error in plain words, the provider's own words below, Retry, and the setting to check. */
  private errorLine(cancelled: boolean, message: string, detail?: string, setting?: ProviderSetting): void {
    const line = this.line("vault-agent-error", "alert-circle", "");
    const text = line.querySelector(".vault-agent-line-text");
    text?.createDiv({ cls: "vault-agent-error-message", text: message });
    if (detail && detail !== message) text?.createDiv({ cls: "vault-agent-error-detail", text: detail });
    const buttons = line.createDiv({ cls: "vault-agent-error-buttons" });
    if (!cancelled) {
      this.button(buttons, "refresh-cw", "Retry", () => this.ctx.retry()).addClass("vault-agent-retry");
    }
    if (setting === "model") {
      this.button(buttons, "list", "Pick another model", () => this.ctx.pickModel()).addClass("vault-agent-pick-model");
    } else if (setting) {
      this.button(buttons, "settings", SETTING_WORDS[setting], () => this.ctx.openSettings()).addClass(
        "vault-agent-open-provider",
      );
    }
  }

  /** The one live retry line: what went wrong and a countdown to the next attempt. */
  private showRetry(event: { attempt: number; maxAttempts: number; delayMs: number; problem: ProviderProblem }): void {
    this.clearRetry();
    const el = this.line("vault-agent-retrying", "refresh-cw", "");
    el.title = event.problem.detail;
    const text = el.querySelector(".vault-agent-line-text") as HTMLElement;
    const due = Date.now() + event.delayMs;
    const next = `(${event.attempt + 1}/${event.maxAttempts})`;
    const tick = () => {
      const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
      text.setText(`${event.problem.message} ${left > 0 ? `Retrying in ${left} s…` : "Retrying…"} ${next}`);
    };
    tick();
    this.retryLine = { el, timer: window.setInterval(tick, 1000) };
  }

  private clearRetry(): void {
    if (!this.retryLine) return;
    window.clearInterval(this.retryLine.timer);
    this.retryLine.el.remove();
    this.retryLine = null;
  }

  /** "Thinking…" until the model's first output: the task is not stuck. */
  private showPending(): void {
    if (this.pending) return;
    this.pending = this.el.createDiv({ cls: "vault-agent-pending" });
    this.el.insertBefore(this.pending, this.footer);
    this.pending.createSpan({ cls: "vault-agent-spinner" });
    this.pending.createSpan({ text: "Thinking…" });
  }

  private clearPending(): void {
    this.pending?.remove();
    this.pending = null;
  }

  /**
   * An MCP server that asks the user to sign in: the core's words and *Sign in to <server>*,
   * which opens the server's page in the browser; once signed in, the next message has its tools.
   */
  private signInLine(server: string, message: string): void {
    const line = this.line("vault-agent-warning vault-agent-mcp-sign-in-line", "alert-triangle", message);
    // A click while waiting starts again (the browser was closed, say): only the latest
    // attempt's outcome is shown, as in the settings.
    let attempt = 0;
    const label = (text: string) => button.querySelector(".vault-agent-button-text")?.setText(text);
    const button = this.button(line, "log-in", `Sign in to ${server}`, () => {
      const mine = ++attempt;
      label("Waiting for the browser…");
      button.setAttr("title", "Click to start again");
      line.querySelector(".vault-agent-sign-in-problem")?.remove();
      this.ctx.signInMcp(server).then(
        () => {
          if (mine !== attempt) return;
          button.remove();
          line.createSpan({ cls: "vault-agent-line-text vault-agent-signed-in", text: `Signed in to ${server}: ask again to use its tools.` });
        },
        (error: unknown) => {
          if (mine !== attempt) return;
          label(`Sign in to ${server}`);
          line.createSpan({ cls: "vault-agent-line-text vault-agent-sign-in-problem", text: `Not signed in: ${errorMessage(error)}` });
        },
      );
    });
    button.addClass("vault-agent-mcp-sign-in");
  }

  private line(cls: string, icon: string, text: string): HTMLElement {
    const line = this.el.createDiv({ cls: `vault-agent-line ${cls}` });
    this.el.insertBefore(line, this.footer);
    setIcon(line.createSpan({ cls: "vault-agent-line-icon" }), icon);
    line.createSpan({ cls: "vault-agent-line-text", text });
    return line;
  }

  private button(parent: HTMLElement, icon: string, text: string, onClick: () => void): HTMLButtonElement {
    const button = parent.createEl("button", { cls: "vault-agent-small-button" });
    setIcon(button.createSpan({ cls: "vault-agent-button-icon" }), icon);
    button.createSpan({ cls: "vault-agent-button-text", text });
    button.addEventListener("click", onClick);
    return button;
  }
}

/** Opens a note (`newTab`: in a new tab, as Ctrl/Cmd-click does). */
export type OpenNote = (path: string, newTab: boolean) => void;

const OUTCOME_WORDS: Record<ToolOutcome, string> = {
  done: "",
  failed: "Failed",
  blocked: "Blocked",
  skipped: "Skipped",
  denied: "Denied",
  not_run: "Not run",
};

/**
 * One tool call: the core's label (notes as links), a spinner then a mark, and details that
 * expand on a click: the notes it named or found, its arguments and what the model was told.
 */
export class ToolCard {
  readonly el: HTMLElement;
  readonly group: string | null;
  private readonly head: HTMLElement;
  private readonly status: HTMLElement;
  private readonly labelEl: HTMLElement;
  private readonly outcomeEl: HTMLElement;
  private details: HTMLElement | null = null;
  private steps: HTMLElement | null = null;
  private approval: HTMLElement | null = null;
  private progressEl: HTMLElement | null = null;
  private requestId: string | null = null;
  private label: CallLabel | null;
  private result: string | null = null;
  private durationMs: number | null = null;

  constructor(
    parent: HTMLElement,
    private readonly tool: string,
    private readonly input: unknown,
    label: CallLabel | undefined,
    private readonly open: OpenNote,
  ) {
    this.label = label ?? null;
    this.group = label?.group ?? null;
    this.el = parent.createDiv({ cls: "vault-agent-tool-card is-running" });
    this.el.dataset.tool = tool;
    this.head = this.el.createDiv({ cls: "vault-agent-tool-head", attr: { role: "button", tabindex: "0", "aria-expanded": "false" } });
    this.status = this.head.createSpan({ cls: "vault-agent-tool-status" });
    this.status.createSpan({ cls: "vault-agent-spinner" });
    this.labelEl = this.head.createSpan({ cls: "vault-agent-tool-label" });
    this.outcomeEl = this.head.createSpan({ cls: "vault-agent-tool-outcome" });
    setIcon(this.head.createSpan({ cls: "vault-agent-tool-chevron" }), "chevron-right");
    onActivate(this.head, () => this.toggle());
    this.renderLabel();
  }

  /**
   * Where the steps of the sub-task this call started are shown: open while it runs, and when
   * it waits for the user; folded with the card once it is done.
   */
  subtaskBody(): HTMLElement {
    if (!this.steps) {
      this.el.addClass("is-subtask");
      this.steps = this.el.createDiv({ cls: "vault-agent-subtask" });
      if (this.details) this.el.appendChild(this.details);
      this.el.addEventListener("vault-agent-waiting", (e) => {
        if (e.target !== this.el) this.toggle(true);
      });
      this.toggle(true);
    }
    return this.steps;
  }

  /** The call ended: its final label (what it found), how it ended, what the model was told. */
  finish(isError: boolean, outcome: ToolOutcome, label: CallLabel | undefined, result: string, durationMs: number | null): void {
    this.el.removeClass("is-running", "is-waiting");
    this.el.addClass(isError ? "is-error" : "is-done");
    this.progressEl?.remove();
    this.progressEl = null;
    this.el.dataset.outcome = outcome;
    this.status.empty();
    setIcon(this.status, isError ? "x" : outcome === "skipped" ? "minus" : "check");
    if (label) this.label = label;
    this.result = result;
    this.durationMs = durationMs;
    this.outcomeEl.setText(OUTCOME_WORDS[outcome]);
    this.renderLabel();
    if (this.details) this.renderDetails(this.details);
    if (this.steps) this.toggle(false);
  }

  isFinished(): boolean {
    return !this.el.hasClass("is-running") && !this.el.hasClass("is-waiting");
  }

  isError(): boolean {
    return this.el.hasClass("is-error");
  }

  toggle(open = !this.details): void {
    this.details?.remove();
    this.details = null;
    if (open) {
      this.details = this.el.createDiv({ cls: "vault-agent-tool-details" });
      this.renderDetails(this.details);
    }
    this.head.setAttr("aria-expanded", String(open));
    this.el.toggleClass("is-open", open);
  }

  private renderLabel(): void {
    this.labelEl.empty();
    if (this.label) {
      renderLabel(this.labelEl, this.label, this.open);
    } else {
      // A chat saved before the core wrote labels.
      this.labelEl.appendText(`${this.tool} ${argumentSummary(this.input)}`.trim());
    }
  }

  private renderDetails(details: HTMLElement): void {
    details.empty();
    const notes = this.label?.notes ?? [];
    if (notes.length > 0) {
      const list = details.createDiv({ cls: "vault-agent-tool-notes" });
      for (const path of notes) noteLink(list.createDiv(), path, path, this.open).addClass("vault-agent-path");
    }
    // A restored sub-task's calls have no arguments kept.
    if (this.input !== undefined) {
      details.createDiv({ cls: "vault-agent-tool-section", text: "Arguments" });
      details.createEl("pre", { cls: "vault-agent-tool-pre", text: JSON.stringify(this.input, null, 2) });
    }
    if (this.result !== null) {
      const took = this.durationMs === null ? "" : ` (${this.durationMs} ms)`;
      details.createDiv({ cls: "vault-agent-tool-section", text: `What the model was told${took}` });
      details.createEl("pre", { cls: "vault-agent-tool-pre vault-agent-tool-told", text: this.result });
    }
  }

  waitForApproval(request: ApprovalRequest, review: () => void): void {
    this.requestId = request.id;
    this.el.removeClass("is-running");
    this.el.addClass("is-waiting");
    this.approval?.remove();
    this.approval = this.el.createDiv({ cls: "vault-agent-tool-approval" });
    this.approval.createSpan({ text: "Waiting for your approval" });
    this.approval.createEl("button", { text: "Review", cls: "mod-cta" }).addEventListener("click", review);
    this.el.dispatchEvent(new CustomEvent("vault-agent-waiting", { bubbles: true }));
  }

  resolved(requestId: string, decision: ApprovalDecision): void {
    if (requestId !== this.requestId || !this.approval) return;
    this.el.removeClass("is-waiting");
    if (decision === "skip" || decision === "deny") {
      // The head says "Skipped" or "Denied" once the call finishes.
      this.approval.remove();
      this.approval = null;
      return;
    }
    this.el.addClass("is-running");
    this.approval.empty();
    this.approval.addClass(`is-${decision.replace("_", "-")}`);
    this.approval.setText(DECISION_WORDS[decision]);
  }

  /**
   * How far the running call is, as its server says: `progress` of `total` (a bar and "3 of 5")
   * when it knows the total, the count alone otherwise, and its message.
   */
  progress(progress: number, total: number | null, message: string | null): void {
    if (this.isFinished() && !this.el.hasClass("is-running")) return;
    this.progressEl ??= this.el.createDiv({ cls: "vault-agent-tool-progress" });
    this.progressEl.empty();
    const known = total !== null && total > 0;
    if (known) {
      const bar = this.progressEl.createDiv({ cls: "vault-agent-tool-progress-bar" });
      bar.createDiv({ cls: "vault-agent-tool-progress-fill" }).setCssStyles({ width: `${Math.min(100, (progress / total) * 100)}%` });
    }
    const count = known ? `${progress} of ${total}` : String(progress);
    this.progressEl.createSpan({ cls: "vault-agent-tool-progress-text", text: message ? `${count} · ${message}` : count });
  }

  /** Whether the card still waits for an answer to `requestId`. */
  isWaiting(requestId: string): boolean {
    return this.requestId === requestId && this.el.hasClass("is-waiting");
  }

  link(path: string, chars: number, open: (path: string) => void): void {
    const link = this.el.createDiv({ cls: "vault-agent-tool-link" });
    const a = link.createEl("a", { text: `Full result (${chars.toLocaleString()} characters)`, href: "#" });
    a.title = path;
    a.addEventListener("click", (e) => {
      e.preventDefault();
      open(path);
    });
  }
}

/**
 * Consecutive calls of one kind ("Read {n} notes") as one card that expands to show each.
 * It opens by itself when one of its calls waits for approval.
 */
export class ToolGroup {
  readonly el: HTMLElement;
  private readonly status: HTMLElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;
  private readonly cards: ToolCard[] = [];

  constructor(
    parent: HTMLElement,
    before: HTMLElement,
    readonly group: string,
  ) {
    this.el = createDiv({ cls: "vault-agent-tool-group" });
    parent.insertBefore(this.el, before);
    const head = this.el.createDiv({ cls: "vault-agent-tool-head", attr: { role: "button", tabindex: "0", "aria-expanded": "false" } });
    this.status = head.createSpan({ cls: "vault-agent-tool-status" });
    this.title = head.createSpan({ cls: "vault-agent-tool-label" });
    setIcon(head.createSpan({ cls: "vault-agent-tool-chevron" }), "chevron-right");
    this.body = this.el.createDiv({ cls: "vault-agent-tool-group-body" });
    onActivate(head, () => this.toggle());
    this.el.addEventListener("vault-agent-waiting", () => this.toggle(true));
    this.toggle(false);
  }

  add(card: ToolCard): void {
    this.cards.push(card);
    this.body.appendChild(card.el);
    this.update();
  }

  toggle(open = !this.el.hasClass("is-open")): void {
    this.el.toggleClass("is-open", open);
    this.el.querySelector(".vault-agent-tool-head")?.setAttr("aria-expanded", String(open));
    this.body.toggle(open);
  }

  /** The title with the number of calls, and a spinner until every call is done. */
  update(): void {
    this.title.setText(this.group.replace("{n}", String(this.cards.length)));
    const running = this.cards.some((c) => !c.isFinished());
    const failed = this.cards.some((c) => c.isError());
    this.el.toggleClass("is-running", running);
    this.el.toggleClass("is-error", !running && failed);
    this.el.toggleClass("is-done", !running && !failed);
    this.status.empty();
    if (running) this.status.createSpan({ cls: "vault-agent-spinner" });
    else setIcon(this.status, failed ? "x" : "check");
  }
}

/** Renders a core label: text, and notes as links named by their file name. */
export function renderLabel(parent: HTMLElement, label: CallLabel, open: OpenNote): void {
  for (const part of label.parts) {
    if (part.kind === "text") parent.appendText(part.text);
    else noteLink(parent, part.path, part.name, open);
  }
}

/** A link that opens the note at `path` (Ctrl/Cmd-click or a middle click: a new tab). */
export function noteLink(parent: HTMLElement, path: string, text: string, open: OpenNote): HTMLElement {
  const a = parent.createEl("a", { cls: "vault-agent-note-link", href: "#", title: path });
  // The path's start is cut when it is too long (the file name stays in view): see styles.css.
  a.createEl("bdi", { text });
  a.dataset.path = path;
  a.addEventListener("click", (e) => {
    e.preventDefault();
    e.stopPropagation();
    open(path, e.ctrlKey || e.metaKey);
  });
  a.addEventListener("auxclick", (e) => {
    if (e.button !== 1) return;
    e.preventDefault();
    e.stopPropagation();
    open(path, true);
  });
  return a;
}

/** Turns each of `paths` (longest first) found in the text node into a link to the note. */
function linkPaths(node: Text, paths: string[], open: OpenNote): void {
  let rest: Text | null = node;
  while (rest) {
    const text: string = rest.data;
    let at = -1;
    let found = "";
    for (const path of paths) {
      const i = text.indexOf(path);
      if (i >= 0 && (at < 0 || i < at)) {
        at = i;
        found = path;
      }
    }
    if (at < 0) return;
    const match: Text = rest.splitText(at);
    const after: Text = match.splitText(found.length);
    const link = noteLink(createDiv(), found, found, open);
    match.replaceWith(link);
    rest = after;
  }
}

/** Runs `action` on a click or Enter/Space (an element with role=button). */
function onActivate(el: HTMLElement, action: () => void): void {
  el.addEventListener("click", action);
  el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      action();
    }
  });
}

/** A short line for a call's arguments: its path(s) or query, else compact JSON. */
export function argumentSummary(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const args = input as Record<string, unknown>;
  const str = (key: string) => (typeof args[key] === "string" ? args[key] : null);
  const from = str("from") ?? str("source");
  const to = str("to") ?? str("destination");
  if (from && to) return `${from} → ${to}`;
  for (const key of ["path", "query", "pattern", "question", "result"]) {
    const value = str(key);
    if (value) return clip(value);
  }
  const json = JSON.stringify(input);
  return json === "{}" ? "" : clip(json);
}

const clip = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Tokens in and out, and their cost when known ("free" for a model on this machine). */
export function usageParts(usage: Usage, cost: number | null | undefined): string[] {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const parts = [`${tokens(input)} in`, `${tokens(usage.outputTokens)} out`];
  if (typeof cost === "number") parts.push(cost === 0 ? "free" : `$${cost.toFixed(cost < 0.1 ? 4 : cost < 10 ? 3 : 2)}`);
  return parts;
}

const tokens = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** A context window's size: `200000` as "200k", `1047576` as "1M". */
export function windowSize(n: number): string {
  if (n >= 1_000_000) return `${Math.round(n / 100_000) / 10}M`;
  if (n >= 1_000) return `${Math.round(n / 1_000)}k`;
  return String(n);
}

export function isSuccess(end: EndReason): boolean {
  return end.reason === "completed" || end.reason === "answered";
}

/** A stop at a limit a fresh budget lifts: the turn offers Continue (`EndReason::can_continue`). */
export function canContinue(end: EndReason): boolean {
  return end.reason === "max_iterations" || end.reason === "tool_budget" || end.reason === "deadline";
}

/** How the task ended, in the core's words; nothing for an answer. */
function endLabel(report: RunReport): string {
  if (isSuccess(report.end)) return "";
  // A failure already has its error line; reports saved before the core named ends say "Stopped".
  if (report.end.reason === "failed") return "Failed";
  return report.ended?.replace(/\.$/, "") || "Stopped";
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A recipe as the chat names it: its id, the request it was learned from, how often it worked. */
function recipeName(recipe: RecipeUse): string {
  const times = recipe.successes === 1 ? "once" : `${recipe.successes} times`;
  return `recipe ${recipe.id} (“${recipe.request}”, worked ${times})`;
}
