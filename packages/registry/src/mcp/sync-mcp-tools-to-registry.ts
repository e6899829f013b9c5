import { AgentqError } from '@agentq/shared';
import {
  parseToolId,
  silentLogger,
  toolId as makeToolId,
  type CatalogTool,
  type Logger,
  type ServerDefinition,
} from '@agentq/shared';
import type { CatalogRead, CatalogReader } from '../catalog/catalog-reader.js';
import { memoizedDefinitionHash } from '../catalog/memoized-definition-hash.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { assignMcpWireNames } from '../wire-names/mcp-wire-name.js';
import { toCamelSegment } from '../wire-names/to-camel-segment.js';
import { createMcpToolEntry } from './create-mcp-tool-entry.js';
import type { McpToolCaller } from './mcp-tool-caller.js';

/** Options of {@link syncMcpToolsToRegistry}. */
export interface SyncMcpToolsOptions {
  /** Tool ids (`serverId:toolName`) of this run. Only the servers owning one are read. */
  selectedToolIds: ReadonlySet<string>;
  /**
   * Executes the registered tools. Without one, entries are registered (for listing, search and
   * token counts) and every call fails as a tool error.
   * @default a caller that refuses every call
   */
  caller?: McpToolCaller;
  /** @default a silent logger */
  logger?: Logger;
}

const refusingCaller: McpToolCaller = {
  callTool: async (request) => {
    throw new AgentqError({
      code: 'NO_MCP_CALLER',
      message: `No MCP caller is configured in this process; cannot call ${request.toolName} on ${request.serverId}`,
    });
  },
};

/** What a sync did. */
export interface SyncMcpToolsResult {
  /** Catalog version per server read successfully (`ready` or `empty`). */
  catalogVersion: Record<string, string>;
  /** Wire name of every selected tool that is registered, by tool id. */
  wireNames: Map<string, string>;
  /** The reads behind the sync, by server id. */
  reads: Map<string, CatalogRead>;
}

/** What a registry holds for one server, so that an unchanged server costs one comparison. */
interface ServerState {
  fingerprint: string;
  definition: ServerDefinition;
  tools: CatalogTool[];
  /** Registered wire names by tool id. */
  names: Map<string, string>;
  /** camelCase server segment; servers sharing one can share plain tool names. */
  segment: string;
}

interface RegistryState {
  servers: Map<string, ServerState>;
  /** Server ids by segment. */
  groups: Map<string, Set<string>>;
}

const states = new WeakMap<ToolRegistry, RegistryState>();

function stateOf(registry: ToolRegistry): RegistryState {
  let state = states.get(registry);
  if (!state) {
    state = { servers: new Map(), groups: new Map() };
    states.set(registry, state);
  }
  return state;
}

/**
 * Everything about a read that shapes its entries: the catalog version, and the definition
 * fields behind labels, approval and the disable list. Cheap, so an unchanged server is O(1).
 */
const definitionParts = new WeakMap<ServerDefinition, string>();

function fingerprintOf(read: CatalogRead, definition: ServerDefinition): string {
  let parts = definitionParts.get(definition);
  if (parts === undefined) {
    parts = JSON.stringify([
      memoizedDefinitionHash(definition),
      definition.name ?? null,
      definition.alwaysAsk,
      definition.disabledTools,
    ]);
    definitionParts.set(definition, parts);
  }
  return `${read.version ?? ''}\0${parts}`;
}

let defaultLogger: Logger | undefined;

function offeredTools(server: Pick<ServerState, 'definition' | 'tools'>): CatalogTool[] {
  const disabled = new Set(server.definition.disabledTools);
  return server.tools.filter((tool) => !disabled.has(tool.name));
}

/**
 * Brings a registry in line with the cached catalog of the servers owning a selected tool, in one
 * Redis round trip and without contacting any MCP server.
 *
 * - A server whose catalog version (and relevant definition fields) did not change since this
 *   registry's last sync is skipped, so a sync where nothing changed is O(servers), not O(tools).
 * - Entries are removed only when their server was disabled or removed, or when a successful read
 *   no longer lists them. A cold, corrupt or stale read never evicts: a blip must not strip a run.
 * - Entries of other namespaces, and of servers outside this sync, are never touched, so two
 *   overlapping syncs both keep their tools.
 */
