import { randomBytes } from 'node:crypto';
import type { AgentWorker } from '@agentq/agent-worker';
import { runCli } from '@agentq/cli';
import { OAuthTokenStore } from '@agentq/store';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { startApi, type RunningApi } from '@agentq/api';
import { silentLogger } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, testConfig } from '../api/start-test-api.js';
import { adminLogin } from '../security/admin-helpers.js';
import { startOAuthFixture, type OAuthFixture } from '../fixtures/mcp/oauth-fixture.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

// Issue #24: a server an operator connects once with the authorization code grant (PKCE). Until
// then it is auth-required; after `agentq servers authorize` the warmer lists it and runs call it,
// and a worker started after the access token expired refreshes it (once) and carries on.
describe('an MCP server behind OAuth authorization code', () => {
  let harness: WarmerHarness;
  let fixture: OAuthFixture;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;
  let env: Record<string, string>;
  let api: RunningApi | undefined;
  const serverId = 'oauth-code';
  const toolName = 'mcp__oauthCode__whoami';

  beforeAll(async () => {
    harness = await createWarmerHarness();
    fixture = await startOAuthFixture();
    env = {
      AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
      AGENTQ_SECRET_KEY: randomBytes(32).toString('base64'),
      AGENTQ_SECRET_OAUTH_FIXTURE: fixture.clientSecret,
    };
    await harness.startWarmer({ env });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await stopWorkerSuite({ worker, queue });
    await harness?.close();
    await fixture?.stop();
  });

  function agentq(args: string[], onLine: (line: string) => void = () => undefined) {
    const lines: string[] = [];
    const code = runCli(['node', 'agentq', ...args], {
      out: (text) => {
        lines.push(text);
        onLine(text);
      },
      err: (text) => lines.push(text),
      env: { REDIS_URL: harness.ctx.redisUrl, AGENTQ_PREFIX: harness.ctx.prefix, LOG_LEVEL: 'silent', ...env },
    });
    return { code, lines };
  }

  async function runTool(runId: string): Promise<Array<[string, boolean]>> {
    await enqueueRun(queue as Queue, {
      runId,
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: [serverId],
          script: [{ toolCalls: [{ toolName, input: { note: runId } }] }, { text: 'done' }],
        },
        input: { prompt: 'who am I' },
      },
    });
    const finished = await waitForJob(queue as Queue, runId);
    expect(finished.state).toBe('completed');
    return runResultSchema.parse(finished.returnvalue).toolCalls.map((call) => [call.toolName, call.isError]);
  }

  it('is auth-required until authorized, then works, and refreshes once across a worker restart', async () => {
    await harness.putServer({
      id: serverId,
      transport: { type: 'streamable-http', url: fixture.url },
      auth: {
        type: 'oauth',
        grant: 'authorization_code',
        clientId: fixture.clientId,
        clientSecret: '${AGENTQ_SECRET_OAUTH_FIXTURE}',
      },
      timeouts: { connectMs: 20_000, listMs: 20_000, callMs: 20_000 },
    });
    const refused = await waitFor(
      async () => {
        const status = await harness.status(serverId);
        return status?.state === 'auth-required' && status;
      },
      { what: 'auth-required', timeoutMs: 60_000 },
    );
    expect(refused.errorCode).toBe('MCP_AUTH_REQUIRED');

    // The operator's flow: the CLI prints the URL, the "browser" consents, and comes back to the
    // CLI's loopback listener.
    let authorizationUrl: string | undefined;
    const authorize = agentq(['servers', 'authorize', serverId], (line) => {
      if (line.startsWith('http')) authorizationUrl = line;
    });
    const url = await waitFor(() => authorizationUrl, { what: 'the authorization URL', timeoutMs: 30_000 });
    expect(new URL(url).searchParams.get('resource')).toBe(fixture.url);
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await fixture.approve(url);
    // A callback with another state is refused and does not end the wait.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-the-flow');
    expect((await fetch(forged)).status).toBe(400);
    expect((await fetch(callback)).status).toBe(200);
    expect(await authorize.code, authorize.lines.join('\n')).toBe(0);
    // The same callback again (a replay) finds no flow: the listener is gone, and so is the state.
    await expect(fetch(callback)).rejects.toThrow();

    const entry = await waitFor(
      async () => {
        const current = await harness.entry(serverId);
        return current?.state === 'connected' && current;
      },
      { what: 'connected after authorize', timeoutMs: 60_000 },
    );
    expect(entry.tools.map((tool) => tool.name)).toEqual(['whoami']);

    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    queue = runsQueue(harness.ctx);
    expect(await runTool('code-1')).toEqual([[toolName, false]]);
    expect(fixture.stats().grants.refresh_token ?? 0).toBe(0);

    // The access token expires (the server refuses it, and the stored record says so) while no
    // worker runs; a new worker refreshes it before calling.
    await stopWorkerSuite({ worker });
    worker = undefined;
    fixture.expireAccessTokens();
    const store = new OAuthTokenStore({
      redis: harness.ctx.redis,
      keys: harness.keys,
      secretKey: env.AGENTQ_SECRET_KEY as string,
    });
    const stored = await store.read(serverId);
    expect(stored?.tokens?.refresh_token).toBeDefined();
    await store.write(serverId, { ...stored!, expiresAt: Date.now() - 1_000 });

    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    expect(await runTool('code-2')).toEqual([[toolName, false]]);
    expect(fixture.stats().grants.refresh_token).toBe(1);
    expect(fixture.stats().reusedRefreshTokens).toBe(0);

    // Deauthorize: the tokens are gone and the server needs authorization again.
    const deauthorize = agentq(['servers', 'deauthorize', serverId]);
    expect(await deauthorize.code, deauthorize.lines.join('\n')).toBe(0);
    expect(await harness.ctx.redis.exists(harness.keys.oauthTokens(serverId))).toBe(0);
    await waitFor(async () => (await harness.status(serverId))?.state === 'auth-required', {
      what: 'auth-required after deauthorize',
      timeoutMs: 60_000,
    });
  }, 240_000);

  it('connects from the catalog page, whose callback takes its state once', async () => {
    // Left auth-required by the test before (deauthorize).
    api = await startApi({
      config: testConfig(harness.ctx, {
        AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
        AGENTQ_SECRET_KEY: env.AGENTQ_SECRET_KEY as string,
      }),
      logger: silentLogger(),
      env: { ...process.env, ...env },
    });
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const page = await (await fetch(`${api.url}/admin/catalog`, { headers: { cookie } })).text();
    expect(page).toContain(`action="/admin/catalog/${serverId}/connect"`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

    // Without the session's CSRF token the form is refused and nothing starts.
    const forged = await fetch(`${api.url}/admin/catalog/${serverId}/connect`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: 'wrong' }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);

    const connect = await fetch(`${api.url}/admin/catalog/${serverId}/connect`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
      redirect: 'manual',
    });
    expect(connect.status).toBe(303);
    const authorizationUrl = new URL(connect.headers.get('location') ?? '');
    expect(authorizationUrl.origin).toBe(fixture.issuer);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${api.url}/admin/oauth/callback`);

    // The browser comes back from another site: no session cookie (SameSite=Strict); the state decides.
    const callback = await fixture.approve(authorizationUrl.href);
    const done = await fetch(callback, { redirect: 'manual' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toContain('notice=');
    const replay = await fetch(callback, { redirect: 'manual' });
    expect(replay.headers.get('location')).toContain(encodeURIComponent('OAUTH_FLOW_INVALID'));

    await waitFor(async () => (await harness.status(serverId))?.state === 'connected', {
      what: 'connected after Connect',
      timeoutMs: 60_000,
    });
    worker ??= await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    expect(await runTool('code-3')).toEqual([[toolName, false]]);

    // Deauthorized while its access token is still good and sessions that used it are open (the
    // warmer's watcher, the worker's pooled client): the store decides, so the next request over
    // any of them carries no token and the server is auth-required. A restart has the watcher
    // reconnect with the new token first, and the wait is for a list read over that session.
    const restartedAt = Date.now();
    const restart = agentq(['servers', 'restart', serverId]);
    expect(await restart.code, restart.lines.join('\n')).toBe(0);
    await waitFor(
      async () => {
        const current = await harness.entry(serverId);
        return current?.readBy?.session === 'watcher' && current.refreshedAt >= restartedAt;
      },
      { what: 'a list read over the watcher session opened with the new token' },
    );
    const deauthorize = agentq(['servers', 'deauthorize', serverId]);
    expect(await deauthorize.code, deauthorize.lines.join('\n')).toBe(0);
    await waitFor(async () => (await harness.status(serverId))?.state === 'auth-required', {
      what: 'auth-required after deauthorizing a server whose token was still good',
      timeoutMs: 60_000,
    });
    const callsBefore = fixture.stats().calls;
    await enqueueRun(queue as Queue, {
      runId: 'code-4',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: [serverId],
          script: [{ toolCalls: [{ toolName, input: { note: 'x' } }] }, { text: 'done' }],
        },
        input: { prompt: 'who am I' },
      },
    });
    const finished = await waitForJob(queue as Queue, 'code-4');
    // A run still offered the tool is refused before anything reaches the server.
    expect(runResultSchema.parse(finished.returnvalue).toolCalls).toMatchObject([
      { toolName, isError: true, output: expect.stringContaining('needs authorization') },
    ]);
    expect(fixture.stats().calls).toBe(callsBefore);
  }, 240_000);
});
