import { ItemView, Notice, Platform, setIcon, TFile, type WorkspaceLeaf } from "obsidian";
import type { CoreHandle, PluginContext } from "../context";
import type { Chat } from "../core";
import { detach } from "../core/client";
import type {
  AgentEvent,
  ApprovalDecision,
  ApprovalRequest,
  ChatSummary,
  InterruptedTask,
  ModeConfig,
  ModelInfo,
  ProviderConfig,
  RunReport,
  ServerPrompt,
  Transcript,
  TranscriptTurn,
  UndoChoices,
} from "../protocol";
import { signIn } from "../mcpSignIn";
import { obsidianLanguage } from "../search";
import { agentConfig, keepMcpSignIn, mcpServers, PRESETS, providerConfig, providerModel, webSearch, type PresetInfo } from "../settings";
import { ApprovalModal } from "./ApprovalModal";
import { renderInterrupted } from "./interrupted";
import { count } from "./count";
import { confirmDeleteChat, PromptArgumentsModal, TextPromptModal } from "./dialogs";
import { attachedResource, attachmentLabel, imageFiles, isImage, keepPastedImage, showMedia } from "./media";
import { pickModel } from "./ModelPickerModal";
import { ChatHistoryModal, NotePickerModal, PromptPickerModal, promptText } from "./pickers";
import { RelatedNotes } from "./related";
import { ResultModal } from "./ResultModal";
import { errorMessage, TurnView, type AnswerAction, type ToolCard, type TurnContext } from "./turn";
import { describeUndo, UndoModal } from "./UndoModal";

export const VIEW_TYPE_CHAT = "vault-agent-chat";

const PLACEHOLDER = "Ask about your notes… (@ attaches a note, folder, image or PDF; paste an image; / picks a prompt)";

/**
 * The sidebar chat. It renders the core's events and sends the user's answers back; the
 * agent, its tools and its rules all live in the core.
 */
export class ChatView extends ItemView {
  private chat: Chat | null = null;
  /** The chat being created, while it is (see `ensureChat`). */
  private starting: Promise<Chat | null> | null = null;
  /** A send is on its way (until its task has run). */
  private sending = false;
  /** Counts `dropChat` calls: a chat created across one is freed, not kept. */
  private drops = 0;
  /** The saved chat shown (the core saves it; empty until its first save). */
  private saved = { id: "", title: "" };
  /** The last request is being edited: the next send replaces it (and its answer). */
  private editing = false;
  private attachments: string[] = [];
  private turn: TurnView | null = null;
  private turns: TurnView[] = [];
  private running = false;
  /** The settings changed while a task ran: make the chat again before the next message. */
  private stale = false;
  private modals = new Map<string, ApprovalModal>();
  private deadlineEl!: HTMLElement;
  private deadlineTimer: number | null = null;
  /** The model servers on this computer, as last asked, and when (the connect box is drawn again on every settings change). */
  private localServer: { asked: number; found: Promise<LocalServer | null> } | null = null;

