import type { ToolRegistry } from '@agentq/registry';
import type { Config, FetchTargetLookup } from '@agentq/shared';
import { createKbEntries } from '../kb/create-kb-entries.js';
import type { KnowledgeBaseReader } from '@agentq/shared';
import { createWebFetchEntry } from '../web-fetch/create-web-fetch-entry.js';
import { createWebFetcher, type WebFetcher } from '../web-fetch/create-web-fetcher.js';
import { createWebSearch, type WebSearch, type WebSearchConfig } from '../web-search/create-web-search.js';
import { createWebSearchEntry } from '../web-search/create-web-search-entry.js';

/** The settings the builtin tools read. */
export type BuiltinToolsConfig = WebSearchConfig &
  Pick<Config, 'webFetchMaxBytes' | 'webFetchTimeoutMs' | 'webFetchMaxTokens' | 'webFetchAllowHosts'>;

/** Options of {@link registerBuiltinTools}. */
export interface RegisterBuiltinToolsOptions {
  config: BuiltinToolsConfig;
  /** Where web search keys are resolved. @default process.env */
  env?: Record<string, string | undefined>;
  /** Name resolution of the fetch guard, replaceable in tests. @default DNS */
  lookup?: FetchTargetLookup;
  /**
   * Reads knowledge bases for `kb_search` and `kb_list`. Without one, those tools answer with a
   * `KB_UNAVAILABLE` tool error.
   * @default none
   */
  knowledgeBaseReader?: KnowledgeBaseReader;
  /** Replaces the web search built from `config`. @default createWebSearch(config) */
  webSearch?: WebSearch;
  /** Replaces the page fetcher built from `config`. @default createWebFetcher(config) */
  webFetcher?: WebFetcher;
}

/**
 * Registers `web_search`, `web_fetch`, `kb_search` and `kb_list` in `registry`. They are always
 * registered; each entry's `applies` reads the run's assistant settings, so a run whose settings
 * leave a tool off never gets it. From there they are ordinary entries: the run's approval policy
 * (`requireFor` may name them), deferral, repair, the tool-result journal and the checkpoint treat
 * them like MCP tools. Returns the names registered.
 */
export function registerBuiltinTools(registry: ToolRegistry, options: RegisterBuiltinToolsOptions): string[] {
  const { config } = options;
  const webSearch = options.webSearch ?? createWebSearch({ config, env: options.env, lookup: options.lookup });
  const webFetcher =
    options.webFetcher ??
    createWebFetcher({
      maxBytes: config.webFetchMaxBytes,
      timeoutMs: config.webFetchTimeoutMs,
      maxTokens: config.webFetchMaxTokens,
      allowPrivate: config.allowPrivateFetch,
      // The model picks web_fetch's URLs: only its own list, never the one for MCP servers,
      // search providers and knowledge-base URLs.
      allowHosts: config.webFetchAllowHosts ?? [],
      lookup: options.lookup,
    });
  const entries = [
    createWebSearchEntry(webSearch),
    createWebFetchEntry(webFetcher, { maxTokens: config.webFetchMaxTokens }),
    ...createKbEntries(options.knowledgeBaseReader),
  ];
  for (const entry of entries) registry.register(entry);
  return entries.map((entry) => entry.name);
}
