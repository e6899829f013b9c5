import { NonRetryableError, RetryLaterError, silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { OwnerRefreshes, type OwnerRefreshRequest } from './owner-refreshes.js';

function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve: (value: string) => void = () => {};
  const promise = new Promise<string>((done) => (resolve = done));
  return { promise, resolve };
}

/** Owner refreshes whose runs wait until the test resolves them, in the order they began. */
function recordingRefreshes() {
  const runs: Array<{ request: OwnerRefreshRequest; done: ReturnType<typeof deferred> }> = [];
  const refreshes = new OwnerRefreshes<string>({
    logger: silentLogger(),
    run: (request) => {
      const done = deferred();
      runs.push({ request, done });
      return done.promise;
    },
  });
  return { runs, refreshes };
}

describe('OwnerRefreshes', () => {
  it('answers requests made before a running refresh with it, and later ones with one more', async () => {
    const { runs, refreshes } = recordingRefreshes();
    const before = Date.now() - 1_000;
    const first = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: before });
    const covered = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: before });
    const later = Date.now() + 1_000;
    const second = refreshes.request({ serverId: 'docs', reason: 'scheduled', requestedAt: later });
    const third = refreshes.request({ serverId: 'docs', reason: 'on-demand', requestedAt: later });
    const other = refreshes.request({ serverId: 'wiki', reason: 'list-changed', requestedAt: before });
    expect(runs.map((run) => run.request.serverId)).toEqual(['docs', 'wiki']);

    runs[0]?.done.resolve('one');
    expect(await first).toBe('one');
    expect(await covered).toBe('one');
    await new Promise((resolve) => setTimeout(resolve, 0));
    // One more read for everything asked after the first began; forced wins over background.
    expect(runs).toHaveLength(3);
    expect(runs[2]?.request.reason).toBe('on-demand');
    expect(runs[2]?.request.requestedAt).toBe(later);
    runs[2]?.done.resolve('two');
    runs[1]?.done.resolve('wiki');
    expect(await second).toBe('two');
    expect(await third).toBe('two');
    expect(await other).toBe('wiki');
    await refreshes.close();
  });

  it('asks the pending refresh to answer the latest request merged into it', async () => {
    const { runs, refreshes } = recordingRefreshes();
    const now = Date.now();
    const running = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: now - 1_000 });
    const early = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: now + 1_000 });
    const late = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: now + 2_000 });
    const between = refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: now + 1_500 });
    runs[0]?.done.resolve('one');
    await running;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toHaveLength(2);
    // A read that began between the first and the last of them must not count as their answer.
    expect(runs[1]?.request.requestedAt).toBe(now + 2_000);
    runs[1]?.done.resolve('two');
    expect(await Promise.all([early, late, between])).toEqual(['two', 'two', 'two']);
    await refreshes.close();
  });

  it('waits for a busy refresh lock instead of failing, and passes other errors on', async () => {
    let attempts = 0;
    const refreshes = new OwnerRefreshes<string>({
      logger: silentLogger(),
      run: async (request) => {
        attempts += 1;
        if (request.serverId === 'broken') throw new NonRetryableError({ code: 'MCP_LIST_FAILED', message: 'no' });
        if (attempts < 3) throw new RetryLaterError({ code: 'REFRESH_BUSY', message: 'busy', retryAfterMs: 5 });
        return 'read';
      },
    });
    expect(await refreshes.request({ serverId: 'docs', reason: 'list-changed', requestedAt: 0 })).toBe('read');
    expect(attempts).toBe(3);
    await expect(
      refreshes.request({ serverId: 'broken', reason: 'list-changed', requestedAt: 0 }),
    ).rejects.toMatchObject({ code: 'MCP_LIST_FAILED' });
    await refreshes.close();
    expect(await refreshes.request({ serverId: 'docs', reason: 'on-demand', requestedAt: 0 })).toBeUndefined();
  });
});
