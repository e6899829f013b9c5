import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, startTestApi, testConfig } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin, inboxCsrf, withCookie } from './admin-helpers.js';

const LIMIT = 4;

// Logout must end the session on the server, and the login form must not be a token oracle.
describe('admin sessions: logout ends them, logins are rate-limited', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let url: string;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_LOGIN_RATE_LIMIT: String(LIMIT) })));
    url = api.url;
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  async function postLogin(token: string, from?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    // The limit counts per client address; X-Forwarded-For must not pick a fresh one.
    if (from) headers['x-forwarded-for'] = from;
    const response = await fetch(`${url}/admin/login`, {
      method: 'POST',
      headers,
      body: new URLSearchParams({ token }).toString(),
      redirect: 'manual',
    });
    const text = await response.text();
    return { status: response.status, text, retryAfter: response.headers.get('retry-after') };
  }

  it('refuses the old cookie after logout, on the pages and on Bull Board', async () => {
    const cookie = await adminLogin(url, TEST_TOKEN);
    const boardApi = `/admin/queues/api/queues/${QUEUE_NAMES.agentRuns}/pause`;
    expect((await withCookie(url, { method: 'GET', path: '/admin/approvals', cookie })).status).toBe(200);

    // A forged logout (no token, no Origin) is refused and leaves the session alone.
    expect((await withCookie(url, { method: 'POST', path: '/admin/logout', cookie })).status).toBe(403);
    expect((await withCookie(url, { method: 'GET', path: '/admin/approvals', cookie })).status).toBe(200);

    const csrf = await inboxCsrf(url, cookie);
    const logout = await fetch(`${url}/admin/logout`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
      redirect: 'manual',
    });
    await logout.arrayBuffer();
    expect(logout.status).toBe(303);
    expect(logout.headers.get('location')).toBe('/admin/login');

    // The replayed cookie is dead everywhere, even with its old CSRF token and the right Origin.
    const page = await withCookie(url, { method: 'GET', path: '/admin/approvals', cookie });
    expect(page.status).toBe(303);
    const board = await withCookie(url, { method: 'GET', path: '/admin/queues/api/queues', cookie });
    expect(board.status).toBe(401);
    const change = await withCookie(url, {
      method: 'PUT',
      path: boardApi,
      cookie,
      headers: { origin: url, 'x-csrf-token': csrf },
    });
    expect(change.status).toBe(401);
    const decision = await fetch(`${url}/admin/approvals/a1/decision`, {
      method: 'POST',
      headers: { cookie, origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve', _csrf: csrf }).toString(),
      redirect: 'manual',
    });
    await decision.arrayBuffer();
    expect(decision.status).toBe(303);
    expect(decision.headers.get('location')).toBe('/admin/login');
  });

  it('refuses a made-up cookie', async () => {
    const forged = `agentq_session=${'A'.repeat(43)}`;
    expect((await withCookie(url, { method: 'GET', path: '/admin/approvals', cookie: forged })).status).toBe(303);
    expect((await withCookie(url, { method: 'GET', path: '/admin/queues/api/queues', cookie: forged })).status).toBe(
      401,
    );
  });

  it(`answers 429 RATE_LIMITED after ${LIMIT} login attempts from one address, even with the right token`, async () => {
    // The test above logged in once; count what is left of this minute's budget from scratch by
    // using it up with wrong tokens.
    let answered401 = 0;
    let limited: Awaited<ReturnType<typeof postLogin>> | undefined;
    for (let attempt = 0; attempt < LIMIT + 1; attempt += 1) {
      const answer = await postLogin('wrong-token-wrong-token', `10.0.0.${attempt}`);
      if (answer.status === 401) answered401 += 1;
      else {
        limited = answer;
        break;
      }
    }
    expect(answered401).toBeGreaterThan(0);
    expect(answered401).toBeLessThanOrEqual(LIMIT);
    expect(limited?.status).toBe(429);
    expect(JSON.parse(limited?.text ?? '{}')).toMatchObject({
      error: { code: 'RATE_LIMITED', message: expect.any(String) },
    });
    expect(Number(limited?.retryAfter)).toBeGreaterThan(0);
    const right = await postLogin(TEST_TOKEN);
    expect(right.status).toBe(429);
  });
});
