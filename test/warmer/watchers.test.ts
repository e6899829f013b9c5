import { readWarmerHealth, refreshScheduleId, resolveWarmerTimings } from '@agentq/catalog-warmer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

let harness: WarmerHarness;
const fixtures: HttpFixture[] = [];
const livenessMs = resolveWarmerTimings({ watchLeaseMs: 3_000 }).livenessMs;

beforeAll(async () => {
  harness = await createWarmerHarness({ watchLeaseMs: 3_000 });
}, 120_000);
afterAll(async () => {
  await harness.close();
  await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
});

async function httpServer(options: Parameters<typeof startHttpFixture>[0]): Promise<HttpFixture> {
  const fixture = await startHttpFixture(options);
  fixtures.push(fixture);
  return fixture;
}

async function health() {
  return await readWarmerHealth({ redis: harness.ctx.redis, prefix: harness.ctx.prefix, livenessMs });
}

describe('list_changed watchers and polling schedules', () => {
  it('turns a tools/list_changed notification into a cache update, and polls servers that cannot notify', async () => {
    const notifying = await httpServer({ tools: 2, listChanged: true });
    const polled = await httpServer({ tools: 2 });
    await harness.putServer({ id: 'notifying', transport: { type: 'streamable-http', url: notifying.url } });
    await harness.putServer({
      id: 'polled',
      transport: { type: 'streamable-http', url: polled.url },
      refreshIntervalMs: 60_000,
    });
    const warmer = await harness.startWarmer();

    const record = await waitFor(
      async () => {
        const own = (await health()).find((warmerHealth) => warmerHealth.id === warmer.id)?.record;
        return own?.watchingServers.includes('notifying') && own.pollingServers.includes('polled') && own;
      },
      { what: 'the warmer to watch one server and poll the other' },
    );
    expect(record.ownedServers).toEqual(['notifying', 'polled']);
    expect(await harness.ctx.redis.get(harness.keys.watchLease('notifying'))).toBe(warmer.id);

    const before = await waitFor(() => harness.entry('notifying'));
    expect(before.tools.map((tool) => tool.name)).not.toContain('announced_tool');
    await notifying.addTool('announced_tool');
    const after = await waitFor(async () => {
      const entry = await harness.entry('notifying');
      return entry?.tools.some((tool) => tool.name === 'announced_tool') && entry;
    });
    expect(after.version).not.toBe(before.version);

    const schedulers = await harness.queue.getJobSchedulers();
    expect(schedulers.map((scheduler) => scheduler.key)).toEqual([refreshScheduleId('polled')]);
    expect(schedulers[0]?.every).toBe(60_000);

    await harness.store.setEnabled('polled', false);
    await waitFor(async () => (await harness.queue.getJobSchedulers()).length === 0, { what: 'the schedule to go' });
    await waitFor(async () => (await harness.ctx.redis.get(harness.keys.watchLease('polled'))) === null);

    await warmer.close();
    expect((await health()).map((warmerHealth) => warmerHealth.id)).not.toContain(warmer.id);
    expect(await harness.ctx.redis.get(harness.keys.watchLease('notifying'))).toBeNull();
    // Several connects to spawned servers: bounded for a loaded machine, not an idle one.
  }, 300_000);
});
