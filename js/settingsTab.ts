import { PluginSettingTab, Setting, type App, type ButtonComponent, type Plugin, type TextComponent } from "obsidian";
import type { PluginContext } from "./context";
import { obsidianLanguage } from "./search";
import { mcpSection } from "./settingsMcp";
import { memorySection } from "./settingsMemory";
import { safetySection } from "./settingsSafety";
import type { ApprovalCategory, CallPurpose, ModeConfig, Spend, ToolGroup } from "./protocol";
import {
  APPROVAL_CATEGORIES,
  LOCAL_MODELS,
  OPENAI_API_PRESETS,
  PRESETS,
  parseHeaders,
  providerConfig,
  webSearch,
  type EmbedderChoice,
  type KeyName,
  type LocalModel,
  type ProviderPreset,
} from "./settings";
import { count } from "./views/count";
import { errorMessage, usageParts } from "./views/turn";
import { markdownFiles, VaultFileModal, type EditTarget } from "./views/VaultFileModal";
import { pickModel } from "./views/ModelPickerModal";

/** Where the core reads rules and skills (src/prompt/instructions.rs) and its path lists (src/vault/path_rules.rs). */
const RULES_FOLDER = ".obsidian-agent/rules";
const SKILLS_FOLDER = ".obsidian-agent/skills";
const IGNORE_FILE = ".obsidian-agentignore";
const PROTECT_FILE = ".obsidian-agentprotected";
const PATTERN_HELP =
  "One pattern a line, as in .gitignore: # starts a comment, * matches within a name, ** across folders. A pattern without / matches a name at any depth (*.pdf, Private); a leading / anchors it at the vault's root; a trailing / matches a folder and everything in it. Read at the start of each task.";

const GROUPS: ToolGroup[] = ["read", "search", "edit", "agent", "mcp", "web"];

const CATEGORY_NAMES: Record<ApprovalCategory, string> = {
  read: "Reading and searching notes",
  write: "Creating, changing and moving notes",
  delete: "Moving notes to the trash",
  control: "Finishing and asking",
  mcp: "Calling tools of MCP servers (sends data outside the vault)",
  web: "Fetching web pages (sends a request outside the vault)",
  memory: "Saving to the agent's memory",
};

/** The settings tab: provider, agent limits, approvals, modes, prompts, indexing, semantic search. */
/** What each purpose of a model call is called in the settings' spending lines. */
const PURPOSES: Record<CallPurpose, string> = { chat: "Chat", suggestions: "Suggestions", inlineEdit: "Inline edits" };

export class VaultAgentSettingTab extends PluginSettingTab {
  constructor(
    app: App,
    plugin: Plugin,
    private readonly ctx: PluginContext & { indexStatus(): string; onSettingsChanged(): void; reindex(): Promise<void> },
  ) {
    super(app, plugin);
  }

  /** Live status lines, unsubscribed when the tab is redrawn or hidden. */
  private unsubscribe: (() => void)[] = [];

  display(): void {
    const { containerEl } = this;
    this.stopListening();
    containerEl.empty();
    containerEl.addClass("vault-agent-settings");
    this.providerSection(containerEl);
    this.agentSection(containerEl);
    this.instructionsSection(containerEl);
    memorySection(containerEl, this.ctx);
    this.modesSection(containerEl);
    this.searchSection(containerEl);
    this.semanticSection(containerEl);
    mcpSection(containerEl, this.ctx, this.app.vault.getName(), () => this.display());
    this.webSearchSection(containerEl);
    safetySection(containerEl, this.ctx);
  }

  /** The engine `web_search` asks: Brave Search's or Tavily's API (their keys kept as API keys are) or a SearXNG instance. */
  private webSearchSection(el: HTMLElement): void {
    const search = this.ctx.settings.webSearch;
    new Setting(el)
      .setName("Web search")
      .setHeading()
      .setDesc("Lets the agent search the web in modes with the web tools (the agent mode has them). Each search asks you first: the query leaves the vault.");
    new Setting(el)
      .setName("Search engine")
      .setDesc(`${BRAVE_SEARCH} and Tavily need a key from their dashboards (both have a free plan; Tavily's asks for no card); SearXNG, an instance with its JSON format turned on.`)
      .addDropdown((d) =>
        d
          .addOptions({ off: "Off", brave: BRAVE_SEARCH, tavily: "Tavily", searxng: "SearXNG" })
          .setValue(search.engine)
          .onChange(async (engine) => {
            search.engine = engine as typeof search.engine;
            await this.save();
            this.display();
          }),
      );
    if (search.engine === "brave") this.apiKeySetting(el, `${BRAVE_SEARCH} API key`, "web-search", "Subscription token", () => this.save());
    if (search.engine === "tavily") this.apiKeySetting(el, "Tavily API key", "tavily", "tvly-…", () => this.save(), "https://app.tavily.com");
    if (search.engine === "searxng") {
      new Setting(el)
        .setName("SearXNG address")
        .setDesc("The instance's address; its settings.yml must list json under search.formats.")
        .addText((t) =>
          t
            .setPlaceholder(SEARXNG_EXAMPLE)
            .setValue(search.baseUrl)
            .onChange(async (value) => {
              search.baseUrl = value.trim();
              await this.save();
            }),
        );
    }
    if (search.engine !== "off") {
      testButton(new Setting(el).setName("Test web search").setDesc("Runs one test search."), "Searching…", () => this.testWebSearch());
    }
  }

