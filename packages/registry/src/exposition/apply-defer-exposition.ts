import { createRunToolState } from './run-tool-state.js';
import type { Logger } from '@agentq/shared';
import type { ToolSet } from 'ai';
import { mayNeedApproval } from '../approval/is-approval-gated.js';
import { createMetaTools, type CreateMetaToolsOptions } from '../meta/create-meta-tools.js';
import { createToolExec, type ToolExecSandbox } from '../meta/create-tool-exec.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';
import type { ToolEntry } from '../registry/tool-entry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { estimateToolDefinitionTokens } from './estimate-tool-tokens.js';
import type { RunToolState } from './run-tool-state.js';
import { exposeNatively, type NativeToolSearch } from './native-tool-search.js';
import { deferredNamesOf } from './should-defer.js';

/** Options of {@link applyDeferExposition}. */
export interface ApplyDeferExpositionOptions {
  /** The run's tool state; `allowedNames` is rewritten, `inspectedNames` kept. */
  state: RunToolState;
  logger?: Logger;
  /** The search index `tool_search` filters to this run's tools. @default registry.searchIndex */
  searchIndex?: CreateMetaToolsOptions['searchIndex'];
  /** Per-namespace freshness notes for search results. @default none */
  freshness?: CreateMetaToolsOptions['freshness'];
  /** Embeds search queries for hybrid ranking. @default none (lexical) */
  embedQuery?: CreateMetaToolsOptions['embedQuery'];
  /**
   * Code mode: adds `tool_exec`, running scripts in this sandbox, whether or not anything is
   * deferred. @default off
   */
  codeMode?: { sandbox: ToolExecSandbox };
  /**
   * Wraps the meta tools this adds (the journal and masking of a run), before scripts get
   * `tool_search`, so that a script's search is journalled like the model's. @default none
   */
  wrap?: (tools: ToolSet) => ToolSet;
  /**
   * The provider's own tool search: when given, deferred tools stay in the request marked with
   * its `defer_loading` option beside the search tool, instead of behind the meta tools.
   * @default none (the meta tools)
   */
  native?: NativeToolSearch;
}

/** What {@link applyDeferExposition} produced. */
export interface DeferExposition {
  /** The tools to hand to the model: the input itself when nothing is deferred. */
  tools: ToolSet;
  /** Deferred entries, sorted by name; build the prompt section from them. */
  deferred: ToolEntry[];
  /** How the deferred tools reach the model; `meta` also when nothing is deferred. */
  strategy: 'meta' | 'native';
  /** Tokens of the definitions sent up front: inline tools plus the meta or search tool when added. */
  inlineTokens: number;
  /** Tokens of the definitions kept out of the prompt by deferral. */
  deferredTokens: number;
}

/**
 * Decides which tools of a run to defer, and builds the tool set to send: behind the meta tools,
 * or, with `options.native`, beside the provider's own tool search (see `exposeNatively`).
 *
 * `tools` is the run's own tool set, already wrapped with its approval policy. A tool that may need
 * approval there is treated as `defer: 'never'` whatever its entry says: a deferred tool is only
 * reachable through `tool_invoke`, which refuses gated tools, so deferring it would hide it. Tools
 * without a registry entry stay inline. When nothing is deferred, the input object comes back
 * unchanged and no meta tool is added, unless code mode adds `tool_exec`.
 */
