import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** A page turned into Markdown. */
export interface ReadablePage {
  title: string | undefined;
  markdown: string;
  /** Whether Readability found an article; otherwise the whole body was converted. */
  article: boolean;
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
});
// Nothing a model can read: dropped with their content.
turndown.remove(['script', 'style', 'noscript', 'iframe', 'svg', 'canvas', 'template', 'form', 'button']);

/**
 * The readable part of an HTML page as Markdown: `linkedom` parses it (no scripts run, nothing is
 * fetched), Readability picks the article, and Turndown writes the Markdown. A page Readability
 * finds no article in is converted whole, body only. Readability hands over its article node
 * itself (its `serializer`), so the HTML is parsed once.
 */
export function htmlToMarkdown(html: string): ReadablePage {
  const { document } = parseHTML(html);
  const pageTitle = document.title?.trim() || undefined;
  let article: { title?: string | null; content?: unknown } | null = null;
  try {
    article = new Readability<unknown>(document as unknown as ReadabilityDocument, {
      serializer: (node) => node,
    }).parse();
  } catch {
    // A page Readability cannot handle is still a page: fall back to its body.
    article = null;
  }
  const root = (article?.content ?? document.body ?? null) as TurndownService.Node | null;
  const markdown = root ? turndown.turndown(root).trim() : '';
  return {
    title: article?.title?.trim() || pageTitle,
    markdown,
    article: article?.content != null,
  };
}
