import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { RunningApi } from '@agentq/api';
import { ServerStore } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from '../fixtures/mcp/oauth-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestApi, TEST_TOKEN, testConfig, type ApiCaller } from './start-test-api.js';

/** `POST /v1/servers/{id}/authorize` with a forged `Host` and forwarding headers (fetch would not send them). */
async function authorizeAs(apiUrl: string, serverId: string, host: string) {
  const url = new URL(`/v1/servers/${serverId}/authorize`, apiUrl);
  return await new Promise<{ status: number; body: { callbackUrl: string; authorizationUrl: string } }>(
    (resolve, reject) => {
      const request = httpRequest(url, {
        method: 'POST',
        headers: {
          host,
          'x-forwarded-host': host,
          'x-forwarded-proto': 'https',
          forwarded: `host=${host};proto=https`,
          authorization: `Bearer ${TEST_TOKEN}`,
        },
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      request.on('error', reject);
      request.end();
    },
  );
}

// REST for an operator's OAuth connection: start the authorization-code flow (the URL to open),
// read whether tokens are stored (never the tokens), and delete them.
describe('/v1/servers/{id}/authorize and /authorization', () => {
  let ctx: TestContext;
  let fixture: OAuthFixture;
  let api: RunningApi;
  let http: ApiCaller;
  const serverId = 'oauth-rest';

  beforeAll(async () => {
    ctx = createTestContext();
    fixture = await startOAuthFixture();
    const servers = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await servers.put({
      id: serverId,
      transport: { type: 'streamable-http', url: fixture.url },
      auth: {
        type: 'oauth',
        grant: 'authorization_code',
        clientId: fixture.clientId,
        clientSecret: '${AGENTQ_SECRET_OAUTH_REST}',
      },
    });
    await servers.put({ id: 'plain', transport: { type: 'streamable-http', url: fixture.url } });
    process.env.AGENTQ_SECRET_OAUTH_REST = fixture.clientSecret;
    ({ api, http } = await startTestApi(
      ctx,
      testConfig(ctx, {
        AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
        AGENTQ_SECRET_KEY: randomBytes(32).toString('base64'),
      }),
    ));
  });

  afterAll(async () => {
    delete process.env.AGENTQ_SECRET_OAUTH_REST;
    await api?.close();
    await fixture?.stop();
    await ctx?.close();
  });

  it('starts the flow, whose callback stores tokens the status then shows, and deletes them', async () => {
    const before = await http.call('GET', `/v1/servers/${serverId}/authorization`);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ serverId, grant: 'authorization_code', authorized: false, expiresAt: null });

    const started = await http.call('POST', `/v1/servers/${serverId}/authorize`);
    expect(started.status).toBe(200);
    expect(started.body.callbackUrl).toBe(`${api.url}/admin/oauth/callback`);
    const authorizationUrl = new URL(started.body.authorizationUrl);
    expect(authorizationUrl.origin).toBe(fixture.issuer);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(started.body.callbackUrl);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await fixture.approve(authorizationUrl.href);
    const done = await fetch(callback, { redirect: 'manual' });
    expect(done.headers.get('location')).toContain('notice=');

    const after = await http.call('GET', `/v1/servers/${serverId}/authorization`);
    expect(after.body).toMatchObject({ authorized: true, rejected: false });
    expect(after.body.expiresAt).toBeGreaterThan(Date.now());
    expect(JSON.stringify(after.body)).not.toMatch(/access_token|refresh_token/);

    const deleted = await http.call('DELETE', `/v1/servers/${serverId}/authorization`);
    expect(deleted.body).toEqual({ serverId, deleted: true });
    expect((await http.call('GET', `/v1/servers/${serverId}/authorization`)).body.authorized).toBe(false);
  });

  it('puts the callback on the address the API listens on, whatever Host the request names', async () => {
    const started = await authorizeAs(api.url, serverId, 'evil.example');
    expect(started.status).toBe(200);
    expect(started.body.callbackUrl).toBe(`${api.url}/admin/oauth/callback`);
    const redirect = new URL(started.body.authorizationUrl).searchParams.get('redirect_uri');
    expect(redirect).toBe(`${api.url}/admin/oauth/callback`);
    expect(started.body.authorizationUrl).not.toContain('evil.example');
  });

  it('needs a token, a known server and an auth block', async () => {
    expect((await http.call('POST', `/v1/servers/${serverId}/authorize`, { token: null })).status).toBe(401);
    const unknown = await http.call('POST', '/v1/servers/nope/authorize');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const plain = await http.call('POST', '/v1/servers/plain/authorize');
    expect(plain.status).toBe(400);
    expect(plain.body.error.code).toBe('VALIDATION');
  });
});
