import { FuzzySuggestModal, SuggestModal, TFile, type App, type FuzzyMatch } from "obsidian";
import { isAttachable } from "./media";
import type { ChatSummary, ServerPrompt } from "../protocol";
import { count } from "./count";

/** Picks a note, an image or a PDF to attach to the message (`@`). */
export class NotePickerModal extends FuzzySuggestModal<TFile> {
  constructor(
    app: App,
    private readonly onPick: (file: TFile) => void,
  ) {
    super(app);
    this.setPlaceholder("Attach a note, an image or a PDF…");
  }

  getItems(): TFile[] {
    return this.app.vault.getFiles().filter((f) => isAttachable(f.path));
  }

  getItemText(file: TFile): string {
    return file.path;
  }

  onChooseItem(file: TFile): void {
    this.onPick(file);
  }
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

/** Picks an earlier chat to continue. */
export class ChatHistoryModal extends SuggestModal<ChatSummary> {
  constructor(
    app: App,
    private readonly chats: ChatSummary[],
    private readonly onPick: (chat: ChatSummary) => void,
  ) {
    super(app);
    this.setPlaceholder("Continue an earlier chat…");
    this.emptyStateText = "No saved chats yet.";
  }

  getSuggestions(query: string): ChatSummary[] {
    const q = query.toLowerCase();
    return this.chats.filter((c) => c.title.toLowerCase().includes(q));
  }

  renderSuggestion(chat: ChatSummary, el: HTMLElement): void {
    el.addClass("vault-agent-history-item");
    el.createDiv({ cls: "vault-agent-history-title", text: chat.title });
    el.createDiv({
      cls: "vault-agent-history-meta",
      text: `${new Date(chat.updatedMs).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })} · ${count(chat.requests, "request")}`,
    });
  }

  onChooseSuggestion(chat: ChatSummary): void {
    this.onPick(chat);
  }
}

/** The text of a prompt note, without its frontmatter. */
export function promptText(markdown: string): string {
  return markdown.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, "").trim();
}
