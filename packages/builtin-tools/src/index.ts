export { registerBuiltinTools } from './registration/register-builtin-tools.js';
export type { BuiltinToolsConfig, RegisterBuiltinToolsOptions } from './registration/register-builtin-tools.js';

export type { KbListing, KbSearchHit, KnowledgeBaseReader } from '@agentq/shared';
export {
  createKbEntries,
  DEFAULT_KB_SEARCH_LIMIT,
  KB_TOOL_ERROR_CODES,
  MAX_KB_SEARCH_LIMIT,
} from './kb/create-kb-entries.js';

export { createWebSearch } from './web-search/create-web-search.js';
export type { WebSearch, WebSearchCall, WebSearchConfig, WebSearchOptions } from './web-search/create-web-search.js';
export {
  createWebSearchEntry,
  DEFAULT_WEB_SEARCH_LIMIT,
  MAX_WEB_SEARCH_LIMIT,
} from './web-search/create-web-search-entry.js';
export { WEB_SEARCH_ERROR_CODES } from './web-search/web-search-provider.js';
export type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search/web-search-provider.js';

export { createWebFetcher, WEB_FETCH_CONTENT_TYPES } from './web-fetch/create-web-fetcher.js';
export type { WebFetcher, WebFetcherOptions, WebPage } from './web-fetch/create-web-fetcher.js';
export { createWebFetchEntry, renderWebPage } from './web-fetch/create-web-fetch-entry.js';
export { createHtmlConverter, sharedHtmlConverter } from './web-fetch/create-html-converter.js';
export type { HtmlConverter, HtmlConverterOptions } from './web-fetch/create-html-converter.js';
export { cutToTokenBudget } from './web-fetch/cut-to-token-budget.js';
export { WEB_FETCH_ERROR_CODES } from './web-fetch/web-fetch-error-codes.js';
