import { setIcon } from "obsidian";
import type { FieldInput, FormAction, FormAnswer, FormField, FormRequest } from "../protocol";

/** What each way of ending a form reads as once it is answered. */
const ENDED: Record<FormAction, string> = {
  accept: "Sent to the server",
  decline: "Declined",
  cancel: "Cancelled",
};

/** A shown form: `close` ends it without an answer (the task ended first). */
export interface FormCard {
  close(): void;
}

/**
 * Draws an MCP server's form (`form_requested`) into `parent`, before `before`: who asks, its
 * message as plain text, a field per value, and Send, Decline, Cancel — or, for a page the
 * server asks the user to open, where it leads and its whole address, and Open page (which
 * opens it in the browser), Decline, Cancel. `answer` hands the user's answer to the core,
 * which checks it against the form; a refusal's words are shown under the buttons and the
 * form stays open.
 */
export function showForm(
  parent: HTMLElement,
  before: HTMLElement,
  form: FormRequest,
  answer: (answer: FormAnswer) => Promise<boolean>,
): FormCard {
  const page = form.page ?? null;
  const box = createDiv({ cls: "vault-agent-form" });
  parent.insertBefore(box, before);
  const head = box.createDiv({ cls: "vault-agent-form-head" });
  setIcon(head.createSpan({ cls: "vault-agent-form-icon" }), page ? "globe" : "clipboard-list");
  // One block beside the icon, which wraps within itself on a narrow sidebar.
  const title = head.createSpan({ cls: "vault-agent-form-title", text: `The MCP server “${form.server}” asks${page ? " you to open a page" : ""}` });
  if (form.subtask) title.createSpan({ cls: "vault-agent-form-subtask", text: ` (sub-task: ${form.subtask.title})` });
  // The server's own words: text, never Markdown or HTML.
  if (form.message) box.createDiv({ cls: "vault-agent-form-message", text: form.message });
  const fields = form.fields.map((field) => drawField(box.createDiv({ cls: "vault-agent-form-field" }), field, form.id));
  if (page) {
    // Where it leads on its own line, then the whole address: nothing opens before the click.
    const where = box.createDiv({ cls: "vault-agent-form-page" });
    where.createSpan({ text: "On " });
    where.createSpan({ cls: "vault-agent-form-host", text: page.host });
    box.createDiv({ cls: "vault-agent-form-url", text: page.url });
  }
  box.createDiv({
    cls: "vault-agent-form-note",
    text: page
      ? "It opens in your browser. What you type there goes to that site, not through this chat or to the model."
      : "What you enter goes to this server, not to the model. Give it no passwords or keys.",
  });
  const buttons = box.createDiv({ cls: "vault-agent-form-buttons" });
  const send = buttons.createEl("button", { text: page ? "Open page" : "Send", cls: "mod-cta" });
  const decline = buttons.createEl("button", { text: "Decline" });
  const cancel = buttons.createEl("button", { text: "Cancel" });
  const problem = box.createDiv({ cls: "vault-agent-form-problem" });
  problem.hide();

  let open = true;
  /** Folds the answered form to a line, and what was sent, as the user read it. */
  const end = (word: string, sent = false) => {
    open = false;
    box.addClass("is-answered");
    box.querySelectorAll("button, input, select").forEach((el) => el.setAttr("disabled", "true"));
    problem.hide();
    box.createDiv({ cls: "vault-agent-form-ended", text: word });
    if (!sent) return;
    const list = box.createEl("ul", { cls: "vault-agent-form-sent" });
    for (const field of fields) {
      const shown = field.shown();
      if (shown !== undefined) list.createEl("li", { text: `${field.label}: ${shown}` });
    }
  };
  const submit = async (action: FormAction) => {
    if (!open) return;
    const content = action === "accept" ? Object.fromEntries(fields.flatMap((field) => field.read())) : null;
    try {
      const waiting = await answer({ action, content });
      const ended = page && action === "accept" ? `Opened ${page.host} in your browser` : ENDED[action];
      end(waiting ? ended : "The server no longer waits for this form", waiting && action === "accept");
    } catch (error) {
      problem.setText(error instanceof Error ? error.message : String(error));
      problem.show();
    }
  };
  send.addEventListener("click", () => {
    // Opened in the click itself, which a browser allows; the user has just agreed to it.
    if (page && open) window.open(page.url);
    void submit("accept");
  });
  decline.addEventListener("click", () => void submit("decline"));
  cancel.addEventListener("click", () => void submit("cancel"));
  box.addEventListener("keydown", (evt) => {
    if (evt.key === "Enter" && evt.target instanceof HTMLInputElement && evt.target.type !== "checkbox") {
      evt.preventDefault();
      void submit("accept");
    }
  });
  return {
    close: () => {
      if (open) end(ENDED.cancel);
    },
  };
}

