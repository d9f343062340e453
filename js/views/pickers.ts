import { FuzzySuggestModal, Platform, setIcon, SuggestModal, TFile, TFolder, type App, type FuzzyMatch } from "obsidian";
import { confirmDeleteChat } from "./dialogs";
import { isAttachable } from "./media";
import type { ChatMatch, ChatSummary, ServerPrompt, ServerResource } from "../protocol";
import { count } from "./count";
import { highlight } from "./SearchModal";

/**
 * What `@` attaches: a vault file, a folder's notes, a web page (an address typed in the
 * picker), or a resource of one of the chat's MCP servers.
 */
export type Attachable = { file: TFile } | { folder: TFolder } | { url: string } | { resource: ServerResource };

/** The http(s) address `query` is, if it is one. */
function webAddress(query: string): string | null {
  const text = query.trim();
  if (!/^https?:\/\/\S+$/i.test(text)) return null;
  try {
    return new URL(text).protocol.startsWith("http") ? text : null;
  } catch {
    return null;
  }
}

/**
 * Picks a note, an image, a PDF, a folder (its notes), a web page (its address, typed) or an MCP
 * server's resource to attach to the message (`@`). The servers' resources (`resources`) join
 * the list once the servers answer.
 */
export class NotePickerModal extends FuzzySuggestModal<Attachable> {
  private resources: Attachable[] = [];

  constructor(
    app: App,
    resources: Promise<ServerResource[]> | null,
    private readonly onPick: (item: Attachable) => void,
  ) {
    super(app);
    void resources?.then((listed) => {
      this.resources = listed.map((resource) => ({ resource }));
      // The list as typed so far, with the servers' resources.
      this.inputEl.dispatchEvent(new Event("input"));
    });
    // Short enough for a phone: notes, folders, images, PDFs and resources are found by name.
    this.setPlaceholder("Attach… (type a name, or a web address)");
  }

  getItems(): Attachable[] {
    const files = this.app.vault.getFiles().filter((f) => isAttachable(f.path));
    const folders = this.app.vault.getAllFolders(false).filter((f) => !f.isRoot());
    return [...files.map((file) => ({ file })), ...folders.map((folder) => ({ folder })), ...this.resources];
  }

  getSuggestions(query: string): FuzzyMatch<Attachable>[] {
    const found = super.getSuggestions(query);
    const url = webAddress(query);
    // A typed address is offered first, as the page it names.
    return url ? [{ item: { url }, match: { score: 0, matches: [] } }, ...found] : found;
  }

  getItemText(item: Attachable): string {
    if ("url" in item) return item.url;
    if ("file" in item) return item.file.path;
    if ("folder" in item) return `${item.folder.path}/`;
    return `${resourceName(item.resource)} ${item.resource.uri}`;
  }

  renderSuggestion(match: FuzzyMatch<Attachable>, el: HTMLElement): void {
    if ("url" in match.item) {
      el.setText(`Attach the web page ${match.item.url}`);
      el.createSpan({ cls: "vault-agent-prompt-source", text: "web", attr: { title: "Read when you send, as a web fetch reads it" } });
      return;
    }
    if (!("resource" in match.item)) {
      super.renderSuggestion(match, el);
      if ("folder" in match.item) {
        el.createSpan({ cls: "vault-agent-prompt-source", text: "folder", attr: { title: "Attaches the notes in it" } });
      }
      return;
    }
    // A resource as the quick switcher shows a note: its name, its address under it, and the
    // server it comes from beside them.
    const { resource } = match.item;
    el.addClass("mod-complex");
    const content = el.createDiv({ cls: "suggestion-content" });
    content.createDiv({ cls: "suggestion-title", text: resourceName(resource) });
    content.createDiv({ cls: "suggestion-note", text: resource.uri });
    const title = `${resource.description ? `${resource.description}\n` : ""}From the MCP server “${resource.server}”`;
    const aux = el.createDiv({ cls: "suggestion-aux" });
    aux.createSpan({ cls: "vault-agent-prompt-source", text: resource.server, attr: { title } });
  }

  onChooseItem(item: Attachable): void {
    this.onPick(item);
  }
}

