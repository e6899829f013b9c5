import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { listServerTools } from '@agentq/mcp-connect';
import { mergeCacheHints, readCacheHints, type CacheHints } from './cache-hints.js';

/** A whole tool list and the cache hints that came with it. */
export interface ListedTools {
  /** Raw items, as {@link listServerTools} returns them. */
  tools: unknown[];
  hints: CacheHints;
}

/**
 * Reads a server's whole tool list like {@link listServerTools} and also the MCP 2026-07-28 cache
 * hints (`ttlMs`, `cacheScope`) of its result pages, which the tool list alone drops.
 *
 * The SDK keeps unknown result fields here because the list is parsed with a loose schema, so the
 * hints are taken from each page result on its way back: the client is wrapped, pagination and
 * errors stay in one place. When listing moves to the shared connection package, a list that
 * returns its page results (or hints) makes this wrapper unnecessary.
 */
export async function listToolsWithHints(options: {
  client: Client;
  serverId: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Resolved secrets, masked out of errors. */
  secretValues?: readonly string[];
  /** Most tools taken (`AGENTQ_MAX_TOOLS_PER_SERVER`); see {@link listServerTools}. */
  maxItems?: number;
}): Promise<ListedTools> {
  const pages: CacheHints[] = [];
  const client = options.client;
  const observing = {
    request: async (...args: Parameters<Client['request']>) => {
      const result: unknown = await client.request(...args);
      pages.push(readCacheHints(result));
      return result;
    },
  } as unknown as Client;
  const tools = await listServerTools({ ...options, client: observing });
  return { tools, hints: mergeCacheHints(pages) };
}
