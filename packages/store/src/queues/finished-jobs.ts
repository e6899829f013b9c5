import type { RedisConnection } from '../redis/create-redis-connection.js';

/** One id of a BullMQ finished set (`completed` or `failed`) with its score, the job's `finishedOn`. */
export interface FinishedJobEntry {
  id: string;
  finishedOn: number;
}

/**
 * A page of a BullMQ finished set (pass `queue.toKey('completed')` or `queue.toKey('failed')`),
 * read in one command: the newest first from the top, or the oldest first from `floor` (epoch ms,
 * inclusive) up, skipping `offset` entries.
 */
export async function readFinishedJobs(
  redis: RedisConnection,
  key: string,
  page: { order: 'newest' } | { order: 'oldest'; floor: number; offset: number },
  count: number,
): Promise<FinishedJobEntry[]> {
  const flat =
    page.order === 'newest'
      ? await redis.zrevrangebyscore(key, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, count)
      : await redis.zrangebyscore(key, String(page.floor), '+inf', 'WITHSCORES', 'LIMIT', page.offset, count);
  const entries: FinishedJobEntry[] = [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    entries.push({ id: flat[index] as string, finishedOn: Number(flat[index + 1]) });
  }
  return entries;
}
