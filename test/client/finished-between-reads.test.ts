import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue, Worker, type Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

/**
 * A job that finishes while the client reads it must never be shown as finished without what it
 * finished with. Each test completes the job right after the client's read of the job's hash, the
 * narrowest window there is, so the outcome does not depend on the machine's speed.
 */
describe('a job that finishes between the client reads', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  const queues: Queue[] = [];
  const workers: Worker[] = [];

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await client.close();
    for (const worker of workers) await worker.close();
    for (const queue of queues) await queue.close();
    await ctx.close();
  });

  /** Adds one job and takes it by hand, so the test decides when it completes. */
  async function activeJob(name: string, data: unknown): Promise<{ job: Job; token: string }> {
    const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
    queues.push(queue);
    const worker = new Worker(name, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    workers.push(worker);
    await queue.add('job', data);
    const token = `token-${name}`;
    const job = (await worker.getNextJob(token)) as Job | undefined;
    if (!job) throw new Error(`no job taken from ${name}`);
    return { job, token };
  }

  it('an ingest job is never reported completed without its result', async () => {
    const { job, token } = await activeJob(QUEUE_NAMES.kbIngest, {
      kb: 'race-kb',
      source: { type: 'file', path: '/tmp/race.md' },
      origin: 'cli',
      requestedAt: Date.now(),
    });
    const result = { status: 'updated', kb: 'race-kb', version: 1, documentId: 'd1', chunks: 1 };
    const getJob = Queue.prototype.getJob;
    let completed = false;
    vi.spyOn(Queue.prototype, 'getJob').mockImplementation(async function (this: Queue, id: string) {
      const read = await getJob.call(this, id);
      if (!completed && id === job.id) {
        completed = true;
        await job.moveToCompleted(result, token, false);
      }
      return read;
    });

    const during = await client.getKbIngest(String(job.id));
    expect(completed).toBe(true);
    // Whichever state it shows, it is whole: a completed ingest comes with its result.
    if (during.state === 'completed') expect(during.result).toMatchObject({ status: 'updated', chunks: 1 });
    else expect(during.state).toBe('active');

    const after = await client.getKbIngest(String(job.id));
    expect(after).toMatchObject({ state: 'completed', result: { status: 'updated', chunks: 1 } });
  });

  it('a listed run that completed after its snapshot shows when it finished and its usage', async () => {
    const { job, token } = await activeJob(QUEUE_NAMES.agentRuns, { input: { prompt: 'hello' } });
    const getJobs = Queue.prototype.getJobs;
    let completed = false;
    vi.spyOn(Queue.prototype, 'getJobs').mockImplementation(async function (this: Queue, ...args) {
      const read = await getJobs.apply(this, args);
      if (!completed && read.some((each) => each?.id === job.id)) {
        completed = true;
        await job.moveToCompleted({ text: 'done', usage: { totalTokens: 42 } }, token, false);
      }
      return read;
    });

    const { runs } = await client.listRuns();
    expect(completed).toBe(true);
    const run = runs.find((each) => each.runId === job.id);
    expect(run).toBeDefined();
    if (run?.state === 'completed') {
      expect(run.finishedAt).toEqual(expect.any(Number));
      expect(run.totalTokens).toBe(42);
    } else expect(run?.state).toBe('active');
  });
});
