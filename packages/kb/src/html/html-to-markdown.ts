import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { stripHtml } from './strip-html.js';

/**
 * The one HTML → Markdown path of agentq: `web_fetch` pages (through the builtin tools' conversion
 * threads) and knowledge-base HTML sources both go through {@link htmlToMarkdown}.
 */

/** A page turned into Markdown. */
export interface ReadablePage {
  title: string | undefined;
  markdown: string;
  /** Whether Readability found an article; otherwise (or in `body` mode) the whole body was converted. */
  article: boolean;
  /** Whether text past `maxTextChars` was left out before conversion. */
  pruned: boolean;
}

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /**
   * Text characters of the readable part worth converting; what follows is left out before
   * Turndown runs, since it would be cut anyway.
   * @default no limit
   */
  maxTextChars?: number;
  /**
   * `article`: the part Readability finds to be the article (a fetched page: the model wants the
   * story, not the menus). `body`: the whole body without its navigation (a knowledge-base source:
   * every section of a document is worth indexing).
   * @default 'article'
   */
  mode?: 'article' | 'body';
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

/** The DOM surface the pruning walks (linkedom nodes have it). */
interface PrunableNode {
  textContent: string | null;
  childNodes: ArrayLike<PrunableNode>;
  nextSibling: PrunableNode | null;
  parentNode: { removeChild(child: PrunableNode): unknown } | null;
}

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
});
// Nothing a model can read: dropped with their content.
turndown.remove(['script', 'style', 'noscript', 'iframe', 'svg', 'canvas', 'template', 'form', 'button']);

/**
 * Removes everything after the first `maxChars` characters of text under `root`, in document
 * order. Descends along one path only (into the node where the budget runs out), so it reads each
 * text once: linear in the size of the tree.
 */
function pruneAfter(root: PrunableNode, maxChars: number): boolean {
  let used = 0;
  let removed = false;
  let node: PrunableNode | null = root.childNodes[0] ?? null;
  while (node) {
    const length = node.textContent?.length ?? 0;
    if (used + length <= maxChars) {
      used += length;
      node = node.nextSibling;
      continue;
    }
    // The budget runs out inside this node: drop what follows it, then go inside it. A text node
    // is kept whole; the token cut after conversion trims it.
    while (node.nextSibling) {
      node.parentNode?.removeChild(node.nextSibling);
      removed = true;
    }
    node = node.childNodes[0] ?? null;
  }
  return removed;
}

/**
 * Text Readability sees, per character of `maxTextChars`: the page's text before the article
 * (header, navigation) counts too, so it gets a quarter more, and never less than
 * {@link minScoredTextChars}, so that a small budget does not change which part is the article.
 */
const scoredTextFactor = 1.25;
const minScoredTextChars = 32_000;

interface ReadableArticle {
  title?: string | null;
  content?: unknown;
}

/** Readability's article of `document`, or `null` when it finds none (or cannot handle the page). */
function readableArticle(document: unknown): ReadableArticle | null {
  try {
    return new Readability<unknown>(document as ReadabilityDocument, {
      serializer: (node) => node,
      disableJSONLD: true,
    }).parse();
  } catch {
    // A page Readability cannot handle is still a page: fall back to its body.
    return null;
  }
}

/**
 * The readable part of an HTML page as Markdown:
 * 1. `stripHtml` rewrites the page without scripts, styles, SVG, forms, comments and unused
 *    attributes, and without the text far past `maxTextChars` (one linear tokenizer pass);
 * 2. `linkedom` builds the smaller page (no scripts run, nothing is fetched), Readability picks
 *    the article, and Turndown writes the Markdown of its first `maxTextChars` of text.
 * A page Readability finds no article in, or any page in `body` mode, is converted whole, body only
 * (without `nav` in `body` mode). Readability hands over its article node itself (its
 * `serializer`), so the page is built once.
 */
export function htmlToMarkdown(html: string, options: HtmlToMarkdownOptions = {}): ReadablePage {
  const stripped = stripHtml(html, {
    ...(options.maxTextChars === undefined
      ? {}
      : { maxTextChars: Math.max(minScoredTextChars, options.maxTextChars * scoredTextFactor) }),
  });
  const { document } = parseHTML(stripped.html);
  const pageTitle = document.title?.trim() || undefined;
  let article: ReadableArticle | null = null;
  if (options.mode === 'body') {
    for (const element of document.querySelectorAll('nav')) element.remove();
  } else {
    article = readableArticle(document);
  }
  const root = (article?.content ?? document.body ?? null) as (TurndownService.Node & PrunableNode) | null;
  const prunedAfter = root !== null && options.maxTextChars !== undefined && pruneAfter(root, options.maxTextChars);
  const pruned = prunedAfter || stripped.truncated;
  const markdown = root ? turndown.turndown(root).trim() : '';
  return { title: article?.title?.trim() || pageTitle, markdown, article: article?.content != null, pruned };
}
