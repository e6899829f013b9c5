import {
  AgentqError,
  createGuardedFetch,
  hostPatternOf,
  type Config,
  type FetchTargetLookup,
  type GuardedFetch,
  type WebSearchProviderName,
} from '@agentq/shared';
import { createBraveProvider } from './brave-provider.js';
import { createProviderKey } from './provider-key.js';
import { createSearxngProvider } from './searxng-provider.js';
import { createTavilyProvider } from './tavily-provider.js';
import { WEB_SEARCH_ERROR_CODES, type WebSearchProvider, type WebSearchResult } from './web-search-provider.js';

/** The settings {@link createWebSearch} reads. */
export type WebSearchConfig = Pick<
  Config,
  | 'searxngUrl'
  | 'webSearchProvider'
  | 'braveSearchUrl'
  | 'braveApiKey'
  | 'tavilyUrl'
  | 'tavilyApiKey'
  | 'webSearchTimeoutMs'
  | 'webSearchMaxBytes'
  | 'errorBodyMaxBytes'
  | 'allowPrivateFetch'
  | 'fetchAllowHosts'
>;

/** Options of {@link createWebSearch}. */
export interface WebSearchOptions {
  config: WebSearchConfig;
  /** Where provider keys are resolved. @default process.env */
  env?: Record<string, string | undefined>;
  /** Name resolution of the fetch guard, replaceable in tests. @default DNS */
  lookup?: FetchTargetLookup;
}

/** One `web_search` call. */
export interface WebSearchCall {
  query: string;
  limit: number;
  /** The run's choice; the deployment's default otherwise. */
  provider?: WebSearchProviderName;
  signal?: AbortSignal;
}

/** Web search over the configured providers. */
export interface WebSearch {
  /** The provider a call without a choice uses, or undefined when none is configured. */
  defaultProvider(): WebSearchProviderName | undefined;
  search(call: WebSearchCall): Promise<{ provider: WebSearchProviderName; results: WebSearchResult[] }>;
}

/** Order in which configured providers are picked when neither the run nor the deployment names one. */
const fallbackOrder: WebSearchProviderName[] = ['searxng', 'brave', 'tavily'];

/**
 * Builds `web_search`'s providers from the configuration. Every provider request goes through the
 * fetch guard; the provider's own host and port are allowed even when private, because the
 * operator named them (a SearXNG container next to the worker is the usual setup), while other
 * ports of that host and redirects elsewhere are checked as usual. A provider key goes with its
 * request as a secret of the guard: never past a cross-origin redirect, never to a host outside
 * its `AGENTQ_SECRET_HOSTS` binding. Answers are read up to `AGENTQ_WEB_SEARCH_MAX_BYTES`, error
 * answers up to `AGENTQ_ERROR_BODY_MAX_BYTES`. Each call has the per-call timeout (`AGENTQ_WEB_SEARCH_TIMEOUT_MS`); a
 * provider that exceeds it fails with `WEB_SEARCH_TIMEOUT`, naming the provider.
 */
export function createWebSearch(options: WebSearchOptions): WebSearch {
  const { config } = options;
  const env = options.env ?? process.env;
  const guardFor = (url: string | undefined): GuardedFetch =>
    createGuardedFetch({
      allowPrivate: config.allowPrivateFetch,
      allowHosts: [...(config.fetchAllowHosts ?? []), ...(url === undefined ? [] : [hostPatternOf(url)])],
      lookup: options.lookup,
      label: 'web_search provider',
    });
  const limits = { maxBytes: config.webSearchMaxBytes, errorBodyMaxBytes: config.errorBodyMaxBytes };
  const providers: Record<WebSearchProviderName, WebSearchProvider> = {
    searxng: createSearxngProvider({ baseUrl: config.searxngUrl, fetch: guardFor(config.searxngUrl), limits }),
    brave: createBraveProvider({
      url: config.braveSearchUrl,
      fetch: guardFor(config.braveSearchUrl),
      limits,
      key: createProviderKey({
        provider: 'brave',
        placeholder: config.braveApiKey,
        setting: 'AGENTQ_BRAVE_API_KEY',
        url: config.braveSearchUrl,
        env,
      }),
    }),
    tavily: createTavilyProvider({
      url: config.tavilyUrl,
      fetch: guardFor(config.tavilyUrl),
      limits,
      key: createProviderKey({
        provider: 'tavily',
        placeholder: config.tavilyApiKey,
        setting: 'AGENTQ_TAVILY_API_KEY',
        url: config.tavilyUrl,
        env,
      }),
    }),
  };

  const defaultProvider = () =>
    config.webSearchProvider ?? fallbackOrder.find((name) => providers[name].isConfigured());

  return {
    defaultProvider,
    async search(call) {
      const name = call.provider ?? defaultProvider();
      if (name === undefined) {
        throw new AgentqError({
          code: WEB_SEARCH_ERROR_CODES.unavailable,
          message:
            'web_search has no provider on this worker: set AGENTQ_SEARXNG_URL, or a Brave or Tavily key (AGENTQ_SECRET_BRAVE_API_KEY, AGENTQ_SECRET_TAVILY_API_KEY)',
        });
      }
      const provider = providers[name];
      if (name === 'searxng' && !provider.isConfigured()) {
        throw new AgentqError({
          code: WEB_SEARCH_ERROR_CODES.unavailable,
          message: 'web_search provider searxng is not configured: AGENTQ_SEARXNG_URL is not set',
        });
      }
      const timeout = AbortSignal.timeout(config.webSearchTimeoutMs);
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
      try {
        const results = await provider.search({ query: call.query, limit: call.limit, signal });
        return { provider: name, results };
      } catch (error) {
        if (timeout.aborted && !call.signal?.aborted) {
          throw new AgentqError({
            code: WEB_SEARCH_ERROR_CODES.timeout,
            message: `web_search provider ${name} did not answer within ${config.webSearchTimeoutMs} ms`,
          });
        }
        throw error;
      }
    },
  };
}
