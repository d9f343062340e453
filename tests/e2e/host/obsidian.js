// The `obsidian` module the plugin gets in the fake host page: obsidian-test-mocks (which
// emulates the API in memory) plus the glue it lacks to be used by a person or by Playwright
// in a real browser page — modals and suggesters in the DOM, a workspace with a right sidebar
// whose leaves hold real views, markdown rendering, requestUrl over the page's server, notices,
// icons, and settings controls that react to input.
import * as mocks from "obsidian-test-mocks/obsidian";
import { marked } from "marked";
import { ICONS } from "./icons.js";

const {
  addIcon,
  AbstractTextComponent,
  ButtonComponent,
  DropdownComponent,
  ExtraButtonComponent,
  FuzzySuggestModal,
  MarkdownRenderer,
  Modal,
  Notice: MockNotice,
  Plugin,
  Setting,
  SuggestModal,
  ToggleComponent,
  WorkspaceLeaf,
} = mocks;

for (const [name, svg] of Object.entries(ICONS)) addIcon(name, svg);

/** `obj[key]`, or undefined where the mocks' strict proxies would throw for a property never set. */
const own = (obj, key) => (key in obj ? obj[key] : undefined);

/** View types registered by plugins, and their creators. */
export const viewCreators = new Map();

// ---- modals -----------------------------------------------------------------------------------

function openInDom(modal) {
  const { containerEl, modalEl, titleEl, contentEl } = modal;
  containerEl.addClass("modal-container", "mod-dim");
  if (!containerEl.querySelector(".modal-bg")) {
    const bg = createDiv({ cls: "modal-bg" });
    bg.addEventListener("click", () => modal.close());
    containerEl.prepend(bg);
  }
  modalEl.addClass("modal");
  titleEl.addClass("modal-title");
  contentEl.addClass("modal-content");
  if (!modalEl.querySelector(".modal-close-button")) {
    const close = createDiv({ cls: "modal-close-button" });
    close.addEventListener("click", () => modal.close());
    modalEl.prepend(close, titleEl);
  }
  modal.escape__ = (e) => {
    if (e.key === "Escape") modal.close();
  };
  document.addEventListener("keydown", modal.escape__);
  document.body.appendChild(containerEl);
}

Modal.prototype.open = function open() {
  openInDom(this);
  this.onOpen();
};

Modal.prototype.close = function close() {
  if (!this.containerEl.isConnected) return;
  document.removeEventListener("keydown", own(this, "escape__"));
  this.containerEl.remove();
  this.onClose();
  this.closeCallback?.();
};

// Suggesters: results as you type, arrows and Enter to choose, as in Obsidian.
SuggestModal.prototype.open = function open() {
  openInDom(this);
  this.modalEl.addClass("prompt");
  this.inputEl.addClass("prompt-input");
  this.resultContainerEl.addClass("prompt-results");
  this.modalEl.prepend(this.inputEl);
  this.modalEl.appendChild(this.resultContainerEl);
  this.selected__ = 0;
  this.items__ = [];
  const render = async () => {
    const query = this.inputEl.value;
    const items = await this.getSuggestions(query);
    if (query !== this.inputEl.value) return; // a newer query is on its way
    this.items__ = (items ?? []).slice(0, this.limit ?? 100);
    this.selected__ = 0;
    this.resultContainerEl.empty();
    if (!this.items__.length) {
      this.resultContainerEl.createDiv({ cls: "suggestion-empty", text: this.emptyStateText });
      return;
    }
    this.items__.forEach((item, index) => {
      const el = this.resultContainerEl.createDiv({ cls: "suggestion-item" });
      if (index === 0) el.addClass("is-selected");
      this.renderSuggestion(item, el);
      el.addEventListener("mousemove", () => select(index));
      el.addEventListener("click", (evt) => this.selectSuggestion(item, evt));
    });
  };
  const select = (index) => {
    const els = this.resultContainerEl.querySelectorAll(".suggestion-item");
    els[this.selected__]?.removeClass("is-selected");
    this.selected__ = (index + els.length) % Math.max(els.length, 1);
    els[this.selected__]?.addClass("is-selected");
    els[this.selected__]?.scrollIntoView({ block: "nearest" });
  };
  this.render__ = render;
  this.inputEl.addEventListener("input", () => void render());
  this.inputEl.addEventListener("keydown", (evt) => {
    if (evt.key === "ArrowDown") select(this.selected__ + 1);
    else if (evt.key === "ArrowUp") select(this.selected__ - 1);
    else if (evt.key === "Enter" && this.items__.length) {
      evt.preventDefault();
      this.selectSuggestion(this.items__[this.selected__], evt);
    } else return;
    evt.preventDefault();
  });
  this.onOpen();
  void render();
  this.inputEl.focus();
};

