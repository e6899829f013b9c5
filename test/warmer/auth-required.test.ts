import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApi } from '@agentq/api';
import { runCli } from '@agentq/cli';
import { errorCodeInfo } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, parseExposition, startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { adminLogin } from '../security/admin-helpers.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { capturingLogger, createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// Issue #24, item 2: a server behind OAuth answers 401. Its status says so everywhere, and neither
// the watcher nor background refreshes keep knocking; an operator's refresh after the server lets
// agentq in clears it.
const watchLeaseMs = 3_000;
const slow = { timeoutMs: 90_000 };

let harness: WarmerHarness;
let fixture: HttpFixture;
let api: RunningApi;
let http: ApiCaller;
let directory: string;
let faultFile: string;
const captured = capturingLogger();
const serverId = 'oauth-protected';

beforeAll(async () => {
  harness = await createWarmerHarness({ watchLeaseMs });
  directory = await mkdtemp(join(tmpdir(), 'agentq-auth-required-'));
  faultFile = join(directory, 'faults');
  await writeFile(faultFile, 'require-auth\n');
  fixture = await startHttpFixture({ tools: 2, faultFile });
  ({ api, http } = await startTestApi(harness.ctx, testConfig(harness.ctx, { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' })));
  await harness.startWarmer({ logger: captured.logger });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await harness?.close();
  await fixture?.stop();
  await rm(directory, { recursive: true, force: true });
}, 120_000);

/** Runs the CLI in-process against the test deployment. */
async function agentq(...args: string[]): Promise<{ code: number; output: string; stdout: string }> {
  const lines: string[] = [];
  const out: string[] = [];
  const code = await runCli(['node', 'agentq', ...args], {
    out: (text) => {
      lines.push(text);
      out.push(text);
    },
    err: (text) => lines.push(text),
    env: {
      REDIS_URL: harness.ctx.redisUrl,
      AGENTQ_PREFIX: harness.ctx.prefix,
      AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
      LOG_LEVEL: 'silent',
    },
  });
  return { code, output: lines.join('\n'), stdout: out.join('\n') };
}

/** Resolves once the watch lease of the server was renewed `count` more times (one per watcher tick). */
async function leaseRenewals(count: number): Promise<void> {
  const key = harness.keys.watchLease(serverId);
  let last = await harness.ctx.redis.pttl(key);
  for (let seen = 0; seen < count;) {
    await waitFor(
      async () => {
        const ttl = await harness.ctx.redis.pttl(key);
        const renewed = ttl > last;
        last = ttl;
        return renewed;
      },
      { what: 'a watch lease renewal' },
    );
    seen += 1;
  }
}

describe('a server that answers 401', () => {
  it('is auth-required everywhere, is not retried, and an on-demand refresh clears it', async () => {
    await harness.putServer({
      id: serverId,
      transport: { type: 'streamable-http', url: fixture.url, headers: {} },
      timeouts: { connectMs: 20_000, listMs: 20_000, callMs: 20_000 },
    });

    const status = await waitFor(
      async () => {
        const current = await harness.status(serverId);
        return current?.state === 'auth-required' && current;
      },
      { ...slow, what: 'status auth-required' },
    );
    expect(status.errorCode).toBe('MCP_AUTH_REQUIRED');
    expect(status.nextAttemptAt).toBeUndefined();

    // The watcher owner tries once on its own; wait until it has been refused and has said so.
    await waitFor(
      () =>
        captured.lines.some(
          (line) => line.serverId === serverId && line.level === 40 && String(line.msg).includes('authorization'),
        ),
      { ...slow, what: 'the watcher refused for want of authorization' },
    );
    const before = (await fixture.stats()).authRefusals;
    expect(before).toBeGreaterThan(0);

    // A background refresh (what a run naming the server or a warmer start sends) is skipped...
    const job = await requestRefresh(harness.queue, { serverId, reason: 'first-seen' });
    await (job as { waitUntilFinished(events: unknown): Promise<unknown> }).waitUntilFinished(harness.events);
    // ...and the watcher does not reconnect on its backoff (1 s after one failure): six ticks of
    // 750 ms each, observed through the lease they renew, are well past it.
    await leaseRenewals(6);
    expect((await fixture.stats()).authRefusals).toBe(before);

    // Shown everywhere in the one vocabulary.
    const servers = await http.call('GET', '/v1/servers');
    expect(servers.status).toBe(200);
    const listed = servers.body.servers as Array<{ definition: { id: string }; state: string }>;
    expect(listed.find((server) => server.definition.id === serverId)?.state).toBe('auth-required');
    const catalog = await http.call('GET', `/v1/catalog/${serverId}`);
    expect(catalog.body.state).toBe('auth-required');
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const page = await (await fetch(`${api.url}/admin/catalog`, { headers: { cookie } })).text();
    expect(page).toContain('server-state-auth-required');
    const metrics = parseExposition(String((await http.call('GET', '/metrics')).body));
    expect(metrics.get(`agentq_catalog_state{server="${serverId}",state="auth-required"}`)).toBe(1);
    const listed2 = await agentq('servers', 'list');
    expect(listed2.code, listed2.output).toBe(0);
    expect(listed2.output).toMatch(new RegExp(`${serverId}.*auth-required`));

    // `servers add --wait` returns with the state and the exit code of its error code.
    const waited = await agentq('servers', 'add', 'oauth-wait', '--url', fixture.url, '--wait', '--timeout', '90000');
    expect(waited.code, waited.output).toBe(errorCodeInfo('MCP_AUTH_REQUIRED')?.exitCode);
    expect(waited.output).toContain('auth-required');
    // The same wait as JSON: stdout holds only the JSON, the coded error goes to stderr.
    const waitedJson = await agentq('servers', 'add', 'oauth-json', '--url', fixture.url, '--wait', '--json');
    expect(waitedJson.code, waitedJson.output).toBe(errorCodeInfo('MCP_AUTH_REQUIRED')?.exitCode);
    expect(JSON.parse(waitedJson.stdout)).toMatchObject({
      definition: { id: 'oauth-json' },
      state: 'auth-required',
      status: { errorCode: 'MCP_AUTH_REQUIRED' },
    });

    // The server lets agentq in now; an operator's refresh clears the state.
    await writeFile(faultFile, '');
    const refreshed = await http.call('POST', `/v1/servers/${serverId}/refresh`);
    expect(refreshed.status).toBeLessThan(300);
    await waitFor(async () => (await harness.status(serverId))?.state === 'connected', {
      ...slow,
      what: 'status connected after the refresh',
    });
    expect((await http.call('GET', `/v1/catalog/${serverId}`)).body.state).toBe('connected');
    const connected = await agentq('servers', 'add', 'open-wait', '--url', fixture.url, '--wait', '--timeout', '90000');
    expect(connected.code, connected.output).toBe(0);
    expect(connected.output).toContain('connected');
    const connectedJson = await agentq('servers', 'add', 'open-json', '--url', fixture.url, '--wait', '--json');
    expect(connectedJson.code, connectedJson.output).toBe(0);
    expect(JSON.parse(connectedJson.stdout)).toMatchObject({
      definition: { id: 'open-json', enabled: true },
      state: 'connected',
      status: { state: 'connected' },
    });
    const savedJson = await agentq('servers', 'add', 'saved-json', '--url', fixture.url, '--disabled', '--json');
    expect(savedJson.code, savedJson.output).toBe(0);
    expect(JSON.parse(savedJson.stdout)).toEqual({
      definition: expect.objectContaining({ id: 'saved-json', enabled: false }),
    });
  }, 240_000);
});
