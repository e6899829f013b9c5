import { createServer } from 'node:net';
import { silentLogger } from '@agentq/shared';
import { startApi, type RunningApi } from '@agentq/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { apiCaller, testConfig, type ApiCaller } from './start-test-api.js';

/** A local port that was just free: bound, then closed, so nothing answers on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return address.port;
}

describe('the API with Redis down', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    api = await startApi({ config, logger: silentLogger() });
    http = apiCaller(api.url);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await ctx.close();
  });

  it('answers 503 UNAVAILABLE, as documented, when reading and creating runs', async () => {
    const read = await http.call('GET', '/v1/runs/x');
    expect(read.status).toBe(503);
    expect(read.body.error).toMatchObject({ code: 'UNAVAILABLE' });
    const created = await http.call('POST', '/v1/runs', {
      body: { assistant: { model: 'scripted:demo' }, input: { prompt: 'x' } },
    });
    expect(created.status).toBe(503);
    expect(created.body.error).toMatchObject({ code: 'UNAVAILABLE' });
  }, 60_000);
});