SuggestModal.prototype.selectSuggestion = function selectSuggestion(value, evt) {
  this.close();
  this.onChooseSuggestion(value, evt);
};

// FuzzySuggestModal: matches every query character in order, as Obsidian's fuzzy search does,
// and, as it does, ranks the query found whole first (in the file name before the folders).
FuzzySuggestModal.prototype.getSuggestions = function getSuggestions(query) {
  const q = query.toLowerCase().replace(/\s+/g, "");
  const matches = [];
  for (const item of this.getItems()) {
    const text = this.getItemText(item).toLowerCase();
    const whole = q ? text.lastIndexOf(query.toLowerCase().trim()) : -1;
    if (whole >= 0) {
      const inName = whole > text.lastIndexOf("/");
      matches.push({ item, match: { score: (inName ? 2000 : 1000) - text.length / 100, matches: [] } });
      continue;
    }
    let at = -1;
    let score = 0;
    let ok = true;
    for (const ch of q) {
      const next = text.indexOf(ch, at + 1);
      if (next < 0) {
        ok = false;
        break;
      }
      score -= next - at - 1;
      at = next;
    }
    if (ok) matches.push({ item, match: { score, matches: [] } });
  }
  return matches.sort((a, b) => b.match.score - a.match.score);
};

FuzzySuggestModal.prototype.renderSuggestion = function renderSuggestion(match, el) {
  el.setText(this.getItemText(match.item));
};

// ---- notices ----------------------------------------------------------------------------------

export class Notice extends MockNotice {
  constructor(message, duration) {
    super(message, duration);
    // Obsidian shows the fragment itself (the mocks show a copy, without its listeners).
    if (typeof message !== "string") {
      this.messageEl.empty();
      this.messageEl.appendChild(message);
    }
    let container = document.querySelector(".notice-container");
    if (!container) container = document.body.createDiv({ cls: "notice-container" });
    this.noticeEl.addClass("notice");
    this.noticeEl.appendChild(this.messageEl);
    container.appendChild(this.noticeEl);
    this.noticeEl.addEventListener("click", () => this.hide());
    window.setTimeout(() => this.hide(), duration || 5000);
  }

  hide() {
    this.noticeEl.remove();
  }
}

// ---- markdown ---------------------------------------------------------------------------------

// Wikilinks as Obsidian reads them: inline, so `[[x]]` in code stays code.
marked.use({
  extensions: [
    {
      name: "wikilink",
      level: "inline",
      start: (src) => src.indexOf("[["),
      tokenizer(src) {
        const m = /^!?\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]/.exec(src);
        if (m) return { type: "wikilink", raw: m[0], target: m[1], alias: m[2] };
      },
      renderer(token) {
        const text = (token.alias ?? token.target).replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
        return `<a class="internal-link" data-href="${encodeURIComponent(token.target)}" href="#">${text}</a>`;
      },
    },
  ],
});

/**
 * Renders markdown with marked: wikilinks become internal links, `> [!kind] Title` blockquotes
 * callouts (as Obsidian draws them: `.callout` with a title and content); nothing executable survives.
 */
function renderMarkdown(markdown, el) {
  const template = document.createElement("template");
  template.innerHTML = marked.parse(markdown, { async: false, gfm: true });
  for (const bad of template.content.querySelectorAll("script, style, iframe, object, embed, link, meta")) bad.remove();
  for (const node of template.content.querySelectorAll("*")) {
    for (const attr of [...node.attributes]) {
      const value = attr.value.trim().toLowerCase();
      if (attr.name.startsWith("on") || ((attr.name === "href" || attr.name === "src") && value.startsWith("javascript:"))) {
        node.removeAttribute(attr.name);
      }
    }
  }
  for (const quote of template.content.querySelectorAll("blockquote")) callout(quote);
  el.appendChild(template.content);
}

/** A blockquote whose first line is `[!kind]± Title` becomes a callout. */
function callout(quote) {
  const first = quote.firstElementChild;
  const marker = first?.tagName === "P" ? /^\[!([\w-]+)\][+-]?[ \t]*([^\n]*)\n?/.exec(first.innerHTML) : null;
  if (!marker) return;
  const box = document.createElement("div");
  box.className = "callout";
  box.dataset.callout = marker[1].toLowerCase();
  const title = box.createDiv({ cls: "callout-title" });
  title.innerHTML = marker[2] || marker[1][0].toUpperCase() + marker[1].slice(1).toLowerCase();
  const content = box.createDiv({ cls: "callout-content" });
  first.innerHTML = first.innerHTML.slice(marker[0].length);
  if (!first.innerHTML.trim()) first.remove();
  content.append(...quote.childNodes);
  quote.replaceWith(box);
}

