import { startApi, type RunningApi } from '@agentq/api';
import { createLogger } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { apiCaller, testConfig, TEST_TOKEN, type ApiCaller } from './start-test-api.js';

describe('request log lines', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, { LOG_LEVEL: 'info' });
    const logger = createLogger({
      level: 'info',
      secretValues: [TEST_TOKEN],
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    api = await startApi({ config, logger });
    http = apiCaller(api.url);
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  const requestLines = (reqId: unknown) => lines.filter((line) => line.reqId === reqId);

  it('one line per request: method, path without the query, status and time; no token', async () => {
    // The query is refused (no such parameter), and not logged either.
    const found = await http.call('GET', '/v1/runs/no-such-run?waitMs=0&code=oauth-code-123');
    expect(found.status).toBe(400);
    const bad = await http.call('POST', '/v1/runs', { body: { spec: { assistant: { model: 'nope' } } } });
    expect(bad.status).toBe(400);

    const completed = lines.filter((line) => line.msg === 'request completed');
    const get = completed.find((line) => line.method === 'GET' && line.url === '/v1/runs/no-such-run');
    const post = completed.find((line) => line.method === 'POST' && line.url === '/v1/runs');
    expect(get).toMatchObject({ statusCode: 400, responseTime: expect.any(Number) });
    expect(post).toMatchObject({ statusCode: 400, responseTime: expect.any(Number) });
    // One line per request: no separate "incoming request" line.
    expect(requestLines(get?.reqId)).toHaveLength(1);
    expect(requestLines(post?.reqId)).toHaveLength(1);
    const text = JSON.stringify(lines);
    expect(text).not.toContain('oauth-code-123');
    expect(text).not.toContain(TEST_TOKEN);
    expect(text).not.toContain('"req":{}');
  });
});