  hide(): void {
    this.stopListening();
    super.hide();
  }

  private stopListening(): void {
    for (const stop of this.unsubscribe) stop();
    this.unsubscribe = [];
  }

  private async save(): Promise<void> {
    await this.ctx.saveSettings();
    this.ctx.onSettingsChanged();
  }

  private providerSection(el: HTMLElement): void {
    const settings = this.ctx.settings;
    const provider = settings.provider;
    const preset = PRESETS[provider.preset];
    new Setting(el).setName("Model provider").setHeading();

    new Setting(el)
      .setName("Provider")
      .setDesc("Where the model runs. Ollama and LM Studio run on this computer and need no key.")
      .addDropdown((d) => {
        for (const [id, info] of Object.entries(PRESETS)) d.addOption(id, info.name);
        d.setValue(provider.preset).onChange(async (value) => {
          provider.preset = value as ProviderPreset;
          provider.model = "";
          provider.baseUrl = "";
          await this.save();
          this.display();
        });
      });

    if (preset.needsKey || provider.preset === "custom") {
      this.apiKeySetting(el, "API key", provider.preset, preset.needsKey ? "Paste your key" : "Optional", () => this.save(), preset.keyUrl);
    }

    const model = new Setting(el)
      .setName("Model")
      .setDesc(preset.modelHelp || (preset.defaultModel ? `Empty: ${preset.defaultModel}.` : "The model's name as the server knows it."));
    this.modelField(model, preset.defaultModel || "Model name", provider.model, preset.defaultModel, async (value) => {
      provider.model = value;
      await this.save();
    });

    new Setting(el)
      .setName("Base URL")
      .setDesc(preset.baseUrlHelp || (preset.baseUrl ? `Empty: ${preset.baseUrl}.` : "The URL that /chat/completions follows."))
      .addText((t) =>
        t
          .setPlaceholder(preset.baseUrl || preset.baseUrlExample || "http://localhost:8080/v1")
          .setValue(provider.baseUrl)
          .onChange(async (value) => {
            provider.baseUrl = value.trim();
            await this.save();
          }),
      );

    if (provider.preset === "custom") {
      const described = "Sent with every request, one Name: value a line (a proxy's or a gateway's own). Kept in the plugin's data, not in secret storage.";
      const headers = new Setting(el).setName("Extra headers").setDesc(described);
      const say = (value: string) => {
        const { wrong } = parseHeaders(value);
        const lines = wrong.length === 1 ? `Line ${wrong[0]} is` : `Lines ${wrong.join(", ")} are`;
        headers.setDesc(wrong.length ? `${described} ${lines} not Name: value, and not sent.` : described);
      };
      headers.controlEl.addClass("vault-agent-wide-control");
      headers.addTextArea((t) => {
        t.inputEl.rows = 2;
        t.setPlaceholder("X-Gateway-Key: …")
          .setValue(provider.headers)
          .onChange(async (value) => {
            provider.headers = value;
            say(value);
            await this.save();
          });
      });
      say(provider.headers);
    }

    if (OPENAI_API_PRESETS.includes(provider.preset)) {
      this.dropdown(
        el,
        "API",
        "Which OpenAI API to call. Automatic: /responses for OpenAI itself (its reasoning models keep their reasoning between tool calls, and their summaries of it show as thinking), /chat/completions for every other server.",
        [["", "Automatic"], ["responses", "Responses API (/responses)"], ["chat-completions", "Chat completions (/chat/completions)"]],
        provider.api,
        (value) => (provider.api = value),
      );
    }

    this.dropdown(
      el,
      "Tool calls as text",
      "For local models without native tool calling: describe the tools in the prompt and read calls from the answer. Automatic: native, unless the server says the model takes no tools.",
      [["", "Automatic"], ["fenced-json", "Fenced JSON block"], ["bracket-tag", "Bracket tags"], ["xml-invoke", "XML invoke"]],
      provider.textToolDialect,
      (value) => (provider.textToolDialect = value),
    );

    this.dropdown(
      el,
      "Images",
      "Whether the model sees images you attach or it reads. Automatic knows it from the model's name (Claude, GPT-4o and later, Gemini, LLaVA…); a model that does not gets the image's name only, and the chat says so.",
      [["auto", "Automatic"], ["yes", "The model sees images"], ["no", "Text only"]],
      provider.vision,
      (value) => (provider.vision = value),
    );

    new Setting(el)
      .setName("Connection")
      .setDesc("Streaming shows the answer as it is written. Without streaming, Obsidian's own request function is used: it works where a server refuses requests from the app (CORS), on desktop and mobile alike.")
      .addDropdown((d) =>
        d
          .addOption("auto", "Streaming, falling back when refused")
          .addOption("fetch", "Streaming only")
          .addOption("request", "Without streaming")
          .setValue(settings.transport)
          .onChange(async (value) => {
            settings.transport = value as typeof settings.transport;
            await this.save();
          }),
      );

    testButton(new Setting(el).setName("Test connection").setDesc("Sends one tiny request to the model."), "Testing…", () => this.testConnection());

    // The user's own price: both numbers, or neither (the list price).
    const draft = {
      input: settings.price ? String(settings.price.input) : "",
      output: settings.price ? String(settings.price.output) : "",
    };
    const setPrice = async (key: "input" | "output", value: string) => {
      draft[key] = value.trim();
      const input = Number(draft.input);
      const output = Number(draft.output);
      const valid = draft.input !== "" && draft.output !== "" && input >= 0 && output >= 0;
      settings.price = valid ? { input, output } : null;
      await this.save();
    };
    new Setting(el)
      .setName("Price per million tokens")
      .setDesc("For the cost meter: input and output, in US dollars. Empty: the provider's list price, where known.")
      .setClass("vault-agent-price")
      .addText((t) => t.setPlaceholder("Input").setValue(draft.input).onChange((v) => setPrice("input", v)))
      .addText((t) => t.setPlaceholder("Output").setValue(draft.output).onChange((v) => setPrice("output", v)));
    this.spendingLine(el, "Spent this session", "vault-agent-spending", ["chat", "suggestions", "inlineEdit"]);
  }