MarkdownRenderer.render = async function render(app, markdown, el) {
  renderMarkdown(markdown, el);
  for (const link of el.querySelectorAll("a.internal-link")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();
      void app.workspace.openLinkText(decodeURIComponent(link.dataset.href), "", false);
    });
  }
};
MarkdownRenderer.renderMarkdown = async function renderMd(markdown, el) {
  renderMarkdown(markdown, el);
};

// ---- requestUrl: through the page's server, like Obsidian's CORS-free request -----------------

const toBase64 = (bytes) => {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const fromBase64 = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

/** Counts requestUrl calls, for tests. */
export const requestLog = [];

export async function requestUrl(request) {
  const params = typeof request === "string" ? { url: request } : request;
  requestLog.push(params.url);
  let body;
  if (typeof params.body === "string") body = toBase64(new TextEncoder().encode(params.body));
  else if (params.body) body = toBase64(new Uint8Array(params.body));
  const headers = { ...(params.headers ?? {}) };
  if (params.contentType) headers["content-type"] = params.contentType;
  const answer = await fetch("/host/request", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: params.url, method: params.method ?? "GET", headers, body }),
  });
  if (!answer.ok) throw new Error(`request failed: ${await answer.text()}`);
  const { status, headers: responseHeaders, body: responseBody } = await answer.json();
  const bytes = fromBase64(responseBody);
  const text = new TextDecoder().decode(bytes);
  const response = {
    status,
    headers: responseHeaders,
    arrayBuffer: bytes.buffer,
    text,
    get json() {
      return JSON.parse(text);
    },
  };
  if (status >= 400 && params.throw !== false) throw Object.assign(new Error(`Request failed, status ${status}`), response);
  return response;
}

// ---- menus -------------------------------------------------------------------------------------

/**
 * Shows `menu` (the mocks' `Menu`, which records its items) at (x, y) as Obsidian draws one: a
 * `.menu` of `.menu-item`s with their icons and titles. A click runs the item and closes the
 * menu, as a click elsewhere or Escape does; a menu without items is not shown.
 */
export function showMenu(menu, x, y) {
  document.querySelector(".menu")?.remove();
  const items = menu.menuItems__;
  if (!items.length) return;
  const el = document.body.createDiv({ cls: "menu" });
  const close = () => {
    el.remove();
    document.removeEventListener("mousedown", outside, true);
    document.removeEventListener("keydown", escape, true);
  };
  const outside = (evt) => !el.contains(evt.target) && close();
  const escape = (evt) => evt.key === "Escape" && close();
  for (const item of items) {
    const row = el.createDiv({ cls: "menu-item tappable" });
    const icon = row.createDiv({ cls: "menu-item-icon" });
    if (item.icon__) mocks.setIcon(icon, item.icon__);
    row.createDiv({ cls: "menu-item-title", text: item.title__ });
    row.addEventListener("click", (evt) => {
      close();
      item.onClick__?.(evt);
    });
  }
  // Within the window, as Obsidian keeps its menus.
  el.style.left = `${Math.max(0, Math.min(x, window.innerWidth - el.offsetWidth - 4))}px`;
  el.style.top = `${Math.max(0, Math.min(y, window.innerHeight - el.offsetHeight - 4))}px`;
  document.addEventListener("mousedown", outside, true);
  document.addEventListener("keydown", escape, true);
}

/** A new menu, as Obsidian makes one for a right click. */
export function newMenu() {
  return mocks.Menu.forEvent(null);
}

// ---- the plugin's registrations go into the page ----------------------------------------------

Plugin.prototype.registerView = function registerView(type, creator) {
  viewCreators.set(type, creator);
};

Plugin.prototype.addRibbonIcon = function addRibbonIcon(icon, title, callback) {
  const ribbon = document.querySelector(".workspace-ribbon") ?? document.body;
  const el = ribbon.createDiv({ cls: "side-dock-ribbon-action clickable-icon", attr: { "aria-label": title, title } });
  mocks.setIcon(el, icon);
  el.addEventListener("click", callback);
  return el;
};

/** `obsidian://` actions registered by plugins, and their handlers. */
export const protocolHandlers = new Map();

Plugin.prototype.registerObsidianProtocolHandler = function registerObsidianProtocolHandler(action, handler) {
  protocolHandlers.set(action, handler);
};

Plugin.prototype.addStatusBarItem = function addStatusBarItem() {
  const bar = document.querySelector(".status-bar") ?? document.body;
  return bar.createDiv({ cls: "status-bar-item" });
};

