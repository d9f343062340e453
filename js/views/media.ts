import { normalizePath, setIcon, type App } from "obsidian";

/** Files the chat attaches besides notes: what the core sends as images or PDFs. */
const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** Where images pasted or dropped into the chat are kept: the plugin's own folder, not the notes. */
export const PASTED_FOLDER = ".obsidian-agent/attachments";

function extension(path: string): string {
  const dot = path.lastIndexOf(".");
  return dot < 0 ? "" : path.slice(dot + 1).toLowerCase();
}

export function isImage(path: string): boolean {
  return !isWebPage(path) && extension(path) in IMAGE_TYPES;
}

/** Whether the chat can attach `path`: a note, an image or a PDF. */
export function isAttachable(path: string): boolean {
  const ext = extension(path);
  return ext === "md" || ext === "pdf" || ext in IMAGE_TYPES;
}

/** The image files among `files` (a paste's or a drop's). */
export function imageFiles(files: FileList | null | undefined): File[] {
  return Array.from(files ?? []).filter((f) => Object.values(IMAGE_TYPES).includes(f.type));
}

/**
 * Keeps `file` (pasted or dropped) under {@link PASTED_FOLDER} and answers its vault path, which
 * the message then attaches like any other file.
 */
export async function keepPastedImage(app: App, file: File, now = new Date()): Promise<string> {
  const adapter = app.vault.adapter;
  if (!(await adapter.exists(PASTED_FOLDER))) await adapter.mkdir(PASTED_FOLDER);
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const ext = Object.entries(IMAGE_TYPES).find(([, type]) => type === file.type)?.[0] ?? "png";
  const base = (file.name.replace(/\.[^.]*$/, "") || "pasted").replace(/[^\p{L}\p{N}_-]+/gu, "-").slice(0, 40);
  let path = normalizePath(`${PASTED_FOLDER}/${stamp}-${base}.${ext}`);
  for (let n = 2; await adapter.exists(path); n++) path = normalizePath(`${PASTED_FOLDER}/${stamp}-${base}-${n}.${ext}`);
  await adapter.writeBinary(path, await file.arrayBuffer());
  return path;
}

/**
 * How a chip names `path`: a pasted image by the name it was pasted with, a web page by its
 * address without the scheme, an MCP resource by its name, anything else by its path. Marked
 * left-to-right, so a label cut at its start (the chip is right-to-left for that) keeps its
 * punctuation in place.
 */
export function attachmentLabel(path: string): string {
  const resource = attachedResource(path);
  const pasted = path.startsWith(`${PASTED_FOLDER}/`) ? path.slice(PASTED_FOLDER.length + 1).replace(/^\d{8}-\d{6}-/, "") : path;
  const label = resource ? resource.name : isWebPage(path) ? path.replace(/^https?:\/\/(www\.)?/i, "").replace(/\/$/, "") : pasted;
  return `\u200e${label}\u200e`;
}

/**
 * Shows `path` in `el`: a thumbnail for an image (read from the vault; the object URL is
 * released when the image has loaded), an icon for a PDF, a folder (`path` ends in "/"), a web
 * page or an MCP resource. Nothing for a note.
 */
export function showMedia(app: App, el: HTMLElement, path: string): void {
  const icon = isWebPage(path) ? "globe" : attachedResource(path) ? "plug" : path.endsWith("/") ? "folder" : null;
  if (icon) {
    setIcon(el.createSpan({ cls: "vault-agent-chip-icon" }), icon);
    return;
  }
  if (extension(path) === "pdf") {
    setIcon(el.createSpan({ cls: "vault-agent-chip-icon" }), "file-text");
    return;
  }
  const type = IMAGE_TYPES[extension(path)];
  if (!type) return;
  const img = el.createEl("img", { cls: "vault-agent-thumb", attr: { alt: path } });
  void app.vault.adapter.readBinary(normalizePath(path)).then(
    (bytes) => {
      const url = URL.createObjectURL(new Blob([bytes], { type }));
      img.addEventListener("load", () => URL.revokeObjectURL(url), { once: true });
      img.src = url;
    },
    () => img.remove(),
  );
}

/** Whether an attachment is a web page (an http(s) address: a vault path holds no colon). */
export function isWebPage(attachment: string): boolean {
  return /^https?:\/\//i.test(attachment);
}

/**
 * The server and URI of an attached MCP resource (the core's `mcp:<server>:<uri>`, which no
 * vault path can be: a path holds no colon), and the name a chip shows for it: the URI's last
 * part. Null for a vault path.
 */
export function attachedResource(attachment: string): { server: string; uri: string; name: string } | null {
  const match = /^mcp:([A-Za-z0-9_-]+):(.+)$/.exec(attachment);
  if (!match) return null;
  const [, server, uri] = match;
  const last = uri.replace(/[?#].*$/, "").split("/").filter(Boolean).pop() ?? uri;
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // Not percent-encoded text: shown as it is.
  }
  return { server, uri, name };
}
