import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDefinitionInput } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fixtureStdioTransport,
  startHttpFixture,
  type FixtureOptions,
  type HttpFixture,
} from '../fixtures/mcp/spawn-fixture.js';
import { failureCode, queueIdle, refreshNow } from './refresh-helpers.js';
import { capturingLogger, createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// Each test spawns servers and waits for refreshes: bounds for a machine whose cores are busy.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

// One warmer for the file; every test uses its own servers. Faults are switched on at run time
// through each fixture's fault file, so the same definition is first warmed, then broken.
let harness: WarmerHarness;
let directory: string;
const fixtures: HttpFixture[] = [];
const captured = capturingLogger();
const fastTimeouts = { connectMs: 2_500, listMs: 2_500, callMs: 5_000 };
// Starting a stdio fixture (node + tsx) can take well over 6 s on a machine whose cores are busy:
// only the timeout under test is short, and a connect timeout under test still leaves room for a
// slow start (a first warm that times out would never be retried, and the test would wait in vain).
const stdioTimeouts = { connectMs: 30_000, listMs: 2_500, callMs: 5_000 };
const stdioHangConnectTimeouts = { connectMs: 20_000, listMs: 2_500, callMs: 5_000 };

beforeAll(async () => {
  harness = await createWarmerHarness();
  directory = await mkdtemp(join(tmpdir(), 'agentq-warmer-faults-'));
  await harness.startWarmer({ env: { AGENTQ_SECRET_FIXTURE_NAME: 'secret-fixture-name' }, logger: captured.logger });
});
afterAll(async () => {
  await harness.close();
  await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
  await rm(directory, { recursive: true, force: true });
});

async function httpServer(options: FixtureOptions): Promise<HttpFixture> {
  const fixture = await startHttpFixture(options);
  fixtures.push(fixture);
  return fixture;
}

async function warmed(definition: ServerDefinitionInput) {
  await harness.putServer(definition);
  const entry = await waitFor(() => harness.entry(definition.id), { what: `${definition.id} warmed` });
  await queueIdle(harness.queue);
  return entry;
}

async function breakAndRefresh(serverId: string, faultFile: string, fault: string) {
  await writeFile(faultFile, fault);
  return await refreshNow({ queue: harness.queue, events: harness.events, serverId, reason: 'on-demand' });
}

describe('a failing refresh keeps the last known good list', () => {
  const cases: Array<{ fault: string; transport: 'stdio' | 'http'; code: string; options?: FixtureOptions }> = [
    { fault: 'hang-connect', transport: 'stdio', code: 'MCP_CONNECT_TIMEOUT' },
    { fault: 'hang-connect', transport: 'http', code: 'MCP_CONNECT_TIMEOUT' },
    { fault: 'hang-list', transport: 'stdio', code: 'MCP_LIST_TIMEOUT' },
    { fault: 'hang-list', transport: 'http', code: 'MCP_LIST_TIMEOUT' },
    { fault: 'crash-mid-list', transport: 'stdio', code: 'MCP_TRANSPORT_CLOSED', options: { pageSize: 2 } },
  ];
  for (const { fault, transport, code, options } of cases) {
    it(`marks the server stale on ${fault} over ${transport}`, async () => {
      const serverId = `lkg-${fault}-${transport}`;
      const faultFile = join(directory, `${serverId}.faults`);
      const fixtureOptions: FixtureOptions = { tools: 4, faultFile, ...options };
      const definition: ServerDefinitionInput =
        transport === 'stdio'
          ? {
              id: serverId,
              transport: fixtureStdioTransport(fixtureOptions),
              timeouts: fault === 'hang-connect' ? stdioHangConnectTimeouts : stdioTimeouts,
            }
          : {
              id: serverId,
              transport: { type: 'streamable-http', url: (await httpServer(fixtureOptions)).url },
              timeouts: fastTimeouts,
            };
      const good = await warmed(definition);
      expect(good.tools).toHaveLength(6);

      const before = Date.now();
      const result = await breakAndRefresh(serverId, faultFile, fault);
      expect(result.state).toBe('failed');
      expect(failureCode(result)).toBe(code);

      const entry = await harness.entry(serverId);
      expect(entry?.tools).toEqual(good.tools);
      expect(entry?.version).toBe(good.version);
      expect(entry?.state).toBe('stale');
      const status = await harness.status(serverId);
      expect(status).toMatchObject({ state: 'stale', toolCount: 6, failures: 1 });
      expect(status?.error).toEqual(expect.any(String));
      expect(status?.nextAttemptAt).toBeGreaterThanOrEqual(before + 30_000);

      // Repaired, the same definition is connected again with its full list.
      await writeFile(faultFile, '');
      const repaired = await refreshNow({
        queue: harness.queue,
        events: harness.events,
        serverId,
        reason: 'on-demand',
      });
      expect(repaired.state).toBe('completed');
      expect(await harness.status(serverId)).toMatchObject({ state: 'connected', failures: 0 });
    });
  }

  it('marks a never-warmed server error (no entry) when it takes 2 s to answer past its timeout', async () => {
    const fixture = await httpServer({ tools: 2, slowMs: 2_000 });
    await harness.putServer({
      id: 'slow-strict',
      transport: { type: 'streamable-http', url: fixture.url },
      timeouts: { connectMs: 800, listMs: 800, callMs: 1_000 },
    });
    const status = await waitFor(() => harness.status('slow-strict'), { what: 'a status for slow-strict' });
    expect(status.state).toBe('error');
    expect(status.toolCount).toBe(0);
    expect(await harness.entry('slow-strict')).toBeNull();
  });

  it('warms a server that takes 2 s to answer when its timeouts allow it', async () => {
    const fixture = await httpServer({ tools: 2, slowMs: 2_000 });
    const entry = await warmed({
      id: 'slow-patient',
      transport: { type: 'streamable-http', url: fixture.url },
      timeouts: { connectMs: 8_000, listMs: 8_000, callMs: 8_000 },
    });
    expect(entry.tools).toHaveLength(4);
  });

  it('keeps the old list invisible behind its hash while a changed definition fails, then replaces it', async () => {
    const fixture = await httpServer({ tools: 3 });
    const good = await warmed({ id: 'restarted', transport: { type: 'streamable-http', url: fixture.url } });
    await harness.putServer({
      id: 'restarted',
      transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
      timeouts: fastTimeouts,
    });
    const failed = await waitFor(async () => {
      const status = await harness.status('restarted');
      return status?.state === 'error' && status;
    });
    expect(failed.definitionHash).not.toBe(good.definitionHash);
    // The old entry is untouched: readers see its hash differ from the definition and treat the
    // server as cold.
    expect(await harness.entry('restarted')).toEqual(good);

    const other = await httpServer({ tools: 1 });
    await harness.putServer({ id: 'restarted', transport: { type: 'streamable-http', url: other.url } });
    const replaced = await waitFor(async () => {
      const entry = await harness.entry('restarted');
      return entry && entry.definitionHash !== good.definitionHash && entry;
    });
    expect(replaced.tools).toHaveLength(3);
    expect(replaced.state).toBe('connected');
  });
});

describe('what a refresh caches', () => {
  it('skips only the tool with a non-object schema', async () => {
    const fixture = await httpServer({ tools: 3, badSchema: true });
    const entry = await warmed({ id: 'bad-schema', transport: { type: 'streamable-http', url: fixture.url } });
    const names = entry.tools.map((tool) => tool.name);
    expect(names).not.toContain('bad_schema_tool');
    expect(names).toEqual(['counter_increment', 'fail_always', 'tool_0000', 'tool_0001', 'tool_0002']);
  });

  it('falls back from Streamable HTTP to legacy SSE, and speaks SSE when told to', async () => {
    const fixture = await httpServer({ tools: 2, sse: true });
    const fallback = await warmed({ id: 'sse-fallback', transport: { type: 'streamable-http', url: fixture.url } });
    expect(fallback.tools).toHaveLength(4);
    expect(fallback.state).toBe('connected');
    const direct = await warmed({ id: 'sse-direct', transport: { type: 'sse', url: fixture.url } });
    expect(direct.tools).toEqual(fallback.tools);
  });

  it('follows pagination to the end: 1 000 tools over stdio', async () => {
    const entry = await warmed({
      id: 'thousand',
      transport: fixtureStdioTransport({ tools: 1000, pageSize: 100 }),
      timeouts: { connectMs: 30_000, listMs: 30_000, callMs: 5_000 },
    });
    expect(entry.tools).toHaveLength(1002);
  });

  it('caches [] without calling tools/list for a server without the tools capability', async () => {
    const fixture = await httpServer({ noToolsCapability: true });
    const entry = await warmed({ id: 'no-tools', transport: { type: 'streamable-http', url: fixture.url } });
    expect(entry.tools).toEqual([]);
    expect(entry.state).toBe('connected');
    expect((await fixture.stats()).listCount).toBe(0);
    const status = await harness.status('no-tools');
    // Empty answers back off background probes for 5 minutes.
    expect(status?.nextAttemptAt).toBeGreaterThan(Date.now() + 4 * 60_000);
  });

  it('resolves ${ENV} secrets at connect and never stores them', async () => {
    const entry = await warmed({
      id: 'with-secret',
      transport: fixtureStdioTransport({ tools: 1, name: '${AGENTQ_SECRET_FIXTURE_NAME}' }),
    });
    expect(entry.tools).toHaveLength(3);
    const stored = await harness.ctx.redis.hget(harness.keys.servers, 'with-secret');
    expect(stored).toContain('${AGENTQ_SECRET_FIXTURE_NAME}');
    expect(stored).not.toContain('secret-fixture-name');
    // The resolved value went to the log redactor of the warmer's logger.
    captured.logger.info('the fixture is called secret-fixture-name');
    expect(JSON.stringify(captured.lines)).not.toContain('secret-fixture-name');

    await harness.putServer({
      id: 'missing-secret',
      transport: fixtureStdioTransport({ tools: 1, name: '${AGENTQ_SECRET_FIXTURE_NOT_SET_ANYWHERE}' }),
    });
    const status = await waitFor(() => harness.status('missing-secret'));
    expect(status.state).toBe('error');
    expect(status.error).toContain('AGENTQ_SECRET_FIXTURE_NOT_SET_ANYWHERE');
  });
});

describe('catalog.updated and lifecycle', () => {
  it('publishes catalog.updated only when the content changed', async () => {
    const fixture = await httpServer({ tools: 2, listChanged: true });
    const subscriber = harness.ctx.redis.duplicate();
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(harness.keys.catalogUpdated);
    try {
      await warmed({ id: 'publisher', transport: { type: 'streamable-http', url: fixture.url } });
      const first = messages.filter((message) => message.includes('"publisher"')).length;
      expect(first).toBe(1);
      await refreshNow({ queue: harness.queue, events: harness.events, serverId: 'publisher', reason: 'on-demand' });
      await refreshNow({ queue: harness.queue, events: harness.events, serverId: 'publisher', reason: 'restart' });
      expect(messages.filter((message) => message.includes('"publisher"'))).toHaveLength(1);

      await fixture.addTool('one_more');
      await waitFor(async () => (await harness.entry('publisher'))?.tools.some((tool) => tool.name === 'one_more'));
      await waitFor(() => messages.filter((message) => message.includes('"publisher"')).length === 2);
      const entry = await harness.entry('publisher');
      expect(JSON.parse(messages.filter((message) => message.includes('"publisher"'))[1] ?? '')).toEqual({
        serverId: 'publisher',
        version: entry?.version,
      });
    } finally {
      await subscriber.quit();
    }
  });

  it('lets background refreshes respect the failure backoff and explicit ones bypass it', async () => {
    const faultFile = join(directory, 'backoff.faults');
    const fixture = await httpServer({ tools: 1, faultFile });
    await warmed({ id: 'backoff', transport: { type: 'streamable-http', url: fixture.url }, timeouts: fastTimeouts });
    await breakAndRefresh('backoff', faultFile, 'hang-list');
    const failedAt = (await harness.status('backoff'))?.lastAttemptAt;

    const prewarm = await refreshNow({
      queue: harness.queue,
      events: harness.events,
      serverId: 'backoff',
      reason: 'prewarm',
    });
    expect(prewarm).toMatchObject({ state: 'completed', value: { outcome: 'skipped', skipped: 'backoff' } });
    expect((await harness.status('backoff'))?.lastAttemptAt).toBe(failedAt);

    await writeFile(faultFile, '');
    const onDemand = await refreshNow({
      queue: harness.queue,
      events: harness.events,
      serverId: 'backoff',
      reason: 'on-demand',
    });
    expect(onDemand).toMatchObject({ state: 'completed', value: { outcome: 'connected' } });
  });

  it('clears the entry on disable, warms again on enable, and forgets a removed server', async () => {
    const fixture = await httpServer({ tools: 2 });
    await warmed({ id: 'toggled', transport: { type: 'streamable-http', url: fixture.url } });
    await harness.store.setEnabled('toggled', false);
    await waitFor(async () => (await harness.status('toggled'))?.state === 'disabled');
    expect(await harness.entry('toggled')).toBeNull();

    await harness.store.setEnabled('toggled', true);
    const entry = await waitFor(() => harness.entry('toggled'));
    expect(entry.tools).toHaveLength(4);

    await harness.store.remove('toggled');
    await waitFor(async () => (await harness.entry('toggled')) === null && (await harness.status('toggled')) === null);
  });
});
