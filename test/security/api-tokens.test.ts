import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { readApprovalRecord, registerApprovalRequests } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCaller, startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin, pendingApproval, withCookie } from './admin-helpers.js';

const RUNNER = 'runner-token-0123456789';
const APPROVER = 'approver-token-0123456789';
const OPS = 'ops-token-0123456789abcd';
const SERVERS = 'servers-token-0123456789';

const spec = { assistant: { model: 'scripted:demo' }, input: { prompt: 'hello' } };

// Build 8: a leaked token for one job must not open the others.
describe('named API tokens with scopes', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, {
      AGENTQ_API_TOKENS: `runner:runs=${RUNNER};approver:approvals=${APPROVER};ops:admin=${OPS};catalog:servers=${SERVERS}`,
    });
    ({ api, http } = await startTestApi(ctx, config));
    await registerApprovalRequests({
      redis: ctx.redis,
      prefix: ctx.prefix,
      requests: [pendingApproval('scoped-1')],
    });
  });

  afterAll(async () => {
    await api?.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx?.close();
  });

  const as = (token: string) => ({ token });

  it('lets a runs token enqueue runs but not decide approvals nor put servers (403 FORBIDDEN)', async () => {
    expect((await http.call('POST', '/v1/runs', { ...as(RUNNER), body: { runId: 'scoped-run', spec } })).status).toBe(
      201,
    );
    expect((await http.call('GET', '/v1/runs/scoped-run', as(RUNNER))).status).toBe(200);
    expect((await http.call('GET', '/v1/schedules', as(RUNNER))).status).toBe(200);

    const decide = await http.call('POST', '/v1/approvals/scoped-1/decision', {
      ...as(RUNNER),
      body: { approved: true },
    });
    expect(decide.status).toBe(403);
    expect(decide.body.error.code).toBe('FORBIDDEN');
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'scoped-1' });
    expect(record?.decision).toBeNull();

    const put = await http.call('PUT', '/v1/servers/evil', {
      ...as(RUNNER),
      body: { transport: { type: 'http', url: 'https://example.com/mcp' } },
    });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe('FORBIDDEN');
    expect(await ctx.redis.hexists(`${ctx.prefix}:servers`, 'evil')).toBe(0);

    for (const [method, path] of [
      ['GET', '/v1/approvals'],
      ['GET', '/v1/servers'],
      ['GET', '/v1/catalog/x'],
      ['GET', '/metrics'],
    ] as const) {
      const answer = await http.call(method, path, as(RUNNER));
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code, path).toBe('FORBIDDEN');
    }
  });

  it('keeps each other scope to its own routes', async () => {
    expect((await http.call('GET', '/v1/approvals', as(APPROVER))).status).toBe(200);
    expect((await http.call('GET', '/v1/runs/scoped-run', as(APPROVER))).status).toBe(403);
    expect((await http.call('POST', '/v1/runs', { ...as(APPROVER), body: { spec } })).status).toBe(403);
    expect((await http.call('GET', '/v1/servers', as(SERVERS))).status).toBe(200);
    expect((await http.call('GET', '/v1/approvals', as(SERVERS))).status).toBe(403);
    expect((await http.call('GET', '/metrics', as(OPS))).status).toBe(200);
    expect((await http.call('GET', '/v1/runs/scoped-run', as(OPS))).status).toBe(403);
    // Any valid token may ask whether the API is ready and read the OpenAPI document.
    for (const token of [RUNNER, APPROVER, OPS, SERVERS]) {
      expect((await http.call('GET', '/readyz', as(token))).status).toBe(200);
      expect((await http.call('GET', '/v1/openapi.json', as(token))).status).toBe(200);
    }
    // AGENTQ_API_TOKEN keeps every scope.
    for (const path of ['/v1/approvals', '/v1/servers', '/metrics', '/v1/schedules']) {
      expect((await http.call('GET', path)).status, path).toBe(200);
    }
  });

  it('keeps Bull Board to admin tokens, by bearer and by login', async () => {
    const board = '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10';
    expect((await apiCaller(http.url).call('GET', board, as(OPS))).status).toBe(200);
    const refused = await apiCaller(http.url).call('GET', board, as(RUNNER));
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');

    const runnerCookie = await adminLogin(http.url, RUNNER);
    expect((await withCookie(http.url, { method: 'GET', path: board, cookie: runnerCookie })).status).toBe(403);
    const pause = await withCookie(http.url, {
      method: 'PUT',
      path: `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/pause`,
      cookie: runnerCookie,
      headers: { origin: http.url },
    });
    expect(pause.status).toBe(403);
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    expect(await runs.isPaused()).toBe(false);
    await runs.close();
    // The inbox needs the approvals scope.
    expect((await withCookie(http.url, { method: 'GET', path: '/admin/approvals', cookie: runnerCookie })).status).toBe(
      403,
    );
    const approverCookie = await adminLogin(http.url, APPROVER);
    expect(
      (await withCookie(http.url, { method: 'GET', path: '/admin/approvals', cookie: approverCookie })).status,
    ).toBe(200);
  });

  it('keeps what held: 401 without a token or with a wrong one, __proto__ bodies refused, 413 past the body limit', async () => {
    for (const token of [null, `${RUNNER}x`, 'runner', '']) {
      const answer = await http.call('GET', '/v1/runs/scoped-run', { token });
      expect(answer.status, String(token)).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    const polluted = await http.call('POST', '/v1/runs', {
      ...as(RUNNER),
      body: `{"spec":${JSON.stringify(spec)},"__proto__":{"admin":true}}`,
    });
    expect(polluted.status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    const huge = await http.call('POST', '/v1/runs', {
      ...as(RUNNER),
      body: JSON.stringify({ spec: { ...spec, input: { prompt: 'x'.repeat(2 * 1024 * 1024) } } }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
