import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { readApprovalRecord, registerApprovalRequests } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, startTestApi, testConfig } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin, pendingApproval } from './admin-helpers.js';
import { bearerRequest, rawRequest } from './raw-http.js';

const RUNNER = 'runner-token-0123456789';
const OPS = 'ops-token-0123456789abcd';

// Holes 1, 3 and the admin part of 7: the scope check, Bull Board's decision guard, the admin
// headers and the CSRF rule all read the raw request line, while Fastify routes on the decoded
// path. Every request here goes over a real socket, spelled exactly as written.
describe('encoded paths get the authority of the route that serves them', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let queues: Record<string, Queue>;

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, {
      AGENTQ_API_TOKENS: `runner:runs=${RUNNER};ops:admin=${OPS}`,
      AGENTQ_LOGIN_RATE_LIMIT: '1000',
    });
    ({ api } = await startTestApi(ctx, config));
    queues = Object.fromEntries(
      Object.values(QUEUE_NAMES).map((name) => [name, new Queue(name, { connection: ctx.redis, prefix: ctx.prefix })]),
    );
    await registerApprovalRequests({
      redis: ctx.redis,
      prefix: ctx.prefix,
      requests: [pendingApproval('encoded-1'), pendingApproval('board-1')],
    });
  });

  afterAll(async () => {
    await api?.close();
    for (const queue of Object.values(queues ?? {})) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx?.close();
  });

  const send = (method: string, path: string, token: string, body?: unknown) =>
    bearerRequest(api.url, { token, method, path, body });

  it('refuses a runs-only token on other scopes whatever the spelling (403 FORBIDDEN)', async () => {
    for (const path of [
      '/v1/%6bbs',
      '/v1/k%62s',
      '/v1/%6Bbs',
      '/v1/kbs#x',
      '/v1/%73ervers',
      '/v1/servers#x',
      '/%6detrics',
      '/%6Detrics',
      '/metrics#x',
      '/v1/%61pprovals',
      '/v1/approvals#x',
      '/v1/%63atalog/x',
    ]) {
      const answer = await send('GET', path, RUNNER);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code, path).toBe('FORBIDDEN');
    }
  });

  it('lets no runs-only token define a server, queue an ingest or approve a call through an encoded path', async () => {
    const put = await send('PUT', '/v1/%73ervers/evil', RUNNER, {
      transport: { type: 'http', url: 'https://example.com/mcp' },
    });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe('FORBIDDEN');
    expect(await ctx.redis.hexists(`${ctx.prefix}:servers`, 'evil')).toBe(0);

    const ingest = await send('POST', '/v1/%6bbs/docs/sources', RUNNER, { url: 'https://example.com/a' });
    expect(ingest.status).toBe(403);
    expect(await queues[QUEUE_NAMES.kbIngest]?.count()).toBe(0);

    for (const path of ['/v1/%61pprovals/encoded-1/decision', '/v1/%61PPROVALS/encoded-1/decision']) {
      const decide = await send('POST', path, RUNNER, { approved: true });
      expect([403, 404], path).toContain(decide.status);
    }
    const decide = await send('POST', '/v1/%61pprovals/encoded-1/decision', RUNNER, { approved: true });
    expect(decide.body.error.code).toBe('FORBIDDEN');
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'encoded-1' });
    expect(record?.decision).toBeNull();
  });

  it('refuses a decisions job added through Bull Board under any spelling of the queue name', async () => {
    const forged = { name: 'decision', data: { approvalId: 'board-1', approved: true, decidedBy: 'anyone' } };
    for (const queueName of [
      '%64ecisions',
      'decision%73',
      'decisio%6es',
      'decisio%6Es',
      '%64%65%63%69%73%69%6f%6e%73',
    ]) {
      const answer = await send('POST', `/admin/queues/api/queues/${queueName}/add`, OPS, forged);
      expect(answer.status, queueName).toBe(403);
      expect(answer.body.error.code, queueName).toBe('FORBIDDEN');
    }
    // A name that decodes to no queue of ours is not served either.
    const other = await send('POST', '/admin/queues/api/queues/%44ecisions/add', OPS, forged);
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(await queues[QUEUE_NAMES.decisions]?.count()).toBe(0);
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'board-1' });
    expect(record?.decision).toBeNull();
  });

  it('sends the admin security headers on /%61dmin pages', async () => {
    for (const path of ['/%61dmin/login', '/admin/%6cogin', '/%61dmin/login#x']) {
      const answer = await rawRequest(api.url, { method: 'GET', path });
      expect(answer.status, path).toBe(200);
      expect(String(answer.headers['content-security-policy']), path).toContain("frame-ancestors 'none'");
      expect(answer.headers['x-frame-options'], path).toBe('DENY');
      expect(answer.headers['cache-control'], path).toBe('no-store');
    }
  });

  it('answers an unknown admin path 401 without a session and 404 with one, in any spelling', async () => {
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    for (const path of ['/admin/nope', '/%61dmin/nope']) {
      const anonymous = await rawRequest(api.url, { method: 'GET', path });
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers['x-frame-options'], path).toBe('DENY');
      expect((await rawRequest(api.url, { method: 'GET', path, headers: { cookie } })).status, path).toBe(404);
    }
  });

  it('applies the CSRF rule on encoded admin paths: a cookie-only change is refused', async () => {
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const runs = queues[QUEUE_NAMES.agentRuns] as Queue;
    for (const path of [
      '/%61dmin/queues/api/queues/agent-runs/pause',
      '/admin/queues/api/queues/agent-run%73/pause',
      '/admin/%71ueues/api/queues/agent-runs/pause',
    ]) {
      const answer = await rawRequest(api.url, { method: 'PUT', path, headers: { cookie } });
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code, path).toBe('CSRF');
    }
    expect(await runs.isPaused()).toBe(false);
    // A forged logout through an encoded path leaves the session alive.
    const logout = await rawRequest(api.url, { method: 'POST', path: '/%61dmin/logout', headers: { cookie } });
    expect(logout.status).toBe(403);
    const inbox = await rawRequest(api.url, { method: 'GET', path: '/admin/approvals', headers: { cookie } });
    expect(inbox.status).toBe(200);
  });

  it('sends a login back to a page of this site only, whatever `next` says', async () => {
    for (const next of [
      '//evil.example/x',
      'https://evil.example/',
      '/\\evil.example',
      '/admin/../..//evil.example',
      '/admin/%2F%2Fevil.example',
      '/%61dmin/approvals',
    ]) {
      const response = await fetch(`${api.url}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: TEST_TOKEN, next }).toString(),
        redirect: 'manual',
      });
      await response.arrayBuffer();
      expect(response.status, next).toBe(303);
      const target = new URL(response.headers.get('location') ?? '', api.url);
      expect(target.origin, next).toBe(new URL(api.url).origin);
    }
  });
});
