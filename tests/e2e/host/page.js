// A small fake Obsidian: an app from obsidian-test-mocks over an in-memory vault, laid out as
// Obsidian is (ribbon, file list, the open note, the right sidebar, status bar), which loads the
// built main.js exactly as Obsidian does — as CommonJS with `require("obsidian")` — and runs it.
//
// Configuration (window.FAKE_HOST_CONFIG, set by the test before the page loads; else fetched
// from /host/config, which the demo fills from environment variables):
//   { vaultName, files: {path: text} | null, filesUrl: "/vault/bundle" | null, data: {…plugin
//     data.json…}, secrets: {id: value}, theme: "light" | "dark", open: "note path",
//     gate: "note path" | undefined — reading that note waits for `fakeObsidian.openGate()`,
//     mobile: true | undefined — Obsidian's phone app: `Platform.isMobileApp`, `is-mobile` on the
//     body, the sidebar as a full-width drawer }
import { setup } from "obsidian-test-mocks/setup";
import * as cmState from "@codemirror/state";
import * as cmView from "@codemirror/view";
import * as obsidian from "./obsidian.js";

setup();
const { App, TFile } = obsidian;

const host = (window.fakeObsidian = { ready: null, commands: new Map(), savedData: null, log: [] });

async function config() {
  if (window.FAKE_HOST_CONFIG) return window.FAKE_HOST_CONFIG;
  const response = await fetch("/host/config");
  return response.json();
}

async function vaultFiles(cfg) {
  if (cfg.files) return cfg.files;
  if (!cfg.filesUrl) return {};
  status(`Loading the vault…`);
  const response = await fetch(cfg.filesUrl);
  return (await response.json()).files;
}

function status(text) {
  document.querySelector(".fake-host-loading")?.setText(text);
}

/** The page's layout, as Obsidian's. */
function layout() {
  const app = document.body.createDiv({ cls: "app-container" });
  const ribbon = app.createDiv({ cls: "workspace-ribbon side-dock-ribbon mod-left" });
  const left = app.createDiv({ cls: "workspace-split mod-left-split" });
  const root = app.createDiv({ cls: "workspace-split mod-root" });
  const right = app.createDiv({ cls: "workspace-split mod-right-split" });
  document.body.createDiv({ cls: "status-bar" });
  return { ribbon, left, root, right };
}

async function boot() {
  const cfg = await config();
  document.body.addClass(cfg.theme === "dark" ? "theme-dark" : "theme-light");
  if (cfg.mobile) phone();
  const parts = layout();
  parts.root.createDiv({ cls: "fake-host-loading", text: "Starting…" });
  const files = await vaultFiles(cfg);
  const app = App.createConfigured__({});
  host.app = app;
  populate(app, files);
  fixAdapter(app.vault.adapter);
  datedFiles(app.vault);
  if (cfg.gate) gate(app.vault.adapter, cfg.gate);
  app.vault.getName = () => cfg.vaultName ?? "Vault";
  app.isDarkMode = () => document.body.hasClass("theme-dark");
  for (const [id, secret] of Object.entries(cfg.secrets ?? {})) app.secretStorage.setSecret(id, secret);

  const notes = noteView(app, parts.root);
  host.notes = notes;
  fileList(app, parts.left, notes);
  workspaceGlue(app, parts.right, notes);
  themeToggle(parts.ribbon);

  let data = structuredClone(cfg.data ?? null);
  const store = { load: async () => structuredClone(data), save: async (next) => void (data = structuredClone(next)) };
  host.parts = parts;
  host.store = store;
  // `?noplugin`: the host alone, so a benchmark can tell the plugin's memory from the page's.
  if (!new URLSearchParams(location.search).has("noplugin")) await loadPlugin(app, parts, store);
  app.workspace.setLayoutReady__();
  if (cfg.open) await app.workspace.openLinkText(cfg.open, "", false);
  document.querySelector(".fake-host-loading")?.remove();
  if (!cfg.open) notes.placeholder();
  host.booted = true;
}

/**
 * Puts `files` in the vault. The mocks' metadata cache resolves every link against every file,
 * which takes minutes for a vault of thousands of notes; the plugin does not use it, so it is
 * switched off.
 */
function populate(app, files) {
  app.metadataCache.parseFileMetadata = () => {};
  const folders = new Set();
  for (const path of Object.keys(files)) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  for (const folder of [...folders].sort()) app.vault.createFolderSync__(folder);
  for (const [path, text] of Object.entries(files)) app.vault.createSync__(path, text);
}