  /**
   * A model's name: typed, or picked from the server's list beside it. `value` is the setting
   * (empty: `fallback`, the model used then); `set` stores a name, trimmed.
   */
  /** A setting of one choice among `options` (value, label): `set` takes the one picked, then the settings are saved. */
  private dropdown<T extends string>(el: HTMLElement, name: string, desc: string, options: [T, string][], value: T, set: (value: T) => void): void {
    new Setting(el)
      .setName(name)
      .setDesc(desc)
      .addDropdown((d) => {
        for (const [option, label] of options) d.addOption(option, label);
        d.setValue(value).onChange(async (picked) => {
          set(picked as T);
          await this.save();
        });
      });
  }

  private modelField(setting: Setting, placeholder: string, value: string, fallback: string, set: (model: string) => Promise<void>): void {
    let text: TextComponent | null = null;
    setting
      .addText((t) => {
        text = t;
        t.setPlaceholder(placeholder)
          .setValue(value)
          .onChange((typed) => set(typed.trim()));
      })
      .addExtraButton((b) =>
        b
          .setIcon("list")
          .setTooltip("Pick from the server's models")
          .onClick(() =>
            pickModel(this.app, this.ctx, text?.getValue().trim() || fallback, (model) => {
              text?.setValue(model);
              void set(model);
            }),
          ),
      );
  }

  /** What the web search test found: the engine's answer to one query, or what is missing. */
  private async testWebSearch(): Promise<TestOutcome> {
    const engine = webSearch(this.ctx.settings, this.ctx.apiKeyStore());
    if (!engine) {
      const missing = this.ctx.settings.webSearch.engine === "searxng" ? "the instance's address" : "an API key";
      return { ok: false, text: `Not set up: the search engine needs ${missing}.` };
    }
    try {
      const { vault } = await this.ctx.core();
      const { ok, message } = await vault.testWebSearch(engine);
      return { ok, text: message };
    } catch (error) {
      return { ok: false, text: `Failed: ${errorMessage(error)}` };
    }
  }

  /** What *Test connection* found; for a local server, also the context it serves the model with. */
  private async testConnection(): Promise<TestOutcome> {
    const failed = (text: string) => ({ ok: false, text });
    const config = providerConfig(this.ctx.settings, this.ctx.apiKey());
    if ("missing" in config) return failed(`Not configured: the provider needs ${config.missing}.`);
    try {
      const { vault } = await this.ctx.core();
      const check = await vault.testConnection(config, this.ctx.transport());
      if (check.ok) {
        const served = check.servedWindow ? ` The server gives it ${check.servedWindow.toLocaleString("en-US")} tokens of context.` : "";
        const warning = [check.servedWarning, check.notice].filter(Boolean).join(" ");
        return { ok: true, text: `Connected: ${check.model} answered in ${check.latencyMs} ms.${served}`, warning: warning || undefined };
      }
      if (!check.problem) return failed("Failed: no answer.");
      const { message, detail } = check.problem;
      return failed(detail && detail !== message ? `${message} The provider said: ${detail}` : message);
    } catch (error) {
      return failed(`Failed: ${errorMessage(error)}`);
    }
  }

