import { safeParseJson } from '@agentq/shared';
import { keyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { z } from 'zod';

/** `P:warmer.<id>`: what one warmer reports about itself at each heartbeat. */
export const warmerRecordSchema = z.strictObject({
  id: z.string().min(1),
  pid: z.number().int(),
  hostname: z.string(),
  startedAt: z.number().int().nonnegative(),
  heartbeatAt: z.number().int().nonnegative(),
  state: z.enum(['running', 'stopping', 'stopped']),
  /** Servers whose watcher lease this warmer holds. */
  ownedServers: z.array(z.string()),
  /** Owned servers with a live `list_changed` watcher connection. */
  watchingServers: z.array(z.string()),
  /** Owned servers polled through a job scheduler instead. */
  pollingServers: z.array(z.string()),
  /** Refreshes running in this warmer now. */
  activeRefreshes: z.number().int().nonnegative(),
  concurrency: z.number().int().positive(),
});

/** One warmer's heartbeat record. */
export type WarmerRecord = z.output<typeof warmerRecordSchema>;

/** A warmer as seen by {@link readWarmerHealth}. */
export interface WarmerHealth {
  id: string;
  /** Heartbeat within the liveness window. */
  live: boolean;
  lastHeartbeatAt: number;
  /** The latest record, or `null` once it expired (the warmer is long gone). */
  record: WarmerRecord | null;
}

/** Writes a warmer's record (with a TTL) and its score in the live-warmer set, atomically. */
export async function writeWarmerRecord(options: {
  redis: RedisConnection;
  prefix: string;
  record: WarmerRecord;
  ttlMs: number;
}): Promise<void> {
  const keys = keyNames(options.prefix);
  const record = warmerRecordSchema.parse(options.record);
  const transaction = options.redis.multi().set(keys.warmer(record.id), JSON.stringify(record), 'PX', options.ttlMs);
  if (record.state === 'stopped') transaction.zrem(keys.warmers, record.id);
  else transaction.zadd(keys.warmers, record.heartbeatAt, record.id);
  await transaction.exec();
}

/** Number of warmers whose heartbeat is newer than `now - livenessMs` (at least 1). */
export async function countLiveWarmers(options: {
  redis: RedisConnection;
  prefix: string;
  livenessMs: number;
  now?: number;
}): Promise<number> {
  const now = options.now ?? Date.now();
  const count = await options.redis.zcount(keyNames(options.prefix).warmers, now - options.livenessMs, '+inf');
  return Math.max(1, count);
}

/**
 * Every warmer that heartbeated recently, live or dead, with its latest record: what the API's
 * health endpoint and `agentq warmer --status` show. A warmer is live while its last heartbeat is
 * within `livenessMs` (default: the watch lease).
 */
export async function readWarmerHealth(options: {
  redis: RedisConnection;
  prefix: string;
  livenessMs: number;
  now?: number;
}): Promise<WarmerHealth[]> {
  const keys = keyNames(options.prefix);
  const now = options.now ?? Date.now();
  const flat = await options.redis.zrange(keys.warmers, 0, -1, 'WITHSCORES');
  const members: Array<{ id: string; score: number }> = [];
  for (let index = 0; index + 1 < flat.length; index += 2) {
    members.push({ id: flat[index] ?? '', score: Number(flat[index + 1]) });
  }
  if (members.length === 0) return [];
  const texts = await options.redis.mget(...members.map((member) => keys.warmer(member.id)));
  return members.map((member, index) => {
    const parsed = safeParseJson(texts[index], warmerRecordSchema, `warmer record ${member.id}`);
    return {
      id: member.id,
      live: member.score >= now - options.livenessMs,
      lastHeartbeatAt: member.score,
      record: parsed.success ? parsed.data : null,
    };
  });
}

/** Drops warmers silent for longer than `olderThanMs` from the live-warmer set. */
export async function pruneDeadWarmers(options: {
  redis: RedisConnection;
  prefix: string;
  olderThanMs: number;
  now?: number;
}): Promise<void> {
  const now = options.now ?? Date.now();
  await options.redis.zremrangebyscore(keyNames(options.prefix).warmers, '-inf', now - options.olderThanMs);
}