/** Runs a command the plugin registered, as the command palette would. */
host.runCommand = (id) => {
  const command = host.commands.get(id);
  if (!command) throw new Error(`no command ${id}`);
  if (command.callback) return command.callback();
  if (command.checkCallback) return command.checkCallback(false);
  // Editor commands get the open note's editor, as Obsidian gives them the active one.
  const view = host.app.workspace.activeEditor;
  if (command.editorCheckCallback && view) return command.editorCheckCallback(false, view.editor, view);
  throw new Error(`command ${id} cannot run here`);
};

/** Selects the first `text` in the open note's editor (an empty `text`: the cursor at its start). */
host.select = (text) => {
  const { cm } = host.app.workspace.activeEditor.editor;
  const from = cm.state.doc.toString().indexOf(text);
  if (from < 0) throw new Error(`the note has no ${JSON.stringify(text)}`);
  cm.dispatch({ selection: { anchor: from, head: from + text.length } });
};

/** The file explorer's menu for the file or folder at `path` (the list shows notes only), shown at (x, y). */
host.fileMenu = (path, x = 200, y = 200) => {
  const { vault, workspace } = host.app;
  const item = path === "/" ? vault.getRoot() : vault.getAbstractFileByPath(path);
  if (!item) throw new Error(`the vault has no ${path}`);
  const menu = obsidian.newMenu();
  workspace.trigger("file-menu", menu, item, "file-explorer", null);
  obsidian.showMenu(menu, x, y);
};

/** A note's current text in the vault (for tests). */
// Pages the plugin opens in the browser (Obsidian hands them to the system's browser): kept
// for the test, which plays the browser.
host.opened = [];
window.open = (url) => {
  host.opened.push(String(url));
  return null;
};

/** The system hands Obsidian an `obsidian://ACTION?…` address: the action's handler gets its parameters. */
host.openObsidianUrl = (address) => {
  const url = new URL(address);
  const action = url.hostname || url.pathname.replace(/^\/+/, "");
  const handler = obsidian.protocolHandlers.get(action);
  if (!handler) throw new Error(`no handler for obsidian://${action}`);
  handler({ action, ...Object.fromEntries(url.searchParams) });
};

// The workers the page's scripts made and have not ended: a plugin that unloads ends its own.
const liveWorkers = new Set();
if (typeof window.Worker === "function") {
  window.Worker = class extends window.Worker {
    constructor(...args) {
      super(...args);
      liveWorkers.add(this);
    }
    terminate() {
      liveWorkers.delete(this);
      super.terminate();
    }
  };
}
host.liveWorkers = () => liveWorkers.size;

host.read = async (path) => host.app.vault.adapter.read(path);
host.exists = async (path) => (await host.app.vault.adapter.stat(path)) !== null;

/**
 * The mocks' in-memory adapter keeps text and binary files apart and roots the vault at "";
 * Obsidian's adapter reads either kind either way, and calls the root "/".
 */