/** What a resource is called in a list or on a chip: its title, else its name. */
export function resourceName(resource: ServerResource): string {
  return resource.title ?? resource.name;
}

/** A slash prompt: a note in the prompts folder, one of the built-in ones, or an MCP server's. */
export interface SlashPrompt {
  name: string;
  /** The note it comes from; null for a built-in or a server's prompt. */
  file: TFile | null;
  /** A built-in prompt's text (a note's is read when it is picked, a server's asked of it). */
  text: string;
  /** An MCP server's prompt, filled in by its server when picked. */
  mcp?: ServerPrompt;
}

/**
 * What `/` offers before a user has written any prompts of their own: the requests people make
 * of an agent in their notes most. A note in the prompts folder with the same name replaces one.
 */
export const BUILT_IN_PROMPTS: readonly { name: string; text: string }[] = [
  { name: "Summarise this note", text: "Summarise the open note in five bullet points, then list the questions it leaves open." },
  {
    name: "Find related notes",
    text: "Find the notes most related to the open note, by links, tags and meaning. Say in one sentence each how it relates. Change nothing.",
  },
  {
    name: "Link related notes",
    text: "Find the five notes most related to the open note and add a \"Related\" section at its end that links to each, with a few words on why. Change nothing else.",
  },
  {
    name: "Merge notes on a topic",
    text: "Find everything I wrote about the topic below and merge it into one new note: each fact once, a link back to every source, the originals left as they are. Topic: ",
  },
  {
    name: "Review my week",
    text: "Look at the notes I changed in the last seven days and write a short review of my week: what I worked on, grouped by project or theme, what I finished and what is still open, each point with a link to its notes. Change nothing.",
  },
  {
    name: "Fix spelling and grammar",
    text: "Fix the spelling and grammar of the open note. Keep its wording, structure, links and formatting, and list what you changed.",
  },
];

/**
 * Picks a slash prompt: a note in the prompts folder, then the built-in prompts it does not
 * replace, then the prompts of the chat's MCP servers (`servers`: listed once they answer).
 */
export class PromptPickerModal extends FuzzySuggestModal<SlashPrompt> {
  private servers: SlashPrompt[] = [];

  constructor(
    app: App,
    private readonly folder: string,
    servers: Promise<ServerPrompt[]> | null,
    private readonly onPick: (prompt: SlashPrompt) => void,
  ) {
    super(app);
    void servers?.then((prompts) => {
      this.servers = prompts.map((mcp) => ({ name: mcp.title ?? mcp.name, file: null, text: "", mcp }));
      // The list as typed so far, with the servers' prompts.
      this.inputEl.dispatchEvent(new Event("input"));
    });
    this.setPlaceholder("Pick a prompt…");
    // An empty setting names no folder: only the built-in prompts then.
    if (folder) this.setInstructions([{ command: `${folder}/`, purpose: "holds your own prompts, a note each" }]);
    this.emptyStateText = folder ? `No prompt matches. Each note in ${folder}/ becomes a prompt.` : "No prompt matches.";
  }

  getItems(): SlashPrompt[] {
    const prefix = `${this.folder.replace(/\/+$/, "")}/`;
    const own: SlashPrompt[] = this.app.vault
      .getMarkdownFiles()
      .filter((f) => f.path.startsWith(prefix))
      .map((file) => ({ name: file.basename, file, text: "" }));
    const taken = new Set(own.map((p) => p.name.toLowerCase()));
    const builtIn = BUILT_IN_PROMPTS.filter((p) => !taken.has(p.name.toLowerCase())).map((p) => ({ ...p, file: null }));
    return [...own, ...builtIn, ...this.servers];
  }

  getItemText(prompt: SlashPrompt): string {
    return prompt.name;
  }

  renderSuggestion(match: FuzzyMatch<SlashPrompt>, el: HTMLElement): void {
    super.renderSuggestion(match, el);
    const server = match.item.mcp;
    if (server) {
      const title = server.description ?? `A prompt of the MCP server “${server.server}”`;
      el.createSpan({ cls: "vault-agent-prompt-source", text: server.server, attr: { title } });
    } else if (!match.item.file) {
      const title = this.folder ? `Write a note in ${this.folder}/ with this name to change it` : "Built into the plugin";
      el.createSpan({ cls: "vault-agent-prompt-source", text: "built in", attr: { title } });
    }
  }