  private agentSection(el: HTMLElement): void {
    const agent = this.ctx.settings.agent;
    new Setting(el).setName("Agent").setHeading();
    new Setting(el)
      .setName("Context window")
      .setDesc(
        "Tokens the model reads at once; older turns are summed up before they stop fitting. Empty: the model's own, " +
          "as its server lists it or the plugin knows it (else 128,000).",
      )
      .addText((t) => {
        t.inputEl.type = "number";
        t.setPlaceholder("Automatic")
          .setValue(agent.contextWindow > 0 ? String(agent.contextWindow) : "")
          .onChange(async (raw) => {
            const v = Number(raw);
            if (raw.trim() !== "" && !(Number.isFinite(v) && v >= 1_000)) return;
            agent.contextWindow = raw.trim() === "" ? 0 : Math.round(v);
            await this.save();
          });
      });
    number(el, "Step limit", "Model calls per task at most.", agent.maxIterations, async (v) => {
      agent.maxIterations = v;
      await this.save();
    });
    number(el, "Tool time limit", "Seconds a tool call may take.", agent.toolTimeoutSeconds, async (v) => {
      agent.toolTimeoutSeconds = v;
      await this.save();
    });
    number(el, "Tool call budget", "Tool calls per task at most (0: no limit).", agent.maxToolCalls, async (v) => {
      agent.maxToolCalls = v;
      await this.save();
    }, 0);
    number(el, "Task deadline", "Minutes a task may run; shown beside Stop (0: none).", agent.deadlineMinutes, async (v) => {
      agent.deadlineMinutes = v;
      await this.save();
    }, 0);
    const retention = this.ctx.settings.retention;
    number(el, "Keep checkpoints (days)", "Undo data and logs of older tasks are removed at start-up (0: forever).", retention.days, async (v) => {
      retention.days = v;
      await this.save();
    }, 0);
    number(el, "Keep checkpoints (tasks)", "Only the newest tasks keep undo data and logs (0: all).", retention.tasks, async (v) => {
      retention.tasks = v;
      await this.save();
    }, 0);
    number(el, "Answer length", "Tokens per model answer at most.", this.ctx.settings.provider.maxTokens, async (v) => {
      this.ctx.settings.provider.maxTokens = v;
      await this.save();
    });
    new Setting(el)
      .setName("Temperature")
      .setDesc("Lower is more focused, higher more varied (0 to 2; Anthropic takes 0 to 1). Empty: the provider's default.")
      .addText((t) => {
        t.inputEl.type = "number";
        t.inputEl.step = "0.1";
        t.inputEl.addClass("vault-agent-temperature");
        t.setPlaceholder("Default")
          .setValue(agent.temperature === null ? "" : String(agent.temperature))
          .onChange(async (raw) => {
            const v = Number(raw);
            if (raw.trim() === "") agent.temperature = null;
            else if (Number.isFinite(v) && v >= 0 && v <= 2) agent.temperature = v;
            else return;
            await this.save();
          });
      });
    number(
      el,
      "Thinking budget",
      "Tokens a model that thinks may think before it answers, on top of the answer's length: Anthropic's models (at least 1,024: a smaller budget is raised to it), models through OpenRouter, and OpenAI's and Gemini's as an effort (under 4,096 low, under 16,384 medium, else high). The temperature is then the default (0: no extended thinking).",
      agent.thinkingBudget,
      async (v) => {
        agent.thinkingBudget = v;
        await this.save();
      },
      0,
    );
    new Setting(el)
      .setName("Rate limit")
      .setDesc("Seconds at least between two requests to the model, for plans with a low request limit (0: none).")
      .addText((t) => {
        t.inputEl.type = "number";
        t.setValue(String(agent.rateLimitSeconds)).onChange(async (raw) => {
          const v = Number(raw);
          if (raw.trim() === "" || !Number.isFinite(v) || v < 0) return;
          agent.rateLimitSeconds = v;
          await this.save();
        });
      });
    number(
      el,
      "Power steering",
      "Remind the model of its mode, its role and its skills every this many steps, for models that drift in long tasks (0: never).",
      agent.powerSteeringFrequency,
      async (v) => {
        agent.powerSteeringFrequency = v;
        await this.save();
      },
      0,
    );
    new Setting(el).setName("Run without asking").setDesc("Everything else is shown to you first, with a diff.");
    for (const category of APPROVAL_CATEGORIES) {
      new Setting(el).setName(CATEGORY_NAMES[category]).addToggle((t) =>
        t.setValue(agent.autoApprove.includes(category)).onChange(async (on) => {
          agent.autoApprove = on
            ? [...new Set([...agent.autoApprove, category])]
            : agent.autoApprove.filter((c) => c !== category);
          await this.save();
        }),
      );
    }
    new Setting(el)
      .setName("Prompts folder")
      .setDesc("Each note in this folder is a prompt: type / in the chat to pick one. A note named like a built-in prompt replaces it.")
      .addText((t) =>
        t.setValue(this.ctx.settings.promptsFolder).onChange(async (value) => {
          this.ctx.settings.promptsFolder = value.trim().replace(/\/+$/, "");
          await this.save();
        }),
      );
    new Setting(el)
      .setName("Suggest as you type")
      .setDesc(
        "When you pause at the end of a line in a note, the chat's model suggests how it goes on, in faint text. Press tab or tap it to take it; keep typing to dismiss it. Each pause is a small request to your provider, and notes hidden from the agent are never sent.",
      )
      .addToggle((t) =>
        t.setValue(this.ctx.settings.editor.suggestions).onChange(async (on) => {
          this.ctx.settings.editor.suggestions = on;
          await this.save();
        }),
      );
    this.spendingLine(el, "Suggestions this session", "vault-agent-suggestion-usage", ["suggestions"]);
    new Setting(el)
      .setName("Model for suggestions")
      .setDesc("A fast model of the same provider suits them: a reasoning model may think through its few words and suggest nothing. Empty: the chat's model.")
      .addText((t) =>
        t
          .setPlaceholder("Chat's model")
          .setValue(this.ctx.settings.editor.suggestionModel)
          .onChange(async (value) => {
            this.ctx.settings.editor.suggestionModel = value.trim();
            await this.save();
          }),
      );
  }

