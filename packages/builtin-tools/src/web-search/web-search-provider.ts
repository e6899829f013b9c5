import type { WebSearchProviderName, ErrorCode } from '@agentq/shared';

/** One web search result, as `web_search` returns it to the model. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** One search, as a provider receives it. */
export interface WebSearchRequest {
  query: string;
  /** Most results wanted; a provider may return fewer, and never more. */
  limit: number;
  /** Aborted on the per-call timeout or when the run stops. */
  signal: AbortSignal;
}

/**
 * A web search backend. Each provider turns its own API into `{ title, url, snippet }` results and
 * throws a `WEB_SEARCH_FAILED` error naming itself, with its secrets masked, when the call fails.
 */
export interface WebSearchProvider {
  readonly name: WebSearchProviderName;
  /** Whether the deployment configured this provider (a URL, a key that resolves). */
  isConfigured(): boolean;
  search(request: WebSearchRequest): Promise<WebSearchResult[]>;
}

/** Error codes of `web_search`. */
export const WEB_SEARCH_ERROR_CODES = {
  /** No provider is configured, or the one asked for is not. */
  unavailable: 'WEB_SEARCH_UNAVAILABLE',
  /** The provider answered with an error, an unexpected body, or not at all. */
  failed: 'WEB_SEARCH_FAILED',
  /** The provider took longer than the per-call timeout. */
  timeout: 'WEB_SEARCH_TIMEOUT',
} as const satisfies Record<string, ErrorCode>;
