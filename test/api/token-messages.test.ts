import type { RunningApi } from '@agentq/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestApi, type ApiCaller } from './start-test-api.js';

describe('a wrong token is told apart from a missing one', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  it('REST: same status and code, a different message', async () => {
    for (const path of ['/v1/servers', '/v1/nope', '/admin/queues/api/queues']) {
      const missing = await http.call('GET', path, { token: null });
      const wrong = await http.call('GET', path, { token: 'not-the-token-0123456789' });
      expect([missing.status, missing.body.error.code], path).toEqual([401, 'UNAUTHORIZED']);
      expect([wrong.status, wrong.body.error.code], path).toEqual([401, 'UNAUTHORIZED']);
      expect(wrong.body.error.message, path).not.toBe(missing.body.error.message);
      expect(wrong.body.error.message, path).toMatch(/not recognised/i);
      expect(missing.body.error.message, path).toMatch(/send a token/i);
      // The presented token is never echoed back.
      expect(JSON.stringify(wrong.body)).not.toContain('not-the-token');
    }
  });

  it('the login page: "send a token" for an empty form, "not recognised" for a wrong token', async () => {
    const login = async (token: string) => {
      const response = await fetch(`${api.url}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, next: '/admin/approvals' }).toString(),
        redirect: 'manual',
      });
      return { status: response.status, html: await response.text() };
    };
    const empty = await login('');
    const wrong = await login('not-the-token-0123456789');
    expect([empty.status, wrong.status]).toEqual([401, 401]);
    expect(empty.html).toMatch(/send a token/i);
    expect(wrong.html).toMatch(/not recognised/i);
    expect(wrong.html).not.toContain('not-the-token');
  });
});
