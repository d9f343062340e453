import { htmlToMarkdown } from "obsidian";

/** What a reader does not see, or cannot use in Markdown (`UNSEEN_HTML` in `src/tools/web_fetch.rs`). */
const UNSEEN = "head, script, style, noscript, template, svg, iframe, form, button";

/**
 * A web page's HTML as Markdown, for the core's `web_fetch` (`VaultHost.htmlToMarkdown`): parsed
 * into an inert document (nothing runs, nothing loads), its unseen parts removed, then converted
 * by Obsidian's own `htmlToMarkdown`, so no HTML parser ships in the wasm.
 */
export function pageMarkdown(html: string): string {
  const page = new DOMParser().parseFromString(html, "text/html");
  for (const element of Array.from(page.querySelectorAll(UNSEEN))) element.remove();
  return htmlToMarkdown(page.body).trim();
}
