import type { GuardedFetch } from '@agentq/shared';
import { z } from 'zod';
import { cleanSnippet } from './clean-snippet.js';
import { requestProviderJson, type ProviderResponseLimits } from './request-provider-json.js';
import type { ProviderKey } from './provider-key.js';
import type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search-provider.js';

/** Options of {@link createBraveProvider}. */
export interface BraveProviderOptions {
  /** The web search endpoint (`AGENTQ_BRAVE_SEARCH_URL`). */
  url: string;
  /** The subscription token, resolved at each call. */
  key: ProviderKey;
  fetch: GuardedFetch;
  limits: ProviderResponseLimits;
}

/** Brave's own ceiling on `count`. */
const maxCount = 20;

const braveAnswerSchema = z.looseObject({
  web: z
    .looseObject({
      results: z.array(
        z.looseObject({ url: z.string(), title: z.string().optional(), description: z.string().optional() }),
      ),
    })
    .optional(),
});

/**
 * Brave Search: `GET <url>?q=...&count=n` with the `X-Subscription-Token` header. An answer with
 * no `web` section (no web results) gives no results.
 */
export function createBraveProvider(options: BraveProviderOptions): WebSearchProvider {
  return {
    name: 'brave',
    isConfigured: () => options.key.isSet(),
    async search(request: WebSearchRequest): Promise<WebSearchResult[]> {
      const key = options.key.resolve();
      const url = new URL(options.url);
      url.searchParams.set('q', request.query);
      url.searchParams.set('count', String(Math.min(request.limit, maxCount)));
      const answer = await requestProviderJson({
        provider: 'brave',
        fetch: options.fetch,
        limits: options.limits,
        url,
        init: {
          headers: { accept: 'application/json', 'x-subscription-token': key.value },
          signal: request.signal,
          secrets: key.egressSecrets,
        },
        schema: braveAnswerSchema,
        secretValues: key.secretValues,
      });
      return (answer.web?.results ?? []).slice(0, request.limit).map((result) => ({
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: cleanSnippet(result.description),
      }));
    },
  };
}