function fixAdapter(adapter) {
  const root = (p) => (p === "/" ? "" : p);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const wrap = (name, fn) => {
    const original = adapter[name].bind(adapter);
    adapter[name] = (...args) => fn(original, ...args);
  };
  wrap("stat", async (orig, p) => {
    const stat = await orig(root(p));
    if (stat?.type === "file" && adapter.textFiles.has(root(p))) stat.size = utf8Length(adapter.textFiles.get(root(p)));
    return stat;
  });
  // The mocks' `list` scans every file and folder of the vault for each folder listed (through
  // a proxy, slicing each path): on gen50k a full build's walk spent ~0.6 s of the UI thread
  // there and made ~100 MB of garbage, where Obsidian reads one directory. Listings come from a
  // map of each folder's children, made when first asked and again after a path comes or goes.
  let children = null;
  const forgetChildren = (collection, add, remove) => {
    const [addOne, removeOne] = [collection[add].bind(collection), collection[remove].bind(collection)];
    collection[add] = (key, ...rest) => {
      if (!collection.has(key)) children = null;
      return addOne(key, ...rest);
    };
    collection[remove] = (key) => {
      if (collection.has(key)) children = null;
      return removeOne(key);
    };
    const clear = collection.clear.bind(collection);
    collection.clear = () => ((children = null), clear());
  };
  forgetChildren(adapter.textFiles, "set", "delete");
  forgetChildren(adapter.binaryFiles, "set", "delete");
  forgetChildren(adapter.directories, "add", "delete");
  const childrenOf = (folder) => {
    if (!children) {
      children = new Map();
      const entry = (p) => {
        const parent = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "";
        return children.get(parent) ?? children.set(parent, { files: [], folders: [] }).get(parent);
      };
      for (const p of adapter.textFiles.keys()) if (p !== "") entry(p).files.push(p);
      for (const p of adapter.binaryFiles.keys()) if (p !== "") entry(p).files.push(p);
      for (const p of adapter.directories) if (p !== "") entry(p).folders.push(p);
    }
    const { files = [], folders = [] } = children.get(folder) ?? {};
    return { files: [...files], folders: [...folders] };
  };
  wrap("list", async (orig, p) => {
    await Promise.resolve();
    return childrenOf(root(p));
  });
  // The mocks rebuild their set of lower-cased paths from every file after each rename or
  // remove (on gen50k: 50,000 strings made on the UI thread per call, which showed as a long task
  // when the plugin saved its index); Obsidian's adapter renames or removes a file with one
  // syscall. A file's rename and remove update the set for its own paths; folders go as before.
  const forget = (p) => {
    const lower = p.toLowerCase();
    for (const keys of [adapter.textFiles.keys(), adapter.binaryFiles.keys(), adapter.directories.values()]) {
      for (const k of keys) if (k.length === lower.length && k.toLowerCase() === lower) return;
    }
    adapter.lowerCaseKeys.delete(lower);
  };
  const fileMap = (p) => (adapter.textFiles.has(p) ? adapter.textFiles : adapter.binaryFiles.has(p) ? adapter.binaryFiles : null);
  wrap("rename", async (orig, from, to) => {
    const files = fileMap(from);
    if (!files || adapter.directories.has(from)) return orig(from, to);
    await Promise.resolve();
    const meta = adapter.fileMeta.get(from);
    adapter.textFiles.delete(to);
    adapter.binaryFiles.delete(to);
    files.set(to, files.get(from));
    files.delete(from);
    adapter.fileMeta.delete(from);
    if (meta) adapter.fileMeta.set(to, meta);
    adapter.ensureParentDirs(to);
    adapter.lowerCaseKeys.add(to.toLowerCase());
    forget(from);
  });
  wrap("remove", async (orig, p) => {
    const files = fileMap(p);
    if (!files) return orig(p);
    await Promise.resolve();
    files.delete(p);
    adapter.fileMeta.delete(p);
    forget(p);
  });
  // Obsidian reads a file into a new buffer each time (the plugin moves a batch's buffers to
  // its worker); the mocks answer the one they keep.
  wrap("readBinary", async (orig, p) => {
    const text = adapter.textFiles.get(p);
    return text === undefined ? (await orig(p)).slice(0) : encoder.encode(text).buffer;
  });
  wrap("read", async (orig, p) => {
    const bytes = adapter.binaryFiles.get(p);
    return bytes === undefined ? orig(p) : decoder.decode(bytes);
  });
  wrap("write", async (orig, p, data, options) => {
    adapter.binaryFiles.delete(p);
    return orig(p, data, options);
  });
  wrap("writeBinary", async (orig, p, data, options) => {
    adapter.textFiles.delete(p);
    return orig(p, data, options);
  });
}

/** Obsidian keeps each file's `stat` current; the mocks leave it at 0. */
function datedFiles(vault) {
  const markdownFiles = vault.getMarkdownFiles.bind(vault);
  vault.getMarkdownFiles = () =>
    markdownFiles().map((file) => {
      const meta = vault.adapter.fileMeta.get(file.path);
      if (meta) file.stat = { ctime: meta.ctime, mtime: meta.mtime, size: meta.size };
      return file;
    });
}

/** Reading `path` waits until the test calls `fakeObsidian.openGate()` (work held mid-way). */
function gate(adapter, path) {
  const opened = new Promise((resolve) => (host.openGate = resolve));
  const original = adapter.readBinary.bind(adapter);
  adapter.readBinary = async (p) => {
    if (p === path) await opened;
    return original(p);
  };
}

