import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, startTestApi, testConfig } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin, inboxCsrf, withCookie } from './admin-helpers.js';

// Hole 7: with only the session cookie, a cross-site request could pause queues or add a
// `decisions` job through Bull Board's API. Every change under /admin now needs the CSRF token or
// a same-origin Origin.
describe('admin surface: CSRF on every change under /admin, Bull Board included', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let url: string;
  let runs: Queue;
  let decisions: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_LOGIN_RATE_LIMIT: '1000' })));
    url = api.url;
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    decisions = new Queue(QUEUE_NAMES.decisions, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await api?.close();
    const refresh = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis, prefix: ctx.prefix });
    for (const queue of [runs, decisions, refresh]) {
      await queue?.obliterate({ force: true });
      await queue?.close();
    }
    await ctx?.close();
  });

  const pausePath = `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/pause`;
  const resumePath = `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/resume`;
  const addPath = `/admin/queues/api/queues/${QUEUE_NAMES.decisions}/add`;
  const forgedDecision = { name: 'decision', data: { approvalId: 'a1', approved: true, decidedBy: 'mallory' } };

  it('refuses pausing agent-runs with only the cookie, and the queue keeps running', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const attacks: Array<Record<string, string>> = [
      {},
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: url.replace('http:', 'https:') },
      { origin: 'http://127.0.0.1:1' },
      { 'x-csrf-token': 'not-the-token' },
    ];
    for (const headers of attacks) {
      const answer = await withCookie(url, { method: 'PUT', path: pausePath, cookie, headers });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'CSRF' } });
    }
    expect(await runs.isPaused()).toBe(false);
  });

  it('refuses adding a job to decisions with only the cookie, and adds nothing', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const attacks: Array<Record<string, string>> = [{}, { origin: 'http://evil.example' }, { origin: 'null' }];
    for (const headers of attacks) {
      const answer = await withCookie(url, { method: 'POST', path: addPath, cookie, headers, body: forgedDecision });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body).toMatchObject({ error: { code: 'CSRF' } });
    }
    // A token lifted from the page does not help a cross-origin request either.
    const csrf = await inboxCsrf(url, cookie);
    const crossWithToken = await withCookie(url, {
      method: 'POST',
      path: addPath,
      cookie,
      headers: { origin: 'null', 'x-csrf-token': csrf },
      body: forgedDecision,
    });
    expect(crossWithToken.status).toBe(403);
    expect(await decisions.count()).toBe(0);
  });

  it('lets the same origin, or the session CSRF token, pause and resume', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const paused = await withCookie(url, { method: 'PUT', path: pausePath, cookie, headers: { origin: url } });
    expect(paused.status).toBe(200);
    expect(await runs.isPaused()).toBe(true);
    const csrf = await inboxCsrf(url, cookie);
    const resumed = await withCookie(url, {
      method: 'PUT',
      path: resumePath,
      cookie,
      headers: { 'x-csrf-token': csrf },
    });
    expect(resumed.status).toBe(200);
    expect(await runs.isPaused()).toBe(false);
    // The token of another session does not fit this one.
    const other = await adminLogin(url, TEST_TOKEN);
    const foreign = await withCookie(url, {
      method: 'PUT',
      path: pausePath,
      cookie: other,
      headers: { 'x-csrf-token': csrf },
    });
    expect(foreign.status).toBe(403);
    expect(await runs.isPaused()).toBe(false);
  });

  it('refuses writing decisions jobs through Bull Board even from the same origin', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const answer = await withCookie(url, {
      method: 'POST',
      path: addPath,
      cookie,
      headers: { origin: url },
      body: forgedDecision,
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const bearer = await fetch(`${url}${addPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(forgedDecision),
    });
    expect(bearer.status).toBe(403);
    await bearer.arrayBuffer();
    expect(await decisions.count()).toBe(0);
    // Other queues still take jobs from the board.
    const other = await withCookie(url, {
      method: 'POST',
      path: `/admin/queues/api/queues/${QUEUE_NAMES.catalogRefresh}/add`,
      cookie,
      headers: { origin: url },
      body: { name: 'probe', data: {} },
    });
    expect(other.status).toBe(200);
  });

  it('keeps the bearer header working for scripts (no ambient authority to forge)', async () => {
    const paused = await fetch(`${url}${pausePath}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(paused.status).toBe(200);
    await paused.arrayBuffer();
    expect(await runs.isPaused()).toBe(true);
    await runs.resume();
  });

  it('still refuses inbox decisions without the CSRF token, and a login posted from another site', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    for (const body of ['decision=approve', 'decision=approve&_csrf=0123']) {
      const response = await fetch(`${url}/admin/approvals/a1/decision`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      expect(response.status).toBe(403);
      await response.arrayBuffer();
    }
    const crossLogin = await fetch(`${url}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: new URLSearchParams({ token: TEST_TOKEN }).toString(),
      redirect: 'manual',
    });
    expect(crossLogin.status).toBe(403);
    expect(crossLogin.headers.get('set-cookie')).toBeNull();
    await crossLogin.arrayBuffer();
  });

  it('keeps the approvals queue read-only in Bull Board', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const answer = await withCookie(url, {
      method: 'GET',
      path: '/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10',
      cookie,
    });
    const queues = (answer.body as { queues: Array<{ name: string; readOnlyMode: boolean }> }).queues;
    expect(queues.find((queue) => queue.name === QUEUE_NAMES.approvals)?.readOnlyMode).toBe(true);
  });

  it('sends CSP, X-Frame-Options DENY and no-store on admin pages, Bull Board included', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    for (const path of ['/admin/login', '/admin/approvals', '/admin/queues', '/admin/queues/api/queues']) {
      const response = await fetch(`${url}${path}`, { headers: { cookie }, redirect: 'manual' });
      expect(response.status, path).toBe(200);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("default-src 'self'");
      expect(policy, path).toContain("script-src 'self'");
      expect(policy, path).not.toContain("script-src 'self' 'unsafe-inline'");
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('cache-control'), path).toBe('no-store');
      await response.arrayBuffer();
    }
    // Bull Board's page loads only scripts from its own static path, which the policy allows.
    const board = await (await fetch(`${url}/admin/queues`, { headers: { cookie } })).text();
    const scripts = [...board.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1] as string);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script).toMatch(/^static\//);
      const asset = await fetch(`${url}/admin/queues/${script}`, { headers: { cookie } });
      expect(asset.status, script).toBe(200);
      await asset.arrayBuffer();
    }
  });
});
