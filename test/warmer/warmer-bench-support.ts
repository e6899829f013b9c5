import { randomUUID } from 'node:crypto';
import { QUEUE_NAMES, loadConfig, silentLogger, type Config } from '@agentq/shared';
import { ServerStore, keyNames } from '@agentq/store';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../helpers/redis.js';

// Shared by the `bench/suites/warmer-*.ts` suites (the bench runner loads every file in
// bench/suites as a suite, so helpers live here).

/** A private Redis prefix for one benchmark run, with cleanup. */
export interface BenchSpace {
  prefix: string;
  redis: Redis;
  store: ServerStore;
  config(overrides?: Record<string, string>): Config;
  /** Environment for a warmer child process. */
  env(overrides?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

/** Opens a bench space on `redisUrl` under `bench-<uuid>`. */
export function openBenchSpace(redisUrl: string): BenchSpace {
  const prefix = `bench-${randomUUID()}`;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const env = (overrides: Record<string, string> = {}) => ({
    REDIS_URL: redisUrl,
    AGENTQ_PREFIX: prefix,
    AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
  return {
    prefix,
    redis,
    store: new ServerStore({ redis, prefix, logger: silentLogger() }),
    config: (overrides) => loadConfig(env(overrides)),
    env,
    async close() {
      const queue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: redis.duplicate(), prefix });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Runs `tasks` with at most `concurrency` at once. */
export async function runPool<T>(tasks: ReadonlyArray<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, lane));
  return results;
}

/** Polls until `check` is truthy (25 ms steps). */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('benchmark condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export { keyNames };
