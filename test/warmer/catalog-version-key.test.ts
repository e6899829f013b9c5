import { silentLogger } from '@agentq/shared';
import { catalogEntryDigest, keyNames, ServerStore } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogWriter } from '../../apps/catalog-warmer/src/cache/catalog-writer.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

let ctx: TestContext;
let keys: ReturnType<typeof keyNames>;
let writer: CatalogWriter;
let store: ServerStore;

beforeAll(() => {
  ctx = createTestContext();
  keys = keyNames(ctx.prefix);
  writer = new CatalogWriter({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
  store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
});
afterAll(async () => {
  await ctx.close();
});

const transport = { type: 'stdio' as const, command: 'true' };
const tools = [{ name: 'ping', inputSchema: { type: 'object' as const } }];

async function base(serverId: string) {
  return { serverId, definitionText: (await ctx.redis.hget(keys.servers, serverId)) ?? '' };
}

/** Entry text and version key, read in one atomic MGET. */
async function stored(serverId: string) {
  const [entry, version] = await ctx.redis.mget(keys.tools(serverId), keys.catalogVersion(serverId));
  return { entry, version };
}

describe('catalog version key (real Redis)', () => {
  it('always holds the digest of the stored entry, through success, failure, disable and removal', async () => {
    await store.put({ id: 'v', transport });
    await writer.recordSuccess({ ...(await base('v')), tools, startedAt: Date.now() });
    let now = await stored('v');
    expect(now.entry).not.toBeNull();
    expect(now.version).toBe(catalogEntryDigest(now.entry ?? ''));

    // A failure marks the kept list stale: a new entry, a new key.
    const before = now.version;
    await writer.recordFailure({ ...(await base('v')), error: 'connect refused' });
    now = await stored('v');
    expect(now.version).toBe(catalogEntryDigest(now.entry ?? ''));
    expect(now.version).not.toBe(before);

    // A second failure keeps the entry as it is; a key lost meanwhile (an older cache) comes back.
    await ctx.redis.del(keys.catalogVersion('v'));
    await writer.recordFailure({ ...(await base('v')), error: 'connect refused' });
    now = await stored('v');
    expect(now.version).toBe(catalogEntryDigest(now.entry ?? ''));

    await store.setEnabled('v', false);
    await writer.recordDisabled(await base('v'));
    expect(await stored('v')).toEqual({ entry: null, version: null });

    await store.setEnabled('v', true);
    await writer.recordSuccess({ ...(await base('v')), tools, startedAt: Date.now() });
    expect((await stored('v')).version).not.toBeNull();
    await store.remove('v');
    expect(await writer.clearRemoved('v')).toBe(true);
    expect(await stored('v')).toEqual({ entry: null, version: null });
  });
});
