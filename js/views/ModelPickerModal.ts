import { SuggestModal, type App } from "obsidian";
import type { ModelInfo, ModelList, ModelPrice } from "../protocol";
import type { PluginContext } from "../context";
import { providerConfig, rememberWindow } from "../settings";
import { errorMessage, windowSize } from "./turn";

/** A row of the picker: a model of the server's list, or the name the user typed. */
interface ModelChoice extends ModelInfo {
  typed?: boolean;
}

/**
 * Picks a model from those the provider's server has (asked of the core, which asks the
 * server's models endpoint), or takes the name typed: a server that lists nothing still
 * takes any name it knows.
 */
export class ModelPickerModal extends SuggestModal<ModelChoice> {
  constructor(
    app: App,
    private readonly list: Promise<ModelList>,
    private readonly current: string,
    private readonly onPick: (model: ModelInfo) => void,
  ) {
    super(app);
    this.setPlaceholder("Pick a model, or type its name…");
    this.setInstructions([
      { command: "↑↓", purpose: "to choose" },
      { command: "↵", purpose: "to use it from the next message" },
    ]);
    this.emptyStateText = "The server lists no models. Type a model's name to use it.";
  }

  async getSuggestions(query: string): Promise<ModelChoice[]> {
    const list = await this.list;
    if (list.problem) {
      const { message, detail } = list.problem;
      const said = detail && detail !== message ? ` The provider said: ${detail}.` : "";
      this.emptyStateText = `Could not list the server's models. ${message}${said} Type a model's name to use it.`;
    }
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found: ModelChoice[] = list.models.filter((m) => {
      const text = `${m.id} ${m.name ?? ""}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
    const typed = query.trim();
    if (typed && !list.models.some((m) => m.id === typed)) found.push({ id: typed, typed: true });
    return found;
  }

  renderSuggestion(model: ModelChoice, el: HTMLElement): void {
    el.addClass("vault-agent-model-item");
    const top = el.createDiv({ cls: "vault-agent-model-id" });
    top.createSpan({ text: model.typed ? `Use “${model.id}”` : model.id });
    if (model.id === this.current) top.createSpan({ cls: "vault-agent-model-current", text: "in use" });
    const meta = [
      model.name,
      model.contextWindow ? `${windowSize(model.contextWindow)} tokens` : null,
      model.price ? price(model.price) : null,
      // The agent still works with it, describing its tools in the prompt, less reliably.
      model.tools === false ? "no tool calling" : null,
    ].filter(Boolean);
    if (model.typed) meta.push("not in the server's list");
    if (meta.length) el.createDiv({ cls: "vault-agent-model-meta", text: meta.join(" · ") });
  }

  onChooseSuggestion(model: ModelChoice): void {
    this.onPick(model);
  }
}

/** "$3 / $15 per M tokens" (input / output), or "free". */
function price({ input, output }: ModelPrice): string {
  if (input === 0 && output === 0) return "free";
  const usd = (n: number) => `$${Number(n.toPrecision(3))}`;
  return `${usd(input)} / ${usd(output)} per M tokens`;
}

/**
 * Opens the model picker over the server the settings name; `onPick` gets the model chosen
 * (its context window, where the server gives one, is kept in the settings for the core).
 * Settings that cannot reach a server (no key, no URL) say what they lack instead.
 */
export function pickModel(app: App, ctx: PluginContext, current: string, onPick: (model: string) => void): void {
  const config = providerConfig(ctx.settings, ctx.apiKey(), { modelOptional: true });
  const list: Promise<ModelList> =
    "missing" in config
      ? Promise.resolve(failed(`Not configured: the provider needs ${config.missing}.`))
      : ctx
          .core()
          .then(({ vault }) => vault.listModels(config, ctx.transport()))
          .catch((error: unknown) => failed(errorMessage(error)));
  new ModelPickerModal(app, list, current, (model) => {
    // The window the server gives goes with the model; the caller saves the settings.
    if (model.contextWindow) rememberWindow(ctx.settings, model.id, model.contextWindow);
    onPick(model.id);
  }).open();
}

function failed(message: string): ModelList {
  return { models: [], problem: { kind: "bad_request", message, detail: "" } };
}
