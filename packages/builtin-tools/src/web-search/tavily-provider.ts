import type { GuardedFetch } from '@agentq/shared';
import { z } from 'zod';
import { cleanSnippet } from './clean-snippet.js';
import { requestProviderJson, type ProviderResponseLimits } from './request-provider-json.js';
import type { ProviderKey } from './provider-key.js';
import type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search-provider.js';

/** Options of {@link createTavilyProvider}. */
export interface TavilyProviderOptions {
  /** The search endpoint (`AGENTQ_TAVILY_URL`). */
  url: string;
  /** The API key, resolved at each call. */
  key: ProviderKey;
  fetch: GuardedFetch;
  limits: ProviderResponseLimits;
}

/** Tavily's own ceiling on `max_results`. */
const maxResults = 20;

const tavilyAnswerSchema = z.looseObject({
  results: z.array(z.looseObject({ url: z.string(), title: z.string().optional(), content: z.string().optional() })),
});

/** Tavily: `POST <url>` with a JSON body and the key as a bearer token. */
export function createTavilyProvider(options: TavilyProviderOptions): WebSearchProvider {
  return {
    name: 'tavily',
    isConfigured: () => options.key.isSet(),
    async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
      const key = options.key.resolve();
      const answer = await requestProviderJson({
        provider: 'tavily',
        fetch: options.fetch,
        limits: options.limits,
        url: new URL(options.url),
        init: {
          method: 'POST',
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            authorization: `Bearer ${key.value}`,
          },
          body: JSON.stringify({
            query: request.query,
            max_results: Math.min(request.limit, maxResults),
            search_depth: 'basic',
          }),
          signal: request.signal,
          secrets: key.egressSecrets,
        },
        schema: tavilyAnswerSchema,
        secretValues: key.secretValues,
      });
      return answer.results.slice(0, request.limit).map((result) => ({
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: cleanSnippet(result.content),
      }));
    },
  };
}
