import {
  applyDeferExposition,
  buildDeferredToolsPrompt,
  buildServerStatusPrompt,
  catalogFreshness,
  resolveAssistantMcpToolIds,
  serverFreshnessOf,
  syncMcpToolsToRegistry,
  ToolRegistry,
  type CatalogReader,
  type McpToolCaller,
  type NativeToolSearch,
  type ServerFreshness,
  type RunToolState,
  type ToolEntry,
  type ToolExecSandbox,
} from '@agentq/registry';
import { digestOf, parseToolId, type Logger, type RunSpec, type RunWarning } from '@agentq/shared';
import { asSchema, type ToolSet } from 'ai';
import { memoizeCatalogReads } from './memoize-catalog-reads.js';
import { applyRunApprovalPolicy } from './run-approval-policy.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';

/** Options of {@link buildRunTools}. */
export interface BuildRunToolsOptions {
  spec: RunSpec;
  registry: ToolRegistry;
  /** The catalog; each server is read once per build whatever the number of stages asking. */
  reader: CatalogReader;
  caller: McpToolCaller;
  /** `AGENTQ_TOOL_RESULT_MAX_BYTES`: bytes of text one MCP tool result keeps. @default 1048576 */
  maxToolResultBytes?: number;
  contextWindow: number;
  /** The run's tool state, restored from its checkpoint; deferral rewrites `allowedNames`. */
  state: RunToolState;
  /**
   * MCP tool names the run has already shown the model (wire name → tool id), from its
   * checkpoint. A tool keeps such a name while the name still means that tool.
   * @default none
   */
  shownNames?: Readonly<Record<string, string>>;
  /**
   * Wraps the run's tools (before deferral, so nested `tool_invoke` calls are wrapped too, and
   * before the run's approval policy, so that the wrapped tools can be shared by every run).
   */
  wrap: (tools: ToolSet) => ToolSet;
  logger: Logger;
  /** Stored tool vectors and the query embedder, for hybrid search. @default none (lexical search) */
  embedding?: RunProcessorDependencies['embedding'];
  /** Stored example requests (`AGENTQ_SEARCH_ENRICH_MODEL`). @default none */
  enrichments?: RunProcessorDependencies['enrichments'];
  /**
   * The worker's code sandbox, present when the operator allows code mode; a run whose settings
   * turn `codeMode` on then gets `tool_exec`. @default none
   */
  codeSandbox?: ToolExecSandbox;
  /**
   * The model provider's own tool search (`nativeToolSearchFor`): deferred tools are then sent
   * with `defer_loading` beside it instead of behind the meta tools.
   * @default none (the meta tools)
   */
  native?: NativeToolSearch;
}

/** The tools of one run, built from the catalog cache only. */
export interface RunTools {
  /**
   * What the model gets: inline tools plus the meta tools when something was deferred, or, with
   * the native strategy, every tool (the deferred ones marked) plus the provider's search tool.
   */
  tools: ToolSet;
  /** The run's full tool set before deferral (what `tool_invoke` may reach). */
  allTools: ToolSet;
  deferred: ToolEntry[];
  /** How the deferred tools reach the model; `meta` also when nothing is deferred. */
  strategy: 'meta' | 'native';
  /** System prompt section about the deferred tools; empty when nothing was deferred. */
  deferredPrompt: string;
  catalogVersion: Record<string, string>;
  inlineTokens: number;
  deferredTokens: number;
  /** Digest of each tool's input schema by wire name, for approval re-checks. */
  schemaDigests: Map<string, string>;
  /** Every MCP tool name of this build (inline and deferred) → its tool id; the checkpoint keeps them. */
  wireNames: Record<string, string>;
  /** Servers the spec names that are gone or turned off; their tools are missing. */
  warnings: RunWarning[];
  /**
   * System prompt section telling the model which requested servers are unavailable or stale, and
   * since when (bounded, see `buildServerStatusPrompt`); empty when every one is fine.
   */
  unavailablePrompt: string;
}

