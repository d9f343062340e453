import { loadPdfJs } from "obsidian";

/** The part of PDF.js this reads with (Obsidian ships PDF.js and loads it on demand). */
interface PdfJs {
  getDocument(source: { data: Uint8Array }): { promise: Promise<PdfDocument> };
}
interface PdfDocument {
  numPages: number;
  getPage(number: number): Promise<PdfPage>;
  destroy(): Promise<void>;
}
interface PdfPage {
  getTextContent(): Promise<{ items: { str?: string; hasEOL?: boolean }[] }>;
  cleanup(): void;
}

/**
 * The text of a PDF, one string a page, read with Obsidian's own PDF.js: the core asks for it
 * (`pdfPages`) when the model reads no PDFs itself, so no PDF parser ships in the wasm.
 */
export async function pdfPages(bytes: ArrayBuffer | Uint8Array): Promise<string[]> {
  const pdfjs = (await loadPdfJs()) as PdfJs;
  // PDF.js takes the buffer over: give it a copy, never the caller's.
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes.slice(0)) }).promise;
  try {
    const pages: string[] = [];
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => (item.str ?? "") + (item.hasEOL ? "\n" : "")).join(""));
      page.cleanup();
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}
