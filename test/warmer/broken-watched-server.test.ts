import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { resolveWarmerTimings, type CatalogWarmer } from '@agentq/catalog-warmer';
import { type CatalogStatus } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, processAlive, readPids } from '../fixtures/mcp/spawn-fixture.js';
import { capturingLogger, createWarmerHarness, liveWarmerIds, waitFor, type WarmerHarness } from './warmer-harness.js';

// Issue #20, defect 1: a watched stdio server dies and its command stops starting. The watcher
// owner survives. Whatever happens next (a watcher reconnect, an on-demand refresh taken by
// either warmer and handed to the owner), the status must say so with the error, every time.
const watchLeaseMs = 6_000;
const livenessMs = resolveWarmerTimings({ watchLeaseMs }).livenessMs;
// Generous: every stdio connect spawns a `tsx` child, slow on a machine under load.
const slow = { timeoutMs: 90_000 };

let harness: WarmerHarness;
let client: AgentqClient;
let directory: string;
let serial = 0;

beforeAll(async () => {
  harness = await createWarmerHarness({ watchLeaseMs });
  client = createAgentqClient({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix });
  directory = await mkdtemp(join(tmpdir(), 'agentq-broken-watched-'));
}, 120_000);
afterAll(async () => {
  await client.close();
  await harness.close();
  await rm(directory, { recursive: true, force: true });
}, 120_000);

interface WatchedServer {
  serverId: string;
  faultFile: string;
  pidFile: string;
}

async function watchedServer(): Promise<WatchedServer> {
  serial += 1;
  const serverId = `watched-${serial}`;
  const faultFile = join(directory, `${serverId}.faults`);
  const pidFile = join(directory, `${serverId}.pids`);
  await writeFile(faultFile, '');
  await harness.putServer({
    id: serverId,
    transport: fixtureStdioTransport({ tools: 2, listChanged: true, faultFile, pidFile }),
    timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
  });
  return { serverId, faultFile, pidFile };
}

/** The live warmer holding the server's watcher, once the cache holds a list read over its session. */
async function watchedBy(serverId: string, warmers: number): Promise<string> {
  return await waitFor(
    async () => {
      const live = await liveWarmerIds(harness, livenessMs);
      const holder = await harness.ctx.redis.get(harness.keys.watchLease(serverId));
      const entry = await harness.entry(serverId);
      const status = await harness.status(serverId);
      return (
        live.length === warmers &&
        holder !== null &&
        live.includes(holder) &&
        entry?.readBy?.warmerId === holder &&
        entry.readBy.session === 'watcher' &&
        status?.state === 'connected' &&
        holder
      );
    },
    { ...slow, what: 'a watcher owner and a list read over its session' },
  );
}

/** Makes the command unstartable, then kills every process of the server (SIGKILL). */
async function breakServer(server: WatchedServer): Promise<void> {
  await writeFile(server.faultFile, 'refuse-start\n');
  const pids = (await readPids(server.pidFile)).filter(processAlive);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
}

async function failedSince(serverId: string, since: number): Promise<CatalogStatus> {
  return await waitFor(
    async () => {
      const status = await harness.status(serverId);
      return (
        status !== null &&
        (status.state === 'stale' || status.state === 'error') &&
        status.error !== undefined &&
        status.lastAttemptAt >= since &&
        status
      );
    },
    { ...slow, what: `${serverId} recorded as stale or in error` },
  );
}

describe('a broken watched server', () => {
  let warmers: CatalogWarmer[] = [];

  it('is marked stale with its error by the watcher, on its first failed reconnect', async () => {
    const server = await watchedServer();
    warmers = [await harness.startWarmer()];
    await watchedBy(server.serverId, 1);
    const brokenAt = Date.now();
    await breakServer(server);

    const status = await failedSince(server.serverId, brokenAt);
    expect(status.state).toBe('stale');
    expect(status.error).toMatch(/refusing to start/);
    expect(status.failures).toBeGreaterThan(0);
    // The model sees it too: the entry keeps its tools, marked stale.
    expect((await harness.entry(server.serverId))?.state).toBe('stale');

    // The server starts again: the watcher reconnects and the list read over its new session
    // brings the status back.
    await writeFile(server.faultFile, '');
    const repaired = await waitFor(
      async () => {
        const current = await harness.status(server.serverId);
        return (
          current?.state === 'connected' &&
          current.lastSuccessAt !== undefined &&
          current.lastSuccessAt > brokenAt &&
          current
        );
      },
      { ...slow, what: 'the status connected again' },
    );
    expect(repaired.failures).toBe(0);
    expect((await harness.entry(server.serverId))?.readBy?.session).toBe('watcher');
    await Promise.all(warmers.map((warmer) => warmer.close()));
    await harness.ctx.redis.hdel(harness.keys.servers, server.serverId);
  }, 300_000);

  it("records an on-demand refresh of it, even while a notification's fallback job still waits", async () => {
    const server = await watchedServer();
    const captured = capturingLogger();
    warmers = [
      await harness.startWarmer({ logger: captured.logger }),
      await harness.startWarmer({ logger: captured.logger }),
    ];
    const owner = await watchedBy(server.serverId, 2);
    const readAt = (await harness.entry(server.serverId))?.refreshedAt ?? 0;
    // The queued fallback of a list_changed the owner already read over its session (workers
    // busy, say): the read answers it, so it will be skipped as covered when it runs.
    await harness.queue.pause();
    await requestRefresh(harness.queue, { serverId: server.serverId, reason: 'list-changed', requestedAt: readAt });
    await breakServer(server);
    const requestedAt = Date.now();
    await client.refreshServer(server.serverId);
    await harness.queue.resume();

    const status = await failedSince(server.serverId, requestedAt);
    expect(status.error).toMatch(/refusing to start/);
    // The operator's request ran as its own job, and its refresh (read by the owner, or by the
    // warmer that took the job) recorded the failure: it was not dropped into the waiting one.
    await waitFor(
      async () => {
        const counts = await harness.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        return Object.values(counts).every((count) => count === 0);
      },
      { ...slow, what: 'the refresh queue to drain' },
    );
    const finished = await harness.queue.getJobs(['completed', 'failed']);
    expect(finished.map((job) => job.name)).toContain('on-demand');
    await waitFor(
      () =>
        captured.lines.some(
          (line) =>
            line.serverId === server.serverId &&
            line.component === 'refresh' &&
            line.reason === 'on-demand' &&
            typeof line.code === 'string' &&
            line.state === status.state,
        ),
      { ...slow, what: 'the on-demand refresh to record its failure' },
    );
    expect(await harness.ctx.redis.get(harness.keys.watchLease(server.serverId))).toBe(owner);
    await Promise.all(warmers.map((warmer) => warmer.close()));
    await harness.ctx.redis.hdel(harness.keys.servers, server.serverId);
  }, 300_000);
});
