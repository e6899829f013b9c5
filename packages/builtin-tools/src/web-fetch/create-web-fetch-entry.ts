import { BUILTIN_TOOL_NAMES, type ToolEntry } from '@agentq/registry';
import { tool as defineTool } from 'ai';
import { z } from 'zod';
import type { WebFetcher, WebPage } from './create-web-fetcher.js';

const webFetchInputSchema = z.strictObject({
  url: z.string().min(1).max(2048).describe('The http or https URL of the page to read.'),
});

/** The text the model gets for a page: where it came from, then the content, then any cut note. */
export function renderWebPage(page: WebPage, maxTokens: number): string {
  const head = [
    `URL: ${page.url}`,
    ...(page.title ? [`Title: ${page.title}`] : []),
    `Content-Type: ${page.contentType}`,
  ];
  const note = page.cut
    ? `\n\n[Cut: only the first ${maxTokens} tokens of the page are shown (AGENTQ_WEB_FETCH_MAX_TOKENS).]`
    : '';
  return `${head.join('\n')}\n\n${page.content}${note}`;
}

/**
 * The `web_fetch` entry (namespace `web`): it applies to a run whose
 * `assistant.settings.webFetch` is true. It reads one page through the fetch guard and returns it
 * as Markdown or text, within the token budget.
 */
export function createWebFetchEntry(fetcher: WebFetcher, options: { maxTokens: number }): ToolEntry {
  return {
    name: BUILTIN_TOOL_NAMES.webFetch,
    namespace: 'web',
    description: 'Read a web page as Markdown, or a text or JSON document as it is.',
    defer: 'auto',
    tool: defineTool({
      description:
        'Fetch one web page and return its readable content: HTML as Markdown, plain text and JSON as they are. Long pages are cut, and say so.',
      inputSchema: webFetchInputSchema,
      metadata: { source: 'builtin' },
      async execute(input, executionOptions) {
        const page = await fetcher.fetchPage({ url: input.url, signal: executionOptions.abortSignal });
        return renderWebPage(page, options.maxTokens);
      },
    }),
    applies: (scope) => scope.settings?.webFetch === true,
  };
}
