// A VaultHost over strings held in memory, as Obsidian's cachedRead serves them: the benchmark
// measures the engine, not a host's I/O. Browser-side (loaded by bench/page.html).
export class BenchHost {
  constructor(files) {
    this.files = new Map(); // path -> { text | data, mtime }
    this.children = new Map([["", { files: new Set(), folders: new Set() }]]);
    this.clock = 1_700_000_000_000;
    for (const [p, text] of Object.entries(files)) this.put(p, { text });
  }
  folder(dir) {
    let entry = this.children.get(dir);
    if (!entry) {
      entry = { files: new Set(), folders: new Set() };
      this.children.set(dir, entry);
      const parent = dir.includes("/") ? dir.slice(0, dir.lastIndexOf("/")) : "";
      this.folder(parent).folders.add(dir);
    }
    return entry;
  }
  put(p, value) {
    const parent = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "";
    this.folder(parent).files.add(p);
    this.files.set(p, { ...value, mtime: ++this.clock });
  }
  missing(p) {
    const e = new Error(`ENOENT: ${p}`);
    e.code = "ENOENT";
    return e;
  }
  async read(p) {
    const f = this.files.get(p);
    if (!f) throw this.missing(p);
    return f.text ?? new TextDecoder().decode(f.data);
  }
  // As the plugin's hosts do: a build reads its notes in batches, one round trip each.
  async readBatch(paths) {
    return paths.map((p) => {
      const f = this.files.get(p);
      if (!f) return { error: `ENOENT: ${p}`, code: "ENOENT" };
      return { text: f.text ?? new TextDecoder().decode(f.data), mtime: f.mtime };
    });
  }
  async readBinary(p) {
    const f = this.files.get(p);
    if (!f) throw this.missing(p);
    return f.data ?? new TextEncoder().encode(f.text);
  }
  async write(p, text) {
    this.put(p, { text });
  }
  async writeBinary(p, data) {
    this.put(p, { data: new Uint8Array(data) });
  }
  async list(dir) {
    const entry = this.children.get(dir);
    if (!entry) throw this.missing(dir);
    return { files: [...entry.files], folders: [...entry.folders] };
  }
  async stat(p) {
    const f = this.files.get(p);
    if (f) return { kind: "file", size: (f.text ?? f.data).length, mtime: f.mtime };
    if (this.children.has(p)) return { kind: "folder", size: 0, mtime: this.clock };
    return null;
  }
  async mkdir(p) {
    this.folder(p);
  }
  // Saving the index writes a temporary file and renames it over the old one (atomic saves).
  async rename(from, to) {
    const f = this.files.get(from);
    if (!f) throw this.missing(from);
    await this.remove(from);
    this.put(to, f);
  }
  async trash() {
    throw new Error("not used by the benchmark");
  }
  async remove(p) {
    this.files.delete(p);
    this.children.get(p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "")?.files.delete(p);
  }
}