// Leaves in the right sidebar hold real views: setViewState creates the view and opens it.
const originalSetViewState = WorkspaceLeaf.prototype.setViewState;
WorkspaceLeaf.prototype.setViewState = async function setViewState(state, eState) {
  await originalSetViewState.call(this, state, eState);
  const creator = viewCreators.get(state.type);
  if (!creator || this.view?.getViewType() === state.type) return;
  const view = creator(this);
  this.view = view;
  view.containerEl.addClass("workspace-leaf-content");
  view.containerEl.dataset.type = state.type;
  view.contentEl.addClass("view-content");
  this.containerEl__.replaceChildren(view.containerEl);
  view.load();
  await view.onOpen();
};

const originalDetach = WorkspaceLeaf.prototype.detach;
WorkspaceLeaf.prototype.detach = function detach() {
  const view = this.view;
  if (view) {
    void view.onClose();
    view.unload();
  }
  own(this, "containerEl__")?.remove();
  originalDetach.call(this);
};

// ---- settings controls react to the user --------------------------------------------------------

// Obsidian's class names on a setting's parts, so its description is drawn muted and smaller,
// and a heading bold, as in the app (the mocks make bare divs).
const settingInit = Setting.prototype.constructor__;
Setting.prototype.constructor__ = function constructor__(containerEl) {
  settingInit.call(this, containerEl);
  this.settingEl.addClass("setting-item");
  this.controlEl.addClass("setting-item-control");
  this.infoEl.addClass("setting-item-info");
  this.nameEl.addClass("setting-item-name");
  this.descEl.addClass("setting-item-description");
};

const listen = (el, type, handler) => el.addEventListener(type, handler);

AbstractTextComponent.prototype.onChange = function onChange(callback) {
  this._onChange = callback;
  if (!own(this, "listening__")) {
    this.listening__ = true;
    listen(this.inputEl, "input", () => {
      this.value = this.inputEl.value;
      this._onChange?.(this.inputEl.value);
    });
  }
  return this;
};
// Obsidian's setValue does not call onChange; the mocks' does.
AbstractTextComponent.prototype.setValue = function setValue(value) {
  this.value = value;
  this.inputEl.value = value;
  return this;
};

DropdownComponent.prototype.onChange = function onChange(callback) {
  this.changeCallback = () => callback(this.getValue());
  if (!own(this, "listening__")) {
    this.listening__ = true;
    this.selectEl.addClass("dropdown");
    listen(this.selectEl, "change", () => this.changeCallback?.());
  }
  return this;
};
DropdownComponent.prototype.setValue = function setValue(value) {
  this.selectEl.value = value;
  return this;
};

ToggleComponent.prototype.onChange = function onChange(callback) {
  this._onChange = callback;
  if (!own(this, "listening__")) {
    this.listening__ = true;
    this.toggleEl.addClass("checkbox-container");
    this.toggleEl.toggleClass("is-enabled", this.value);
    listen(this.toggleEl, "click", () => {
      this.value = !this.value;
      this.toggleEl.toggleClass("is-enabled", this.value);
      this._onChange?.(this.value);
    });
  }
  return this;
};
ToggleComponent.prototype.setValue = function setValue(value) {
  this.value = value;
  this.toggleEl.addClass("checkbox-container");
  this.toggleEl.toggleClass("is-enabled", value);
  return this;
};

// An extra button is an icon that can be clicked, as in Obsidian (the mocks only note its name).
ExtraButtonComponent.prototype.setIcon = function setIcon(icon) {
  this.extraSettingsEl.addClass("clickable-icon", "extra-setting-button");
  mocks.setIcon(this.extraSettingsEl, icon);
  return this;
};

for (const Cls of [ButtonComponent, ExtraButtonComponent]) {
  const original = Cls.prototype.onClick;
  Cls.prototype.onClick = function onClick(callback) {
    original.call(this, callback);
    const el = own(this, "buttonEl") ?? own(this, "extraSettingsEl");
    if (el && !own(this, "listening__")) {
      this.listening__ = true;
      listen(el, "click", (evt) => this.clickHandler?.(evt));
    }
    return this;
  };
}

/**
 * Obsidian's `loadPdfJs`: the real PDF.js (pdfjs-dist, bundled into the page), its worker served
 * beside the page as Obsidian serves its own.
 */
export async function loadPdfJs() {
  const pdfjs = await import("pdfjs-dist");
  pdfjs.GlobalWorkerOptions.workerSrc = "/host/pdf.worker.mjs";
  return pdfjs;
}

export * from "obsidian-test-mocks/obsidian";
