import { randomUUID } from 'node:crypto';
import { createApprovalProcessor, createModelResolver, createRunProcessor, RunStore } from '@agentq/agent-worker';
import { createCatalogReader, ToolRegistry, type McpToolCaller } from '@agentq/registry';
import { defaultRunJobOptions, QUEUE_NAMES, runSpecSchema, silentLogger } from '@agentq/shared';
import { Job, Queue, WaitingChildrenError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function until<T>(check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * From a decision to the parked run's next step, against the bare BullMQ floor of the same
 * mechanism measured in the same process and Redis: a delayed child looked up, promoted,
 * completed, and its parent picked up again. Iterations alternate between the two. Two figures:
 * until the run is picked up again (the floor's analogue: `decide` records the decision and the
 * approval job settles it on the way), and until the approved tool is actually called (adds the
 * resumed run's checkpoint read, cache-only tool-set build, re-checks and the AI SDK's set-up).
 */
const suite: BenchSuite = {
  name: 'approvals-decision-latency',
  description:
    'decision -> next step of the run, over bare BullMQ promote -> parent picked up (goal <= 1.3, issue #22)',
  async run(context) {
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    const logger = silentLogger();
    const closers: Array<() => Promise<unknown>> = [];
    try {
      const definition = await putServer({
        redis,
        prefix,
        definition: { id: 'svc', transport: { type: 'stdio', command: '/nonexistent/never-started' } },
      });
      await writeCatalogEntry({
        redis,
        prefix,
        definition,
        tools: [{ name: 'act', description: 'Does something.', inputSchema: { type: 'object', properties: {} } }],
      });
      // The approved tool "runs" here: its call is the run's next step.
      const calledAt = new Map<string, number>();
      const caller: McpToolCaller = {
        callTool: async (request) => {
          calledAt.set(String(request.toolCallId), performance.now());
          return { content: [{ type: 'text', text: 'done' }] };
        },
      };
      const connection = { connection: redis, prefix };
      const approvalsQueue = new Queue(QUEUE_NAMES.approvals, connection);
      const runsQueue = new Queue(QUEUE_NAMES.agentRuns, connection);
      const runs = new Worker(
        QUEUE_NAMES.agentRuns,
        createRunProcessor({
          store: new RunStore({ redis, prefix, logger }),
          redis,
          prefix,
          registry: new ToolRegistry({ logger }),
          reader: createCatalogReader({ redis, prefix, logger }),
          caller,
          models: createModelResolver({ config: {} as never }),
          approvalsQueue,
          config: { approvalTimeoutMs: 3_600_000 },
          logger,
          env: {},
        }),
        { ...connection, concurrency: 4 },
      );
      const approvals = new Worker(QUEUE_NAMES.approvals, createApprovalProcessor({ redis, prefix, logger }), {
        ...connection,
        concurrency: 4,
      });
      closers.push(
        () => runs.close(),
        () => approvals.close(),
        () => approvalsQueue.close(),
        () => runsQueue.close(),
      );

      // The floor: parent parks on a delayed child; promoting the child wakes the parent.
      const parentQueue = new Queue('floor-parent', connection);
      const childQueue = new Queue('floor-child', connection);
      const resumedAt = new Map<string, number>();
      const parents = new Worker(
        'floor-parent',
        async (job: Job, token?: string) => {
          if (job.data.parked) {
            resumedAt.set(String(job.id), performance.now());
            return 'resumed';
          }
          await childQueue.add(
            'child',
            {},
            {
              jobId: `child-${job.id}`,
              delay: 3_600_000,
              parent: { id: String(job.id), queue: job.queueQualifiedName },
            },
          );
          await job.updateData({ parked: true });
          if (await job.moveToWaitingChildren(token as string)) throw new WaitingChildrenError();
          return 'never parked';
        },
        { ...connection, concurrency: 4 },
      );
      const children = new Worker('floor-child', async () => 'ok', { ...connection, concurrency: 4 });
      closers.push(
        () => parents.close(),
        () => children.close(),
        () => parentQueue.close(),
        () => childQueue.close(),
      );

      const spec = runSpecSchema.parse({
        assistant: {
          model: 'scripted:bench',
          mcpServers: ['svc'],
          script: [{ toolCalls: [{ toolName: 'mcp__svc__act', input: {} }] }, { text: 'ok' }],
        },
        input: { prompt: 'act' },
        approval: { requireFor: ['svc:act'] },
      });

      const agentq: number[] = [];
      const resumed: number[] = [];
      const activeAt = new Map<string, number>();
      runs.on('active', (job) => activeAt.set(String(job.id), performance.now()));
      const floor: number[] = [];
      const iterations = context.quick ? 10 : 40;
      for (let iteration = -3; iteration < iterations; iteration += 1) {
        const runId = `run-${iteration + 3}`;
        await runsQueue.add('run', spec, { ...defaultRunJobOptions({ attempts: 1 }), jobId: runId });
        const pending = await until(async () => {
          const [first] = await listPendingApprovals({ redis, prefix }, { runId });
          if (!first) return undefined;
          const state = await (await Job.fromId(runsQueue, runId))?.getState();
          return state === 'waiting-children' ? first : undefined;
        });
        activeAt.delete(runId);
        let started = performance.now();
        await decide(
          { redis, prefix, queueOf: () => approvalsQueue },
          { approvalId: pending.approvalId, approved: true, decidedBy: 'bench' },
        );
        const stepAt = await until(() => calledAt.get(pending.toolCallId));
        calledAt.delete(pending.toolCallId);
        if (iteration >= 0) {
          agentq.push(stepAt - started);
          resumed.push((activeAt.get(runId) as number) - started);
        }

        const parentId = `parent-${iteration + 3}`;
        await parentQueue.add('parent', {}, { jobId: parentId });
        await until(async () =>
          (await (await Job.fromId(parentQueue, parentId))?.getState()) === 'waiting-children' ? true : undefined,
        );
        started = performance.now();
        // Like a decision, the floor has to find the job it promotes.
        const child = (await Job.fromId(childQueue, `child-${parentId}`)) as Job;
        await child.promote();
        const parentResumedAt = await until(() => resumedAt.get(parentId));
        if (iteration >= 0) floor.push(parentResumedAt - started);
        await until(async () =>
          (await (await Job.fromId(runsQueue, runId))?.getState()) === 'completed' ? true : undefined,
        );
      }
      const resumeRatio = median(resumed) / median(floor);
      const toolRatio = median(agentq) / median(floor);
      const figures: BenchFigure[] = [
        {
          name: 'decision-to-run-resumed/floor',
          value: resumeRatio,
          unit: 'ratio',
          ...atMost(resumeRatio, 1.3),
          details: { iterations, resumedMs: resumed, floorMs: floor },
        },
        {
          name: 'decision-to-approved-tool-call/floor',
          value: toolRatio,
          unit: 'ratio',
          ...atMost(toolRatio, 1.3),
          details: { iterations, toolCallMs: agentq, floorMs: floor },
        },
        { name: 'decision-to-run-resumed', value: median(resumed), unit: 'ms' },
        { name: 'decision-to-approved-tool-call', value: median(agentq), unit: 'ms' },
        { name: 'floor.promote-to-parent', value: median(floor), unit: 'ms' },
      ];
      return figures;
    } finally {
      for (const close of closers) await close().catch(() => undefined);
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
