import { refreshLockKey, requestRefresh } from '@agentq/store';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { failureCode, settle } from './refresh-helpers.js';
import { capturingLogger, createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// Refresh jobs can come from any producer, and definitions from any writer of the hash: bad ones
// must fail once with a named code, never retry, and never stop the good ones.
let harness: WarmerHarness;
let fixture: HttpFixture;
const captured = capturingLogger();

beforeAll(async () => {
  harness = await createWarmerHarness();
  fixture = await startHttpFixture({ tools: 2 });
  await harness.putServer({ id: 'good', transport: { type: 'streamable-http', url: fixture.url } });
  // Written around the store, as a buggy writer or a hand edit would.
  await harness.ctx.redis.hset(harness.keys.servers, 'broken', '{"id":"broken","transport":{"type":"carrier-pigeon"}}');
  await harness.ctx.redis.hset(harness.keys.servers, 'garbled', 'not json at all');
  await harness.startWarmer({ logger: captured.logger });
});
afterAll(async () => {
  await harness.close();
  await fixture.stop();
});

async function addRaw(data: unknown): Promise<Job> {
  // Around `requestRefresh` (which would refuse it) and with retries on, to prove none happen.
  return await harness.queue.add('raw', data, { attempts: 3, backoff: { type: 'fixed', delay: 10 } });
}

describe('bad refresh input', () => {
  it('prewarms the good server and skips the malformed definitions', async () => {
    const entry = await waitFor(() => harness.entry('good'));
    expect(entry.tools).toHaveLength(4);
    expect(await harness.entry('broken')).toBeNull();
    expect(await harness.entry('garbled')).toBeNull();
    const reported = captured.lines
      .filter((line) => line.msg === 'malformed server definition skipped')
      .map((line) => line.serverId);
    expect(reported.sort()).toEqual(['broken', 'garbled']);
  });

  it('fails a job for an unknown server once, with SERVER_NOT_FOUND', async () => {
    const result = await settle(
      await addRaw({ serverId: 'nobody-home', reason: 'on-demand', requestedAt: Date.now() }),
      harness,
    );
    expect(result).toMatchObject({ state: 'failed', attemptsMade: 1 });
    expect(failureCode(result)).toBe('SERVER_NOT_FOUND');
  });

  it('fails a job with an unknown reason once, naming the field', async () => {
    const result = await settle(
      await addRaw({ serverId: 'good', reason: 'because', requestedAt: Date.now() }),
      harness,
    );
    expect(result).toMatchObject({ state: 'failed', attemptsMade: 1 });
    expect(failureCode(result)).toBe('INVALID_REFRESH_JOB');
    expect(result.state === 'failed' && result.failedReason).toContain('reason');
  });

  it('fails a job for a malformed stored definition once, with DEFINITION_INVALID', async () => {
    for (const serverId of ['broken', 'garbled']) {
      const result = await settle(await addRaw({ serverId, reason: 'on-demand', requestedAt: Date.now() }), harness);
      expect(result).toMatchObject({ state: 'failed', attemptsMade: 1 });
      expect(failureCode(result)).toBe('DEFINITION_INVALID');
    }
  });
});

describe('the per-server refresh lock', () => {
  it('delays a refresh whose server is being refreshed elsewhere, and runs it once the lock is free', async () => {
    await waitFor(() => harness.entry('good'));
    const lockedUntil = Date.now() + 1_500;
    await harness.ctx.redis.set(refreshLockKey(harness.ctx.prefix, 'good'), 'another-warmer', 'PX', 1_500);
    const job = (await requestRefresh(harness.queue, { serverId: 'good', reason: 'on-demand' })) as Job;
    const result = await settle(job, harness);
    expect(result).toMatchObject({ state: 'completed', value: { outcome: 'connected' } });
    expect((await harness.status('good'))?.lastAttemptAt).toBeGreaterThanOrEqual(lockedUntil - 50);
    // Waiting for the lock is not an attempt: only the one that ran counts.
    expect((await harness.queue.getJob(job.id ?? ''))?.attemptsMade).toBe(1);
  });
});