export async function applyDeferExposition(
  tools: ToolSet,
  registry: ToolRegistry,
  contextWindow: number | undefined,
  options: ApplyDeferExpositionOptions = { state: createRunToolState() },
): Promise<DeferExposition> {
  const names = sortedNames(tools);
  options.state.allowedNames = names;
  // Each definition's tokens, estimated once (the pool's cost and the totals below share them).
  const costs = names.map((name) => estimateToolDefinitionTokens(name, tools[name] as NonNullable<ToolSet[string]>));
  const effective: ToolEntry[] = [];
  const effectiveCosts: number[] = [];
  names.forEach((name, index) => {
    const entry = registry.getByName(name);
    const perRun = tools[name];
    if (!entry || !perRun) return;
    const defer = mayNeedApproval(perRun) ? 'never' : entry.defer;
    effective.push(defer === entry.defer && entry.tool === perRun ? entry : { ...entry, defer, tool: perRun });
    effectiveCosts.push(costs[index] as number);
  });
  // An effective entry carries the run's own tool under its name: its estimate is that name's.
  const deferredNames = deferredNamesOf(effective, contextWindow, (_entry, index) => effectiveCosts[index] as number);
  const wrap = options.wrap ?? ((set: ToolSet) => set);
  if (deferredNames.size === 0) {
    const inlineTokens = costs.reduce((sum, tokens) => sum + tokens, 0);
    if (!options.codeMode) return { tools, deferred: [], strategy: 'meta', inlineTokens, deferredTokens: 0 };
    const exec = wrap({
      [META_TOOL_NAMES.exec]: createToolExec({ tools, state: options.state, sandbox: options.codeMode.sandbox }),
    });
    return {
      tools: { ...tools, ...exec },
      deferred: [],
      strategy: 'meta',
      inlineTokens: inlineTokens + tokensOf(exec),
      deferredTokens: 0,
    };
  }

  const deferred = effective.filter((entry) => deferredNames.has(entry.name));
  const exposed: ToolSet = {};
  let inlineTokens = 0;
  let deferredTokens = 0;
  names.forEach((name, index) => {
    if (deferredNames.has(name)) {
      deferredTokens += costs[index] as number;
    } else {
      exposed[name] = tools[name] as NonNullable<ToolSet[string]>;
      inlineTokens += costs[index] as number;
    }
  });
  if (options.native) {
    const native = exposeNatively({ tools, names, deferredNames, native: options.native });
    inlineTokens += estimateToolDefinitionTokens(options.native.name, options.native.tool);
    if (options.codeMode) {
      // A script reaches the deferred tools by name: the provider's search is the model's, not the script's.
      const exec = wrap({
        [META_TOOL_NAMES.exec]: createToolExec({
          tools,
          state: options.state,
          sandbox: options.codeMode.sandbox,
          described: names.filter((name) => !deferredNames.has(name)),
        }),
      });
      Object.assign(native.tools, exec);
      inlineTokens += tokensOf(exec);
    }
    options.logger?.debug(
      { deferred: deferred.length, inline: names.length - deferred.length, inlineTokens, deferredTokens },
      "deferred tools behind the provider's tool search",
    );
    return { tools: native.tools, deferred, strategy: 'native', inlineTokens, deferredTokens };
  }
  // Search filters the registry's own index to this run's tools: nothing is built here.
  const meta: ToolSet = wrap(
    createMetaTools({
      registry,
      tools,
      deferred,
      state: options.state,
      searchIndex: options.searchIndex,
      freshness: options.freshness,
      embedQuery: options.embedQuery,
    }),
  );
  if (options.codeMode) {
    Object.assign(
      meta,
      wrap({
        [META_TOOL_NAMES.exec]: createToolExec({
          tools,
          state: options.state,
          sandbox: options.codeMode.sandbox,
          search: meta[META_TOOL_NAMES.search],
          described: names.filter((name) => !deferredNames.has(name)),
        }),
      }),
    );
  }
  for (const [name, metaTool] of Object.entries(meta)) {
    exposed[name] = metaTool;
    inlineTokens += estimateToolDefinitionTokens(name, metaTool);
  }
  options.logger?.debug(
    { deferred: deferred.length, inline: names.length - deferred.length, inlineTokens, deferredTokens },
    'deferred tools behind the meta tools',
  );
  return { tools: exposed, deferred, strategy: 'meta', inlineTokens, deferredTokens };
}

/** The tool names sorted, without sorting when they already come in order (a registry selection). */
function sortedNames(tools: ToolSet): string[] {
  const names = Object.keys(tools);
  for (let at = 1; at < names.length; at += 1) {
    if ((names[at - 1] as string) > (names[at] as string)) return names.sort();
  }
  return names;
}

function tokensOf(tools: ToolSet): number {
  return Object.entries(tools).reduce((sum, [name, each]) => sum + estimateToolDefinitionTokens(name, each), 0);
}