export async function syncMcpToolsToRegistry(
  registry: ToolRegistry,
  reader: CatalogReader,
  options: SyncMcpToolsOptions,
): Promise<SyncMcpToolsResult> {
  const logger = options.logger?.child({ component: 'mcp-sync' }) ?? (defaultLogger ??= silentLogger());
  const serverIds = new Set<string>();
  const selectedByServer = new Map<string, string[]>();
  for (const id of options.selectedToolIds) {
    const parsed = parseToolId(id);
    if (!parsed) continue;
    serverIds.add(parsed.serverId);
    const list = selectedByServer.get(parsed.serverId);
    if (list) list.push(id);
    else selectedByServer.set(parsed.serverId, [id]);
  }
  const catalogVersion: Record<string, string> = {};
  const wireNames = new Map<string, string>();
  if (serverIds.size === 0) return { catalogVersion, wireNames, reads: new Map() };

  const reads = await reader.readMany([...serverIds].sort());
  const state = stateOf(registry);
  const changedSegments = new Set<string>();
  const rebuilt = new Set<string>();

  for (const serverId of serverIds) {
    const read = reads.get(serverId);
    if (!read) continue;
    if (read.state === 'cold') {
      if (read.coldReason === 'unknown-server' || read.coldReason === 'disabled') {
        const previous = state.servers.get(serverId);
        if (previous) {
          for (const name of previous.names.values()) {
            if (registry.getByName(name)?.mcp?.serverId === serverId) registry.deregister(name);
          }
          state.servers.delete(serverId);
          state.groups.get(previous.segment)?.delete(serverId);
          changedSegments.add(previous.segment);
          logger.info({ serverId, reason: read.coldReason }, 'removed the tools of an MCP server');
        }
      } else {
        logger.debug({ serverId, reason: read.coldReason }, 'cold catalog read; keeping registered tools');
      }
      continue;
    }
    const definition = read.definition as ServerDefinition;
    if (read.version !== undefined) catalogVersion[serverId] = read.version;
    const fingerprint = fingerprintOf(read, definition);
    const previous = state.servers.get(serverId);
    if (previous && previous.fingerprint === fingerprint) continue;
    const segment = toCamelSegment(serverId);
    state.servers.set(serverId, {
      fingerprint,
      definition,
      tools: read.tools,
      names: previous?.names ?? new Map(),
      segment,
    });
    let group = state.groups.get(segment);
    if (!group) {
      group = new Set();
      state.groups.set(segment, group);
    }
    group.add(serverId);
    changedSegments.add(segment);
    rebuilt.add(serverId);
  }

  for (const segment of changedSegments) {
    rebuildSegment({ registry, state, segment, rebuilt, caller: options.caller ?? refusingCaller, reader });
  }

  for (const [serverId, ids] of selectedByServer) {
    const names = state.servers.get(serverId)?.names;
    if (!names) continue;
    for (const id of ids) {
      const name = names.get(id);
      if (name !== undefined) wireNames.set(id, name);
    }
  }
  return { catalogVersion, wireNames, reads };
}

/**
 * Re-registers the servers of one camelCase segment whose tools or names changed. Names are
 * assigned over the whole segment, because only servers sharing a segment can share a plain name.
 */
function rebuildSegment(options: {
  registry: ToolRegistry;
  state: RegistryState;
  segment: string;
  rebuilt: ReadonlySet<string>;
  caller: McpToolCaller;
  reader: CatalogReader;
}): void {
  const { registry, state } = options;
  const members = [...(state.groups.get(options.segment) ?? [])]
    .map((serverId) => [serverId, state.servers.get(serverId)] as const)
    .filter((member): member is readonly [string, ServerState] => member[1] !== undefined);
  if (members.length === 0) {
    state.groups.delete(options.segment);
    return;
  }
  const pairs = members.flatMap(([serverId, server]) =>
    offeredTools(server).map((tool) => ({ serverId, toolName: tool.name })),
  );
  const names = assignMcpWireNames(pairs);
  const toRegister: Array<readonly [string, ServerState]> = [];
  for (const [serverId, server] of members) {
    const offered = offeredTools(server);
    const sameNames =
      offered.length === server.names.size &&
      offered.every(
        (tool) => server.names.get(makeToolId(serverId, tool.name)) === names.get(makeToolId(serverId, tool.name)),
      );
    if (options.rebuilt.has(serverId) || !sameNames) toRegister.push([serverId, server]);
  }
  // Drop stale names first, so a name moving between two servers of the segment is not lost.
  const newNames = new Set(names.values());
  for (const [serverId, server] of toRegister) {
    for (const name of server.names.values()) {
      if (!newNames.has(name) && registry.getByName(name)?.mcp?.serverId === serverId) registry.deregister(name);
    }
  }
  const currentDefinition = options.reader.getServer?.bind(options.reader);
  for (const [serverId, server] of toRegister) {
    const registered = new Map<string, string>();
    for (const tool of offeredTools(server)) {
      const id = makeToolId(serverId, tool.name);
      const wireName = names.get(id) as string;
      registry.register(
        createMcpToolEntry({
          definition: server.definition,
          tool,
          wireName,
          caller: options.caller ?? refusingCaller,
          currentDefinition,
        }),
      );
      registered.set(id, wireName);
    }
    server.names = registered;
  }
}