/**
 * Builds a run's tool set from the catalog cache: resolve the assistant's tool ids, sync the
 * process registry (cheap when nothing changed), select the run's entries, add the run's approval
 * policy, then defer what is too big for the context window. Never connects to an MCP server: a
 * dead or never-warmed server costs this run nothing but its missing tools.
 */
export async function buildRunTools(options: BuildRunToolsOptions): Promise<RunTools> {
  const { spec } = options;
  // Resolving, syncing and the freshness check all read the same servers: one read per build.
  const reader = memoizeCatalogReads(options.reader);
  const available = await resolveAssistantMcpToolIds(spec.assistant, reader);
  const selected = spec.tools ? new Set(spec.tools.filter((id) => available.has(id))) : available;
  const sync = await syncMcpToolsToRegistry(options.registry, reader, {
    selectedToolIds: selected,
    caller: options.caller,
    maxResultBytes: options.maxToolResultBytes,
    logger: options.logger,
    vectors: options.embedding?.vectors,
    enrichments: options.enrichments,
  });
  const servers = await requestedServerFreshness(spec, reader);
  const warnings = unavailableWarnings(servers);
  // Inline tools of a stale server say so in their description; deferred ones in search results.
  const freshness = catalogFreshness(sync.reads);
  const scope = { mcpToolIds: selected, settings: spec.assistant.settings };
  const selectedEntries = options.registry.selectActive(scope);
  const { entries, registry } = keepShownNames(selectedEntries, options.registry, options.shownNames ?? {});
  const { base, schemaDigests, wireNames } = await runToolSetOf(entries, scope, freshness);
  const codeMode = spec.assistant.settings.codeMode === true ? options.codeSandbox : undefined;
  // Wrapped first, gated after: the wrapped tools are shared by every run, the gate is this run's.
  const allTools = applyRunApprovalPolicy(options.wrap(base), {
    requireFor: spec.approval.requireFor,
    toolIds: wireNames,
  });
  const exposition = await applyDeferExposition(allTools, registry, options.contextWindow, {
    state: options.state,
    logger: options.logger,
    // The process registry's index, even when the run reads a renamed view of it: documents are
    // keyed by tool id, so the run's own names find them.
    searchIndex: options.registry.searchIndex,
    freshness,
    embedQuery: options.embedding?.embedQuery,
    codeMode: codeMode ? { sandbox: codeMode } : undefined,
    // The meta tools a script calls (its tool_search) are journalled like the model's own calls.
    wrap: options.wrap,
    native: options.native,
  });
  return {
    tools: exposition.tools === allTools ? allTools : options.wrap(exposition.tools),
    allTools,
    deferred: exposition.deferred,
    strategy: exposition.strategy,
    deferredPrompt:
      exposition.deferred.length > 0
        ? buildDeferredToolsPrompt(exposition.deferred, {
            strategy: exposition.strategy,
            codeMode: codeMode !== undefined,
          })
        : '',
    catalogVersion: sync.catalogVersion,
    inlineTokens: exposition.inlineTokens,
    deferredTokens: exposition.deferredTokens,
    schemaDigests,
    wireNames,
    warnings,
    unavailablePrompt: buildServerStatusPrompt(servers),
  };
}

/**
 * Renames the entries whose tool the run already showed the model under another name (the set of
 * enabled servers changed since, say) back to that name, as long as the old name does not now
 * mean another tool. When something is renamed, the run gets its own registry view holding its
 * entries under the names it uses, so deferral, search and `tool_invoke` all see one name per tool;
 * the process registry is never changed for one run.
 */
