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
import { toolEmbeddingDigest } from '../embedding/tool-embedding-text.js';
import { toolEnrichmentDigest } from '../enrichment/tool-enrichment-text.js';
import type { ToolEnrichmentStore, ToolVectorStore } from '@agentq/store';
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
  /**
   * `AGENTQ_TOOL_RESULT_MAX_BYTES`: bytes of text one MCP tool result keeps (see
   * `createMcpToolEntry`). Like the caller, it is taken when a server's entries are (re)registered.
   * @default 1048576
   */
  maxResultBytes?: number;
  /** @default a silent logger */
  logger?: Logger;
  /**
   * Where the warmers stored tool vectors. When given, the vectors of every (re)registered server's
   * tools are read in one round trip and set on the registry's search index, for hybrid search.
   * @default none (lexical search)
   */
  vectors?: ToolVectorStore;
  /**
   * Where the warmers stored example requests (`AGENTQ_SEARCH_ENRICH_MODEL`). When given, they
   * are read with the vectors, once per catalog version of a server (twice when new ones are
   * announced meanwhile, see {@link refreshServerExamples}), and indexed as the search index's
   * `examples` field.
   * @default none
   */
  enrichments?: ToolEnrichmentStore;
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

/** What a registry holds for one server, so that an unchanged server costs a few comparisons. */
interface ServerState {
  /** The catalog version it was registered from, `''` for none. */
  version: string;
  /** The definition fields behind labels, approval and the disable list (`definitionPartsOf`). */
  parts: string;
  definition: ServerDefinition;
  tools: CatalogTool[];
  /** Registered wire names by tool id. */
  names: Map<string, string>;
  /** Server segment of its wire names, decided over every enabled server of the store. */
  segment: string;
}

interface RegistryState {
  servers: Map<string, ServerState>;
  /**
   * Announced re-reads of each server's examples begun so far (see {@link refreshServerExamples}).
   * A sync that sees the count move while it read examples knows that what it read may predate
   * examples a warmer stored and announced meanwhile.
   */
  announcedReads: Map<string, number>;
}

const states = new WeakMap<ToolRegistry, RegistryState>();

function stateOf(registry: ToolRegistry): RegistryState {
  let state = states.get(registry);
  if (!state) {
    state = { servers: new Map(), announcedReads: new Map() };
    states.set(registry, state);
  }
  return state;
}

/**
 * The definition fields that shape a server's entries: its hash, and the fields behind labels,
 * approval and the disable list. With the catalog version and the wire segment, everything about a
 * read that shapes its entries; cached per definition object, so an unchanged server is O(1).
 */
const definitionParts = new WeakMap<ServerDefinition, string>();

