import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { QUEUE_NAMES, runResultSchema, type RunCheckpoint } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from './helpers/catalog.js';
import { enqueueRun, readCheckpoint, runsQueue, startTestWorker, waitForJob } from './helpers/worker-harness.js';

describe('tool sets come from the catalog cache only', () => {
  let ctx: TestContext;
  let workers: AgentWorker[] = [];
  let queue: Queue;
  let refreshQueue: Queue;
  let folder: string;
  let marker: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-cache-only-'));
    marker = join(folder, 'hang-server-was-started');
    // A server that would hang on connect, and leaves a marker if anything ever starts it.
    const hang = await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'hang',
        transport: { type: 'stdio', command: 'sh', args: ['-c', `touch '${marker}'; exec sleep 600`] },
      },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: hang,
      tools: [
        {
          name: 'lookup',
          description: 'Looks a record up.',
          inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
        },
      ],
    });
    // Defined but never warmed.
    await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'cold', transport: fixtureStdioTransport() },
    });
    // Two worker processes' worth of readers: each fires its own cold-server callback.
    workers = [
      await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, tuning: { concurrency: 10 } }),
      await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, tuning: { concurrency: 10 } }),
    ];
    queue = runsQueue(ctx);
    refreshQueue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await queue?.obliterate({ force: true });
    await queue?.close();
    await refreshQueue?.obliterate({ force: true });
    await refreshQueue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('finishes 20 concurrent runs naming a hanging and a never-warmed server, with one first-seen refresh', async () => {
    const ids = Array.from({ length: 20 }, (_, index) => `cache-only-${index}`);
    await Promise.all(
      ids.map((runId) =>
        enqueueRun(queue, {
          runId,
          spec: {
            assistant: {
              model: 'scripted:test',
              mcpServers: ['hang', 'cold'],
              script: [{ text: 'done' }],
            },
            input: { prompt: 'hello' },
          },
        }),
      ),
    );
    for (const runId of ids) {
      const finished = await waitForJob(queue, runId);
      expect(finished.state).toBe('completed');
      expect(runResultSchema.parse(finished.returnvalue).text).toBe('done');
    }
    // The hanging server's cached tool was offered; the cold server contributed nothing.
    const checkpoint = (await readCheckpoint(ctx, ids[0] as string)) as RunCheckpoint;
    expect(checkpoint.allowedNames).toEqual(['mcp__hang__lookup']);
    expect(existsSync(marker)).toBe(false);

    const refreshes = await refreshQueue.getJobs([
      'waiting',
      'delayed',
      'active',
      'completed',
      'failed',
      'prioritized',
    ]);
    const firstSeen = refreshes.filter((job) => job.data?.serverId === 'cold');
    expect(firstSeen).toHaveLength(1);
    expect(firstSeen[0]?.data.reason).toBe('first-seen');
    expect(refreshes.filter((job) => job.data?.serverId === 'hang')).toHaveLength(0);
  });
});
