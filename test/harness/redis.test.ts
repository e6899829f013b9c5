import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { deleteKeysWithPrefix, freePort, getTestRedis, testPrefix } from '../helpers/redis.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

/** A loopback port that nothing listens on. */
const closedPort = freePort;

describe('getTestRedis', () => {
  const saved = process.env.REDIS_URL;

  afterEach(() => {
    if (saved === undefined) delete process.env.REDIS_URL;
    else process.env.REDIS_URL = saved;
  });

  it('uses REDIS_URL first when it answers', async () => {
    const url = inject('redisUrl');
    process.env.REDIS_URL = url;
    const redis = await getTestRedis();
    try {
      expect(redis.source).toBe('REDIS_URL');
      expect(redis.url).toBe(url);
    } finally {
      await redis.stop();
    }
  });

  it('passes over a REDIS_URL that does not answer and takes the next that works, saying so', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    process.env.REDIS_URL = url;
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (message: string) => void warnings.push(message);
    try {
      const redis = await getTestRedis();
      try {
        expect(redis.url).not.toBe(url);
        expect(redis.source).not.toBe('REDIS_URL');
      } finally {
        await redis.stop();
      }
    } finally {
      console.warn = warn;
    }
    expect(warnings.some((message) => message.includes(url))).toBe(true);
  });
});

describe('testPrefix', () => {
  it('gives a fresh test-<uuid> prefix each time', () => {
    const first = testPrefix();
    expect(first).toMatch(/^test-[0-9a-f-]{36}$/);
    expect(testPrefix()).not.toBe(first);
  });
});

describe('deleteKeysWithPrefix', () => {
  let context: TestContext;
  let prefix: string;

  beforeEach(() => {
    context = createTestContext();
    prefix = testPrefix();
  });

  afterEach(async () => {
    // The neighbours below are outside `prefix`: remove them by name.
    await context.redis.del(`${prefix}-other:e`, `${prefix}x:f`, `other-${prefix}:g`, prefix);
    await context.close();
  });

  it('removes its own keys, plain and hash-tagged, and nothing else', async () => {
    await context.redis
      .multi()
      .set(`${prefix}:a`, '1')
      .hset(`${prefix}:b:c`, 'f', '1')
      .set(`{${prefix}}:d`, '1')
      .set(`${prefix}-other:e`, '1')
      .set(`${prefix}x:f`, '1')
      .set(`other-${prefix}:g`, '1')
      .set(prefix, '1')
      .exec();

    expect(await deleteKeysWithPrefix(context.redis, prefix)).toBe(3);
    expect(await context.redis.exists(`${prefix}:a`, `${prefix}:b:c`, `{${prefix}}:d`)).toBe(0);
    expect(await context.redis.exists(`${prefix}-other:e`, `${prefix}x:f`, `other-${prefix}:g`, prefix)).toBe(4);
  });

  it('returns 0 when there is nothing to delete', async () => {
    expect(await deleteKeysWithPrefix(context.redis, prefix)).toBe(0);
  });
});

describe('createTestContext', () => {
  it('deletes the keys under its prefix when closed', async () => {
    const observer = createTestContext();
    const context = createTestContext();
    try {
      expect(context.prefix).not.toBe(observer.prefix);
      await context.redis.set(`${context.prefix}:x`, '1');
      await context.close();
      expect(await observer.redis.exists(`${context.prefix}:x`)).toBe(0);
    } finally {
      await observer.close();
    }
  });
});
