import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runResultSchema, type RunCheckpoint } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  readCheckpoint,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from './helpers/worker-harness.js';

const steps = 6;

const counterNotes = readCounterNotes;

describe('a worker killed with SIGKILL in the middle of a run', () => {
  let ctx: TestContext;
  let queue: Queue;
  let folder: string;
  let counterFile: string;
  const processes: WorkerProcess[] = [];

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-crash-'));
    counterFile = join(folder, 'counter.log');
    // Slow responses, so that the kill lands between steps of a running run.
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'counter', transport: fixtureStdioTransport({ counterFile, slowMs: 300 }) },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await Promise.all(processes.map((worker) => worker.kill()));
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('is finished by another worker from the checkpoint, without running a completed step twice', async () => {
    const first = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    processes.push(first);
    await enqueueRun(queue, {
      runId: 'crash-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['counter'],
          maxSteps: steps + 2,
          script: [
            ...Array.from({ length: steps }, (_, index) => ({
              toolCalls: [{ toolName: 'mcp__counter__counterIncrement', input: { note: `step-${index}` } }],
            })),
            { text: 'counted' },
          ],
        },
        input: { prompt: 'count' },
      },
    });
    await eventually(async () => ((await counterNotes(counterFile)).length >= 2 ? true : undefined));
    await first.kill();

    const completedAtKill = ((await readCheckpoint(ctx, 'crash-1')) as RunCheckpoint).step;
    expect(completedAtKill).toBeGreaterThanOrEqual(1);
    expect(completedAtKill).toBeLessThan(steps);

    const second = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    processes.push(second);
    const finished = await waitForJob(queue, 'crash-1', 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('counted');
    expect(result.steps).toHaveLength(steps + 1);

    const notes = await counterNotes(counterFile);
    for (let index = 0; index < steps; index += 1) {
      const count = notes.filter((note) => note === `step-${index}`).length;
      // A step completed before the kill ran exactly once. No call ever runs twice: the one in
      // flight at the kill ran once or (killed between its claim and the call) not at all, and
      // the model was told so.
      if (index < completedAtKill) expect(count, `step-${index}`).toBe(1);
      else expect(count, `step-${index}`).toBeLessThanOrEqual(1);
    }
    expect(notes.length).toBeGreaterThanOrEqual(steps - 1);
    await second.stop();
  });
});