function definitionPartsOf(definition: ServerDefinition): string {
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
  return parts;
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
 * - Wire names are a function of the tool, its server's list and the set of enabled servers in the
 *   store (the read's `wireSegment`), never of which servers this registry synced before or in
 *   what order: every process names a tool the same, so a run can pause on one worker and resume
 *   on another.
 */
export async function syncMcpToolsToRegistry(
  registry: ToolRegistry,
  reader: CatalogReader,
  options: SyncMcpToolsOptions,
): Promise<SyncMcpToolsResult> {
  const logger = options.logger?.child({ component: 'mcp-sync' }) ?? (defaultLogger ??= silentLogger());
  const serverIds = new Set<string>();
  const selectedByServer = new Map<string, string[]>();
  // Ids come grouped by server (as resolved): while an id starts with the last server's id and a
  // `:`, it is that server's (a server id never holds a `:`, it is cut at the first), so only the
  // first id of each server is parsed.
  let current: { prefix: string; list: string[] } | undefined;
  for (const id of options.selectedToolIds) {
    if (current && id.length > current.prefix.length && id.startsWith(current.prefix)) {
      current.list.push(id);
      continue;
    }
    const parsed = parseToolId(id);
    if (!parsed) continue;
    serverIds.add(parsed.serverId);
    let list = selectedByServer.get(parsed.serverId);
    if (list) list.push(id);
    else selectedByServer.set(parsed.serverId, (list = [id]));
    current = { prefix: `${parsed.serverId}:`, list };
  }
  const catalogVersion: Record<string, string> = {};
  const wireNames = new Map<string, string>();
  if (serverIds.size === 0) return { catalogVersion, wireNames, reads: new Map() };

  const reads = await reader.readMany([...serverIds].sort());
  const state = stateOf(registry);
  const caller = options.caller ?? refusingCaller;
  const changed: ServerState[] = [];
  // What each server's state was when this read arrived: another sync that applies its read
  // while this one waits for examples must not be overwritten by this, possibly older, read.
  const heldBefore = options.enrichments ? new Map([...serverIds].map((id) => [id, state.servers.get(id)])) : undefined;
  // And how many announcements of new examples had been taken up when this sync read its own.
  const announcedBefore = options.enrichments
    ? new Map([...serverIds].map((id) => [id, state.announcedReads.get(id) ?? 0]))
    : undefined;
  const examples = options.enrichments
    ? await prefetchExamples(registry, options.enrichments, reads, logger)
    : undefined;

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
          logger.info({ serverId, reason: read.coldReason }, 'removed the tools of an MCP server');
        }
      } else {
        logger.debug({ serverId, reason: read.coldReason }, 'cold catalog read; keeping registered tools');
      }
      continue;
    }
    if (read.version !== undefined) catalogVersion[serverId] = read.version;
    if (heldBefore && state.servers.get(serverId) !== heldBefore.get(serverId)) {
      logger.debug({ serverId }, 'another sync applied this server meanwhile; leaving it to the next sync');
      continue;
    }
    const server = changedServer(read, serverId, state.servers.get(serverId));
    if (!server) continue;
    state.servers.set(serverId, server);
    if (examples) primeExamples(registry, serverId, server, examples);
    registerServer({ registry, serverId, server, caller, reader, maxResultBytes: options.maxResultBytes });
    changed.push(server);
  }

  if (options.vectors && changed.length > 0) await loadVectors(registry, options.vectors, changed, logger);
  // Every server of this read is registered by now (priming and registering run without a wait in
  // between), so what the index still keeps for a key without a document belongs to a tool gone.
  registry.searchIndex?.forgetOrphans();
  if (examples && options.enrichments && announcedBefore) {
    await rereadAnnouncedExamples({ registry, store: options.enrichments, changed, announcedBefore, logger });
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
 * Reads again the examples of the servers this sync registered from examples it read before an
 * announcement of new ones arrived. That announcement's own re-read may have run before this sync
 * applied its read, and this sync's older examples then replaced the new ones, or after, and then
 * left the server to this sync: either way, without this read, the process would not index them
 * until the server's next catalog version. A Redis failure is logged and keeps what was indexed.
 */
async function rereadAnnouncedExamples(options: {
  registry: ToolRegistry;
  store: ToolEnrichmentStore;
  changed: readonly ServerState[];
  announcedBefore: ReadonlyMap<string, number>;
  logger: Logger;
}): Promise<void> {
  const { registry, store, logger } = options;
  const announced = stateOf(registry).announcedReads;
  for (const server of options.changed) {
    const serverId = server.definition.id;
    if ((announced.get(serverId) ?? 0) === options.announcedBefore.get(serverId)) continue;
    try {
      const read = await readServerExamples(registry, store, serverId);
      logger.debug({ serverId, ...read }, 'read examples announced during a sync again');
    } catch (error) {
      logger.warn(
        { serverId, error: error instanceof Error ? error.message : String(error) },
        'could not read announced tool enrichments again',
      );
    }
  }
}

/**
 * Sets the stored vectors of the tools of `servers` on the registry's index (by tool id). A tool
 * without a vector keeps none and is ranked lexically only; a Redis failure leaves search lexical
 * rather than failing the run.
 */
async function loadVectors(
  registry: ToolRegistry,
  store: ToolVectorStore,
  servers: ServerState[],
  logger: Logger,
): Promise<void> {
  const index = registry.searchIndex;
  if (!index) return;
  const wanted: Array<{ key: string; digest: string }> = [];
  for (const server of servers) {
    for (const tool of offeredTools(server)) {
      const key = makeToolId(server.definition.id, tool.name);
      if (server.names.has(key)) wanted.push({ key, digest: toolEmbeddingDigest(tool) });
    }
  }
  try {
    const vectors = await store.read([...new Set(wanted.map((one) => one.digest))]);
    for (const { key, digest } of wanted) index.setVector(key, vectors.get(digest));
  } catch (error) {
    logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not read tool vectors');
  }
}

/** The state a read gives a server, or `undefined` when the registry already holds that state. */
function changedServer(
  read: CatalogRead,
  serverId: string,
  previous: ServerState | undefined,
): ServerState | undefined {
  const definition = read.definition as ServerDefinition;
  // A reader that cannot see the store's server set (tests, tools) gets the plain slug.
  const segment = read.wireSegment ?? toCamelSegment(serverId);
  const parts = definitionPartsOf(definition);
  const version = read.version ?? '';
  if (previous && previous.version === version && previous.segment === segment && previous.parts === parts) {
    return undefined;
  }
  return { version, parts, definition, tools: read.tools, names: previous?.names ?? new Map(), segment };
}

/**
 * The stored example requests of every tool of the servers this sync will re-register, by tool id
 * (`undefined` for a tool without any), in one `MGET`. Read before registering, so each changed
 * tool is indexed once, with its examples. A Redis failure leaves search without examples.
 */
async function prefetchExamples(
  registry: ToolRegistry,
  store: ToolEnrichmentStore,
  reads: ReadonlyMap<string, CatalogRead>,
  logger: Logger,
): Promise<Map<string, string[] | undefined> | undefined> {
  if (!registry.searchIndex) return undefined;
  const state = stateOf(registry);
  const wanted: Array<{ key: string; digest: string }> = [];
  for (const [serverId, read] of reads) {
    if (read.state === 'cold') continue;
    const server = changedServer(read, serverId, state.servers.get(serverId));
    if (!server) continue;
    for (const tool of offeredTools(server)) {
      wanted.push({ key: makeToolId(serverId, tool.name), digest: toolEnrichmentDigest(tool) });
    }
  }
  if (wanted.length === 0) return undefined;
  try {
    const stored = await store.read([...new Set(wanted.map((one) => one.digest))]);
    return new Map(wanted.map(({ key, digest }) => [key, stored.get(digest)]));
  } catch (error) {
    logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not read tool enrichments');
    return undefined;
  }
}

/** What {@link refreshServerExamples} did. */
export interface ServerExamplesRefresh {
  /** Tools of the server whose stored examples were looked up. */
  tools: number;
  /** Of those, the tools that have stored examples, set on the search index. */
  withExamples: number;
  /**
   * Why nothing was set: the registry holds no such server (or no search index), or a sync
   * replaced the server during the read. Absent when the read was applied.
   */
  skipped?: 'not-held' | 'replaced';
}

/**
 * Reads the stored example requests of the tools `registry` holds for `serverId` (one `MGET`) and
 * sets them on its search index, re-indexing the tools whose examples changed. For a warmer's
 * `P:tools.enriched` announcement: examples written after the list reach a process without a
 * catalog version change. A server this registry does not hold costs nothing; a server a sync
 * replaced during the read is left to that sync. A sync that read examples before this call began
 * reads them again after applying its read, so examples stored before the announcement are
 * indexed whichever of the two finishes first. A Redis failure rejects; the caller logs it.
 */
export async function refreshServerExamples(
  registry: ToolRegistry,
  store: ToolEnrichmentStore,
  serverId: string,
): Promise<ServerExamplesRefresh> {
  // Counted before anything else, a server this registry does not hold yet included: a sync that
  // read examples before this point reads them again once it has applied its read.
  const { announcedReads } = stateOf(registry);
  announcedReads.set(serverId, (announcedReads.get(serverId) ?? 0) + 1);
  return await readServerExamples(registry, store, serverId);
}

/** {@link refreshServerExamples} without counting an announcement. */
async function readServerExamples(
  registry: ToolRegistry,
  store: ToolEnrichmentStore,
  serverId: string,
): Promise<ServerExamplesRefresh> {
  const index = registry.searchIndex;
  const server = stateOf(registry).servers.get(serverId);
  if (!index || !server) return { tools: 0, withExamples: 0, skipped: 'not-held' };
  const wanted: Array<{ key: string; digest: string }> = [];
  for (const tool of offeredTools(server)) {
    const key = makeToolId(serverId, tool.name);
    if (server.names.has(key)) wanted.push({ key, digest: toolEnrichmentDigest(tool) });
  }
  if (wanted.length === 0) return { tools: 0, withExamples: 0 };
  const stored = await store.read([...new Set(wanted.map((one) => one.digest))]);
  if (stateOf(registry).servers.get(serverId) !== server) {
    return { tools: wanted.length, withExamples: 0, skipped: 'replaced' };
  }
  // Only adds: an entry that is gone (expired) keeps what the index has until the next version.
  let withExamples = 0;
  for (const { key, digest } of wanted) {
    const examples = stored.get(digest);
    if (!examples) continue;
    index.setExamples(key, examples);
    withExamples += 1;
  }
  return { tools: wanted.length, withExamples };
}

/** Hands a server's prefetched examples to the index ahead of its registration, which indexes them. */
function primeExamples(
  registry: ToolRegistry,
  serverId: string,
  server: ServerState,
  examples: ReadonlyMap<string, string[] | undefined>,
): void {
  for (const tool of offeredTools(server)) {
    const key = makeToolId(serverId, tool.name);
    // A server changed by a concurrent sync after the prefetch keeps what it has.
    if (examples.has(key)) registry.searchIndex?.setExamples(key, examples.get(key), { reindex: false });
  }
}

/**
 * Re-registers one server's tools. Names are assigned over this server's own list: segments of
 * enabled servers are distinct, so only tools of the same server can share a plain name, and the
 * answer never depends on what else this registry holds.
 */
function registerServer(options: {
  registry: ToolRegistry;
  serverId: string;
  server: ServerState;
  caller: McpToolCaller;
  reader: CatalogReader;
  maxResultBytes: number | undefined;
}): void {
  const { registry, serverId, server } = options;
  const offered = offeredTools(server);
  const names = assignMcpWireNames(offered.map((tool) => ({ serverId, toolName: tool.name, segment: server.segment })));
  // Drop stale names first. Only this server's own entries: a name now held by another server
  // (one that took over a segment after this one was disabled) stays with its new owner.
  const newNames = new Set(names.values());
  for (const name of server.names.values()) {
    if (!newNames.has(name) && registry.getByName(name)?.mcp?.serverId === serverId) registry.deregister(name);
  }
  const currentDefinition = options.reader.getServer?.bind(options.reader);
  const registered = new Map<string, string>();
  for (const tool of offered) {
    const id = makeToolId(serverId, tool.name);
    const wireName = names.get(id) as string;
    registry.register(
      createMcpToolEntry({
        definition: server.definition,
        tool,
        wireName,
        caller: options.caller,
        currentDefinition,
        maxResultBytes: options.maxResultBytes,
      }),
    );
    registered.set(id, wireName);
  }
  server.names = registered;
}
