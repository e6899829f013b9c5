import { NonRetryableError, type KbDocumentKind } from '@agentq/shared';
import type { DocumentSection } from '../chunk/chunk-sections.js';
import { markdownSections } from '../chunk/markdown-sections.js';

/** A parsed document: its title, if it has one, and its sections. */
export interface ParsedDocument {
  title?: string;
  sections: DocumentSection[];
}

/**
 * Turns a source's bytes into sections: Markdown split at its headings; HTML converted to Markdown
 * (scripts, styles and navigation dropped) and then split the same way; a PDF one section per page;
 * plain text one section. The HTML and PDF libraries load only when a document needs them.
 */
export async function parseDocument(options: { kind: KbDocumentKind; bytes: Uint8Array }): Promise<ParsedDocument> {
  switch (options.kind) {
    case 'markdown':
      return markdownSections(decode(options.bytes));
    case 'text':
      return { sections: [{ text: decode(options.bytes) }] };
    case 'html':
      return await htmlSections(decode(options.bytes));
    case 'pdf':
      return await pdfSections(options.bytes);
  }
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

async function htmlSections(html: string): Promise<ParsedDocument> {
  const { htmlToMarkdown } = await import('../html/html-to-markdown.js');
  const page = htmlToMarkdown(html, { mode: 'body' });
  const parsed = markdownSections(page.markdown);
  const named = page.title || parsed.title;
  return named ? { title: named, sections: parsed.sections } : { sections: parsed.sections };
}

async function pdfSections(bytes: Uint8Array): Promise<ParsedDocument> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  let pages: string[];
  try {
    // unpdf may take ownership of the buffer; hand it a copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    pages = (await extractText(pdf, { mergePages: false })).text;
  } catch (error) {
    throw new NonRetryableError({
      code: 'UNSUPPORTED_SOURCE',
      field: 'source',
      message: `not a readable PDF (${error instanceof Error ? error.message : String(error)})`,
    });
  }
  return { sections: pages.map((text, index) => ({ page: index + 1, text })) };
}
