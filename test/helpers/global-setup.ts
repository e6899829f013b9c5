import type { TestProject } from 'vitest/node';
import { getTestRedis } from './redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** Finds or starts the suite's Redis once, and hands its URL to every integration test file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await getTestRedis();
  project.provide('redisUrl', redis.url);
  process.env.AGENTQ_TEST_REDIS_URL = redis.url;
  console.log(`[integration] using Redis at ${redis.url} (${redis.source})`);
  return async () => {
    await redis.stop();
  };
}
