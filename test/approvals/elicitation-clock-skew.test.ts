import { QUEUE_NAMES, silentLogger, withBullmqErrors, type ElicitationRequestRecord } from '@agentq/shared';
import { readElicitation, redisTime, registerElicitation, settleElicitation } from '@agentq/store';
import { Job, Queue, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createElicitationProcessor } from '../../apps/agent-worker/src/elicitations/create-elicitation-processor.js';
import { eventually } from '../helpers/eventually.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// The elicitation twin of approval-clock-skew: a question waits out a 10-minute window while a
// worker whose clock runs 15 minutes fast joins. Redis's clock alone says when it expires: the
// early job goes back to wait, an answer given in time is taken, and one given late is refused
// whatever the caller's clock says.
describe('elicitations on a worker whose clock runs fast', () => {
  const skewMs = 15 * 60_000;
  const realNow = Date.now.bind(Date);
  let ctx: TestContext;
  let approvals: Queue;
  let runs: Queue;
  let worker: Worker | undefined;

  beforeAll(() => {
    ctx = createTestContext();
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    for (const queue of [approvals, runs]) {
      await queue?.obliterate({ force: true }).catch(() => undefined);
      await queue?.close();
    }
    await ctx?.close();
  });

  /** A registered question expiring `windowMs` from now by Redis time, its run and its delayed job. */
  async function parkedQuestion(elicitationId: string, windowMs = 600_000): Promise<ElicitationRequestRecord> {
    const now = await redisTime(ctx.redis);
    const request: ElicitationRequestRecord = {
      elicitationId,
      runId: `run-${elicitationId}`,
      incarnation: 'inc-1',
      toolCallId: 'call-1',
      toolName: 'mcp__deploy__deployService',
      serverId: 'deploy',
      argsDigest: 'a',
      digest: 'd',
      message: 'Which environment?',
      requestedSchema: { type: 'object', properties: {} },
      requestedAt: now,
      expiresAt: now + windowMs,
    };
    await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request });
    // Its run, still there (an answer resumes only a run that is): same incarnation, not finished.
    await runs.add('run', { incarnation: 'inc-1' }, { jobId: request.runId, delay: 3_600_000 });
    if (windowMs > 0) {
      // Added by a worker with a correct clock, as `parkForElicitation` does.
      await approvals.add(
        'elicitation',
        { elicitationId },
        { jobId: elicitationId, delay: request.expiresAt - realNow(), attempts: 5 },
      );
    }
    return request;
  }

  function skewClock(offsetMs: number): void {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
  }

  function startWorker(options: { maxEarlyStarts?: number } = {}): void {
    const processor = createElicitationProcessor({
      redis: ctx.redis,
      prefix: ctx.prefix,
      logger: silentLogger(),
      ...options,
    });
    worker = new Worker(
      QUEUE_NAMES.approvals,
      async (job: Job, token?: string) => await withBullmqErrors({ job, token }, async () => await processor(job)),
      { connection: ctx.redis, prefix: ctx.prefix },
    );
  }

  async function jobOf(elicitationId: string): Promise<Job> {
    return (await Job.fromId(approvals, elicitationId)) as Job;
  }

  async function restedAfterStarts(elicitationId: string, starts: number): Promise<string> {
    let state = '';
    await eventually(async () => {
      const job = await jobOf(elicitationId);
      state = await job.getState();
      return job.attemptsStarted >= starts && ['delayed', 'completed', 'failed'].includes(state);
    }, `elicitation job ${elicitationId} to start ${starts} time(s) and come to rest`);
    return state;
  }

  function answer(elicitationId: string) {
    return settleElicitation({
      redis: ctx.redis,
      prefix: ctx.prefix,
      elicitationId,
      outcome: 'answer',
      response: { response: { action: 'accept', content: {} }, answeredBy: 'ops', answeredAt: Date.now() },
    });
  }

  it('neither expires the question early nor refuses an answer in time', async () => {
    const request = await parkedQuestion('skew-answer');
    skewClock(skewMs);
    startWorker();

    expect(await restedAfterStarts(request.elicitationId, 1)).toBe('delayed');
    expect((await readElicitation({ ...ctx, elicitationId: request.elicitationId }))?.response).toBeNull();
    // The answering host's clock is fast too: 15 minutes past a 10-minute window by its reckoning.
    await expect(answer(request.elicitationId)).resolves.toMatchObject({ elicitationId: request.elicitationId });
    await (await jobOf(request.elicitationId)).promote();
    await eventually(
      async () => (await (await jobOf(request.elicitationId)).getState()) === 'completed',
      'the answered elicitation job to complete',
    );
    expect((await jobOf(request.elicitationId)).returnvalue).toMatchObject({ action: 'accept', outcome: 'answer' });
  });

  it('settles as expired once the job has started early more often than allowed', async () => {
    const request = await parkedQuestion('skew-bounded');
    skewClock(skewMs);
    startWorker({ maxEarlyStarts: 1 });

    expect(await restedAfterStarts(request.elicitationId, 1)).toBe('delayed');
    await (await jobOf(request.elicitationId)).promote();
    expect(await restedAfterStarts(request.elicitationId, 2)).toBe('completed');
    expect((await jobOf(request.elicitationId)).returnvalue).toMatchObject({ action: 'cancel', outcome: 'expired' });
  });

  it('refuses a late answer from a host whose clock runs slow', async () => {
    const request = await parkedQuestion('skew-late', 0);
    // Past its expiry by Redis's clock; an hour before it by the answering host's.
    skewClock(-3_600_000);
    const late = await answer(request.elicitationId).catch((error: unknown) => error);
    expect(late).toMatchObject({ code: 'EXPIRED' });
  });
});
