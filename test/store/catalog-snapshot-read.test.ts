import { createAgentqClient } from '@agentq/client';
import { silentLogger } from '@agentq/shared';
import { CatalogStore, keyNames } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// `agentq catalog <server> --version <v>` and `GET /v1/catalog/{id}?version=` read a pinned version
// through readSnapshot: a damaged key there is a version no longer kept (404), not a failure (500).
describe('CatalogStore.readSnapshot', () => {
  let ctx: TestContext;

  beforeAll(() => {
    ctx = createTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('reads a key of another Redis type as a version that is not kept', async () => {
    const keys = keyNames(ctx.prefix);
    const catalog = new CatalogStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    await ctx.redis.hset(keys.catalogSnapshot('svc', 'v1'), 'tools', '[]');
    await ctx.redis.rpush(keys.tools('svc'), 'not an entry');
    expect(await catalog.readSnapshot('svc', 'v1')).toBeNull();
    await ctx.redis.del(keys.catalogSnapshot('svc', 'v1'), keys.tools('svc'));
  });

  it('is reached through the client only with a version of the version alphabet', async () => {
    const client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    try {
      for (const bad of ['*', 'a b', 'v:1', 'v'.repeat(129), '', 'é']) {
        await expect(client.getCatalogSnapshot('svc', bad), bad).rejects.toMatchObject({
          code: 'VALIDATION',
          field: 'version',
        });
      }
      // A well-formed version that is not kept is a plain 404.
      await expect(client.getCatalogSnapshot('svc', 'a'.repeat(64))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await client.close();
    }
  });
});