  /**
   * A line saying what this session's model calls for `purposes` took (each is billed by the
   * provider), filled in once the core answers.
   */
  private spendingLine(el: HTMLElement, name: string, cls: string, purposes: CallPurpose[]): void {
    const line = new Setting(el).setName(name).setDesc("…");
    line.settingEl.addClass(cls);
    void this.ctx
      .core()
      .then(({ vault }) => vault.spending())
      .then((spending) => {
        const spent = spending.filter((s) => purposes.includes(s.purpose));
        const label = purposes.length > 1 ? (s: Spend) => `${PURPOSES[s.purpose]}: ` : () => "";
        const described = spent.map((s) => {
          const cost = s.cost === null ? ["cost unknown for this model"] : [];
          return label(s) + [count(s.requests, "request"), ...usageParts(s.usage, s.cost), ...cost].join(" · ");
        });
        line.setDesc(described.length ? described.join("; ") : "Nothing asked yet.");
      })
      .catch((error: unknown) => line.setDesc(`Not known: ${errorMessage(error)}`));
  }

  /** What the agent is told: the custom instructions, the rule and skill files, and the paths it may not see or change. */
  private instructionsSection(el: HTMLElement): void {
    const agent = this.ctx.settings.agent;
    new Setting(el).setName("Instructions").setHeading();
    const instructions = new Setting(el)
      .setName("Custom instructions")
      .setDesc("Added to every task's prompt: how you like answers, your note conventions.")
      .addTextArea((t) => {
        t.inputEl.addClass("vault-agent-custom-instructions");
        t.inputEl.rows = 4;
        t.setPlaceholder("Answer briefly and name the notes you used.")
          .setValue(agent.customInstructions)
          .onChange(async (value) => {
            agent.customInstructions = value;
            await this.save();
          });
      });
    instructions.controlEl.addClass("vault-agent-wide-control");
    this.fileList(el, {
      name: "Rules",
      folder: RULES_FOLDER,
      desc: `Instructions the agent always follows, one note each, in ${RULES_FOLDER}/.`,
      template: "Always link a person's name to their note.\n",
    });
    this.fileList(el, {
      name: "Skills",
      folder: SKILLS_FOLDER,
      desc: `Procedures, one note each, in ${SKILLS_FOLDER}/: the agent sees their names and descriptions, and reads one when a task needs it.`,
      template: "---\ndescription: How to write the weekly review\n---\n1. Read this week's daily notes.\n2. …\n",
    });
    this.fileButton(
      el,
      "Hidden from the agent",
      `Paths the agent cannot see, one pattern a line (${IGNORE_FILE}).`,
      IGNORE_FILE,
      PATTERN_HELP,
      "# Private\nJournal/\n*.pdf\n",
    );
    this.fileButton(
      el,
      "Read-only for the agent",
      `Paths the agent may read but not change, one pattern a line (${PROTECT_FILE}).`,
      PROTECT_FILE,
      PATTERN_HELP,
      "# Templates stay as they are\nTemplates/\n",
    );
  }

  /** A row for `folder` with *New*, and after it an *Edit* row for each of its notes. */
  private fileList(el: HTMLElement, list: { name: string; folder: string; desc: string; template: string }): void {
    const head = new Setting(el).setName(list.name).setDesc(list.desc);
    const count = head.descEl.createDiv();
    let rows: HTMLElement[] = [];
    const refresh = async () => {
      const paths = await markdownFiles(this.app, list.folder).catch(() => []);
      rows.forEach((row) => row.remove());
      // Built in the list's place: the rows come in after the sections drawn meanwhile.
      rows = paths.map((path) => {
        const row = new Setting(el)
          .setName(path.slice(list.folder.length + 1))
          .setClass("vault-agent-instruction-file")
          .addButton((b) => b.setButtonText("Edit").onClick(() => this.edit({ path }, list.desc, "", () => void refresh())));
        return row.settingEl;
      });
      head.settingEl.after(...rows);
      count.setText(paths.length ? "" : "None yet.");
    };
    head.addButton((b) =>
      b.setButtonText(`New ${list.name.toLowerCase().replace(/s$/, "")}`).onClick(() => {
        this.edit({ folder: list.folder }, list.desc, list.template, () => void refresh());
      }),
    );
    void refresh();
  }

