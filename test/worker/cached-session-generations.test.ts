import { silentLogger } from '@agentq/shared';
import { keyNames, ServerSessions, type SessionGenerationReader } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CachedSessionGenerations } from '@agentq/store';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// Long enough that only a notification (or a dropped subscription) can make a cached value go.
const maxAgeMs = 10 * 60_000;

describe('CachedSessionGenerations', () => {
  let ctx: TestContext;
  let subscriber: Redis;
  let cache: CachedSessionGenerations;
  let sessions: ServerSessions;
  let reads: number;
  let gate: Promise<void> | undefined;

  beforeEach(async () => {
    ctx = createTestContext();
    subscriber = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    sessions = new ServerSessions({ redis: ctx.redis, prefix: ctx.prefix });
    reads = 0;
    gate = undefined;
    const reader: SessionGenerationReader = {
      current: async (serverId) => {
        reads += 1;
        const generation = await sessions.current(serverId);
        await gate;
        return generation;
      },
    };
    cache = new CachedSessionGenerations({
      reader,
      subscriber,
      channel: keyNames(ctx.prefix).serverSessionRenewed,
      logger: silentLogger(),
      maxAgeMs,
    });
    await cache.start();
  });

  afterEach(async () => {
    await cache.close();
    subscriber.disconnect();
    await ctx.close();
  });

  it('reads a generation once, and again as soon as a restart is announced', async () => {
    expect(await cache.current('s1')).toBe('');
    expect(await cache.current('s1')).toBe('');
    expect(reads).toBe(1);
    const renewed = await sessions.renew('s1');
    await vi.waitFor(async () => expect(await cache.current('s1')).toBe(renewed), { timeout: 10_000 });
    const after = reads;
    expect(await cache.current('s1')).toBe(renewed);
    expect(reads).toBe(after);
  });

  it('does not keep a value read while a restart was announced', async () => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    const inFlight = cache.current('s2');
    // The read has its (old) answer; the restart lands before it returns.
    await vi.waitFor(() => expect(reads).toBe(1));
    const delivered = new Promise<void>((resolve) => subscriber.once('message', () => resolve()));
    const renewed = await sessions.renew('s2');
    await delivered;
    open();
    expect(await inFlight).toBe('');
    gate = undefined;
    expect(await cache.current('s2')).toBe(renewed);
  });

  it('reads every time while the subscription is down', async () => {
    await cache.current('s3');
    const closed = new Promise<void>((resolve) => subscriber.once('end', () => resolve()));
    subscriber.disconnect();
    await closed;
    const before = reads;
    await cache.current('s3');
    await cache.current('s3');
    expect(reads).toBe(before + 2);
  });
});
