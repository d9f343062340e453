import { Modal, type App } from "obsidian";
import type { ApprovalDecision, ApprovalRequest } from "../protocol";
import { diffStats, renderDiffRows } from "./diff";

const CATEGORY_WORDS: Record<string, string> = {
  read: "reads",
  write: "writes",
  delete: "deletions",
  control: "control calls",
  mcp: "MCP calls",
  web: "web requests",
  memory: "memories",
};

/** The approval's `tool` when an MCP server asks for the user's model (MCP's sampling). */
const SAMPLING = "sampling/createMessage";

/**
 * Asks the user about one tool call: for a write, the diff of the note before and after; for
 * a move, a delete or a new folder, the paths. Approve, always allow the category (for the rest
 * of the chat), skip (the task goes on) or deny (the task stops; with a reason, the model is
 * told it and the task goes on). Closing the modal without an answer leaves the request
 * waiting; the chat offers to review it again.
 */
export class ApprovalModal extends Modal {
  private answered = false;
  private reason: HTMLInputElement | null = null;
  /** The changes turned down, for a write with more than one (hunk indices). */
  private readonly declined = new Set<number>();
  private hunkCount = 0;
  private approveButton: HTMLButtonElement | null = null;

  constructor(
    app: App,
    private readonly request: ApprovalRequest,
    private readonly decide: (decision: ApprovalDecision, reason?: string, hunks?: number[]) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    const { request } = this;
    this.modalEl.addClass("vault-agent-approval");
    this.titleEl.setText(titleFor(request));
    const body = this.contentEl;
    body.empty();
    if (request.subtask) {
      body.createDiv({
        cls: "vault-agent-approval-subtask",
        text: `Asked by a sub-task (${request.subtask.mode} mode): ${request.subtask.title}`,
      });
    }
    const summary = body.createDiv({ cls: "vault-agent-approval-summary", text: request.summary });
    summary.toggleClass("is-prose", request.tool === SAMPLING);
    const preview = request.preview;
    if (preview?.kind === "write") {
      const { added, removed } = diffStats(preview.rows);
      body.createDiv({
        cls: "vault-agent-approval-stats",
        text: `${preview.old === null ? "New note" : "Changes"} ${preview.path}: +${added} −${removed}`,
      });
      this.hunkCount = preview.rows.filter((r) => r.kind === "hunk").length;
      // A change to an existing note with several hunks: each can be turned down.
      const perHunk = preview.old !== null && this.hunkCount > 1;
      renderDiffRows(body, preview.rows, perHunk ? (index, kept) => this.toggleHunk(index, kept) : undefined);
    } else if (preview?.kind === "move") {
      paths(body, [
        ["From", preview.from],
        ["To", preview.to],
      ]);
    } else if (preview?.kind === "delete") {
      paths(body, [["Moves to the trash", preview.path]]);
    } else if (preview?.kind === "create_folder") {
      paths(body, [["New folder", preview.path]]);
    } else if (request.tool === SAMPLING) {
      samplingRequest(body, request.input);
    } else {
      body.createEl("pre", { cls: "vault-agent-approval-input", text: JSON.stringify(request.input, null, 2) });
    }

    // A server's request for the model is declined as a whole: its tool fails, the task goes on.
    const sampling = request.tool === SAMPLING;
    const reason = body.createEl("input", {
      cls: "vault-agent-deny-reason",
      type: "text",
      attr: { placeholder: "Why not? The agent is told, and tries another way (optional)", "aria-label": "Reason for denying" },
    });
    reason.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && reason.value.trim()) this.answer("deny", reason.value.trim());
    });
    this.reason = reason;
    reason.toggle(!sampling);
    const buttons = body.createDiv({ cls: "modal-button-container" });
    const button = (text: string, decision: ApprovalDecision, cls?: string) => {
      const el = buttons.createEl("button", { text, cls });
      el.dataset.decision = decision;
      el.addEventListener("click", () => this.answer(decision, decision === "deny" ? this.reason?.value.trim() : undefined));
      return el;
    };
    this.approveButton = button("Approve", "approve", "mod-cta");
    this.approveButton.focus();
    button(`Always allow ${CATEGORY_WORDS[request.category] ?? request.category}`, "always_allow");
    if (!sampling) button("Skip", "skip");
    button(sampling ? "Decline" : "Deny", "deny", "mod-warning");
  }

  onClose(): void {
    this.contentEl.empty();
  }

  private toggleHunk(index: number, kept: boolean): void {
    if (kept) this.declined.delete(index);
    else this.declined.add(index);
    const applied = this.hunkCount - this.declined.size;
    this.approveButton?.setText(this.declined.size === 0 ? "Approve" : `Apply ${applied} of ${this.hunkCount} changes`);
  }

  private answer(decision: ApprovalDecision, reason?: string): void {
    if (this.answered) return;
    this.answered = true;
    const kept =
      decision === "approve" && this.declined.size > 0
        ? [...Array(this.hunkCount).keys()].filter((i) => !this.declined.has(i))
        : undefined;
    this.decide(decision, reason || undefined, kept);
    this.close();
  }
}

function titleFor(request: ApprovalRequest): string {
  switch (request.preview?.kind) {
    case "write":
      return request.preview.old === null ? "Create this note?" : "Apply this change?";
    case "move":
      return "Move this?";
    case "delete":
      return "Move this to the trash?";
    case "create_folder":
      return "Create this folder?";
    default:
      if (request.tool === SAMPLING) return "Let this server use your model?";
      if (request.category === "mcp") return "Call a tool outside the vault?";
      if (request.tool === "web_search") return "Search the web?";
      if (request.category === "web") return "Fetch this page?";
      if (request.category === "memory") return "Remember this?";
      return `Allow ${request.tool}?`;
  }
}

/** What an MCP server would have the model read: its system prompt, then its messages. */
function samplingRequest(parent: HTMLElement, input: unknown): void {
  const asked = (input ?? {}) as { systemPrompt?: string; messages?: { role: string; text: string }[] };
  const list = parent.createDiv({ cls: "vault-agent-approval-sampling" });
  const part = (label: string, text: string) => {
    const row = list.createDiv({ cls: "vault-agent-approval-sampling-part" });
    row.createDiv({ cls: "vault-agent-approval-path-label", text: label });
    row.createDiv({ cls: "vault-agent-approval-sampling-text", text });
  };
  if (asked.systemPrompt) part("Instructions", asked.systemPrompt);
  for (const message of asked.messages ?? []) part(message.role === "assistant" ? "The model (earlier)" : "Message", message.text);
}

function paths(parent: HTMLElement, rows: [string, string][]): void {
  const list = parent.createDiv({ cls: "vault-agent-approval-paths" });
  for (const [label, path] of rows) {
    const row = list.createDiv({ cls: "vault-agent-approval-path" });
    row.createSpan({ cls: "vault-agent-approval-path-label", text: label });
    row.createSpan({ cls: "vault-agent-approval-path-value", text: path });
  }
}
