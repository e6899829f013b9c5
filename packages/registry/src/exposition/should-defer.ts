import type { ToolEntry } from '../registry/tool-entry.js';
import { estimateToolTokens } from './estimate-tool-tokens.js';

/** Fewest `auto` entries worth putting behind the meta tools. */
export const MIN_AUTO_DEFER_COUNT = 5;
/** What the three meta tools and the prompt section cost; deferring must save more than this. */
export const META_TOOLS_OVERHEAD_TOKENS = 500;
/** Context window assumed when a model's is unknown (missing or zero). */
export const DEFAULT_CONTEXT_WINDOW = 32_000;
/** Share of the context window the `auto` pool may take before it is deferred. */
export const DEFER_THRESHOLD_RATIO = 0.1;

/** Token threshold above which the `auto` pool is deferred. */
export function deferThreshold(contextWindow?: number): number {
  const window = contextWindow && contextWindow > 0 ? contextWindow : DEFAULT_CONTEXT_WINDOW;
  return Math.floor(window * DEFER_THRESHOLD_RATIO);
}

/**
 * Names to defer. `always` entries always are and `never` entries never are. The `auto` pool is
 * deferred whole, and only when it has at least {@link MIN_AUTO_DEFER_COUNT} entries and costs
 * more than both the threshold (10 % of the context window) and {@link META_TOOLS_OVERHEAD_TOKENS}:
 * below those, search-then-invoke costs the model more than it saves.
 */
export function shouldDefer(entries: ToolEntry[], contextWindow?: number): Set<string> {
  return deferredNamesOf(entries, contextWindow, estimateToolTokens);
}

/**
 * {@link shouldDefer} with the token estimate of each entry given, by its index in `entries`, for
 * a caller that already has them.
 */
export function deferredNamesOf(
  entries: readonly ToolEntry[],
  contextWindow: number | undefined,
  tokensOf: (entry: ToolEntry, index: number) => number,
): Set<string> {
  const deferred = new Set<string>();
  const pool: ToolEntry[] = [];
  let cost = 0;
  entries.forEach((entry, index) => {
    if (entry.defer === 'always') deferred.add(entry.name);
    else if (entry.defer === 'auto') {
      pool.push(entry);
      cost += tokensOf(entry, index);
    }
  });
  if (pool.length >= MIN_AUTO_DEFER_COUNT) {
    if (cost > deferThreshold(contextWindow) && cost > META_TOOLS_OVERHEAD_TOKENS) {
      for (const entry of pool) deferred.add(entry.name);
    }
  }
  return deferred;
}
