import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClientPool } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { resolveWarmerTimings } from '@agentq/catalog-warmer';
import { silentLogger, type ServerDefinition } from '@agentq/shared';
import { CachedSessionGenerations, ServerSessions } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, processAlive, readPids } from '../fixtures/mcp/spawn-fixture.js';
import { createWarmerHarness, liveWarmerIds, waitFor, type WarmerHarness } from './warmer-harness.js';

// Issue #20, defect 2: `agentq servers restart` must mean a new session everywhere: the watcher
// owner's (a new process for a stdio server) and every worker pool's next call.
const watchLeaseMs = 6_000;
const livenessMs = resolveWarmerTimings({ watchLeaseMs }).livenessMs;
const serverId = 'restartable';
// Generous: every stdio connect spawns a `tsx` child, slow on a machine under load.
const slow = { timeoutMs: 90_000 };

let harness: WarmerHarness;
let client: AgentqClient;
let pool: McpClientPool | undefined;
let generations: CachedSessionGenerations | undefined;
let subscriber: Redis | undefined;
let directory: string;
let pidFile: string;
let counterFile: string;

beforeAll(async () => {
  harness = await createWarmerHarness({ watchLeaseMs });
  client = createAgentqClient({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix });
  directory = await mkdtemp(join(tmpdir(), 'agentq-restart-'));
  pidFile = join(directory, 'pids');
  counterFile = join(directory, 'counter');
  await harness.putServer({
    id: serverId,
    transport: fixtureStdioTransport({ tools: 2, listChanged: true, pidFile, counterFile }),
    timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
  });
}, 120_000);
afterAll(async () => {
  await pool?.close();
  await generations?.close();
  subscriber?.disconnect();
  await client.close();
  await harness.close();
  await rm(directory, { recursive: true, force: true });
}, 120_000);

/** The server processes alive now. */
async function alivePids(): Promise<number[]> {
  return (await readPids(pidFile)).filter(processAlive);
}

/** The pid of the server process that ran the latest `counter_increment`. */
async function lastCallPid(): Promise<number> {
  const lines = (await readFile(counterFile, 'utf8')).split('\n').filter(Boolean);
  return Number(lines.at(-1)?.split(' ')[0]);
}

describe('servers restart', () => {
  it("replaces the watcher's session and every pool's client with new ones", async () => {
    await harness.startWarmer();
    await harness.startWarmer();
    // One live watcher session (its process the only one left), and a list read over it.
    const watcherPid = await waitFor(
      async () => {
        const live = await liveWarmerIds(harness, livenessMs);
        const holder = await harness.ctx.redis.get(harness.keys.watchLease(serverId));
        const entry = await harness.entry(serverId);
        const pids = await alivePids();
        return (
          live.length === 2 &&
          holder !== null &&
          entry?.readBy?.warmerId === holder &&
          entry.readBy.session === 'watcher' &&
          pids.length === 1 &&
          pids[0]
        );
      },
      { ...slow, what: 'one watcher session and a list read over it' },
    );

    // A worker's pool, wired as the agent worker wires it: generations cached, here for far longer
    // than the test, so that only the restart's announcement can make the pool see it.
    subscriber = new Redis(harness.ctx.redisUrl, { maxRetriesPerRequest: null });
    generations = new CachedSessionGenerations({
      reader: new ServerSessions({ redis: harness.ctx.redis, prefix: harness.ctx.prefix }),
      subscriber,
      channel: harness.keys.serverSessionRenewed,
      logger: silentLogger(),
      maxAgeMs: 60 * 60_000,
    });
    await generations.start();
    pool = new McpClientPool({ logger: silentLogger(), sessions: generations });
    const definition = (await harness.store.get(serverId)) as ServerDefinition;
    const call = async (note: string) => {
      const result = await pool?.callTool({ serverId, definition, toolName: 'counter_increment', input: { note } });
      expect(result?.isError).toBeFalsy();
      return await lastCallPid();
    };
    const poolPid = await call('before');
    expect(poolPid).not.toBe(watcherPid);
    expect(await call('again')).toBe(poolPid);

    const restartedAt = Date.now();
    await client.restartServer(serverId);

    // The watcher closed its session (its process ended) and opened a new one, and the list was
    // read over the new session.
    const newWatcherPid = await waitFor(
      async () => {
        const entry = await harness.entry(serverId);
        const status = await harness.status(serverId);
        const fresh = (await alivePids()).filter((pid) => pid !== watcherPid && pid !== poolPid);
        return (
          !processAlive(watcherPid) &&
          entry?.readBy?.session === 'watcher' &&
          entry.refreshedAt >= restartedAt &&
          status?.state === 'connected' &&
          fresh.length === 1 &&
          fresh[0]
        );
      },
      { ...slow, what: "the watcher's new session and a list read over it" },
    );
    expect(newWatcherPid).not.toBe(watcherPid);

    // The pool's next call goes over a new session; the old one ends.
    const nextPid = await call('after');
    expect(nextPid).not.toBe(poolPid);
    expect([watcherPid, newWatcherPid]).not.toContain(nextPid);
    await waitFor(() => !processAlive(poolPid), { ...slow, what: "the pool's old session to end" });
    expect(await call('after again')).toBe(nextPid);

    // A removed server leaves no session generation behind.
    expect(await harness.ctx.redis.get(harness.keys.serverSession(serverId))).toBe('1');
    await client.removeServer(serverId);
    await waitFor(async () => (await harness.ctx.redis.exists(harness.keys.serverSession(serverId))) === 0, {
      ...slow,
      what: 'the session generation to go with the server',
    });
  }, 300_000);
});