/**
 * The open note in the middle: its title and a CodeMirror 6 editor (Obsidian's editor, in source
 * mode) holding its text. What is typed is saved to the vault at once; when the vault changes
 * under it (the agent wrote), the editor takes the new text, keeping the cursor where it was (at
 * the end if it was there). A note opens with the cursor at its end. Plugins' editor extensions
 * (`registerEditorExtension`) are part of it.
 */
function noteView(app, root) {
  const { EditorState, Compartment, Annotation } = cmState;
  const { EditorView, drawSelection } = cmView;
  const header = root.createDiv({ cls: "view-header" });
  const title = header.createDiv({ cls: "view-header-title" });
  const body = root.createDiv({ cls: "markdown-source-view mod-cm6 fake-host-note" });
  const fromVault = Annotation.define();
  const plugins = new Compartment();
  let current = null;
  let saving = null;
  const save = async () => {
    if (!current) return;
    const text = view.state.doc.toString();
    if ((await app.vault.read(current)) !== text) await app.vault.modify(current, text);
  };
  const view = new EditorView({
    parent: body,
    state: EditorState.create({
      doc: "",
      extensions: [
        drawSelection(),
        EditorView.lineWrapping,
        plugins.of([]),
        EditorView.updateListener.of((update) => {
          if (!current || !update.docChanged || update.transactions.some((tr) => tr.annotation(fromVault))) return;
          saving = save();
        }),
      ],
    }),
  });
  body.hide();
  // The editor's menu: plugins add to it on `editor-menu` (with the editor and the note).
  body.addEventListener("contextmenu", (evt) => {
    if (!current) return;
    evt.preventDefault();
    const menu = obsidian.newMenu();
    app.workspace.trigger("editor-menu", menu, editor, { file: current, editor });
    obsidian.showMenu(menu, evt.clientX, evt.clientY);
  });
  // A note opened: its text, the cursor at its end. A note changed under the editor: only the
  // stretch that differs is replaced (as Obsidian merges), so the cursor and decorations around
  // it stay; a cursor at the end stays at the end.
  const load = (text, merge) => {
    const doc = view.state.doc.toString();
    if (!merge) {
      view.dispatch({ changes: { from: 0, to: doc.length, insert: text }, selection: { anchor: text.length }, annotations: fromVault.of(true) });
      return;
    }
    let start = 0;
    while (start < doc.length && start < text.length && doc[start] === text[start]) start++;
    let end = 0;
    while (end < doc.length - start && end < text.length - start && doc[doc.length - 1 - end] === text[text.length - 1 - end]) end++;
    const atEnd = view.state.selection.main.head === doc.length;
    const changes = { from: start, to: doc.length - end, insert: text.slice(start, text.length - end) };
    view.dispatch({ changes, ...(atEnd ? { selection: { anchor: text.length } } : {}), annotations: fromVault.of(true) });
  };
  app.vault.on("modify", async (file) => {
    if (file !== current) return;
    const text = await app.vault.read(file);
    if (text !== view.state.doc.toString()) load(text, true);
  });
  app.vault.on("delete", (file) => {
    if (file === current) {
      current = null;
      title.setText("");
      body.hide();
    }
  });
  // Obsidian's `Editor`, over the view: positions are {line, ch} from 0, offsets UTF-16 units.
  const toPos = (offset) => {
    const line = view.state.doc.lineAt(offset);
    return { line: line.number - 1, ch: offset - line.from };
  };
  const toOffset = (pos) => view.state.doc.line(pos.line + 1).from + pos.ch;
  const editor = {
    cm: view,
    getValue: () => view.state.doc.toString(),
    getSelection: () => {
      const { from, to } = view.state.selection.main;
      return view.state.sliceDoc(from, to);
    },
    getCursor: (which = "head") => {
      const range = view.state.selection.main;
      return toPos({ from: range.from, to: range.to, anchor: range.anchor, head: range.head }[which] ?? range.head);
    },
    setSelection: (anchor, head) => view.dispatch({ selection: { anchor: toOffset(anchor), head: toOffset(head ?? anchor) } }),
    replaceSelection: (text) => view.dispatch(view.state.replaceSelection(text)),
    posToOffset: toOffset,
    offsetToPos: toPos,
    focus: () => view.focus(),
  };
  return {
    open: async (file) => {
      current = file;
      title.setText(file.path);
      root.querySelector(".fake-host-hint")?.remove();
      body.show();
      load(await app.vault.read(file), false);
      app.workspace.trigger("file-open", file);
      app.workspace.trigger("active-leaf-change", null);
    },
    file: () => current,
    editor: () => (current ? editor : null),
    /** Writes what the editor holds to the note now (`MarkdownView.save`). */
    save: async () => {
      await saving;
      await save();
    },
    /** The editor extensions of the loaded plugin, in place of the last ones. */
    useExtensions: (extensions) => view.dispatch({ effects: plugins.reconfigure(extensions) }),
    placeholder: () => {
      title.setText("No note open");
      root.createDiv({ cls: "fake-host-hint", text: "Pick a note on the left, or open Vault Agent from the ribbon." });
    },
  };
}

