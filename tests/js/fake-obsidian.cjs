// A small stand-in for the `obsidian` module, enough to load the built main.js in node:
// Plugin lifecycle, Notice, normalizePath, TFile, and a vault whose adapter is a real in-memory store.
const notices = [];

class Notice {
  constructor(message) {
    this.message = message;
    notices.push(message);
  }
}

class TAbstractFile {}
class TFile extends TAbstractFile {
  constructor(path) {
    super();
    this.path = path;
  }
}

const normalizePath = (p) => p.replace(/\\/g, "/").replace(/\/+/g, "/").replace(/^\/|\/$/g, "") || "/";

class MemoryAdapter {
  constructor(files) {
    this.files = new Map(Object.entries(files).map(([p, t]) => [p, new TextEncoder().encode(t)]));
  }
  folders() {
    const set = new Set();
    for (const p of this.files.keys()) {
      const parts = p.split("/");
      for (let i = 1; i < parts.length; i++) set.add(parts.slice(0, i).join("/"));
    }
    return set;
  }
  async stat(p) {
    if (p === "/") return { type: "folder", size: 0, mtime: 0, ctime: 0 };
    const f = this.files.get(p);
    if (f) return { type: "file", size: f.length, mtime: 1, ctime: 1 };
    return this.folders().has(p) ? { type: "folder", size: 0, mtime: 0, ctime: 0 } : null;
  }
  async list(p) {
    const dir = p === "/" ? "" : p;
    const child = (x) => (x.includes("/") ? x.slice(0, x.lastIndexOf("/")) : "") === dir;
    return { files: [...this.files.keys()].filter(child), folders: [...this.folders()].filter(child) };
  }
  async readBinary(p) {
    const f = this.files.get(p);
    return f.buffer.slice(f.byteOffset, f.byteOffset + f.byteLength);
  }
  async write(p, text) {
    this.files.set(p, new TextEncoder().encode(text));
  }
  async writeBinary(p, data) {
    this.files.set(p, new Uint8Array(data));
  }
  async mkdir() {}
}

class App {
  constructor(files) {
    const adapter = new MemoryAdapter(files);
    this.vault = { adapter, getAbstractFileByPath: (p) => (adapter.files.has(p) ? new TFile(p) : null) };
    this.workspace = { onLayoutReady: (cb) => cb() };
  }
}

class Plugin {
  constructor(app, manifest) {
    this.app = app;
    this.manifest = manifest;
    this.commands = [];
    this.ribbon = [];
  }
  addCommand(c) {
    this.commands.push(c);
    return c;
  }
  addRibbonIcon(icon, title, cb) {
    this.ribbon.push({ icon, title, cb });
  }
}

module.exports = { App, Notice, Plugin, TFile, TAbstractFile, normalizePath, notices };
