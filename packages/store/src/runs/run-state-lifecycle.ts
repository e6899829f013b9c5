import { type KeyNames, runStateKeys } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';

/** How long a finished run's checkpoint, tool-result journal and step log stay readable: 7 days. */
export const FINISHED_RUN_TTL_SECONDS = 7 * 24 * 3600;

/** Options of {@link expireRunState} and {@link deleteRunState}. */
export interface RunStateOptions {
  redis: RedisConnection;
  keys: KeyNames;
  runId: string;
}

/**
 * Gives a finished run's checkpoint, tool-result journal, step log and step answer their TTL, together (one MULTI). For
 * runs that end without the worker writing a final checkpoint: a job that failed for good, or
 * stalled too often.
 */
export async function expireRunState(
  options: RunStateOptions & {
    /** @default FINISHED_RUN_TTL_SECONDS */
    ttlSeconds?: number;
  },
): Promise<void> {
  const ttl = options.ttlSeconds ?? FINISHED_RUN_TTL_SECONDS;
  const transaction = options.redis.multi();
  for (const key of runStateKeys(options.keys, options.runId)) transaction.expire(key, ttl);
  await transaction.exec();
}

/** Deletes a run's checkpoint, tool-result journal, step log and step answer together (a cancelled run). */
export async function deleteRunState(options: RunStateOptions): Promise<void> {
  await options.redis.del(...runStateKeys(options.keys, options.runId));
}
