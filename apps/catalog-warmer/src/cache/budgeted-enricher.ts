import { AgentqError, type Logger } from '@agentq/shared';
import type { ToolEnricher } from '@agentq/registry';
import { takeEnrichmentCall, type RedisConnection } from '@agentq/store';

/** Options of {@link createBudgetedEnricher}. */
export interface BudgetedEnricherOptions {
  enricher: ToolEnricher;
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  /** Model calls one server may cost per hour, over every warmer (`AGENTQ_SEARCH_ENRICH_MAX_PER_SERVER_HOUR`). */
  maxPerServerHour: number;
  logger: Logger;
}

/**
 * Description enrichment under a per-server hourly budget, counted in Redis so that every warmer
 * spends from the same one: a server that rewrites its descriptions on every list would otherwise
 * cost up to `AGENTQ_SEARCH_ENRICH_MAX_TOOLS` model calls per list. A call past the budget is not
 * made: it fails like a model error (`RATE_LIMITED`), so its tool is asked again at a later read,
 * and the list itself was written before enrichment started. The spent budget is logged once per
 * server and window.
 */
export function createBudgetedEnricher(options: BudgetedEnricherOptions): (serverId: string) => ToolEnricher {
  const announced = new Map<string, number>();
  return (serverId) => ({
    modelId: options.enricher.modelId,
    async examplesFor(text, signal) {
      const grant = await takeEnrichmentCall({
        redis: options.redis,
        prefix: options.prefix,
        serverId,
        maxPerHour: options.maxPerServerHour,
      });
      if (!grant.allowed) {
        if (announced.get(serverId) !== grant.windowEndsAt) {
          announced.set(serverId, grant.windowEndsAt);
          options.logger.warn(
            { serverId, maxPerHour: options.maxPerServerHour, until: new Date(grant.windowEndsAt).toISOString() },
            'enrichment budget of the server spent for this hour; its tools wait for a later read',
          );
        }
        throw new AgentqError({
          code: 'RATE_LIMITED',
          message: `Enrichment budget of server ${serverId} (${options.maxPerServerHour} calls per hour) is spent`,
        });
      }
      return await options.enricher.examplesFor(text, signal);
    },
  });
}
