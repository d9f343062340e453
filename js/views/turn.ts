import { Component, MarkdownRenderer, setIcon, type App } from "obsidian";
import type {
  AgentEvent,
  ApprovalDecision,
  ApprovalRequest,
  ContentBlock,
  EndReason,
  ErrorKind,
  Question,
  RunReport,
  Usage,
} from "../protocol";

/** What a turn needs from the chat view. */
export interface TurnContext {
  app: App;
  /** Answers an approval request (the modal or the card's buttons). */
  review(request: ApprovalRequest, card: ToolCard): void;
  answer(questionId: string, text: string | null): void;
  retry(): void;
  /** Goes on after a task stopped at a limit, with a fresh budget. */
  continueTask(): void;
  /** Undoes (or with `redo`, applies again) the task; the message to show, or null if the user cancelled. */
  undo(taskId: string, redo: boolean): Promise<string | null>;
  openPath(path: string): void;
  /** Shows a large result the core saved while the task runs. */
  openResult(path: string): void;
  /** The cost of `usage` in US dollars, or null when the model's price is unknown. */
  cost(usage: Usage): number | null;
  scroll(): void;
}

const DECISION_WORDS: Record<ApprovalDecision, string> = {
  approve: "Approved",
  always_allow: "Always allowed",
  skip: "Skipped",
  deny: "Denied",
};

