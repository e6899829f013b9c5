import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { assignServerSegments, mcpWireName } from '@agentq/registry';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { QUEUE_NAMES, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { ServerStore } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRun, eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

// `team-tools` and `team_tools` share the camelCase slug `teamTools`. A run parks for approval on
// one worker and resumes on another whose registry has synced a different set of servers (or
// after the store's set of servers changed); the approved tool must still be found and run once.
describe('approval resume across workers with colliding server slugs', () => {
  let ctx: TestContext;
  let queue: Queue;
  let approvalsQueue: Queue;
  let folder: string;
  let counterFile: string;
  let workers: AgentWorker[] = [];

  const startWorker = async () => {
    const worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    workers.push(worker);
    return worker;
  };

  const spec = (toolName: string, note: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['team-tools'],
      script: [{ toolCalls: [{ toolName, input: { note } }] }, { text: 'finished' }],
    },
    input: { prompt: 'count, with permission' },
    approval: { requireFor: ['team-tools:counter_increment'] },
  });

  const parked = async (runId: string) => {
    await eventually(async () => {
      const job = await Job.fromId(queue, runId);
      return job && (await job.getState()) === 'waiting-children' ? true : undefined;
    });
    return await eventually(async () => {
      const [pending] = await listPendingApprovals(ctx, { runId });
      return pending;
    });
  };

  const expectRanOnce = async (runId: string) => {
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    expect(result.toolCalls[0]?.isError).toBe(false);
    expect((await readCounterNotes(counterFile)).filter((note) => note === runId)).toHaveLength(1);
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-colliding-'));
    counterFile = join(folder, 'counter.log');
    for (const id of ['team-tools', 'team_tools']) {
      await warmServer({
        redis: ctx.redis,
        prefix: ctx.prefix,
        definition: { id, transport: fixtureStdioTransport({ counterFile }) },
      });
    }
    queue = runsQueue(ctx);
    approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  beforeEach(async () => {
    await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).setEnabled('team_tools', true);
  });

  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    workers = [];
  });

  afterAll(async () => {
    for (const each of [queue, approvalsQueue]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('parks on a worker that synced one server and resumes on one that synced both', async () => {
    const segment = assignServerSegments(['team-tools', 'team_tools']).get('team-tools');
    const toolName = mcpWireName('team-tools', 'counter_increment', segment);

    const first = await startWorker();
    await enqueueRun(queue, { runId: 'collide-1', spec: spec(toolName, 'collide-1') });
    const pending = await parked('collide-1');
    expect(pending.toolName).toBe(toolName);
    await first.close();

    // The second worker's registry syncs both look-alike servers before it sees the parked run.
    await startWorker();
    await enqueueRun(queue, {
      runId: 'sync-both',
      spec: {
        assistant: { model: 'scripted:test', mcpServers: ['team_tools', 'team-tools'], script: [{ text: 'ok' }] },
        input: { prompt: 'nothing' },
      },
    });
    expect((await waitForJob(queue, 'sync-both', 60_000)).state).toBe('completed');

    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'operator' });
    await expectRanOnce('collide-1');
  });

  it('keeps the name the run used when the set of enabled servers changes while it is parked', async () => {
    const segment = assignServerSegments(['team-tools', 'team_tools']).get('team-tools');
    const toolName = mcpWireName('team-tools', 'counter_increment', segment);

    const first = await startWorker();
    await enqueueRun(queue, { runId: 'collide-2', spec: spec(toolName, 'collide-2') });
    const pending = await parked('collide-2');
    await first.close();

    // With its look-alike off, team-tools is named by its plain slug from now on; the parked run
    // already showed the model the disambiguated name, and keeps it.
    await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).setEnabled('team_tools', false);
    await startWorker();
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'operator' });
    await expectRanOnce('collide-2');
  });
});