  private fileButton(el: HTMLElement, name: string, desc: string, path: string, help: string, template: string): void {
    new Setting(el)
      .setName(name)
      .setDesc(desc)
      .addButton((b) => b.setButtonText("Edit").onClick(() => this.edit({ path }, help, template)));
  }

  private edit(target: EditTarget, help: string, template: string, saved?: () => void): void {
    new VaultFileModal(this.app, target, help, template, saved).open();
  }

  private modesSection(el: HTMLElement): void {
    const settings = this.ctx.settings;
    new Setting(el).setName("Modes").setHeading();
    new Setting(el)
      .setName("Default mode")
      .setDesc("Ask reads and answers; Agent also changes notes. Your own modes choose their tools.")
      .addDropdown((d) => {
        d.addOption("ask", "Ask").addOption("agent", "Agent");
        for (const mode of settings.customModes) d.addOption(mode.slug, mode.name);
        d.setValue(settings.agent.mode).onChange(async (value) => {
          settings.agent.mode = value;
          await this.save();
        });
      });
    settings.customModes.forEach((mode, index) => this.modeEditor(el, mode, index));
    new Setting(el).addButton((b) =>
      b.setButtonText("Add a mode").onClick(async () => {
        settings.customModes.push({
          slug: `mode-${settings.customModes.length + 1}`,
          name: "My mode",
          role: "You help the user with their notes.",
          groups: ["read", "search", "agent"],
        });
        await this.save();
        this.display();
      }),
    );
  }

  private modeEditor(el: HTMLElement, mode: ModeConfig, index: number): void {
    const settings = this.ctx.settings;
    const box = el.createDiv({ cls: "vault-agent-mode-editor" });
    new Setting(box)
      .setName("Name")
      .addText((t) =>
        t.setValue(mode.name).onChange(async (value) => {
          mode.name = value;
          await this.save();
        }),
      )
      .addText((t) =>
        t
          .setPlaceholder("Short name")
          .setValue(mode.slug)
          .onChange(async (value) => {
            mode.slug = value.trim().toLowerCase().replace(/[^a-z0-9-]+/g, "-");
            await this.save();
          }),
      )
      .addExtraButton((b) =>
        b
          .setIcon("trash")
          .setTooltip("Delete this mode")
          .onClick(async () => {
            settings.customModes.splice(index, 1);
            if (settings.agent.mode === mode.slug) settings.agent.mode = "agent";
            await this.save();
            this.display();
          }),
      );
    const model = new Setting(box)
      .setName("Model")
      .setDesc("This mode's own model, from the same provider. Empty: the provider's model.");
    this.modelField(model, "Provider's model", mode.model ?? "", "", async (value) => {
      if (value) mode.model = value;
      else delete mode.model;
      await this.save();
    });
    new Setting(box).setName("Role").addTextArea((t) =>
      t.setValue(mode.role).onChange(async (value) => {
        mode.role = value;
        await this.save();
      }),
    );
    const groups = new Setting(box).setName("Tools");
    for (const group of GROUPS) {
      groups.addToggle((t) => {
        t.toggleEl.setAttr("aria-label", group);
        t.toggleEl.setAttr("title", group);
        t.setValue(mode.groups.includes(group)).onChange(async (on) => {
          mode.groups = on ? [...new Set([...mode.groups, group])] : mode.groups.filter((g) => g !== group);
          await this.save();
        });
      });
      groups.controlEl.createSpan({ cls: "vault-agent-group-label", text: group });
    }
  }

  private searchSection(el: HTMLElement): void {
    const settings = this.ctx.settings;
    new Setting(el).setName("Search").setHeading();
    const status = new Setting(el)
      .setName("Keep the search index up to date")
      .setDesc(this.ctx.indexStatus())
      .addToggle((t) =>
        t.setValue(settings.indexing.enabled).onChange(async (on) => {
          settings.indexing.enabled = on;
          await this.save();
          status.setDesc(this.ctx.indexStatus());
        }),
      )
      .addButton((b) => b.setButtonText("Index again").onClick(() => void this.ctx.reindex()));
    status.descEl.addClass("vault-agent-index-progress");
    // The progress (done/total) as it happens, while the tab is open.
    this.unsubscribe.push(
      this.ctx.search.onChange(() => {
        status.setDesc(this.ctx.indexStatus());
      }),
    );
    new Setting(el)
      .setName("Search language")
      .setDesc("Notes in this language come before the same notes in other languages. Empty: Obsidian's language.")
      .addText((t) =>
        t.setPlaceholder(obsidianLanguage()).setValue(settings.indexing.language).onChange(async (value) => {
          settings.indexing.language = value.trim();
          await this.save();
        }),
      );
  }

