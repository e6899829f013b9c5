import {
  AgentqError,
  currentCatalogStatus,
  parseWith,
  serverCatalogStateOf,
  serverDefinitionSchema,
  serverIdSchema,
  type CatalogStatus,
  type RefreshReason,
  type ServerCatalogState,
  type ServerDefinition,
  type ServerOrigin,
} from '@agentq/shared';
import { requestRefresh, ServerSessions } from '@agentq/store';
import type { ClientContext } from '../client-context.js';

/** A server definition with the outcome of its latest catalog refresh. */
export interface ServerInfo {
  definition: ServerDefinition;
  /** The server's catalog state, the same word `getCatalog`, the pages and the metrics use. */
  state: ServerCatalogState;
  /** `null` until a warmer has tried the current definition. */
  status: CatalogStatus | null;
}

/** Every valid server definition, sorted by id, with its catalog state and status. */
export async function listServers(context: ClientContext): Promise<ServerInfo[]> {
  const definitions = await context.servers.list();
  if (definitions.length === 0) return [];
  const records = await context.catalog.readMany(definitions.map((definition) => definition.id));
  return definitions.map((definition, index) => {
    const { entry, status: parsed, corrupt } = records[index] ?? { entry: null, status: null, corrupt: false };
    const status = parsed?.success ? parsed.data : null;
    return {
      definition,
      state: serverCatalogStateOf({ definition, entry: entry?.success ? entry.data : null, status, corrupt }),
      status: currentCatalogStatus(definition, status),
    };
  });
}

/**
 * Creates or replaces a server definition (validated; secrets stay `${ENV}` placeholders). Warmers
 * hear about it on `servers.changed` and warm or restart it. The store checks it against the
 * server policy for `origin` before anything is written.
 */
export async function putServer(
  context: ClientContext,
  input: unknown,
  origin: ServerOrigin = 'api',
): Promise<ServerDefinition> {
  // ServerStore validates too; parsing here first keeps the error's field and code uniform.
  return await context.servers.put(parseWith(serverDefinitionSchema, input, 'server definition'), { origin });
}

/** Removes a server definition. `NOT_FOUND` when it does not exist. */
export async function removeServer(context: ClientContext, serverId: string): Promise<void> {
  parseWith(serverIdSchema, serverId, 'server id');
  if (!(await context.servers.remove(serverId))) throw notFound(serverId);
}

/** Turns a server on or off. `NOT_FOUND` when it does not exist. */
export async function setServerEnabled(
  context: ClientContext,
  input: { serverId: string; enabled: boolean },
): Promise<ServerDefinition> {
  parseWith(serverIdSchema, input.serverId, 'server id');
  return await context.servers.setEnabled(input.serverId, input.enabled);
}

/**
 * Asks the warmers to re-read a server's tool list now (`on-demand`) or to reconnect first
 * (`restart`). Deduplicated per server. `NOT_FOUND` for an unknown server, `CONFLICT` for a
 * disabled one.
 *
 * A restart starts a new session generation before the refresh is queued: the watcher owner closes
 * its session and opens a new one before it reads, and every worker's MCP client pool opens a new
 * session on its next call to the server.
 */
export async function requestServerRefresh(
  context: ClientContext,
  input: { serverId: string; reason: Extract<RefreshReason, 'on-demand' | 'restart'> },
): Promise<void> {
  parseWith(serverIdSchema, input.serverId, 'server id');
  const definition = await context.servers.get(input.serverId);
  if (!definition) throw notFound(input.serverId);
  if (!definition.enabled) {
    throw new AgentqError({
      code: 'CONFLICT',
      field: 'serverId',
      message: `MCP server ${input.serverId} is disabled; enable it first`,
    });
  }
  if (input.reason === 'restart')
    await new ServerSessions({ redis: context.redis, prefix: context.prefix }).renew(input.serverId);
  await requestRefresh(context.queues.refresh, { serverId: input.serverId, reason: input.reason });
}

function notFound(serverId: string): AgentqError {
  return new AgentqError({ code: 'NOT_FOUND', field: 'serverId', message: `MCP server ${serverId} does not exist` });
}