/**
 * Obsidian's phone app, as the plugin sees it: the `Platform` flags (the object main.js gets from
 * `require("obsidian")`) and the classes Obsidian puts on the body.
 */
function phone() {
  Object.assign(obsidian.Platform, {
    isMobileApp: true,
    isMobile: true,
    isPhone: true,
    isDesktopApp: false,
    isDesktop: false,
    isWin: false,
    isAndroidApp: true,
  });
  document.body.addClass("is-mobile", "is-phone");
}

/** A filterable list of the vault's notes (the first 200 that match). */
function fileList(app, left, notes) {
  left.createDiv({ cls: "nav-header", text: app.vault.getName() });
  const filter = left.createEl("input", { type: "search", cls: "fake-host-filter", attr: { placeholder: "Filter notes" } });
  const list = left.createDiv({ cls: "nav-files-container" });
  const render = () => {
    list.empty();
    const q = filter.value.toLowerCase();
    const files = app.vault
      .getMarkdownFiles()
      .filter((f) => f.path.toLowerCase().includes(q))
      .sort((a, b) => a.path.localeCompare(b.path));
    for (const file of files.slice(0, 200)) {
      const item = list.createDiv({ cls: "nav-file-title tree-item-self", text: file.path });
      item.addEventListener("click", () => void notes.open(file));
      // The file explorer's menu: plugins add to it on `file-menu`.
      item.addEventListener("contextmenu", (evt) => {
        evt.preventDefault();
        const menu = obsidian.newMenu();
        app.workspace.trigger("file-menu", menu, file, "file-explorer", null);
        obsidian.showMenu(menu, evt.clientX, evt.clientY);
      });
    }
    if (files.length > 200) list.createDiv({ cls: "nav-file-more", text: `… ${files.length - 200} more` });
  };
  filter.addEventListener("input", render);
  for (const event of ["create", "delete", "rename"]) app.vault.on(event, render);
  render();
}

/** The workspace calls the plugin makes, over the page's layout. */
function workspaceGlue(app, right, notes) {
  const ws = app.workspace;
  ws.getRightLeaf = () => {
    const leaf = obsidian.WorkspaceLeaf.create2__(app);
    leaf.containerEl__ = right.createDiv({ cls: "workspace-leaf" });
    ws.leaves.push(leaf);
    return leaf;
  };
  ws.getActiveFile = () => notes.file();
  // The open note's view: its file, its editor and `save()`, as Obsidian's MarkdownView.
  Object.defineProperty(ws, "activeEditor", {
    configurable: true,
    get: () => {
      const file = notes.file();
      return file ? { file, editor: notes.editor(), save: notes.save } : null;
    },
  });
  ws.openLinkText = async (linktext, _source) => {
    const file = resolve(app, linktext);
    if (file) await notes.open(file);
  };
  ws.getLeaf = () => {
    const leaf = obsidian.WorkspaceLeaf.create2__(app);
    leaf.openFile = async (file) => notes.open(file);
    return leaf;
  };
}

/**
 * Loads main.js as Obsidian does — CommonJS, with `obsidian` provided by the app — and runs the
 * plugin's onload. Each load evaluates the file again (a new wasm instance), as a restart does.
 */
