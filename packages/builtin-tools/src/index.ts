export { registerBuiltinTools } from './registration/register-builtin-tools.js';
export type { BuiltinToolsConfig, RegisterBuiltinToolsOptions } from './registration/register-builtin-tools.js';

export type { KbListing, KbSearchHit, KnowledgeBaseReader } from '@agentq/shared';

export { createWebSearch } from './web-search/create-web-search.js';
export type { WebSearch, WebSearchCall, WebSearchConfig, WebSearchOptions } from './web-search/create-web-search.js';
export type { WebSearchProvider, WebSearchRequest, WebSearchResult } from './web-search/web-search-provider.js';

export { createWebFetcher } from './web-fetch/create-web-fetcher.js';
export type { WebFetcher, WebFetcherOptions, WebPage } from './web-fetch/create-web-fetcher.js';
export { createHtmlConverter } from './web-fetch/create-html-converter.js';
export type { HtmlConverter, HtmlConverterOptions } from './web-fetch/create-html-converter.js';
export { cutToTokenBudget } from './web-fetch/cut-to-token-budget.js';
