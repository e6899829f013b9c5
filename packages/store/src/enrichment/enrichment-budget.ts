import { keyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';

const hourMs = 3_600_000;

/** What {@link takeEnrichmentCall} answered. */
export interface EnrichmentCallGrant {
  /** Whether the call fits this hour's budget of the server. */
  allowed: boolean;
  /** Calls asked for in this hour window so far, this one included (refused ones too). */
  used: number;
  /** When the window ends and the budget is whole again, epoch ms. */
  windowEndsAt: number;
}

/**
 * Takes one model call of description enrichment from a server's budget of the current hour
 * (`P:enrich-budget.<serverId>.<hour>`), shared by every warmer: one `INCR`, and the counter
 * expires an hour after its window, so nothing is left behind. A refused call still counts, which
 * keeps the check to one command; the counter only says whether the budget is spent.
 */
export async function takeEnrichmentCall(options: {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  serverId: string;
  /** Model calls one server may cost per hour. */
  maxPerHour: number;
  /** @default Date.now() */
  now?: number;
}): Promise<EnrichmentCallGrant> {
  const now = options.now ?? Date.now();
  const hour = Math.floor(now / hourMs);
  const key = keyNames(options.prefix).enrichBudget(options.serverId, hour);
  const replies = await options.redis
    .multi()
    .incr(key)
    .expire(key, 2 * 3600)
    .exec();
  const [error, used] = replies?.[0] ?? [new Error('enrichment budget: no reply')];
  if (error) throw error;
  return { allowed: Number(used) <= options.maxPerHour, used: Number(used), windowEndsAt: (hour + 1) * hourMs };
}
