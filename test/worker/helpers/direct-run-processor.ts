import { createModelResolver, createRunProcessor, RunStore, type ModelResolver } from '@agentq/agent-worker';
import { createCatalogReader, ToolRegistry, type McpToolCaller, type McpToolCallRequest } from '@agentq/registry';
import { defaultRunJobOptions, QUEUE_NAMES, silentLogger, type RunSpec } from '@agentq/shared';
import { CatalogStore } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll } from 'vitest';
import { createTestContext, type TestContext } from '../../helpers/test-context.js';
import { putCachedServer } from './catalog.js';

/** A run processor driven by hand, without a BullMQ worker, on the context's Redis and prefix. */
export interface DirectRunProcessor {
  processor: ReturnType<typeof createRunProcessor>;
  /** The run store the processor writes through. */
  store: RunStore;
  runs: Queue;
  approvals: Queue;
  /** Obliterates and closes both queues. */
  close(): Promise<void>;
}

/** A run processor over the real catalog reader and run store, with the given caller and models. */
export function createDirectRunProcessor(options: {
  ctx: TestContext;
  caller: McpToolCaller;
  /** @default the real resolver (scripted models work without keys) */
  models?: ModelResolver;
  /** Pin runs to catalog snapshots, as a started worker does. @default false */
  pinned?: boolean;
}): DirectRunProcessor {
  const { ctx } = options;
  const logger = silentLogger();
  const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  const approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  const store = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger });
  const processor = createRunProcessor({
    store,
    redis: ctx.redis,
    prefix: ctx.prefix,
    registry: new ToolRegistry({ logger }),
    reader: createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger }),
    catalog: options.pinned ? new CatalogStore({ redis: ctx.redis, prefix: ctx.prefix, logger }) : undefined,
    caller: options.caller,
    models: options.models ?? createModelResolver({ config: {} as never }),
    approvalsQueue: approvals,
    config: { approvalTimeoutMs: 60_000 },
    logger,
    env: {},
  });
  return {
    processor,
    store,
    runs,
    approvals,
    close: async () => {
      for (const each of [runs, approvals]) {
        await each.obliterate({ force: true });
        await each.close();
      }
    },
  };
}

/** Adds a run and returns its job as on its very first start (a real parent job, so children work). */
export async function firstStartJob(runs: Queue, options: { runId: string; spec: RunSpec }): Promise<Job> {
  await runs.add('run', options.spec, { ...defaultRunJobOptions({ attempts: 1 }), jobId: options.runId });
  const job = (await Job.fromId(runs, options.runId)) as Job;
  Object.assign(job, { attemptsStarted: 1, attemptsMade: 0, stalledCounter: 0 });
  job.updateProgress = async () => undefined;
  return job;
}

/** What {@link useDirectProcessorOverCachedServer} sets up; filled in before the suite's tests. */
export interface CachedServerSuite {
  ctx: TestContext;
  direct: DirectRunProcessor;
  /** Every call the processor's caller received, in order. */
  calls: McpToolCallRequest[];
}

/**
 * Around the calling suite: a test context, a server `svc` with one cached tool `act` (taking any
 * object), and a direct run processor whose caller records each call and answers `acted`.
 */
export function useDirectProcessorOverCachedServer(): CachedServerSuite {
  const suite = { calls: [] } as unknown as CachedServerSuite;
  const caller: McpToolCaller = {
    callTool: async (request) => {
      suite.calls.push(request);
      return { content: [{ type: 'text', text: 'acted' }] };
    },
  };
  beforeAll(async () => {
    suite.ctx = createTestContext();
    const { redis, prefix } = suite.ctx;
    const act = { name: 'act', description: 'Acts.', inputSchema: { type: 'object' as const } };
    await putCachedServer({ redis, prefix, id: 'svc', tools: [act] });
    suite.direct = createDirectRunProcessor({ ctx: suite.ctx, caller });
  });
  afterAll(async () => {
    await suite.direct?.close();
    await suite.ctx?.close();
  });
  return suite;
}
