import type { InterruptedTask } from "../protocol";
import { count } from "./count";

/** What the bar's buttons do. */
export interface InterruptedActions {
  resume(task: InterruptedTask, bar: HTMLElement): void;
  discard(task: InterruptedTask, bar: HTMLElement): void;
}

/**
 * The bar above the chat for a task that did not finish (the app closed while it ran): what it
 * was doing, and Resume / Discard. A task that cannot be resumed (another version, a damaged
 * snapshot) says why and offers Discard only.
 */
export function renderInterrupted(parent: HTMLElement, task: InterruptedTask, actions: InterruptedActions): HTMLElement {
  const bar = createDiv({ cls: "vault-agent-interrupted" });
  parent.prepend(bar);
  bar.dataset.taskId = task.taskId;
  const text = bar.createDiv({ cls: "vault-agent-interrupted-text" });
  text.createDiv({ cls: "vault-agent-interrupted-title", text: `Interrupted: ${task.title || task.taskId}` });
  const detail = task.problem
    ? task.problem
    : task.waitingFor
      ? `Waiting for your approval: ${task.waitingFor}`
      : `Stopped after ${count(task.steps, "step")}`;
  text.createDiv({ cls: "vault-agent-muted", text: detail });
  const buttons = bar.createDiv({ cls: "vault-agent-interrupted-buttons" });
  if (!task.problem) {
    const resume = buttons.createEl("button", { cls: "mod-cta vault-agent-resume", text: "Resume" });
    resume.addEventListener("click", () => actions.resume(task, bar));
  }
  const discard = buttons.createEl("button", { cls: "vault-agent-discard", text: "Discard" });
  discard.addEventListener("click", () => actions.discard(task, bar));
  return bar;
}