/** A drawn field: its value as sent (none when left blank), and as the user reads it. */
interface DrawnField {
  label: string;
  read(): [string, unknown][];
  shown(): string | undefined;
}

/** What reads a control's value (`undefined`: left blank), and shows it in words. */
interface Control {
  read(): unknown;
  shown(): string | undefined;
}

/** A field's label, description and input. */
function drawField(el: HTMLElement, field: FormField, formId: string): DrawnField {
  const id = `vault-agent-form-${formId}-${field.name}`;
  const input = field.input;
  const label = el.createEl(input.kind === "toggle" || input.kind === "choices" ? "div" : "label", {
    cls: "vault-agent-form-label",
    text: field.label,
  });
  if (label instanceof HTMLLabelElement) label.htmlFor = id;
  if (field.required) label.createSpan({ cls: "vault-agent-form-required", text: " *", attr: { "aria-label": "required" } });
  if (field.description) el.createDiv({ cls: "vault-agent-form-description", text: field.description });
  const control = drawInput(el, input, id);
  return {
    label: field.label,
    read: () => {
      const value = control.read();
      return value === undefined ? [] : [[field.name, value]];
    },
    shown: () => control.shown(),
  };
}

/** The control for `input`. */
function drawInput(el: HTMLElement, input: FieldInput, id: string): Control {
  switch (input.kind) {
    case "text": {
      const types = { plain: "text", email: "email", uri: "url", date: "date", date_time: "text" } as const;
      const box = el.createEl("input", { type: types[input.format], attr: { id } });
      if (input.format === "date_time") box.placeholder = "Such as 2026-01-31 09:30+01:00";
      if (input.maxLength !== null) box.maxLength = input.maxLength;
      if (input.default !== null) box.value = input.default;
      const read = () => (box.value.trim() ? box.value : undefined);
      return { read, shown: read };
    }
    case "number": {
      const box = el.createEl("input", { type: "number", attr: { id, step: input.integer ? "1" : "any" } });
      if (input.minimum !== null) box.min = String(input.minimum);
      if (input.maximum !== null) box.max = String(input.maximum);
      if (input.default !== null) box.value = String(input.default);
      // What is not a number goes as typed: the core's check says what is wrong with it.
      return {
        read: () => (box.value.trim() ? (Number.isNaN(box.valueAsNumber) ? box.value : box.valueAsNumber) : undefined),
        shown: () => box.value.trim() || undefined,
      };
    }
    case "toggle": {
      const row = el.createEl("label", { cls: "vault-agent-form-check" });
      const box = row.createEl("input", { type: "checkbox", attr: { id } });
      box.checked = input.default;
      row.appendText(" Yes");
      return { read: () => box.checked, shown: () => (box.checked ? "yes" : "no") };
    }
    case "choice": {
      const select = el.createEl("select", { cls: "dropdown", attr: { id } });
      select.createEl("option", { text: "—", value: "" });
      for (const option of input.options) select.createEl("option", { text: option.label, value: option.value });
      select.value = input.default ?? "";
      return {
        read: () => select.value || undefined,
        shown: () => (select.value ? select.selectedOptions[0]?.text : undefined),
      };
    }
    case "choices": {
      const boxes = input.options.map((option) => {
        const row = el.createEl("label", { cls: "vault-agent-form-check" });
        const box = row.createEl("input", { type: "checkbox" });
        box.checked = input.default.includes(option.value);
        row.appendText(` ${option.label}`);
        return { option, box };
      });
      const picked = () => boxes.filter(({ box }) => box.checked).map(({ option }) => option);
      return {
        read: () => (picked().length ? picked().map((option) => option.value) : undefined),
        shown: () => (picked().length ? picked().map((option) => option.label).join(", ") : undefined),
      };
    }
  }
}
