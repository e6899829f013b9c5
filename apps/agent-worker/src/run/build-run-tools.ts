import {
  applyDeferExposition,
  buildDeferredToolsPrompt,
  resolveAssistantMcpToolIds,
  syncMcpToolsToRegistry,
  type CatalogReader,
  type McpToolCaller,
  type RunToolState,
  type ToolEntry,
  type ToolRegistry,
} from '@agentq/registry';
import { digestOf, type Logger, type RunSpec } from '@agentq/shared';
import { asSchema, type ToolSet } from 'ai';
import { applyRunApprovalPolicy } from './run-approval-policy.js';

/** Options of {@link buildRunTools}. */
export interface BuildRunToolsOptions {
  spec: RunSpec;
  registry: ToolRegistry;
  reader: CatalogReader;
  caller: McpToolCaller;
  contextWindow: number;
  /** The run's tool state, restored from its checkpoint; deferral rewrites `allowedNames`. */
  state: RunToolState;
  /** Wraps the run's tools (before deferral, so nested `tool_invoke` calls are wrapped too). */
  wrap: (tools: ToolSet) => ToolSet;
  logger: Logger;
}

/** The tools of one run, built from the catalog cache only. */
export interface RunTools {
  /** What the model gets: inline tools plus the meta tools when something was deferred. */
  tools: ToolSet;
  /** The run's full tool set before deferral (what `tool_invoke` may reach). */
  allTools: ToolSet;
  deferred: ToolEntry[];
  /** System prompt section about the deferred tools; empty when nothing was deferred. */
  deferredPrompt: string;
  catalogVersion: Record<string, string>;
  inlineTokens: number;
  deferredTokens: number;
  /** Digest of each tool's input schema by wire name, for approval re-checks. */
  schemaDigests: Map<string, string>;
}

/**
 * Builds a run's tool set from the catalog cache: resolve the assistant's tool ids, sync the
 * process registry (cheap when nothing changed), select the run's entries, add the run's approval
 * policy, then defer what is too big for the context window. Never connects to an MCP server: a
 * dead or never-warmed server costs this run nothing but its missing tools.
 */
export async function buildRunTools(options: BuildRunToolsOptions): Promise<RunTools> {
  const { spec, registry, reader } = options;
  const available = await resolveAssistantMcpToolIds(spec.assistant, reader);
  const selected = spec.tools ? new Set(spec.tools.filter((id) => available.has(id))) : available;
  const sync = await syncMcpToolsToRegistry(registry, reader, {
    selectedToolIds: selected,
    caller: options.caller,
    logger: options.logger,
  });
  const entries = registry.selectActive({ mcpToolIds: selected });
  const base: ToolSet = {};
  const toolIdsByWireName = new Map<string, string>();
  const schemaDigests = new Map<string, string>();
  for (const entry of entries) {
    base[entry.name] = entry.tool;
    if (entry.mcp) {
      toolIdsByWireName.set(entry.name, entry.mcp.toolId);
      schemaDigests.set(entry.name, entry.mcp.schemaDigest);
    } else {
      schemaDigests.set(entry.name, digestOf(await asSchema(entry.tool.inputSchema).jsonSchema));
    }
  }
  const gated = applyRunApprovalPolicy(base, { requireFor: spec.approval.requireFor, toolIdsByWireName });
  const allTools = options.wrap(gated);
  const exposition = await applyDeferExposition(allTools, registry, options.contextWindow, {
    state: options.state,
    logger: options.logger,
  });
  return {
    tools: exposition.tools === allTools ? allTools : options.wrap(exposition.tools),
    allTools,
    deferred: exposition.deferred,
    deferredPrompt: exposition.deferred.length > 0 ? buildDeferredToolsPrompt(exposition.deferred) : '',
    catalogVersion: sync.catalogVersion,
    inlineTokens: exposition.inlineTokens,
    deferredTokens: exposition.deferredTokens,
    schemaDigests,
  };
}