  private messagesEl!: HTMLElement;
  private titleEl!: HTMLElement;
  private chatActions!: HTMLElement;
  /** Shown while the reader has scrolled up from the bottom of a chat that grows. */
  private jumpButton!: HTMLButtonElement;
  /** The view follows new output only while the reader is at the bottom. */
  private following = true;
  private inputEl!: HTMLTextAreaElement;
  private chipsEl!: HTMLElement;
  private sendButton!: HTMLButtonElement;
  private modeSelect!: HTMLSelectElement;
  private modelButton!: HTMLElement;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly plugin: PluginContext,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_CHAT;
  }

  getDisplayText(): string {
    return "Vault Agent";
  }

  getIcon(): string {
    return "bot";
  }

  async onOpen(): Promise<void> {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-agent-chat");

    const header = root.createDiv({ cls: "vault-agent-header" });
    // Once the chat is saved, its title renames it on a click (no room for one more button on a phone).
    this.titleEl = header.createDiv({ cls: "vault-agent-title", text: "Vault Agent" });
    this.titleEl.addEventListener("click", () => {
      if (this.saved.id) this.renameChat();
    });
    const tools = header.createDiv({ cls: "vault-agent-header-buttons" });
    // The open chat's own actions, once it is saved (named from its first request).
    this.chatActions = tools.createDiv({ cls: "vault-agent-chat-actions" });
    this.iconButton(this.chatActions, "download", "Export the chat to a note", () => void this.exportChat()).addClass(
      "vault-agent-export",
    );
    this.iconButton(this.chatActions, "trash", "Delete the chat", () => this.deleteChat()).addClass("vault-agent-delete");
    this.showTitle();
    this.iconButton(tools, "plus", "New chat", () => this.newChat()).addClass("vault-agent-new-chat");
    this.iconButton(tools, "history", "Chat history", () => void this.showHistory()).addClass("vault-agent-history");
    this.iconButton(tools, "search", "Search the vault", () => this.plugin.openSearch()).addClass("vault-agent-search");

    const frame = root.createDiv({ cls: "vault-agent-messages-frame" });
    this.messagesEl = frame.createDiv({ cls: "vault-agent-messages" });
    this.messagesEl.addEventListener("scroll", () => this.onScroll(), { passive: true });
    this.jumpButton = frame.createEl("button", { cls: "vault-agent-jump" });
    setIcon(this.jumpButton.createSpan({ cls: "vault-agent-button-icon" }), "arrow-down");
    this.jumpButton.createSpan({ text: "Jump to latest" });
    this.jumpButton.addEventListener("click", () => this.scroll(true));
    this.jumpButton.hide();
    this.addChild(new RelatedNotes(root, this.app, this.plugin.search));

    const composer = root.createDiv({ cls: "vault-agent-composer" });
    this.chipsEl = composer.createDiv({ cls: "vault-agent-chips" });
    this.inputEl = composer.createEl("textarea", {
      cls: "vault-agent-input",
      attr: { rows: "3", placeholder: PLACEHOLDER },
    });
    this.inputEl.addEventListener("keydown", (e) => this.onKey(e));
    // Escape anywhere in the chat stops the running task.
    this.registerDomEvent(root, "keydown", (e) => {
      if (e.key !== "Escape") return;
      if (this.running) {
        e.preventDefault();
        this.stop();
      } else if (this.editing) {
        e.preventDefault();
        this.stopEditing();
        this.inputEl.value = "";
        this.attachments = [];
        this.renderChips();
      }
    });
    this.inputEl.addEventListener("input", () => this.onInput());
    // A pasted or dropped image is kept in the plugin's folder and attached to the message.
    this.inputEl.addEventListener("paste", (e) => this.takeImages(e, e.clipboardData?.files));
    composer.addEventListener("dragover", (e) => {
      if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
    });
    composer.addEventListener("drop", (e) => this.takeImages(e, e.dataTransfer?.files));
    const bar = composer.createDiv({ cls: "vault-agent-composer-bar" });
    this.iconButton(bar, "paperclip", "Attach a note", () => this.pickNote()).addClass("vault-agent-attach");
    this.modeSelect = bar.createEl("select", { cls: "dropdown vault-agent-mode" });
    this.modeSelect.addEventListener("change", () => void this.setMode(this.modeSelect.value));
    this.modelButton = bar.createEl("button", { cls: "vault-agent-model" });
    this.modelButton.addEventListener("click", () => this.pickModel());
    bar.createDiv({ cls: "vault-agent-spacer" });
    this.deadlineEl = bar.createSpan({ cls: "vault-agent-deadline" });
    this.sendButton = bar.createEl("button", { cls: "mod-cta vault-agent-send" });
    this.sendButton.addEventListener("click", () => (this.running ? this.stop() : void this.send()));
    this.refresh();
    void this.offerInterrupted();
  }

  async onClose(): Promise<void> {
    // Closing the view (or the app) stops its task for now: its snapshot stays, and the next
    // time the chat opens it offers to resume it.
    // The core does not record a suspended task in the saved chat.
    if (this.running) detach(this.chat?.suspend());
    void this.releaseResults();
    for (const modal of this.modals.values()) modal.close();
    this.modals.clear();
    // A running task still holds the chat until it has stopped; it is freed then.
    if (this.running) this.stale = true;
    else this.dropChat();
    this.turn?.unload();
    this.contentEl.empty();
  }

  /** Settings changed: show the new modes, and use the new provider from the next message on. */
  refresh(): void {
    if (!this.contentEl.hasClass("vault-agent-chat")) return;
    const settings = this.plugin.settings;
    this.modeSelect.empty();
    const modes = [
      { slug: "ask", name: "Ask" },
      { slug: "agent", name: "Agent" },
      ...settings.customModes.map((m) => ({ slug: m.slug, name: m.name })),
    ];
    for (const mode of modes) this.modeSelect.createEl("option", { value: mode.slug, text: mode.name });
    this.modeSelect.value = modes.some((m) => m.slug === settings.agent.mode) ? settings.agent.mode : "agent";
    this.modeSelect.title = "Mode: Ask reads and answers; Agent also edits notes";
    this.showModel();
    this.dropChatWhenIdle();
    this.updateSendButton();
    // Before the first message, the welcome says what is connected.
    if (!this.messagesEl.querySelector(".vault-agent-user, .vault-agent-turn")) {
      this.messagesEl.empty();
      this.showWelcome();
    }
  }

  /** Attaches `file` to the next message and focuses the input. */
  attach(file: TFile): void {
    this.attachPath(file.path);
  }

  private attachPath(path: string): void {
    if (!this.attachments.includes(path)) this.attachments.push(path);
    this.renderChips();
    this.inputEl.focus();
  }

  private takeImages(event: Event, files: FileList | null | undefined): void {
    const images = imageFiles(files);
    if (!images.length) return;
    event.preventDefault();
    void (async () => {
      for (const image of images) {
        try {
          this.attachPath(await keepPastedImage(this.app, image));
        } catch (error) {
          new Notice(`Vault Agent: could not keep the image: ${errorMessage(error)}`);
        }
      }
    })();
  }

  /** The open chat's tasks (their checkpoints are never pruned). */
  taskIds(): string[] {
    return this.turns.flatMap((turn) => (turn.taskId ? [turn.taskId] : []));
  }

  /** Stops the running task. */
  stop(): void {
    detach(this.chat?.cancel());
  }

  isRunning(): boolean {
    return this.running;
  }

  /** Puts `text` at the end of the input, focused with the caret after it; nothing is sent. */
  fillInput(text: string): void {
    const current = this.inputEl.value.trimEnd();
    this.inputEl.value = current ? `${current}\n\n${text}` : text;
    this.inputEl.focus();
    this.inputEl.setSelectionRange(this.inputEl.value.length, this.inputEl.value.length);
  }

  focusInput(placeholder?: string): void {
    if (placeholder) this.inputEl.placeholder = placeholder;
    this.inputEl.focus();
  }

  // ---- sending ---------------------------------------------------------------------------------

  private async send(): Promise<void> {
    const text = this.inputEl.value.trim();
    // A second send before the first one's task runs (the chat is still being made) is the same.
    if (this.running || this.sending || !text) return;
    this.sending = true;
    try {
      await this.sendText(text);
    } finally {
      this.sending = false;
    }
  }

  private async sendText(text: string): Promise<void> {
    const chat = await this.ensureChat();
    if (!chat) return;
    const attachments = [...this.attachments];
    this.inputEl.value = "";
    this.attachments = [];
    this.renderChips();
    this.messagesEl.querySelector(".vault-agent-welcome")?.remove();
    if (this.editing) {
      await this.resendEdited(chat, text, attachments);
      return;
    }
    this.renderUser(text, attachments);
    await this.run(() => chat.send(text, attachments));
  }

  /** Puts the last request back in the input, to edit and send again in its place. */
  private editLast(text: string, attachments: string[]): void {
    if (this.running) return;
    this.editing = true;
    this.inputEl.value = text;
    this.attachments = [...attachments];
    this.renderChips();
    this.inputEl.placeholder = "Edit your message, then send it again";
    this.contentEl.addClass("is-editing");
    this.inputEl.focus();
  }

  private stopEditing(): void {
    this.editing = false;
    this.contentEl.removeClass("is-editing");
    this.inputEl.placeholder = PLACEHOLDER;
  }

  /** Replaces the last request and its answer with the edited request, and runs it. */
  private async resendEdited(chat: Chat, text: string, attachments: string[]): Promise<void> {
    this.stopEditing();
    const users = this.messagesEl.querySelectorAll(".vault-agent-user");
    const last = users[users.length - 1];
    // The old request and everything shown after it go.
    while (last?.nextSibling) last.nextSibling.remove();
    last?.remove();
    this.turns = this.turns.filter((turn) => {
      if (turn.el.isConnected) return true;
      this.removeChild(turn);
      return false;
    });
    this.renderUser(text, attachments);
    await this.run(() => chat.editLast(text, attachments));
  }

  /** Goes on after a task stopped at a limit: a new task with a fresh budget. */
  private async continueTask(): Promise<void> {
    if (this.running) return;
    const chat = await this.ensureChat();
    if (!chat) return;
    this.renderUser("Continue", []);
    await this.run(() => chat.continueTask());
  }

  // ---- interrupted tasks -----------------------------------------------------------------------

  /** Offers Resume / Discard for each task the last session left unfinished. */
  private async offerInterrupted(): Promise<void> {
    let tasks: InterruptedTask[];
    try {
      const { vault } = await this.plugin.core();
      tasks = await vault.interruptedTasks();
    } catch (error) {
      console.error("Vault Agent: could not look for interrupted tasks", error);
      return;
    }
    for (const task of tasks.slice(0, 3).reverse()) {
      renderInterrupted(this.messagesEl, task, {
        resume: (t, bar) => void this.resume(t, bar),
        discard: (t, bar) => void this.discard(t, bar),
      });
    }
  }

  private async discard(task: InterruptedTask, bar: HTMLElement): Promise<void> {
    const { vault } = await this.plugin.core();
    await vault.discardTask(task.taskId);
    bar.remove();
  }

  /** Opens the task's chat and goes on with the task where it stopped (at its approval). */
  private async resume(task: InterruptedTask, bar: HTMLElement): Promise<void> {
    if (this.running) {
      new Notice("Stop the running task first.");
      return;
    }
    let transcript: Transcript;
    try {
      const { vault } = await this.plugin.core();
      transcript = await vault.taskTranscript(task.taskId);
    } catch (error) {
      new Notice(`The task cannot be resumed: ${errorMessage(error)}`);
      return;
    }
    const others = [...this.messagesEl.querySelectorAll(".vault-agent-interrupted")].filter((el) => el !== bar);
    bar.remove();
    // The task's chat as it stood, then the task goes on in its last turn.
    const open = this.showTranscript(transcript);
    for (const el of others) this.messagesEl.prepend(el);
    const chat = await this.ensureChat();
    if (!chat) return;
    await this.run(() => chat.resume(task.taskId), open ?? undefined);
  }

  /** Runs the last request again (after an error, a stop or a denial). */
  private async retry(): Promise<void> {
    if (this.running) return;
    const chat = await this.ensureChat();
    if (!chat) return;
    await this.run(() => chat.retry());
  }

  /**
   * Runs a task of the chat, its events shown in a new turn (or in `turn`, a resumed task's).
   * The core saves the chat with the task's report.
   */
  private async run(start: () => Promise<unknown>, turn?: TurnView): Promise<void> {
    this.setRunning(true);
    this.messagesEl.querySelectorAll(".vault-agent-regenerate").forEach((el) => el.remove());
    this.turn = turn ?? this.addTurn();
    this.scroll(true);
    try {
      await start();
    } catch (error) {
      // The task did not start (an attachment that cannot be read, another task running).
      this.turn.handle({ type: "error", message: errorMessage(error) });
      this.turn.finish(notStarted(errorMessage(error)));
    } finally {
      this.setRunning(false);
      if (this.stale) this.dropChat();
    }
  }

  private onEvent(event: AgentEvent): void {
    if (event.type === "chat_saved") {
      this.saved = { id: event.chatId, title: event.title };
      this.showTitle();
      return;
    }
    this.turn?.handle(event);
    if (event.type === "approval_resolved") {
      const modal = this.modals.get(event.requestId);
      this.modals.delete(event.requestId);
      modal?.close();
    }
  }

  private turnContext(): TurnContext {
    return {
      app: this.app,
      review: (request, card) => this.review(request, card),
      answer: (id, text) => detach(this.chat?.answer(id, text)),
      answerForm: async (id, answer) => (this.chat ? await this.chat.answerForm(id, answer) : false),
      retry: () => void this.retry(),
      continueTask: () => void this.continueTask(),
      undo: (taskId, redo) => this.undo(taskId, redo),
      openPath: (path, newTab) => void this.app.workspace.openLinkText(path, "", newTab),
      openSettings: () => this.plugin.openSettings(),
      pickModel: () => this.pickModel(),
      signInMcp: (server) => this.signInMcp(server),
      answerAction: (action, text) => void this.answerAction(action, text),
      isFile: (path) => {
        const file = this.app.vault.getAbstractFileByPath(path);
        return file !== null && !("children" in file);
      },
      openResult: (path) => new ResultModal(this.app, path).open(),
      scroll: () => this.scroll(),
    };
  }

  /** Signs in to the MCP server `name` of the settings; the chat is made again with the sign-in. */
  private async signInMcp(name: string): Promise<void> {
    const server = this.plugin.settings.mcp.servers.find((s) => s.name === name);
    if (server?.transport.type !== "http") throw new Error(`no MCP server named ${name} is reached by URL in the settings`);
    await signIn(this.plugin, name, server.transport.url, this.app.vault.getName());
    this.dropChatWhenIdle();
  }

  /** Copies an answer, inserts it at the cursor, appends it to the open note, or makes a note of it. */
  private async answerAction(action: AnswerAction, text: string): Promise<void> {
    const workspace = this.app.workspace;
    try {
      if (action === "copy") {
        await navigator.clipboard.writeText(text);
        new Notice("Answer copied.");
      } else if (action === "insert") {
        const editor = workspace.activeEditor?.editor;
        if (!editor) return void new Notice("Open a note to insert the answer into.");
        editor.replaceSelection(text);
      } else if (action === "append") {
        const file = workspace.getActiveFile();
        if (!file) return void new Notice("Open a note to append the answer to.");
        await this.app.vault.process(file, (data) => `${data.replace(/\s*$/, "")}${data.trim() ? "\n\n" : ""}${text}\n`);
        new Notice(`Appended to ${file.basename}.`);
      } else {
        const file = await this.app.vault.create(await this.freeNotePath(), `${text}\n`);
        await workspace.getLeaf(true).openFile(file);
      }
    } catch (error) {
      new Notice(`Could not ${action === "copy" ? "copy" : "save"} the answer: ${errorMessage(error)}`);
    }
  }

  /** A note name for an answer, from the chat's title, that no file has yet. */
  private async freeNotePath(): Promise<string> {
    const title = (this.saved.title || "Vault Agent answer").replace(/[\\/:*?"<>|#^[\]]/g, " ").trim().slice(0, 80);
    for (let n = 1; ; n++) {
      const path = `${title}${n > 1 ? ` ${n}` : ""}.md`;
      if (!(await this.app.vault.adapter.exists(path))) return path;
    }
  }

  private review(request: ApprovalRequest, card: ToolCard): void {
    const chat = this.chat;
    if (!chat || this.modals.has(request.id) || !card.isWaiting(request.id)) return;
    const modal = new ApprovalModal(this.app, request, (decision: ApprovalDecision, reason?: string, hunks?: number[]) => {
      detach(chat.respond(request.id, decision, reason, hunks));
    });
    this.modals.set(request.id, modal);
    const close = modal.onClose.bind(modal);
    modal.onClose = () => {
      close();
      this.modals.delete(request.id);
    };
    modal.open();
  }

  /**
   * Undoes (or redoes) a task: its plan first; when files changed since, the user chooses per
   * file in `UndoModal` (keep mine by default). Null when they cancel.
   */
  private async undo(taskId: string, redo: boolean): Promise<string | null> {
    const { vault } = await this.plugin.core();
    const plan = await (redo ? vault.planRedo(taskId) : vault.planUndo(taskId));
    let choices: UndoChoices = {};
    if (plan.conflicts.length > 0) {
      const chosen = await new Promise<UndoChoices | null>((resolve) => new UndoModal(this.app, plan, redo, resolve).open());
      if (chosen === null) return null;
      choices = chosen;
    }
    const report = await (redo ? vault.redoTask(taskId, choices) : vault.applyUndo(taskId, choices));
    // The chat's footer shows it undone when the chat is opened again.
    if (this.saved.id) {
      await vault.markUndone(this.saved.id, taskId, !redo).catch((error: unknown) => console.error("Vault Agent:", error));
    }
    const message = describeUndo(report, redo);
    if (report.kept.length > 0 || report.copies.length > 0) new Notice(message);
    return message;
  }

  /** The chat, created on first use from the current settings (continuing the history). */
  private async ensureChat(): Promise<Chat | null> {
    if (this.chat) {
      detach(this.chat.setVaultInfo(this.vaultInfo()));
      return this.chat;
    }
    // Creating it crosses to the core's worker: calls made meanwhile wait for the same chat
    // instead of making a second one in the core.
    const starting = (this.starting ??= this.startChat().finally(() => {
      if (this.starting === starting) this.starting = null;
    }));
    return starting;
  }

  private async startChat(): Promise<Chat | null> {
    const dropped = this.drops;
    const settings = this.plugin.settings;
    const config = providerConfig(settings, this.plugin.apiKey());
    if ("missing" in config) {
      this.showConnectHelp(config.missing);
      return null;
    }
    let handle: CoreHandle;
    try {
      handle = await this.plugin.core();
    } catch (error) {
      new Notice(`Vault Agent could not start: ${errorMessage(error)}`);
      return null;
    }
    let chat: Chat;
    try {
      chat = await handle.vault.newChat(
        {
          provider: config,
          agent: { ...agentConfig(settings), webSearch: webSearch(settings, this.plugin.apiKeyStore()) },
          vault: this.vaultInfo(),
          modes: settings.customModes,
          transport: this.plugin.transport(),
          chatId: this.saved.id || undefined,
          mcpServers: mcpServers(settings, this.plugin.apiKeyStore(), Platform.isDesktopApp),
          vaultPath: this.plugin.vaultPath(),
        },
        (event: AgentEvent) => this.onEvent(event),
        keepMcpSignIn(this.plugin.apiKeyStore(), () => this.plugin.saveSettings()),
      );
    } catch (error) {
      this.showConnectHelp(null, errorMessage(error));
      return null;
    }
    // Dropped while it was being made (a new chat, changed settings): this one is not wanted.
    if (this.drops !== dropped) {
      chat.free();
      return null;
    }
    this.chat = chat;
    return this.chat;
  }

  private dropChat(): void {
    this.chat?.free();
    this.chat = null;
    this.starting = null;
    this.drops++;
    this.stale = false;
  }

  /** Drops the chat (it is made again from the settings and the history) once no task runs. */
  private dropChatWhenIdle(): void {
    if (this.running) this.stale = true;
    else this.dropChat();
  }

  private vaultInfo() {
    const active = this.app.workspace.getActiveFile();
    return {
      name: this.app.vault.getName(),
      noteCount: this.app.vault.getMarkdownFiles().length,
      activeNote: active?.path ?? null,
      configDir: this.app.vault.configDir,
      locale: obsidianLanguage(),
    };
  }

  private async setMode(mode: string): Promise<void> {
    this.plugin.settings.agent.mode = mode;
    await this.plugin.saveSettings();
    this.showModel();
    this.dropChatWhenIdle();
  }

  /** The model the next message goes to: the mode's own, or the provider's. */
  private modelInUse(): { model: string; mode: ModeConfig | null } {
    const settings = this.plugin.settings;
    const mode = settings.customModes.find((m) => m.slug === settings.agent.mode) ?? null;
    if (mode?.model) return { model: mode.model, mode };
    return { model: providerModel(settings), mode: null };
  }

  private showModel(): void {
    const { model, mode } = this.modelInUse();
    this.modelButton.empty();
    this.modelButton.createSpan({ cls: "vault-agent-model-name", text: model || "Pick a model" });
    setIcon(this.modelButton.createSpan({ cls: "vault-agent-model-chevron" }), "chevron-down");
    const label = mode
      ? `Model of the ${mode.name} mode: ${model}. Click to pick another.`
      : model
        ? `Model: ${model}. Click to pick another.`
        : "Pick a model";
    this.modelButton.setAttr("aria-label", label);
    this.modelButton.title = label;
  }

  /** Picks the model from the next message on: the open mode's own model if it has one. */
  private pickModel(): void {
    const { model, mode } = this.modelInUse();
    pickModel(this.app, this.plugin, model, (picked) => void this.useModel(picked, mode));
  }

  private async useModel(model: string, mode: ModeConfig | null): Promise<void> {
    if (mode) mode.model = model;
    else this.plugin.settings.provider.model = model;
    await this.plugin.saveSettings();
    this.refresh();
  }

  // ---- chats -----------------------------------------------------------------------------------

  /** The header names the open chat (its first request, or the name the user gave it). */
  private showTitle(): void {
    const saved = this.saved.id !== "";
    this.titleEl.setText(this.saved.title || "Vault Agent");
    this.titleEl.title = saved ? `${this.saved.title} (click to rename)` : "";
    this.titleEl.toggleClass("vault-agent-rename", saved);
    this.titleEl.setAttr("role", saved ? "button" : null);
    this.chatActions.toggle(saved);
  }

  private renameChat(): void {
    new TextPromptModal(this.app, "Rename the chat", this.saved.title, (title) => {
      if (title === null) return;
      const id = this.saved.id;
      void this.plugin
        .core()
        .then(({ vault }) => vault.renameChat(id, title))
        .then((renamed) => {
          if (this.saved.id !== id) return;
          this.saved.title = renamed;
          this.showTitle();
        })
        .catch((error: unknown) => new Notice(`The chat could not be renamed: ${errorMessage(error)}`));
    }).open();
  }

  /** Writes the chat to a new note (named after the chat) and opens it. */
  private async exportChat(): Promise<void> {
    try {
      const { vault } = await this.plugin.core();
      const markdown = await vault.exportChat(this.saved.id);
      const file = await this.app.vault.create(await this.freeNotePath(), markdown);
      await this.app.workspace.getLeaf(true).openFile(file);
    } catch (error) {
      new Notice(`The chat could not be exported: ${errorMessage(error)}`);
    }
  }

  private deleteChat(): void {
    if (this.running) {
      new Notice("Stop the running task first.");
      return;
    }
    const { id, title } = this.saved;
    confirmDeleteChat(this.app, title, (confirmed) => {
      if (confirmed) void this.plugin.deleteChat(id);
    });
  }

  /** The saved chat this view shows ("" for a new one not saved yet). */
  chatId(): string {
    return this.saved.id;
  }

  /** The chat shown here was deleted: a new one takes its place. */
  chatDeleted(): void {
    this.newChat();
  }

  private newChat(): void {
    if (this.running) {
      new Notice("Stop the running task first.");
      return;
    }
    this.dropChat();
    void this.releaseResults();
    this.saved = { id: "", title: "" };
    this.showTitle();
    this.attachments = [];
    this.renderChips();
    this.clearMessages();
    this.showWelcome();
    this.inputEl.focus();
  }

  private async showHistory(): Promise<void> {
    if (this.running) {
      new Notice("Stop the running task first.");
      return;
    }
    const { vault } = await this.plugin.core();
    const chats = await vault.listChats();
    const search = (query: string) => vault.searchChats(query);
    const pick = (summary: ChatSummary, turn: number | null) => void this.openChat(summary.id, turn);
    const remove = (summary: ChatSummary) => this.plugin.deleteChat(summary.id);
    new ChatHistoryModal(this.app, chats, search, pick, remove, () => detach(vault.closeChatSearch())).open();
  }

  /** Shows a saved chat, at its turn `turn` (else at its end); the next message continues it. */
  async openChat(id: string, turn: number | null = null): Promise<void> {
    const { vault } = await this.plugin.core();
    const transcript = await vault.chatTranscript(id);
    this.showTranscript(transcript);
    const found = turn === null ? null : this.messagesEl.querySelector(`[data-turn="${turn}"]`);
    if (!(found instanceof HTMLElement)) {
      this.scroll(true);
      return;
    }
    // Not following the end: an answer drawn after this (Markdown renders async) leaves it be.
    this.following = false;
    found.scrollIntoView({ block: "start" });
    found.addClass("vault-agent-found");
    this.jumpButton.toggle(!this.atBottom());
  }

  /**
   * Shows `transcript` in place of the open chat (whose chat in the core is dropped, made again
   * for this one at the next message). Returns the turn of a task that stopped before it ended
   * (a restart), for it to go on in.
   */
  private showTranscript(transcript: Transcript): TurnView | null {
    this.dropChat();
    if (transcript.chatId !== this.saved.id) void this.releaseResults();
    this.saved = { id: transcript.chatId, title: transcript.title };
    this.showTitle();
    this.clearMessages();
    let open: TurnView | null = null;
    transcript.turns.forEach((turn, index) => {
      const before = this.messagesEl.childElementCount;
      open = this.renderTurn(turn) ?? open;
      // Where the turn begins, for the history's search to open the chat there.
      this.messagesEl.children[before]?.setAttribute("data-turn", String(index));
    });
    return open;
  }

  /** A turn of a transcript: the request, earlier attempts' footers, then the steps and the footer of its task. */
  private renderTurn(turn: TranscriptTurn): TurnView | null {
    if (turn.request) this.renderUser(turn.request.text, turn.request.attachments);
    // An interrupted turn's steps are its running task's: every task listed is an earlier attempt.
    const last = turn.interrupted ? undefined : turn.tasks.at(-1);
    for (const task of turn.tasks) if (task !== last) this.addTurn().finish(task.report, task.undone);
    if (!turn.steps.length && !last && !turn.interrupted) return null;
    const view = this.addTurn();
    view.renderSteps(turn.steps);
    if (!last) return view;
    view.finish(last.report, last.undone);
    return null;
  }

  /** The chat is closed: its tasks' large results (the "Full result" links) are removed. */
  private async releaseResults(): Promise<void> {
    const ids = this.taskIds();
    if (!ids.length) return;
    try {
      const { vault } = await this.plugin.core();
      await vault.releaseResults(ids);
    } catch (error) {
      console.error("Vault Agent: could not remove the chat's temporary results", error);
    }
  }

  private addTurn(): TurnView {
    const turn = this.addChild(new TurnView(this.messagesEl, this.turnContext()));
    this.turns.push(turn);
    return turn;
  }

  private clearMessages(): void {
    for (const turn of this.turns) this.removeChild(turn);
    this.turns = [];
    this.messagesEl.empty();
    this.turn = null;
  }

  // ---- rendering -------------------------------------------------------------------------------

  private renderUser(text: string, attachments: string[]): void {
    // Only the last request can be edited (the core replaces the last one).
    this.messagesEl.querySelectorAll(".vault-agent-edit").forEach((el) => el.remove());
    const el = this.messagesEl.createDiv({ cls: "vault-agent-user" });
    const edit = el.createDiv({
      cls: "clickable-icon vault-agent-edit",
      attr: { role: "button", tabindex: "0", "aria-label": "Edit and send again", title: "Edit and send again" },
    });
    setIcon(edit, "pencil");
    edit.addEventListener("click", () => this.editLast(text, attachments));
    el.createDiv({ cls: "vault-agent-user-text", text });
    if (attachments.length) {
      const chips = el.createDiv({ cls: "vault-agent-chips" });
      for (const path of attachments) this.chip(chips, path);
    }
  }

  /** A chip for an attached `path`: an image's thumbnail or a PDF's icon, then the path. */
  private chip(parent: HTMLElement, path: string): HTMLElement {
    const resource = attachedResource(path);
    const title = resource ? `${resource.uri}, from the MCP server “${resource.server}”` : path;
    const chip = parent.createSpan({ cls: "vault-agent-chip", attr: { title } });
    showMedia(this.app, chip, path);
    chip.createSpan({ cls: "vault-agent-chip-path", text: attachmentLabel(path) });
    return chip;
  }

  private showWelcome(): void {
    const config = providerConfig(this.plugin.settings, this.plugin.apiKey());
    if ("missing" in config) {
      this.showConnectHelp(config.missing);
      return;
    }
    const welcome = this.messagesEl.createDiv({ cls: "vault-agent-welcome" });
    welcome.createDiv({ text: `Ask anything about your notes. Connected to ${describe(config)}.` });
    welcome.createDiv({
      cls: "vault-agent-muted",
      text: "Every change is shown to you first, and each task can be undone.",
    });
  }

  /** Says plainly how to connect a model; search works without one. */
  private showConnectHelp(missing: string | null, problem?: string): void {
    this.messagesEl.querySelector(".vault-agent-connect")?.remove();
    this.messagesEl.querySelector(".vault-agent-welcome")?.remove();
    const box = this.messagesEl.createDiv({ cls: "vault-agent-connect vault-agent-welcome" });
    box.createDiv({ cls: "vault-agent-connect-title", text: "Connect a model to chat" });
    if (problem) box.createDiv({ cls: "vault-agent-error-message", text: problem });
    else if (missing) box.createDiv({ text: `The chat needs ${missing}.` });
    const preset = PRESETS[this.plugin.settings.provider.preset];
    const keyRow = !problem && preset.needsKey && !this.plugin.apiKey() ? this.keyField(box, preset) : null;
    const list = box.createEl("ul");
    list.createEl("li", {
      text: "With an API key: open settings → Vault Agent, choose your provider (Anthropic, OpenAI, Azure OpenAI, Google Gemini, Mistral AI, DeepSeek, xAI, Groq or OpenRouter; Gemini, Mistral and Groq have a free tier) and paste your key.",
    });
    list.createEl("li", {
      text: "On your own computer, for free: install Ollama, pull a model that can call tools (qwen2.5, for example) and choose Ollama (local) in the settings. LM Studio works the same way once its local server is started.",
    });
    box.createDiv({
      cls: "vault-agent-muted",
      text: "Search works without a model: use the search button above, or the command “Search the vault”.",
    });
    const buttons = box.createDiv({ cls: "vault-agent-connect-buttons" });
    // A phone's own address has no model server; a computer's may already run one.
    if (!Platform.isMobile) void this.offerLocalServer(box, buttons);
    // A provider without a model (LM Studio, a custom server) has a list to pick from.
    if (missing === "a model name") {
      const pick = buttons.createEl("button", { text: "Pick a model", cls: "mod-cta vault-agent-connect-pick" });
      pick.addEventListener("click", () => this.pickModel());
    }
    const open = buttons.createEl("button", { text: "Open settings", cls: "vault-agent-open-settings" });
    if (missing !== "a model name" && !keyRow) open.addClass("mod-cta");
    open.addEventListener("click", () => this.plugin.openSettings());
  }

  /**
   * The chosen provider's key, pasted right here: kept as the settings keep it, and the chat is
   * connected (another provider is chosen in the settings).
   */
  private keyField(box: HTMLElement, preset: PresetInfo): HTMLElement {
    const row = box.createDiv({ cls: "vault-agent-connect-key" });
    const label = `${preset.name} API key`;
    const input = row.createEl("input", {
      type: "password",
      cls: "vault-agent-connect-key-input",
      attr: { placeholder: `Paste your ${label}`, "aria-label": label },
    });
    const save = row.createEl("button", { cls: "mod-cta", text: "Save key" });
    const use = () => {
      const key = input.value.trim();
      if (!key) return;
      this.plugin.apiKeyStore().set(this.plugin.settings.provider.preset, key);
      void this.plugin.saveSettings().then(() => this.refresh());
    };
    save.addEventListener("click", use);
    input.addEventListener("keydown", (evt) => evt.key === "Enter" && use());
    if (preset.keyUrl) {
      const where = box.createDiv({ cls: "vault-agent-muted" });
      where.appendText("Get one at ");
      where.createEl("a", { text: preset.keyUrl.replace(/^https:\/\//, ""), href: preset.keyUrl });
      where.appendText(", or choose another provider in the settings.");
    }
    return row;
  }

  /**
   * A model server already running on this computer (Ollama, else LM Studio), offered above
   * `before` with its newest model that calls tools: one click and the chat uses it.
   */
  private async offerLocalServer(box: HTMLElement, before: HTMLElement): Promise<void> {
    // Asked again after a while (a server started since), not for every redraw.
    if (!this.localServer || Date.now() - this.localServer.asked > LOCAL_ASK_AGAIN_MS) {
      this.localServer = { asked: Date.now(), found: findLocalServer(this.plugin) };
    }
    const found = await this.localServer.found;
    if (!found || !box.isConnected) return;
    const { preset, models } = found;
    // Its newest model that calls tools, where the server says which do (Ollama); else its newest.
    const model = (models.find((m) => m.tools) ?? models[0]).id;
    const offer = createDiv({ cls: "vault-agent-local-server" });
    const server = preset === "ollama" ? "Ollama" : "LM Studio";
    offer.createDiv({ text: `${server} is running on this computer, with ${count(models.length, "model")}.` });
    const use = offer.createEl("button", { cls: "mod-cta vault-agent-use-local", text: `Use ${model}` });
    use.addEventListener("click", () => {
      Object.assign(this.plugin.settings.provider, { preset, model, baseUrl: "" });
      void this.plugin.saveSettings().then(() => this.refresh());
    });
    box.insertBefore(offer, before);
    // One call to action: the server found.
    before.querySelector(".vault-agent-open-settings")?.removeClass("mod-cta");
  }

  private renderChips(): void {
    this.chipsEl.empty();
    for (const path of this.attachments) {
      const chip = this.chip(this.chipsEl, path);
      const remove = chip.createSpan({ cls: "vault-agent-chip-remove", attr: { "aria-label": `Remove ${path}` } });
      setIcon(remove, "x");
      remove.addEventListener("click", () => {
        this.attachments = this.attachments.filter((p) => p !== path);
        this.renderChips();
      });
    }
    if (this.attachments.some(isImage)) void this.sayIfBlind();
  }

  /** Says, under the chips, when the chat's model will not see the images attached. */
  private async sayIfBlind(): Promise<void> {
    const chat = await this.ensureChat();
    const media = await chat?.mediaSupport();
    if (!media || media.images || !this.attachments.some(isImage)) return;
    if (this.chipsEl.querySelector(".vault-agent-media-note")) return;
    this.chipsEl.createDiv({
      cls: "vault-agent-media-note vault-agent-muted",
      text: "This model cannot see images: it gets their names only. Choose a model that can, or set Images in the settings.",
    });
  }

  private setRunning(running: boolean): void {
    this.running = running;
    this.contentEl.toggleClass("is-running", running);
    this.updateSendButton();
    this.showDeadline(running);
  }

  /** Beside Stop while a task runs: the time left before the task deadline (a setting). */
  private showDeadline(running: boolean): void {
    if (this.deadlineTimer !== null) window.clearInterval(this.deadlineTimer);
    this.deadlineTimer = null;
    this.deadlineEl.empty();
    const minutes = this.plugin.settings.agent.deadlineMinutes;
    if (!running || minutes <= 0) return;
    const due = Date.now() + minutes * 60_000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
      const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      this.deadlineEl.setText(text);
      this.deadlineEl.title = `The task stops in ${text} (task deadline)`;
    };
    tick();
    this.deadlineTimer = window.setInterval(tick, 1000);
    this.registerInterval(this.deadlineTimer);
  }

  private updateSendButton(): void {
    this.sendButton.empty();
    setIcon(this.sendButton.createSpan({ cls: "vault-agent-button-icon" }), this.running ? "square" : "send");
    this.sendButton.createSpan({ text: this.running ? "Stop" : "Send" });
    this.sendButton.toggleClass("mod-warning", this.running);
    this.sendButton.toggleClass("mod-cta", !this.running);
  }

  /**
   * Keeps the newest output in view while the reader is at the bottom; a reader who scrolled
   * up stays where they are, and gets a "Jump to latest" button. `force` (a new message, the
   * button) goes to the bottom and follows again.
   */
  private scroll(force = false): void {
    if (force) this.following = true;
    if (this.following) this.messagesEl.scrollTop = this.messagesEl.scrollHeight;
    this.jumpButton.toggle(!this.following && !this.atBottom());
  }

  private onScroll(): void {
    this.following = this.atBottom();
    if (this.following) this.jumpButton.hide();
  }

  private atBottom(): boolean {
    const el = this.messagesEl;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  }

  private iconButton(parent: HTMLElement, icon: string, label: string, onClick: () => void): HTMLElement {
    const button = parent.createDiv({ cls: "clickable-icon", attr: { "aria-label": label, title: label } });
    setIcon(button, icon);
    button.addEventListener("click", onClick);
    return button;
  }

  // ---- input -----------------------------------------------------------------------------------

  private onKey(event: KeyboardEvent): void {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!this.running) void this.send();
    }
  }

  private onInput(): void {
    const value = this.inputEl.value;
    const caret = this.inputEl.selectionStart ?? value.length;
    const typed = value[caret - 1];
    const before = value[caret - 2];
    const atWordStart = caret === 1 || before === " " || before === "\n";
    if (typed === "@" && atWordStart) {
      this.inputEl.value = value.slice(0, caret - 1) + value.slice(caret);
      this.pickNote();
    } else if (typed === "/" && value.trim() === "/") {
      this.inputEl.value = "";
      this.pickPrompt();
    }
  }

  private pickNote(): void {
    // The MCP servers' resources join the list once the chat has asked its servers.
    const resources = this.hasMcpServers()
      ? this.ensureChat().then((chat) => (chat ? chat.mcpResources() : []), () => [])
      : null;
    new NotePickerModal(this.app, resources, (item) => {
      if ("file" in item) this.attach(item.file);
      // The core reads a path that ends in "/" as a folder, and brings its notes.
      else if ("folder" in item) this.attachPath(`${item.folder.path}/`);
      else if ("url" in item) this.attachPath(item.url);
      else this.attachPath(item.resource.attachment);
    }).open();
  }

  /**
   * Whether the pickers should ask the chat's MCP servers: some are enabled, and a model is set
   * up (the chat that asks them needs one; without it the picker lists the vault's own, rather
   * than open the chat's help on connecting a model).
   */
  private hasMcpServers(): boolean {
    const servers = this.plugin.settings.mcp.servers.some((s) => s.enabled);
    return servers && !("missing" in providerConfig(this.plugin.settings, this.plugin.apiKey()));
  }

  private pickPrompt(): void {
    // The MCP servers' prompts join the list once the chat has asked its servers.
    const servers = this.hasMcpServers()
      ? this.ensureChat().then((chat) => (chat ? chat.mcpPrompts() : []), () => [])
      : null;
    new PromptPickerModal(this.app, this.plugin.settings.promptsFolder, servers, (prompt) => {
      if (prompt.mcp) {
        this.useServerPrompt(prompt.mcp);
        return;
      }
      const text = prompt.file ? this.app.vault.cachedRead(prompt.file).then(promptText) : Promise.resolve(prompt.text);
      void text.then((value) => this.fillComposer(value));
    }).open();
  }

  /** An MCP server's prompt: its values asked for first, if it takes any, then its text in the box. */
  private useServerPrompt(prompt: ServerPrompt): void {
    const fill = async (args: Record<string, string>) => {
      try {
        const chat = await this.ensureChat();
        if (chat) this.fillComposer(await chat.mcpPrompt(prompt.server, prompt.name, args));
      } catch (error) {
        new Notice(`The MCP server “${prompt.server}” did not give its prompt: ${errorMessage(error)}`);
      }
    };
    if (!prompt.arguments.length) {
      void fill({});
      return;
    }
    new PromptArgumentsModal(this.app, prompt, (args) => {
      if (args) void fill(args);
    }).open();
  }

  private fillComposer(text: string): void {
    this.inputEl.value = text;
    this.inputEl.focus();
  }
}

function describe(config: ProviderConfig): string {
  const preset = Object.values(PRESETS).find((p) => p.baseUrl === config.baseUrl);
  return `${config.model}${preset ? ` (${preset.name})` : ` at ${config.baseUrl}`}`;
}

/** A report for a task that never started. */
function notStarted(message: string): RunReport {
  return {
    taskId: "",
    end: { reason: "failed", kind: null, message },
    ended: message,
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    cost: null,
    durationMs: 0,
    toolCalls: 0,
    toolErrors: 0,
    changedPaths: [],
    condensations: 0,
  };
}

/** How long a model server on this computer is waited for: it answers at once, or not at all. */
const LOCAL_ASK_MS = 3_000;
/** How long what the model servers on this computer answered stands before they are asked again. */
const LOCAL_ASK_AGAIN_MS = 30_000;

/** A model server on this computer and its chat models. */
interface LocalServer {
  preset: "ollama" | "lmstudio";
  models: ModelInfo[];
}

/** The first of Ollama and LM Studio whose server on this computer lists chat models, with them. */
async function findLocalServer(plugin: PluginContext): Promise<LocalServer | null> {
  const { vault } = await plugin.core();
  const ask = async (preset: "ollama" | "lmstudio") => {
    const settings = { ...plugin.settings, provider: { ...plugin.settings.provider, preset, model: "", baseUrl: "" } };
    const config = providerConfig(settings, "", { modelOptional: true });
    if ("missing" in config) return null;
    const late = new Promise<null>((resolve) => window.setTimeout(() => resolve(null), LOCAL_ASK_MS));
    const list = await Promise.race([vault.listModels(config, plugin.transport()), late]).catch(() => null);
    return list?.models.length ? { preset, models: list.models } : null;
  };
  const [ollama, lmStudio] = await Promise.all([ask("ollama"), ask("lmstudio")]);
  return ollama ?? lmStudio;
}
