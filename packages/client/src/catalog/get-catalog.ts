import {
  AgentqError,
  catalogVersionSchema,
  currentCatalogStatus,
  definitionHash,
  parseWith,
  serverCatalogStateOf,
  serverIdSchema,
  type CatalogCacheScope,
  type CatalogReadBy,
  type CatalogStatus,
  type CatalogTool,
  type ServerCatalogState,
  type ServerDefinition,
} from '@agentq/shared';
import { z } from 'zod';
import type { ClientContext } from '../client-context.js';

/** One server's cached catalog, as runs would see it. */
export interface CatalogView {
  serverId: string;
  definition: ServerDefinition | null;
  /**
   * The server's catalog state (see `SERVER_CATALOG_STATES`), derived from definition, entry and
   * status by `serverCatalogStateOf`, as everywhere else. `tools` is empty unless it is
   * `connected` or `stale` (or the server is no longer defined but its list is still cached).
   */
  state: ServerCatalogState;
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
  const [definition, { entry, status, corrupt }] = await Promise.all([
    context.servers.get(serverId),
    context.catalog.read(serverId),
  ]);
  if (!definition && entry === null && status === null) {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'serverId', message: `MCP server ${serverId} does not exist` });
  }
  const current =
    entry?.success && (!definition || entry.data.definitionHash === definitionHash(definition)) ? entry.data : null;
  const view: CatalogView = {
    serverId,
    definition,
    state: serverCatalogStateOf({ definition, entry: current, status: status?.success ? status.data : null, corrupt }),
    tools: [],
    // What a warmer said of an earlier definition is not this server's status.
    status: currentCatalogStatus(definition, status?.success ? status.data : null),
  };
  if (current) {
    view.tools = current.tools;
    view.version = current.version;
    view.refreshedAt = current.refreshedAt;
    view.ageMs = Math.max(0, Date.now() - current.refreshedAt);
    if (current.cacheScope !== undefined) view.cacheScope = current.cacheScope;
    if (current.ttlMs !== undefined) view.ttlMs = current.ttlMs;
    if (current.readBy !== undefined) view.readBy = current.readBy;
  }
  return view;
}

/** The tool definitions of one catalog version of a server, as the runs pinned to it were shown them. */
export interface CatalogSnapshotView {
  serverId: string;
  version: string;
  tools: CatalogTool[];
  /** Epoch ms of the read that produced `tools`. */
  refreshedAt: number;
}

/**
 * Reads the snapshot of one catalog version of a server (a version a run step lists): kept while
 * any run shown it lives. `NOT_FOUND` when neither a snapshot nor the live entry is that version.
 */
export async function getCatalogSnapshot(
  context: ClientContext,
  serverId: string,
  version: string,
): Promise<CatalogSnapshotView> {
  parseWith(serverIdSchema, serverId, 'server id');
  parseWith(z.strictObject({ version: catalogVersionSchema }), { version }, 'catalog snapshot');
  const entry = await context.catalog.readSnapshot(serverId, version);
  if (!entry) {
    throw new AgentqError({
      code: 'NOT_FOUND',
      field: 'version',
      message: `no snapshot of version ${version} of MCP server ${serverId} (never pinned by a run, or expired)`,
    });
  }
  return { serverId, version, tools: entry.tools, refreshedAt: entry.refreshedAt };
}
