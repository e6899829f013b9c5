import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  CACHE_TTL_CEILING_MS,
  CACHE_TTL_FLOOR_MS,
  CACHE_TTL_JOB_NAME,
  type RefreshOutcome,
} from '@agentq/catalog-warmer';
import type { Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { refreshNow } from './refresh-helpers.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// Issue #10, build 4: the MCP 2026-07-28 cache hints `ttlMs` and `cacheScope` on tools/list.
let harness: WarmerHarness;
let client: AgentqClient;
const fixtures: HttpFixture[] = [];

async function server(id: string, hints: { ttlMs?: number; cacheScope?: string }): Promise<void> {
  const fixture = await startHttpFixture({ tools: 2, ...hints });
  fixtures.push(fixture);
  await harness.putServer({ id, transport: { type: 'streamable-http', url: fixture.url } });
}

/** The delayed hint-driven refreshes of a server. */
async function ttlJobs(serverId: string): Promise<Job[]> {
  const delayed = await harness.queue.getDelayed();
  return delayed.filter(
    (job) => job.name === CACHE_TTL_JOB_NAME && (job.data as { serverId?: string }).serverId === serverId,
  );
}

beforeAll(async () => {
  harness = await createWarmerHarness();
  client = createAgentqClient({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix });
  await Promise.all([
    server('short-ttl', { ttlMs: 1_000, cacheScope: 'private' }),
    server('long-ttl', { ttlMs: 10 * 24 * 60 * 60_000 }),
    server('zero-ttl', { ttlMs: 0, cacheScope: 'shared' }),
    server('no-hints', {}),
  ]);
  await harness.startWarmer();
}, 300_000);
afterAll(async () => {
  await client.close();
  await harness.close();
  await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
}, 120_000);

describe('MCP cache hints on tools/list', () => {
  it('schedules the next refresh after a positive ttlMs, clamped to the floor and the ceiling', async () => {
    for (const [serverId, expected] of [
      ['short-ttl', CACHE_TTL_FLOOR_MS],
      ['long-ttl', CACHE_TTL_CEILING_MS],
    ] as const) {
      const [job] = await waitFor(
        async () => {
          const jobs = await ttlJobs(serverId);
          return jobs.length > 0 && jobs;
        },
        { timeoutMs: 60_000, what: `the ttl refresh of ${serverId}` },
      );
      const status = await harness.status(serverId);
      expect(status?.nextRefreshAt).toBeDefined();
      expect((status?.nextRefreshAt ?? 0) - (status?.lastSuccessAt ?? 0)).toBe(expected);
      // The job is due exactly when the status says, and it is a background refresh.
      expect(job?.data).toMatchObject({ serverId, reason: 'scheduled', requestedAt: status?.nextRefreshAt });
      expect(job?.delay).toBeGreaterThan(0);
      expect(job?.delay).toBeLessThanOrEqual(expected);
      const entry = await harness.entry(serverId);
      expect(entry?.ttlMs).toBe(serverId === 'short-ttl' ? 1_000 : 10 * 24 * 60 * 60_000);
    }
  }, 300_000);

  it('keeps today behaviour for a ttlMs of 0 or none', async () => {
    for (const serverId of ['zero-ttl', 'no-hints']) {
      const entry = await waitFor(() => harness.entry(serverId), { timeoutMs: 60_000, what: `${serverId} warmed` });
      expect(entry.ttlMs).toBeUndefined();
      expect((await harness.status(serverId))?.nextRefreshAt).toBeUndefined();
      expect(await ttlJobs(serverId)).toEqual([]);
    }
    expect((await harness.entry('zero-ttl'))?.cacheScope).toBe('shared');
    expect((await harness.entry('no-hints'))?.cacheScope).toBeUndefined();
  }, 300_000);

  it('runs only the latest ttl refresh: one a later read rescheduled is skipped when it fires', async () => {
    const [first] = await waitFor(
      async () => {
        const jobs = await ttlJobs('short-ttl');
        return jobs.length > 0 && jobs;
      },
      { timeoutMs: 60_000 },
    );
    // A later read schedules its own refresh and makes the first one obsolete.
    expect((await refreshNow({ ...harness, serverId: 'short-ttl', reason: 'on-demand' })).state).toBe('completed');
    const status = await harness.status('short-ttl');
    const jobs = await ttlJobs('short-ttl');
    const latest = jobs.find((job) => (job.data as { requestedAt: number }).requestedAt === status?.nextRefreshAt);
    expect(latest).toBeDefined();
    expect(latest?.id).not.toBe(first?.id);

    await first?.promote();
    const obsolete = (await first?.waitUntilFinished(harness.events, 60_000)) as RefreshOutcome;
    expect(obsolete).toMatchObject({ outcome: 'skipped', skipped: 'fresh' });
    await latest?.promote();
    const due = (await latest?.waitUntilFinished(harness.events, 60_000)) as RefreshOutcome;
    expect(due).toMatchObject({ outcome: 'connected', reason: 'scheduled' });
  }, 300_000);

  it('shows cacheScope private in the catalog view and the status, and still serves the list', async () => {
    const view = await client.getCatalog('short-ttl');
    expect(view.state).toBe('connected');
    expect(view.tools.length).toBeGreaterThan(0);
    expect(view.cacheScope).toBe('private');
    expect(view.ttlMs).toBe(1_000);
    expect(view.status?.cacheScope).toBe('private');
    expect(view.status?.ttlMs).toBe(1_000);
    expect((await client.getCatalog('no-hints')).cacheScope).toBeUndefined();
  });
});
