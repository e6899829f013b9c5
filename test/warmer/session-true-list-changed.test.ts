import type { ChildProcess } from 'node:child_process';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWarmerTimings, type RefreshOutcome } from '@agentq/catalog-warmer';
import { type CatalogEntry } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createWarmerHarness, liveWarmerIds, waitFor, type WarmerHarness } from './warmer-harness.js';

// Issue #10, break 3: a server whose tools depend on the MCP session. Its notifications belong to
// the session of the warmer that owns its watcher; a list read by the other warmer over a fresh
// session is the base list, and writing it would drop tools the server still offers.
// The default lease: this test is about one owner keeping its session, not about takeover, and a
// short lease can lapse on a loaded machine, which would hand the watcher to a fresh session.
const watchLeaseMs = 15_000;
const livenessMs = resolveWarmerTimings({ watchLeaseMs }).livenessMs;
const serverId = 'grower';
// Generous: every stdio connect spawns a `tsx` child, slow on a machine under load.
const slow = { timeoutMs: 90_000 };

let harness: WarmerHarness;
let stopObserving: (() => Promise<unknown>) | undefined;
let directory: string;
let growFile: string;
const warmers: ChildProcess[] = [];

interface Observation {
  names: string[];
  version: string;
  readBy: CatalogEntry['readBy'];
}

/** Polls the cache entry until stopped and records every distinct version seen, in order. */
function observe(): { stop(): Promise<Observation[]> } {
  const seen: Observation[] = [];
  let running = true;
  const record = async () => {
    const entry = await harness.entry(serverId).catch(() => null);
    if (entry && seen.at(-1)?.version !== entry.version) {
      seen.push({ names: entry.tools.map((tool) => tool.name), version: entry.version, readBy: entry.readBy });
    }
  };
  const loop = (async () => {
    while (running) {
      await record();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const stop = async () => {
    running = false;
    await loop;
    // One read after the loop: on a loaded machine the loop's last read can have been sent before
    // the newest write, and the caller's own reads may have seen it since.
    await record();
    return seen;
  };
  stopObserving = stop;
  return { stop };
}

async function grow(...names: string[]): Promise<void> {
  await appendFile(growFile, names.map((name) => `${name}\n`).join(''));
}

async function entryHas(names: readonly string[]): Promise<CatalogEntry | false> {
  const entry = await harness.entry(serverId);
  const present = new Set(entry?.tools.map((tool) => tool.name));
  return entry !== null && names.every((name) => present.has(name)) && entry;
}

beforeAll(async () => {
  harness = await createWarmerHarness({ watchLeaseMs });
  directory = await mkdtemp(join(tmpdir(), 'agentq-session-true-'));
  growFile = join(directory, 'grow.txt');
  await harness.putServer({
    id: serverId,
    transport: fixtureStdioTransport({ tools: 2, growFile }),
    timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
  });
  warmers.push(harness.spawnWarmer(), harness.spawnWarmer());
}, 120_000);
afterAll(async () => {
  await stopObserving?.();
  await harness.close();
  await rm(directory, { recursive: true, force: true });
}, 120_000);

describe('session-true list_changed with two warmers', () => {
  it('brings every change on the owner session to the cache and never drops a tool it still offers', async () => {
    // Both warmers live, one owns the watcher, and the cache holds a list read over its session.
    const owner = await waitFor(
      async () => {
        const live = await liveWarmerIds(harness, livenessMs);
        const holder = await harness.ctx.redis.get(harness.keys.watchLease(serverId));
        const entry = await harness.entry(serverId);
        return (
          live.length === 2 &&
          holder !== null &&
          entry?.readBy?.warmerId === holder &&
          entry.readBy.session === 'watcher' &&
          holder
        );
      },
      { ...slow, what: 'two live warmers and a list read over the owner session' },
    );

    const observedFrom = Date.now();
    const observer = observe();
    const grown: string[] = [];
    // One change at a time, each mixed with requests any warmer may take: on-demand and scheduled
    // refreshes of a watched server go to the owner too.
    for (let index = 1; index <= 4; index += 1) {
      const name = `grown_${index}`;
      grown.push(name);
      await grow(name);
      await requestRefresh(harness.queue, { serverId, reason: 'on-demand' });
      await requestRefresh(harness.queue, { serverId, reason: index % 2 === 0 ? 'scheduled' : 'prewarm' });
      await waitFor(() => entryHas(grown), { ...slow, what: `${name} in the cache` });
    }
    // Then a burst of changes and requests at once.
    const burst = ['grown_5', 'grown_6', 'grown_7', 'grown_8'];
    for (const name of burst) {
      grown.push(name);
      await grow(name);
      await requestRefresh(harness.queue, { serverId, reason: 'on-demand' });
    }
    const final = await waitFor(() => entryHas(grown), { ...slow, what: 'every grown tool in the cache' });
    // Let whatever the burst left in the queue run too; none of it may roll the cache back.
    await waitFor(
      async () => {
        const counts = await harness.queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        return Object.values(counts).every((count) => count === 0);
      },
      { ...slow, what: 'the refresh queue to drain' },
    );
    const observations = await observer.stop();

    expect(final.readBy).toEqual({ warmerId: owner, session: 'watcher' });
    expect(observations.length).toBeGreaterThan(0);
    for (const [index, observation] of observations.entries()) {
      // Every list written while the owner lived was read by it, over its session...
      expect(observation.readBy).toEqual({ warmerId: owner, session: 'watcher' });
      // ...and no version ever lacks a tool an earlier one had: growth only.
      const previous = observations[index - 1];
      if (previous) expect(observation.names).toEqual(expect.arrayContaining(previous.names));
    }
    expect(observations.at(-1)?.names).toEqual(expect.arrayContaining(grown));
    expect(await harness.ctx.redis.get(harness.keys.watchLease(serverId))).toBe(owner);

    // The queue jobs only de-duplicated: none read over a fresh session while the owner lived.
    const finished = (await harness.queue.getCompleted()).filter((job) => (job.finishedOn ?? 0) >= observedFrom);
    expect(finished.length).toBeGreaterThan(0);
    for (const job of finished) {
      const outcome = job.returnvalue as RefreshOutcome;
      if (outcome.outcome === 'connected') expect(outcome.session).toBe('watcher');
      if (outcome.outcome === 'delegated') expect(outcome.owner).toBe(owner);
    }
  }, 600_000);
});