  onChooseItem(prompt: SlashPrompt): void {
    this.onPick(prompt);
  }
}

/**
 * Picks an earlier chat to continue. With words typed, the core finds the chats that said them
 * (titles, requests and answers) and the passage where; picking one opens the chat at that turn.
 */
export class ChatHistoryModal extends SuggestModal<ChatMatch> {
  constructor(
    app: App,
    private chats: ChatSummary[],
    private readonly search: (query: string) => Promise<ChatMatch[]>,
    private readonly onPick: (chat: ChatSummary, turn: number | null) => void,
    private readonly onDelete: (chat: ChatSummary) => Promise<boolean>,
    private readonly onDone: () => void,
  ) {
    super(app);
    this.setPlaceholder("Search earlier chats…");
    this.emptyStateText = "No saved chats yet.";
    // A phone has no keys to name: its rows' bins are always shown.
    if (!Platform.isPhone) {
      this.setInstructions([
        { command: "↑↓", purpose: "to move" },
        { command: "↵", purpose: "to open" },
        { command: "shift del", purpose: "to delete" },
      ]);
    }
    this.inputEl.addEventListener("keydown", (evt) => {
      if (evt.key !== "Delete" || !evt.shiftKey) return;
      const selected = this.resultContainerEl.querySelector<HTMLElement>(".suggestion-item.is-selected");
      const chat = selected && this.rows.get(selected);
      if (!chat) return;
      evt.preventDefault();
      this.delete(chat);
    });
  }

  /** The chat each row shows, for the key that deletes the selected one. */
  private readonly rows = new WeakMap<HTMLElement, ChatSummary>();

  onClose(): void {
    super.onClose();
    this.onDone();
  }

  async getSuggestions(query: string): Promise<ChatMatch[]> {
    this.emptyStateText = query.trim() ? "No chat said that." : "No saved chats yet.";
    if (!query.trim()) return this.chats.map((chat) => ({ chat, passage: null }));
    return this.search(query);
  }

  renderSuggestion({ chat, passage }: ChatMatch, el: HTMLElement): void {
    el.addClass("vault-agent-history-item");
    this.rows.set(el, chat);
    const body = el.createDiv({ cls: "vault-agent-history-body" });
    body.createDiv({ cls: "vault-agent-history-title", text: chat.title });
    body.createDiv({
      cls: "vault-agent-history-meta",
      text: `${new Date(chat.updatedMs).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })} · ${count(chat.requests, "request")}`,
    });
    // An icon as the chat's header has (Obsidian's `clickable-icon`), not a framed button.
    const remove = el.createDiv({
      cls: "clickable-icon vault-agent-history-delete",
      attr: { "aria-label": "Delete this chat", role: "button" },
    });
    setIcon(remove, "trash");
    // The row's own click opens the chat: this one does not reach it.
    remove.addEventListener("click", (evt) => {
      evt.stopPropagation();
      evt.preventDefault();
      this.delete(chat);
    });
    if (!passage) return;
    const line = body.createDiv({ cls: "vault-agent-history-passage" });
    line.createSpan({ cls: "vault-agent-history-by", text: passage.by === "you" ? "You" : "Agent" });
    highlight(line.createSpan(), passage.text);
  }

  onChooseSuggestion({ chat, passage }: ChatMatch): void {
    this.onPick(chat, passage?.turn ?? null);
  }

  /** Asks, deletes, and lists again without it (the box keeps what was typed). */
  private delete(chat: ChatSummary): void {
    confirmDeleteChat(this.app, chat.title, (confirmed) => {
      this.inputEl.focus();
      if (!confirmed) return;
      void this.onDelete(chat).then((deleted) => {
        if (!deleted) return;
        this.chats = this.chats.filter((c) => c.id !== chat.id);
        this.inputEl.dispatchEvent(new Event("input"));
      });
    });
  }
}

/** The text of a prompt note, without its frontmatter. */
export function promptText(markdown: string): string {
  return markdown.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, "").trim();
}