async function loadPlugin(app, parts, store) {
  // Load main.js as Obsidian does: CommonJS, with `obsidian` provided by the app.
  const [source, manifest] = await Promise.all([
    fetch("/host/main.js").then((r) => r.text()),
    fetch("/host/manifest.json").then((r) => r.json()),
  ]);
  const module = { exports: {} };
  const require = (name) => {
    if (name === "obsidian") return obsidian;
    // Obsidian's editor packages, the very modules its editor is made of.
    if (name === "@codemirror/state") return cmState;
    if (name === "@codemirror/view") return cmView;
    throw new Error(`main.js asked for ${name}, which Obsidian does not provide`);
  };
  new Function("module", "exports", "require", source)(module, module.exports, require);
  const PluginClass = module.exports.default ?? module.exports;
  const plugin = new PluginClass(app, manifest);
  host.plugin = plugin;
  plugin.loadData = store.load;
  plugin.saveData = async (next) => {
    await store.save(next);
    host.savedData = structuredClone(next);
  };
  plugin.addCommand = (command) => {
    host.commands.set(command.id, command);
    return command;
  };
  const tabs = [];
  plugin.addSettingTab = (tab) => tabs.push(tab);
  app.setting = {
    open: () => {},
    openTabById: () => openSettings(tabs[0]),
  };
  settingsButton(parts.ribbon, () => openSettings(tabs[0]));

  // Loaded as Obsidian loads it, through `load()`, so that `unload()` later runs the plugin's
  // `onunload` and drops what it registered (a plugin whose `onload` alone ran is not "loaded":
  // its unload does nothing, and its vault events and core live on beside the next one's).
  // `load()` does not wait for an async `onload`; Obsidian does, and so does this host. When the
  // plugin's onload ran and how long it took: bench/ui.mjs reads them.
  const onload = plugin.onload.bind(plugin);
  let loading = null;
  plugin.onload = () => (loading = onload());
  host.onloadStart = performance.now();
  plugin.load();
  await loading;
  host.onloadMs = performance.now() - host.onloadStart;
  host.notes.useExtensions(plugin.editorExtensions__);
}

/**
 * Disables and enables the plugin, as after a restart of the app: the chat views are closed
 * (their leaves detached), the plugin unloaded, main.js loaded again, the chat opened. The vault
 * and the plugin's data stay; `whileClosed(app)`, if given, changes the vault in between.
 */
host.reloadPlugin = async (whileClosed) => {
  const { app, plugin } = host;
  for (const leaf of app.workspace.getLeavesOfType("vault-agent-chat")) {
    await leaf.view?.onClose?.();
    leaf.containerEl__?.remove();
    leaf.detach();
  }
  plugin.unload();
  await whileClosed?.(app);
  host.commands.clear();
  document.querySelectorAll(".side-dock-ribbon-action:not(.fake-host-theme)").forEach((el) => el.remove());
  document.querySelector(".status-bar")?.empty();
  await loadPlugin(app, host.parts, host.store);
  app.workspace.setLayoutReady__();
};

function resolve(app, linktext) {
  const { vault } = app;
  const direct = vault.getAbstractFileByPath(linktext) ?? vault.getAbstractFileByPath(`${linktext}.md`);
  if (direct instanceof TFile) return direct;
  const name = linktext.split("/").pop().replace(/\.md$/, "").toLowerCase();
  return vault.getMarkdownFiles().find((f) => f.basename.toLowerCase() === name) ?? null;
}

function themeToggle(ribbon) {
  const el = ribbon.createDiv({ cls: "side-dock-ribbon-action clickable-icon fake-host-theme", attr: { "aria-label": "Light / dark" } });
  obsidian.setIcon(el, "sun-moon");
  el.addEventListener("click", () => {
    const dark = document.body.hasClass("theme-dark");
    document.body.toggleClass("theme-dark", !dark);
    document.body.toggleClass("theme-light", dark);
  });
}

function settingsButton(ribbon, open) {
  const el = ribbon.createDiv({ cls: "side-dock-ribbon-action clickable-icon fake-host-settings", attr: { "aria-label": "Settings" } });
  obsidian.setIcon(el, "settings");
  el.addEventListener("click", open);
}

/** The plugin's settings tab, in a modal as Obsidian shows it. */
function openSettings(tab) {
  if (!tab) return;
  const modal = new obsidian.Modal(host.app);
  modal.modalEl.addClass("mod-settings");
  modal.onOpen = () => {
    modal.titleEl.setText("Vault Agent");
    tab.containerEl.addClass("vertical-tab-content");
    modal.contentEl.appendChild(tab.containerEl);
    tab.display();
  };
  modal.onClose = () => tab.hide?.();
  modal.open();
}

host.ready = boot().catch((error) => {
  console.error(error);
  document.body.createDiv({ cls: "fake-host-error", text: `The fake host failed: ${error?.stack ?? error}` });
  throw error;
});

/** The length of `text` in UTF-8, counted without encoding it (a stat is asked for often). */
function utf8Length(text) {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}
