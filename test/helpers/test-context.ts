import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { deleteKeysWithPrefix, testPrefix } from './redis.js';

/** Per-file Redis state: a private prefix and a connection, cleaned up by `close`. */
export interface TestContext {
  redisUrl: string;
  prefix: string;
  redis: Redis;
  /** Deletes this context's keys and closes its connection. */
  close(): Promise<void>;
}

/** Creates a context with its own `test-<uuid>` prefix on the suite's Redis. */
export function createTestContext(): TestContext {
  const redisUrl = inject('redisUrl');
  const prefix = testPrefix();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  return {
    redisUrl,
    prefix,
    redis,
    async close() {
      try {
        await deleteKeysWithPrefix(redis, prefix);
      } finally {
        redis.disconnect();
      }
    },
  };
}