function keepShownNames(
  entries: ToolEntry[],
  registry: ToolRegistry,
  shownNames: Readonly<Record<string, string>>,
): { entries: ToolEntry[]; registry: ToolRegistry } {
  const shown = Object.entries(shownNames);
  if (shown.length === 0) return { entries, registry };
  const byToolId = new Map<string, ToolEntry>();
  const taken = new Set<string>();
  for (const entry of entries) {
    taken.add(entry.name);
    if (entry.mcp) byToolId.set(entry.mcp.toolId, entry);
  }
  const renames = new Map<string, string>();
  for (const [name, toolId] of shown) {
    const entry = byToolId.get(toolId);
    if (!entry || entry.name === name || renames.has(entry.name) || taken.has(name)) continue;
    // Another server may hold the old name now: then it no longer means this tool.
    const holder = registry.getByName(name);
    if (holder && holder.mcp?.toolId !== toolId) continue;
    renames.set(entry.name, name);
    taken.add(name);
  }
  if (renames.size === 0) return { entries, registry };
  const view = new ToolRegistry({ indexed: false });
  const renamed = entries.map((entry) => {
    const kept = renames.get(entry.name);
    const out = kept === undefined ? entry : { ...entry, name: kept };
    view.register(out);
    return out;
  });
  return { entries: renamed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), registry: view };
}

/** A tool description with a freshness note after it, on its own line. */
function withNote(description: string | undefined, note: string): string {
  return description ? `${description}\n[${note}]` : `[${note}]`;
}

/**
 * How fresh each server this spec asks for is, for those that are not fine. Asked for means
 * `assistant.mcpServers` in manual mode, every enabled server in auto mode, and the server of every
 * `tools` id. The reads are the ones the build already made (the reader is memoized per build), so
 * this costs no round trip and never touches a server.
 */
async function requestedServerFreshness(spec: RunSpec, reader: CatalogReader): Promise<ServerFreshness[]> {
  const mode = spec.assistant.mcpMode ?? 'manual';
  if (mode === 'disabled') return [];
  const named = new Set<string>();
  if (mode === 'manual') for (const id of spec.assistant.mcpServers) named.add(id);
  else for (const definition of await reader.listServers()) if (definition.enabled) named.add(definition.id);
  for (const id of spec.tools ?? []) {
    const parsed = parseToolId(id);
    if (parsed) named.add(parsed.serverId);
  }
  if (named.size === 0) return [];
  const ids = [...named].sort();
  const reads = await reader.readMany(ids);
  const now = Date.now();
  return ids.flatMap((serverId) => {
    const read = reads.get(serverId);
    const freshness = read ? serverFreshnessOf(read, now) : undefined;
    return freshness ? [freshness] : [];
  });
}

/**
 * A warning for each requested server that the store no longer has or has turned off. Enqueue
 * refuses unknown servers, so these went away afterwards; the run goes on without their tools, and
 * its result says so.
 */
function unavailableWarnings(servers: readonly ServerFreshness[]): RunWarning[] {
  return servers.flatMap((server): RunWarning[] => {
    if (server.kind !== 'unavailable' || (server.reason !== 'removed' && server.reason !== 'disabled')) return [];
    const { serverId, reason } = server;
    return [
      {
        code: 'MCP_SERVER_UNAVAILABLE',
        serverId,
        reason,
        message: `MCP server ${serverId} is unavailable (${reason === 'removed' ? 'it was removed' : 'it is turned off'}); its tools cannot be used in this run.`,
      },
    ];
  });
}

/** The run's own tools (freshness notes added) with their schema digests and wire names (→ MCP tool id). */
async function runToolSetOf(
  entries: ReadonlyArray<ToolEntry>,
  scope: Parameters<NonNullable<ToolEntry['forRun']>>[0],
  freshness: ReadonlyMap<string, string>,
): Promise<{
  base: ToolSet;
  schemaDigests: Map<string, string>;
  wireNames: Record<string, string>;
}> {
  const base: ToolSet = {};
  const schemaDigests = new Map<string, string>();
  const wireNames: Record<string, string> = {};
  for (const entry of entries) {
    const tool = entry.forRun ? entry.forRun(scope) : entry.tool;
    const note = entry.mcp ? freshness.get(entry.namespace) : undefined;
    base[entry.name] = note === undefined ? tool : { ...tool, description: withNote(tool.description, note) };
    if (entry.mcp) {
      schemaDigests.set(entry.name, entry.mcp.schemaDigest);
      wireNames[entry.name] = entry.mcp.toolId;
    } else {
      schemaDigests.set(entry.name, digestOf(await asSchema(entry.tool.inputSchema).jsonSchema));
    }
  }
  return { base, schemaDigests, wireNames };
}