  private semanticSection(el: HTMLElement): void {
    const semantic = this.ctx.settings.semantic;
    const service = this.ctx.semantic;
    new Setting(el).setName("Semantic search").setHeading();
    new Setting(el)
      .setName("Embedding model")
      .setDesc(
        "Finds notes by what they mean, not only by their words, in the search window and for the agent. A local model runs on this device: your notes never leave it.",
      )
      .addDropdown((d) =>
        d
          .addOption("off", "Off")
          .addOption("static", "Local: static model (fast, 8 MB)")
          .addOption("static-minilm", "Local: static + MiniLM for searches (99 MB)")
          .addOption("minilm", "Local: MiniLM (more precise, slower, 91 MB)")
          .addOption("api", "OpenAI-compatible API")
          .setValue(semantic.embedder)
          .onChange(async (value) => {
            semantic.embedder = value as EmbedderChoice;
            await this.ctx.saveSettings();
            service.settingsChanged();
            this.display();
          }),
      );

    if (semantic.embedder === "static" || semantic.embedder === "minilm") {
      this.modelDownload(el, semantic.embedder);
      this.mirrorUrl(el, semantic.embedder);
    } else if (semantic.embedder === "static-minilm") {
      // The notes keep the static model's vectors; MiniLM reads only what is searched for.
      this.modelDownload(el, "static", "Static model (for the notes)");
      this.modelDownload(el, "minilm-queries", "MiniLM (for what you search)");
      this.mirrorUrl(el, "minilm-queries");
    } else if (semantic.embedder === "api") {
      this.embeddingsApi(el);
    }

    if (semantic.embedder !== "off") {
      const status = new Setting(el).setName("Embedded notes").setDesc(service.describe());
      status.descEl.addClass("vault-agent-embedding-status");
      let button: ButtonComponent | null = null;
      status.addButton((b) => {
        button = b;
        b.onClick(() => (service.running ? service.cancel() : service.resume()));
      });
      const show = () => {
        status.setDesc(service.describe());
        button?.setButtonText(service.running ? "Stop" : "Embed now").setDisabled(!service.running && !service.canEmbed());
      };
      show();
      this.unsubscribe.push(service.onChange(show));
    }
  }

  /**
   * A local model: installed, or a button that downloads it (the only way it is fetched), and a
   * file picker for a copy the user already has (offline).
   */
  private modelDownload(el: HTMLElement, model: LocalModel, title = "Model file"): void {
    const service = this.ctx.semantic;
    const info = LOCAL_MODELS[model];
    const row = new Setting(el).setName(title);
    const desc = row.descEl.createDiv({ text: "Looking…" });
    const result = row.descEl.createDiv({ cls: "vault-agent-model-result" });
    let download: ButtonComponent | null = null;
    const installed = (yes: boolean) => {
      desc.setText(
        yes
          ? `Installed in .obsidian-agent/models/.`
          : `Not downloaded. ${capitalise(info.name)} is downloaded once, checked against its pinned checksum, and kept in .obsidian-agent/models/.`,
      );
      download?.setButtonText(yes ? "Installed" : `Download model (${info.size})`).setDisabled(yes);
    };
    const refresh = () => void service.isInstalled(model).then(installed, (error: unknown) => desc.setText(errorMessage(error)));
    const show = (text: string, outcome: "is-ok" | "is-error" | null) => {
      result.className = "vault-agent-model-result";
      result.setText(text);
      if (outcome) result.addClass(outcome);
    };
    row.addButton((b) => {
      download = b;
      b.setButtonText(`Download model (${info.size})`).setDisabled(true);
      b.buttonEl.addClass("vault-agent-model-download");
      b.onClick(async () => {
        b.setDisabled(true);
        show("Downloading…", null);
        const progress = service.onChange(() => {
          if (service.state.kind === "installing") result.setText(service.describe());
        });
        try {
          await service.install(model);
          installed(true);
          show("Downloaded and checked.", "is-ok");
        } catch (error) {
          show(`Download failed: ${errorMessage(error)}`, "is-error");
          b.setDisabled(false);
        } finally {
          progress();
        }
      });
    });
    refresh();

    const picker = new Setting(el)
      .setName(model === "static" ? "Load model from a file…" : "Load MiniLM's files…")
      .setDesc(
        `Offline: pick ${info.files} you already have. Each file is checked against its pinned checksum before it is kept.`,
      );
    const input = picker.controlEl.createEl("input", { type: "file", cls: "vault-agent-model-file" });
    input.multiple = model !== "static";
    picker.addButton((b) => {
      b.setButtonText("Choose file…").onClick(() => input.click());
      const load = async (files: File[]) => {
        b.setDisabled(true);
        show(`Checking ${files.map((f) => f.name).join(", ")}…`, null);
        try {
          const placed: string[] = [];
          for (const file of files) placed.push(await service.installFromFile(model, file));
          show(`Loaded ${placed.join(", ")} and checked.`, "is-ok");
        } catch (error) {
          show(`Not loaded: ${errorMessage(error)}`, "is-error");
        } finally {
          b.setDisabled(false);
          refresh();
        }
      };
      input.addEventListener("change", () => {
        const files = Array.from(input.files ?? []);
        input.value = "";
        if (files.length) void load(files);
      });
    });
  }

