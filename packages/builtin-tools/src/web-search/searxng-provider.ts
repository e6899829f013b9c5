import type { GuardedFetch } from '@agentq/shared';
import { z } from 'zod';
import { requestProviderJson, type ProviderResponseLimits } from './request-provider-json.js';
import { cleanSnippet } from './clean-snippet.js';
import type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search-provider.js';

/** Options of {@link createSearxngProvider}. */
export interface SearxngProviderOptions {
  /** Base URL of the instance (`AGENTQ_SEARXNG_URL`); `/search` is appended to its path. */
  baseUrl: string | undefined;
  fetch: GuardedFetch;
  limits: ProviderResponseLimits;
}

// The fields of SearXNG's JSON answer that are used; the rest (engines, positions, infoboxes,
// suggestions, ...) is ignored.
const searxngAnswerSchema = z.looseObject({
  results: z.array(
    z.looseObject({
      url: z.string(),
      title: z.string().optional(),
      content: z.string().optional(),
    }),
  ),
});

/**
 * SearXNG, self-hosted: `GET <base>/search?q=...&format=json`. The JSON format must be enabled in
 * the instance's `search.formats`. SearXNG has no result count parameter, so the first page is cut
 * to the limit here.
 */
export function createSearxngProvider(options: SearxngProviderOptions): WebSearchProvider {
  return {
    name: 'searxng',
    isConfigured: () => options.baseUrl !== undefined,
    async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
      const url = new URL(options.baseUrl ?? 'http://searxng.invalid/');
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
      url.searchParams.set('q', request.query);
      url.searchParams.set('format', 'json');
      const answer = await requestProviderJson({
        provider: 'searxng',
        fetch: options.fetch,
        limits: options.limits,
        url,
        init: { headers: { accept: 'application/json' }, signal: request.signal },
        schema: searxngAnswerSchema,
        secretValues: [],
      });
      return answer.results.slice(0, request.limit).map((result) => ({
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: cleanSnippet(result.content),
      }));
    },
  };
}
