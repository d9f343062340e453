// A VaultHost held in JS memory, with the error codes the contract names (ENOENT, EEXIST, EISDIR,
// ENOTDIR, EILSEQ). It plays the part of Obsidian's adapter in headless-Chrome tests of JsVault.
function fail(code, message) {
  const e = new Error(`${code}: ${message}`);
  e.code = code;
  return e;
}

const parentOf = (p) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
const under = (p, dir) => p === dir || p.startsWith(dir + "/");

export class MemoryHost {
  constructor() {
    this.files = new Map(); // path -> { data: Uint8Array, mtime }
    this.folders = new Set([""]);
    this.clock = 1_700_000_000_000;
  }
  ensureParents(p) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (this.files.has(dir)) throw fail("ENOTDIR", dir);
    }
    for (let i = 1; i < parts.length; i++) this.folders.add(parts.slice(0, i).join("/"));
  }
  exists(p) {
    return this.files.has(p) || this.folders.has(p);
  }
  put(p, data) {
    if (this.folders.has(p)) throw fail("EISDIR", p);
    this.ensureParents(p);
    this.files.set(p, { data, mtime: ++this.clock });
  }
  get(p) {
    if (this.folders.has(p)) throw fail("EISDIR", p);
    const f = this.files.get(p);
    if (!f) throw fail("ENOENT", p);
    return f.data;
  }
  move(from, to) {
    for (const [p, f] of [...this.files]) {
      if (under(p, from)) {
        this.files.delete(p);
        this.files.set(to + p.slice(from.length), f);
      }
    }
    for (const p of [...this.folders]) {
      if (p !== "" && under(p, from)) {
        this.folders.delete(p);
        this.folders.add(to + p.slice(from.length));
      }
    }
  }
  async read(p) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(this.get(p));
    } catch (e) {
      if (e.code) throw e;
      throw fail("EILSEQ", `${p} is not UTF-8 text`);
    }
  }
  async readBinary(p) {
    return this.get(p).slice();
  }
  // As js/host/VaultHost.ts's readBatch: JsVault sends a batch in one call when a host has it.
  async readBatch(paths) {
    return Promise.all(
      paths.map(async (p) => {
        try {
          const [text, stat] = await Promise.all([this.read(p), this.stat(p)]);
          return { text, mtime: stat?.mtime ?? 0 };
        } catch (e) {
          return e.code ? { error: e.message, code: e.code } : { error: String(e.message ?? e) };
        }
      }),
    );
  }
  async write(p, text) {
    this.put(p, new TextEncoder().encode(text));
  }
  async writeBinary(p, data) {
    this.put(p, new Uint8Array(data));
  }
  async list(dir) {
    if (this.files.has(dir)) throw fail("ENOTDIR", dir);
    if (!this.folders.has(dir)) throw fail("ENOENT", dir);
    const child = (p) => p !== "" && parentOf(p) === dir;
    return { files: [...this.files.keys()].filter(child), folders: [...this.folders].filter(child) };
  }
  async stat(p) {
    const f = this.files.get(p);
    if (f) return { kind: "file", size: f.data.length, mtime: f.mtime };
    if (this.folders.has(p)) return { kind: "folder", size: 0, mtime: this.clock };
    return null;
  }
  async mkdir(p) {
    if (this.files.has(p)) throw fail("ENOTDIR", p);
    this.ensureParents(p);
    this.folders.add(p);
  }
  async rename(from, to) {
    if (!this.exists(from)) throw fail("ENOENT", from);
    if (this.exists(to)) throw fail("EEXIST", to);
    if (under(to, from)) throw new Error(`cannot move ${from} into itself`);
    this.ensureParents(to);
    this.move(from, to);
  }
  async trash(p) {
    if (!this.exists(p)) throw fail("ENOENT", p);
    // .trash/<path>; straight into .trash/ when a file there blocks the folders on the way.
    let rel = p;
    const parts = `.trash/${p}`.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (this.files.has(parts.slice(0, i).join("/"))) {
        rel = p.slice(p.lastIndexOf("/") + 1);
        break;
      }
    }
    let dest = `.trash/${rel}`;
    for (let n = 1; this.exists(dest); n++) {
      const dot = rel.lastIndexOf(".");
      const slash = rel.lastIndexOf("/");
      dest = dot > slash + 1 ? `.trash/${rel.slice(0, dot)} ${n}${rel.slice(dot)}` : `.trash/${rel} ${n}`;
    }
    this.ensureParents(dest);
    this.move(p, dest);
  }
  async remove(p) {
    if (!this.exists(p)) throw fail("ENOENT", p);
    for (const f of [...this.files.keys()]) if (under(f, p)) this.files.delete(f);
    for (const f of [...this.folders]) if (f !== "" && under(f, p)) this.folders.delete(f);
  }
}

export function newMemoryHost() {
  return new MemoryHost();
}

// As js/host/obsidianVaultHost.ts's readBatch: each note comes as its bytes (a copy), and the core
// decodes them.
export function newBytesHost() {
  const host = new MemoryHost();
  host.readBatch = async (paths) =>
    Promise.all(
      paths.map(async (p) => {
        try {
          const data = host.get(p);
          return { bytes: data.slice(), mtime: host.files.get(p).mtime };
        } catch (e) {
          return e.code ? { error: e.message, code: e.code } : { error: String(e.message ?? e) };
        }
      }),
    );
  return host;
}

// A host whose every call fails, in the three ways a JS host can fail.
export function newFailingHost() {
  const host = new MemoryHost();
  host.read = async (p) => {
    throw new Error(`disk on fire while reading ${p}`);
  };
  host.readBinary = async () => {
    throw "a bare string rejection";
  };
  host.write = () => {
    throw new TypeError("thrown synchronously, not rejected");
  };
  host.list = async () => ({ files: "not an array" });
  return host;
}
