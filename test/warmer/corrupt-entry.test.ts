import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { catalogEntrySchema, safeParseJson, silentLogger } from '@agentq/shared';
import { catalogEntryDigest, keyNames, ServerStore } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogWriter } from '../../apps/catalog-warmer/src/cache/catalog-writer.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext } from '../helpers/test-context.js';
import { refreshNow } from './refresh-helpers.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// A catalog entry damaged after it was warmed (not an entry, or a key of another Redis type) is
// repaired by the next refresh, a background one included, and shown as `corrupt` until then.
let harness: WarmerHarness;
let client: AgentqClient;
const fixtures: HttpFixture[] = [];

async function server(id: string): Promise<void> {
  const fixture = await startHttpFixture({ tools: 2 });
  fixtures.push(fixture);
  await harness.putServer({ id, transport: { type: 'streamable-http', url: fixture.url } });
}

/** The stored entry and its version key; `entry` is whether the entry parses. */
async function stored(serverId: string) {
  const [type, version] = await Promise.all([
    harness.ctx.redis.type(harness.keys.tools(serverId)),
    harness.ctx.redis.get(harness.keys.catalogVersion(serverId)),
  ]);
  const text = type === 'string' ? await harness.ctx.redis.get(harness.keys.tools(serverId)) : null;
  return { type, version, text, entry: text !== null && safeParseJson(text, catalogEntrySchema).success };
}

async function warmed(serverId: string): Promise<void> {
  await waitFor(async () => (await client.getCatalog(serverId)).state === 'connected', { what: `${serverId} warm` });
}

beforeAll(async () => {
  harness = await createWarmerHarness();
  client = createAgentqClient({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix });
  await Promise.all([server('mended'), server('typed'), server('backed-off')]);
  await harness.startWarmer();
  await Promise.all(['mended', 'typed', 'backed-off'].map(warmed));
}, 300_000);
afterAll(async () => {
  await client.close();
  await harness.close();
  await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
}, 120_000);

describe('a corrupt catalog entry', () => {
  it('is shown as corrupt and replaced by a background refresh', async () => {
    await harness.ctx.redis.set(harness.keys.tools('mended'), '{"tools":"nope"}');
    await harness.ctx.redis.set(harness.keys.catalogVersion('mended'), 'v9');
    expect((await client.getCatalog('mended')).state).toBe('corrupt');
    expect((await client.listServers()).find((info) => info.definition.id === 'mended')?.state).toBe('corrupt');

    const result = await refreshNow({ ...harness, serverId: 'mended', reason: 'first-seen' });
    expect(result).toMatchObject({ state: 'completed', value: { outcome: 'connected' } });
    const now = await stored('mended');
    expect(now.entry).toBe(true);
    expect(now.version).toBe(catalogEntryDigest(now.text ?? ''));
    expect((await client.getCatalog('mended')).state).toBe('connected');
  });

  it('of another Redis type is shown as corrupt and overwritten by a background refresh', async () => {
    await harness.ctx.redis.del(harness.keys.tools('typed'));
    await harness.ctx.redis.rpush(harness.keys.tools('typed'), 'not', 'an', 'entry');
    expect((await client.getCatalog('typed')).state).toBe('corrupt');

    const result = await refreshNow({ ...harness, serverId: 'typed', reason: 'first-seen' });
    expect(result).toMatchObject({ state: 'completed', value: { outcome: 'connected' } });
    expect(await stored('typed')).toMatchObject({ type: 'string', entry: true });
    expect((await client.getCatalog('typed')).state).toBe('connected');
  });

  it('is repaired at once even while the server is in its backoff', async () => {
    // The backoff a failed or empty read leaves puts background refreshes off; a broken cache is
    // not the server's doing.
    const status = await harness.status('backed-off');
    await harness.ctx.redis.set(
      harness.keys.status('backed-off'),
      JSON.stringify({ ...status, nextAttemptAt: Date.now() + 3_600_000 }),
    );
    const held = await refreshNow({ ...harness, serverId: 'backed-off', reason: 'first-seen' });
    expect(held).toMatchObject({ state: 'completed', value: { outcome: 'skipped', skipped: 'backoff' } });

    await harness.ctx.redis.set(harness.keys.tools('backed-off'), '{not json');
    await harness.ctx.redis.set(harness.keys.catalogVersion('backed-off'), 'v9');
    const result = await refreshNow({ ...harness, serverId: 'backed-off', reason: 'first-seen' });
    expect(result).toMatchObject({ state: 'completed', value: { outcome: 'connected' } });
    expect(await stored('backed-off')).toMatchObject({ type: 'string', entry: true });
    expect((await client.getCatalog('backed-off')).state).toBe('connected');
  });

  it('goes when a refresh fails, whatever its Redis type, so the state says error', async () => {
    // A prefix of its own, with no warmer: only this writer touches the server's keys.
    const ctx = createTestContext();
    const keys = keyNames(ctx.prefix);
    const local = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    try {
      const writer = new CatalogWriter({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
      await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).put({
        id: 'gone-bad',
        transport: { type: 'stdio', command: 'true' },
      });
      const base = { serverId: 'gone-bad', definitionText: (await ctx.redis.hget(keys.servers, 'gone-bad')) ?? '' };
      for (const damage of [
        () => ctx.redis.set(keys.tools('gone-bad'), '{"tools":"nope"}'),
        () => ctx.redis.rpush(keys.tools('gone-bad'), 'not', 'an', 'entry'),
      ]) {
        await ctx.redis.del(keys.tools('gone-bad'));
        await damage();
        await ctx.redis.set(keys.catalogVersion('gone-bad'), 'v9');
        expect((await local.getCatalog('gone-bad')).state).toBe('corrupt');
        expect(await writer.recordFailure({ ...base, error: 'connect refused' })).toMatchObject({
          written: true,
          state: 'error',
        });
        expect(await ctx.redis.exists(keys.tools('gone-bad'), keys.catalogVersion('gone-bad'))).toBe(0);
        expect((await local.getCatalog('gone-bad')).state).toBe('error');
      }
    } finally {
      await local.close();
      await ctx.close();
    }
  });
});