const ERROR_WORDS: Record<ErrorKind, string> = {
  rate_limited: "Rate limited",
  context_overflow: "Too long for the model",
  auth: "Not authorised (check the API key)",
  bad_request: "The provider refused the request",
  network: "Could not reach the provider",
  overloaded: "The provider is overloaded",
  cancelled: "Stopped",
  protocol: "The provider's answer could not be read",
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
  private thinking: { el: HTMLElement; body: HTMLElement } | null = null;
  private readonly cards = new Map<string, ToolCard>();
  private readonly footer: HTMLElement;
  private readonly meter: HTMLElement;
  private readonly actions: HTMLElement;
  taskId: string | null = null;

  constructor(
    parent: HTMLElement,
    private readonly ctx: TurnContext,
  ) {
    super();
    this.el = parent.createDiv({ cls: "vault-agent-turn" });
    this.footer = this.el.createDiv({ cls: "vault-agent-turn-footer" });
    this.meter = this.footer.createSpan({ cls: "vault-agent-meter" });
    this.actions = this.footer.createSpan({ cls: "vault-agent-turn-actions" });
  }

  onunload(): void {
    if (this.text?.timer) window.clearTimeout(this.text.timer);
  }

  /** Shows one event of the running task. */
  handle(event: AgentEvent): void {
    switch (event.type) {
      case "task_started":
        this.taskId = event.task_id;
        this.el.dataset.taskId = event.task_id;
        this.setRunning(true);
        break;
      case "step_started":
        break;
      case "text_delta":
        this.closeThinking();
        this.appendText(event.text);
        break;
      case "thinking_delta":
        this.appendThinking(event.text);
        break;
      case "step_finished":
        this.showMeter(event.total);
        break;
      case "tool_started":
        this.endText();
        this.closeThinking();
        this.card(event.call_id, event.tool, event.input);
        break;
      case "tool_finished":
        this.cards.get(event.call_id)?.finish(event.is_error, event.summary, event.duration_ms);
        break;
      case "externalized":
        this.cards.get(event.call_id)?.link(event.path, event.chars, (path) => this.ctx.openResult(path));
        break;
      case "approval_required": {
        this.endText();
        const request = event.request;
        const card = this.card(request.call_id, request.tool, request.input);
        card.waitForApproval(request, () => this.ctx.review(request, card));
        this.ctx.review(request, card);
        break;
      }
      case "approval_resolved":
        for (const card of this.cards.values()) card.resolved(event.request_id, event.decision);
        break;
      case "question_asked":
        this.endText();
        this.askQuestion(event.question);
        break;
      case "warning":
        this.line("vault-agent-warning", "alert-triangle", event.message);
        break;
      case "error":
        this.endText();
        this.errorLine(event.kind ?? null, event.message);
        break;
      case "done":
        this.endText();
        this.finish(event.report);
        break;
    }
    this.ctx.scroll();
  }

  /** A tool card for a call, created on first sight. */
  card(callId: string, tool: string, input: unknown): ToolCard {
    let card = this.cards.get(callId);
    if (!card) {
      card = new ToolCard(this.el, tool, input);
      this.el.insertBefore(card.el, this.footer);
      this.cards.set(callId, card);
    }
    return card;
  }

  /** Renders a finished part of a restored chat (no streaming). */
  renderBlocks(blocks: ContentBlock[], results: Map<string, { content: string; is_error?: boolean }>): void {
    for (const block of blocks) {
      if (block.type === "text" && block.text.trim()) {
        this.appendText(block.text);
        this.endText();
      } else if (block.type === "thinking" && block.thinking.trim()) {
        this.appendThinking(block.thinking);
        this.closeThinking();
      } else if (block.type === "tool_use") {
        const card = this.card(block.id, block.name, block.input);
        const result = results.get(block.id);
        if (result) card.finish(result.is_error ?? false, result.content.split("\n")[0] ?? "", null);
      }
    }
  }

  /** The footer for a finished task: how it ended, the meter, retry and undo. */
  finish(report: RunReport, undone = false): void {
    this.taskId = report.task_id;
    this.el.dataset.taskId = report.task_id;
    this.setRunning(false);
    this.showMeter(report.usage, report.duration_ms);
    this.actions.empty();
    const label = endLabel(report);
    if (label) this.actions.createSpan({ cls: "vault-agent-end", text: label });
    if (canContinue(report.end)) {
      this.button(this.actions, "play", "Continue", () => this.ctx.continueTask()).addClass("vault-agent-continue");
    } else if (!isSuccess(report.end) && report.end.reason !== "failed") {
      // A failed task already has its error line with a retry.
      this.button(this.actions, "refresh-cw", "Retry", () => this.ctx.retry()).addClass("vault-agent-retry");
    }
    if (report.changed_paths.length > 0) this.undoButton(report, undone);
  }

  /** Undo, or Redo once the task was undone. */
  private undoButton(report: RunReport, undone: boolean): void {
    this.actions.querySelector(".vault-agent-undo")?.remove();
    const button = this.button(this.actions, undone ? "redo-2" : "undo-2", undone ? "Redo" : "Undo", () => {
      void this.undo(button, report, undone);
    });
    button.addClass("vault-agent-undo");
    button.toggleClass("is-redo", undone);
    button.title = `${undone ? "Apply again" : "Restore"} ${report.changed_paths.join(", ")}`;
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

  private showMeter(usage: Usage, durationMs?: number): void {
    const input = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
    const parts = [`${tokens(input)} in`, `${tokens(usage.output_tokens)} out`];
    const cost = this.ctx.cost(usage);
    if (cost !== null) parts.push(cost === 0 ? "free" : `$${cost.toFixed(cost < 0.1 ? 4 : cost < 10 ? 3 : 2)}`);
    if (durationMs !== undefined) parts.push(`${(durationMs / 1000).toFixed(1)} s`);
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
    text.el.replaceChildren(...Array.from(next.childNodes));
    this.ctx.scroll();
  }

  private endText(): void {
    const text = this.text;
    if (!text) return;
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
      this.thinking = { el, body: el.createDiv({ cls: "vault-agent-thinking-body" }) };
    }
    this.thinking.body.appendText(delta);
  }

  private closeThinking(): void {
    this.thinking = null;
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

  private errorLine(kind: ErrorKind | null, message: string): void {
    const line = this.line("vault-agent-error", "alert-circle", "");
    const text = line.querySelector(".vault-agent-line-text");
    text?.createSpan({ cls: "vault-agent-error-kind", text: kind ? ERROR_WORDS[kind] : "Error" });
    text?.createSpan({ cls: "vault-agent-error-message", text: message });
    if (kind !== "cancelled") {
      this.button(line, "refresh-cw", "Retry", () => this.ctx.retry()).addClass("vault-agent-retry");
    }
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

/** One tool call: name, argument summary, spinner, result, link to an externalized result. */
export class ToolCard {
  readonly el: HTMLElement;
  private readonly status: HTMLElement;
  private readonly result: HTMLElement;
  private approval: HTMLElement | null = null;
  private requestId: string | null = null;

  constructor(parent: HTMLElement, tool: string, input: unknown) {
    this.el = parent.createDiv({ cls: "vault-agent-tool-card is-running" });
    this.el.dataset.tool = tool;
    const head = this.el.createDiv({ cls: "vault-agent-tool-head" });
    this.status = head.createSpan({ cls: "vault-agent-tool-status" });
    this.status.createSpan({ cls: "vault-agent-spinner" });
    head.createSpan({ cls: "vault-agent-tool-name", text: tool });
    head.createSpan({ cls: "vault-agent-tool-args", text: argumentSummary(input) });
    this.result = this.el.createDiv({ cls: "vault-agent-tool-result" });
  }

  finish(isError: boolean, summary: string, durationMs: number | null): void {
    this.el.removeClass("is-running", "is-waiting");
    this.el.addClass(isError ? "is-error" : "is-done");
    this.status.empty();
    setIcon(this.status, isError ? "x" : "check");
    this.result.setText(durationMs === null ? summary : `${summary} (${durationMs} ms)`);
  }

  waitForApproval(request: ApprovalRequest, review: () => void): void {
    this.requestId = request.id;
    this.el.removeClass("is-running");
    this.el.addClass("is-waiting");
    this.approval?.remove();
    this.approval = this.el.createDiv({ cls: "vault-agent-tool-approval" });
    this.approval.createSpan({ text: "Waiting for your approval" });
    this.approval.createEl("button", { text: "Review", cls: "mod-cta" }).addEventListener("click", review);
  }

  resolved(requestId: string, decision: ApprovalDecision): void {
    if (requestId !== this.requestId || !this.approval) return;
    this.el.removeClass("is-waiting");
    if (decision === "approve" || decision === "always_allow") this.el.addClass("is-running");
    this.approval.empty();
    this.approval.addClass(`is-${decision.replace("_", "-")}`);
    this.approval.setText(DECISION_WORDS[decision]);
    if (decision === "skip" || decision === "deny") this.finish(decision === "deny", DECISION_WORDS[decision], null);
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

const tokens = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

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
