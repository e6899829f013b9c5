import {
  AgentqError,
  catalogEntrySchema,
  catalogStatusSchema,
  definitionHash,
  parseWith,
  safeParseJson,
  serverIdSchema,
  type CatalogCacheScope,
  type CatalogReadBy,
  type CatalogState,
  type CatalogStatus,
  type CatalogTool,
  type ServerDefinition,
} from '@agentq/shared';
import type { ClientContext } from '../client-context.js';

/** One server's cached catalog, as runs would see it. */
export interface CatalogView {
  serverId: string;
  definition: ServerDefinition | null;
  /**
   * `never-warmed` when no list is cached for the current definition (missing key, or a list read
   * from an older command line or URL, which runs never use); otherwise the cache entry's state.
   */
  state: CatalogState | 'never-warmed';
  tools: CatalogTool[];
  version?: string;
  /** Epoch ms of the read that produced `tools`. */
  refreshedAt?: number;
  /** How old the list is, in milliseconds. */
  ageMs?: number;
  /**
   * The server's `cacheScope` hint for this list: `private` means it is valid for agentq's own
   * identity on that server only. Runs are served it all the same.
   */
  cacheScope?: CatalogCacheScope;
  /** The server's `ttlMs` hint for this list, as sent (the warmer clamps the refresh it schedules). */
  ttlMs?: number;
  /** The warmer and MCP session that read the list. */
  readBy?: CatalogReadBy;
  status: CatalogStatus | null;
}

/**
 * Reads one server's cached tool list and status. Cache-only: it never contacts the MCP server.
 * `NOT_FOUND` when the server is neither defined nor cached.
 */
export async function getCatalog(context: ClientContext, serverId: string): Promise<CatalogView> {
  parseWith(serverIdSchema, serverId, 'server id');
  const [definition, entryText, statusText] = await Promise.all([
    context.servers.get(serverId),
    context.redis.get(context.keys.tools(serverId)),
    context.redis.get(context.keys.status(serverId)),
  ]);
  const entry = entryText === null ? null : safeParseJson(entryText, catalogEntrySchema, 'catalog entry');
  const status = statusText === null ? null : safeParseJson(statusText, catalogStatusSchema, 'catalog status');
  if (!definition && entryText === null && statusText === null) {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'serverId', message: `MCP server ${serverId} does not exist` });
  }
  const view: CatalogView = {
    serverId,
    definition,
    state: 'never-warmed',
    tools: [],
    status: status?.success ? status.data : null,
  };
  if (entry?.success && (!definition || entry.data.definitionHash === definitionHash(definition))) {
    view.state = entry.data.state;
    view.tools = entry.data.tools;
    view.version = entry.data.version;
    view.refreshedAt = entry.data.refreshedAt;
    view.ageMs = Math.max(0, Date.now() - entry.data.refreshedAt);
    if (entry.data.cacheScope !== undefined) view.cacheScope = entry.data.cacheScope;
    if (entry.data.ttlMs !== undefined) view.ttlMs = entry.data.ttlMs;
    if (entry.data.readBy !== undefined) view.readBy = entry.data.readBy;
  }
  return view;
}