  /** Where local models are downloaded from, when not from each model's own source. */
  private mirrorUrl(el: HTMLElement, model: LocalModel): void {
    const semantic = this.ctx.settings.semantic;
    new Setting(el)
      .setName("Mirror URL")
      .setDesc(
        `Empty: ${LOCAL_MODELS[model].source}. A mirror serves the same files under one address; every file is checked before it is kept.`,
      )
      .addText((t) =>
        t
          .setPlaceholder("Default")
          .setValue(semantic.modelBaseUrl)
          .onChange(async (value) => {
            semantic.modelBaseUrl = value.trim();
            await this.ctx.saveSettings();
          }),
      );
  }

  /** An OpenAI-compatible `/embeddings` API: base URL, model, key (kept as the providers' keys are). */
  private embeddingsApi(el: HTMLElement): void {
    const api = this.ctx.settings.semantic.api;
    const service = this.ctx.semantic;
    const changed = async () => {
      await this.ctx.saveSettings();
      service.reconfigureLater();
    };
    new Setting(el)
      .setName("Embeddings base URL")
      .setDesc("The URL that /embeddings follows: OpenAI, Ollama, LM Studio, or any compatible server. Your notes are sent there.")
      .addText((t) =>
        t.setValue(api.baseUrl).onChange(async (value) => {
          api.baseUrl = value.trim();
          await changed();
        }),
      );
    new Setting(el)
      .setName("Embedding model name")
      .addText((t) =>
        t.setValue(api.model).onChange(async (value) => {
          api.model = value.trim();
          await changed();
        }),
      );
    this.apiKeySetting(el, "Embeddings API key", "embeddings", "Optional for a local server", changed);
  }

  /**
   * A password field for the key `name`, kept where `ApiKeys` keeps keys; `saved` after a change.
   * `keyUrl` is where the service gives one out.
   */
  private apiKeySetting(
    el: HTMLElement,
    label: string,
    name: KeyName,
    placeholder: string,
    saved: () => Promise<void>,
    keyUrl = "",
  ): void {
    const keys = this.ctx.apiKeyStore();
    new Setting(el)
      .setName(label)
      .setDesc(
        createFragment((f) => {
          if (keyUrl) {
            f.appendText("Get one at ");
            f.createEl("a", { text: keyUrl.replace(/^https:\/\//, ""), href: keyUrl });
            f.appendText(". ");
          }
          f.appendText(
            keys.secure
              ? "Kept in Obsidian's secret storage, not in the plugin's data."
              : "Kept in the plugin's data.json (this Obsidian version has no secret storage).",
          );
        }),
      )
      .addText((t) => {
        t.inputEl.type = "password";
        t.inputEl.addClass("vault-agent-api-key");
        t.setPlaceholder(placeholder)
          .setValue(keys.get(name))
          .onChange(async (value) => {
            keys.set(name, value);
            await saved();
          });
      });
  }
}

/** What a settings test found: a line, good or bad, and perhaps a warning under it. */
interface TestOutcome {
  ok: boolean;
  text: string;
  warning?: string;
}

/** A *Test* button on `setting`: `busy` while `run` runs, then its outcome under the description. */
function testButton(setting: Setting, busy: string, run: () => Promise<TestOutcome>): void {
  const result = setting.descEl.createDiv({ cls: "vault-agent-test-result" });
  const warning = setting.descEl.createDiv({ cls: "vault-agent-test-warning" });
  setting.addButton((b) =>
    b.setButtonText("Test").onClick(async () => {
      b.setDisabled(true);
      result.className = "vault-agent-test-result";
      result.setText(busy);
      warning.empty();
      const outcome = await run();
      result.setText(outcome.text);
      result.addClass(outcome.ok ? "is-ok" : "is-error");
      if (outcome.warning) warning.setText(outcome.warning);
      b.setDisabled(false);
    }),
  );
}

/** The search engine's name (a brand: the settings' sentence case does not apply). */
const BRAVE_SEARCH = "Brave Search";

/** An address a SearXNG instance may have (a placeholder, not prose). */
const SEARXNG_EXAMPLE = "http://localhost:8888";

/** A whole-number setting; values below `min` (1 unless told) are not taken. */
function number(el: HTMLElement, name: string, desc: string, value: number, set: (v: number) => Promise<void>, min = 1): void {
  new Setting(el)
    .setName(name)
    .setDesc(desc)
    .addText((t) => {
      t.inputEl.type = "number";
      t.setValue(String(value)).onChange(async (raw) => {
        const v = Number(raw);
        if (raw.trim() !== "" && Number.isFinite(v) && v >= min) await set(Math.round(v));
      });
    });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
