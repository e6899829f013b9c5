import type { CatalogTool, Logger } from '@agentq/shared';
import type { ToolEnrichmentStore } from '@agentq/store';
import type { ToolEnricher } from './create-tool-enricher.js';
import { toolEnrichmentDigest, toolEnrichmentText } from './tool-enrichment-text.js';

/** Options of {@link enrichCatalogTools}. */
export interface EnrichCatalogToolsOptions {
  enricher: ToolEnricher;
  store: ToolEnrichmentStore;
  tools: readonly CatalogTool[];
  /** Most tools sent to the model by this call; the rest wait for a later one. @default all */
  maxTools?: number;
  /** Model calls in flight at once. @default 2 */
  concurrency?: number;
  signal?: AbortSignal;
}

/** What {@link enrichCatalogTools} did. */
export interface EnrichCatalogToolsResult {
  /** Tool texts whose examples were written now. */
  enriched: number;
  /** Tool texts whose examples were already stored. */
  reused: number;
  /** Tool texts the model failed on (or that the time ran out for). */
  failed: number;
  /** Tool texts left for a later call by `maxTools`. */
  deferred: number;
  /** Model calls made. */
  calls: number;
  /** Prompt and completion tokens the provider reported over those calls. */
  inputTokens: number;
  outputTokens: number;
}

/**
 * Makes sure the tools of a list have stored example requests: only texts without any are sent to
 * the model, one call each, so an unchanged tool is never sent twice, whichever warmer reads it.
 * Each answer is stored as it arrives, so a timeout keeps what was done. A failing call counts in
 * `failed` and is retried by the next call that sees the tool.
 */
export async function enrichCatalogTools(options: EnrichCatalogToolsOptions): Promise<EnrichCatalogToolsResult> {
  const textsByDigest = new Map<string, string>();
  for (const tool of options.tools) textsByDigest.set(toolEnrichmentDigest(tool), toolEnrichmentText(tool));
  const missing = await options.store.missing([...textsByDigest.keys()]);
  const wanted = missing.slice(0, options.maxTools ?? missing.length);
  const result: EnrichCatalogToolsResult = {
    enriched: 0,
    reused: textsByDigest.size - missing.length,
    failed: 0,
    deferred: missing.length - wanted.length,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
  let next = 0;
  const work = async () => {
    while (next < wanted.length) {
      const digest = wanted[next] as string;
      next += 1;
      if (options.signal?.aborted) {
        result.failed += 1;
        continue;
      }
      try {
        result.calls += 1;
        const answer = await options.enricher.examplesFor(textsByDigest.get(digest) as string, options.signal);
        result.inputTokens += answer.usage.inputTokens;
        result.outputTokens += answer.usage.outputTokens;
        await options.store.write(new Map([[digest, answer.examples]]));
        result.enriched += 1;
      } catch {
        result.failed += 1;
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 2, wanted.length));
  await Promise.all(Array.from({ length: workers }, work));
  return result;
}

/** A warmer's enrichment: started after each list is written, never awaited by it. */
export interface CatalogToolEnrichment {
  /**
   * Starts enriching a list's new tools in the background and returns at once. A list of a server
   * whose enrichment is still running waits for it, and only the latest such list is kept.
   */
  enrichTools(serverId: string, tools: readonly CatalogTool[]): void;
  /** Resolves when no enrichment is running or waiting (for tests and benchmarks). */
  idle(): Promise<void>;
  /** Aborts running model calls and waits for them to end. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createCatalogToolEnrichment}. */
export interface CreateCatalogToolEnrichmentOptions {
  enricher: ToolEnricher;
  store: ToolEnrichmentStore;
  logger: Logger;
  /** Most tools sent to the model per list (`AGENTQ_SEARCH_ENRICH_MAX_TOOLS`). @default 200 */
  maxToolsPerList?: number;
  /** Longest time spent on one list; what is not done by then waits for the next read. @default 300 000 */
  timeoutMs?: number;
  /** Model calls in flight at once, per list. @default 2 */
  concurrency?: number;
  /**
   * Called after a pass over a server's list that stored new examples (the warmer publishes
   * `P:tools.enriched`); a failure is logged. @default none
   */
  onEnriched?: (serverId: string) => Promise<void>;
  /**
   * The enricher for one server's list, in place of `enricher` (the warmer wraps it in the
   * server's hourly budget). @default `enricher`
   */
  enricherFor?: (serverId: string) => ToolEnricher;
}

/**
 * The warmer-side hook of description enrichment. Unlike embeddings (one batched call before the
 * write), enrichment takes one generation per tool, so it runs after the list is written: a slow
 * or failing model never delays or fails a list, and is only logged.
 */
export function createCatalogToolEnrichment(options: CreateCatalogToolEnrichmentOptions): CatalogToolEnrichment {
  const controller = new AbortController();
  const running = new Map<string, Promise<void>>();
  const waiting = new Map<string, readonly CatalogTool[]>();
  let closing: Promise<void> | undefined;

  const announce = async (serverId: string) => {
    try {
      await options.onEnriched?.(serverId);
    } catch (error) {
      options.logger.warn(
        { serverId, error: error instanceof Error ? error.message : String(error) },
        'could not announce new tool examples; workers read them at the next catalog version',
      );
    }
  };
  const runOne = async (serverId: string, tools: readonly CatalogTool[]) => {
    try {
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(options.timeoutMs ?? 300_000)]);
      const result = await enrichCatalogTools({
        enricher: options.enricherFor?.(serverId) ?? options.enricher,
        store: options.store,
        tools,
        maxTools: options.maxToolsPerList ?? 200,
        concurrency: options.concurrency,
        signal,
      });
      options.logger.debug({ serverId, ...result }, 'enriched catalog tools');
      if (result.enriched > 0) await announce(serverId);
      if (result.failed > 0) {
        options.logger.warn(
          { serverId, failed: result.failed },
          'could not enrich some catalog tools; retried on the next read',
        );
      }
    } catch (error) {
      options.logger.warn(
        { serverId, error: error instanceof Error ? error.message : String(error) },
        'could not enrich catalog tools; search goes on without their examples',
      );
    }
  };
  const start = (serverId: string, tools: readonly CatalogTool[]) => {
    const task = runOne(serverId, tools).finally(() => {
      running.delete(serverId);
      const next = waiting.get(serverId);
      waiting.delete(serverId);
      if (next && !controller.signal.aborted) start(serverId, next);
    });
    running.set(serverId, task);
  };
  return {
    enrichTools(serverId, tools) {
      if (controller.signal.aborted || tools.length === 0) return;
      if (running.has(serverId)) waiting.set(serverId, tools);
      else start(serverId, tools);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },
    close() {
      closing ??= (async () => {
        waiting.clear();
        controller.abort();
        await Promise.all(running.values());
      })();
      return closing;
    },
  };
}
