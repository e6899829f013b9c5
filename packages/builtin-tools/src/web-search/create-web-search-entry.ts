import { BUILTIN_TOOL_NAMES, type ToolApplyScope, type ToolEntry } from '@agentq/registry';
import type { WebSearchProviderName } from '@agentq/shared';
import { tool as defineTool, type Tool } from 'ai';
import { z } from 'zod';
import type { WebSearch } from './create-web-search.js';

/** Results `web_search` returns when the model does not ask for a number. */
export const DEFAULT_WEB_SEARCH_LIMIT = 5;
/** Most results one `web_search` call returns. */
export const MAX_WEB_SEARCH_LIMIT = 20;

const webSearchInputSchema = z.strictObject({
  query: z.string().min(1).max(400).describe('What to search the web for.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_WEB_SEARCH_LIMIT)
    .optional()
    .describe(`How many results to return (default ${DEFAULT_WEB_SEARCH_LIMIT}).`),
});

const description =
  'Search the web. Returns up to `limit` results, each with a title, a URL and a snippet. Read a result in full with web_fetch when it is available.';

function webSearchTool(search: WebSearch, provider: WebSearchProviderName | undefined): Tool {
  return defineTool({
    description,
    inputSchema: webSearchInputSchema,
    metadata: { source: 'builtin' },
    async execute(input, executionOptions) {
      const found = await search.search({
        query: input.query,
        limit: input.limit ?? DEFAULT_WEB_SEARCH_LIMIT,
        provider,
        signal: executionOptions.abortSignal,
      });
      return found.results.length === 0
        ? { provider: found.provider, results: [], note: 'No results. Try other or fewer words.' }
        : { provider: found.provider, results: found.results };
    },
  });
}

function providerOf(scope: ToolApplyScope): WebSearchProviderName | undefined {
  const setting = scope.settings?.webSearch;
  return setting ? setting.provider : undefined;
}

/**
 * The `web_search` entry (namespace `web`). It applies to a run whose `assistant.settings.webSearch`
 * is an object; the run's tool uses the provider that object names, or the deployment's default.
 */
export function createWebSearchEntry(search: WebSearch): ToolEntry {
  return {
    name: BUILTIN_TOOL_NAMES.webSearch,
    namespace: 'web',
    description: 'Search the web: titles, URLs and snippets.',
    defer: 'auto',
    tool: webSearchTool(search, undefined),
    applies: (scope) => typeof scope.settings?.webSearch === 'object',
    forRun: (scope) => webSearchTool(search, providerOf(scope)),
  };
}
