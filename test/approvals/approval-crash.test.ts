import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { QUEUE_NAMES, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { Job, Queue } from 'bullmq';
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from '../worker/helpers/worker-harness.js';

/**
 * One crash scenario on its own prefix, with its own queues, counter file and worker processes,
 * so that the scenarios run at the same time without one's workers taking another's runs.
 */
class Scenario {
  readonly ctx: TestContext = createTestContext();
  readonly queue: Queue = runsQueue(this.ctx);
  readonly approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: this.ctx.redis, prefix: this.ctx.prefix });
  private readonly processes: WorkerProcess[] = [];

  private constructor(
    private readonly folder: string,
    private readonly expect: ExpectStatic,
  ) {}

  static async open(expect: ExpectStatic, opened: Scenario[]): Promise<Scenario> {
    const scenario = new Scenario(await mkdtemp(join(tmpdir(), 'agentq-approval-crash-')), expect);
    opened.push(scenario);
    await warmServer({
      redis: scenario.ctx.redis,
      prefix: scenario.ctx.prefix,
      definition: {
        id: 'fx',
        transport: fixtureStdioTransport({ counterFile: scenario.counterFile }),
        // A fixture process starts slowly on a busy machine; a connect timeout would turn the
        // approved call into a tool error and hide what this file checks.
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
    });
    return scenario;
  }

  get counterFile(): string {
    return join(this.folder, 'counter.log');
  }

  spec(note: string): RunSpecInput {
    return {
      assistant: {
        model: 'scripted:test',
        mcpServers: ['fx'],
        script: [{ toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input: { note } }] }, { text: 'done' }],
      },
      input: { prompt: 'count' },
      approval: { requireFor: ['mcp__fx__counterIncrement'] },
    };
  }

  async enqueue(runId: string): Promise<void> {
    await enqueueRun(this.queue, { runId, spec: this.spec(runId) });
  }

  async spawn(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = await spawnWorkerProcess({ redisUrl: this.ctx.redisUrl, prefix: this.ctx.prefix, env });
    this.processes.push(worker);
    return worker;
  }

  async notes(): Promise<string[]> {
    return await readCounterNotes(this.counterFile);
  }

  async pendingOf(runId: string) {
    return await eventually(async () => {
      const [pending] = await listPendingApprovals(this.ctx, { runId });
      return pending;
    });
  }

  async decide(approvalId: string, approved: boolean, decidedBy = 'someone'): Promise<void> {
    await decide(this.ctx, { approvalId, approved, decidedBy });
  }

  async approvalJobsOf(runId: string) {
    return (
      await this.approvalsQueue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'])
    ).filter((job) => job.data?.runId === runId);
  }

  async expectApprovedOnce(runId: string): Promise<void> {
    const finished = await waitForJob(this.queue, runId, 300_000);
    this.expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    this.expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    this.expect((await this.notes()).filter((note) => note === runId)).toHaveLength(1);
    this.expect(await this.approvalJobsOf(runId)).toHaveLength(1);
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((worker) => worker.kill()));
    for (const each of [this.queue, this.approvalsQueue]) {
      await each.obliterate({ force: true });
      await each.close();
    }
    await this.ctx.close();
    await rm(this.folder, { recursive: true, force: true });
  }
}

// The five scenarios are independent (each on its own prefix) and mostly wait for processes to
// start and locks to lapse, so they run concurrently.
// Bounds are generous: on a busy machine five scenarios starting processes at once take minutes.
describe.concurrent('kill -9 of the worker at each point of an approval', { timeout: 480_000 }, () => {
  const opened: Scenario[] = [];

  afterAll(async () => {
    await Promise.all(opened.map((scenario) => scenario.close()));
  });

  it('after the checkpoint, before the child add: a decision made meanwhile is used', async ({ expect }) => {
    const scenario = await Scenario.open(expect, opened);
    const runId = 'crash-after-checkpoint';
    const doomed = await scenario.spawn({ AGENTQ_TEST_CRASH_AT: 'after-checkpoint', AGENTQ_TEST_CRASH_RUN: runId });
    await scenario.enqueue(runId);
    await doomed.exited;
    const pending = await scenario.pendingOf(runId);
    expect(await scenario.approvalJobsOf(runId)).toHaveLength(0);
    // Decided before any approval job exists, before the run ever reached moveToWaitingChildren.
    await scenario.decide(pending.approvalId, true, 'early');
    await scenario.spawn();
    await scenario.expectApprovedOnce(runId);
  });

  it('after the child add, before parking', async ({ expect }) => {
    const scenario = await Scenario.open(expect, opened);
    const runId = 'crash-after-child-add';
    const doomed = await scenario.spawn({ AGENTQ_TEST_CRASH_AT: 'after-child-add', AGENTQ_TEST_CRASH_RUN: runId });
    await scenario.enqueue(runId);
    await doomed.exited;
    const pending = await scenario.pendingOf(runId);
    expect(await scenario.approvalJobsOf(runId)).toHaveLength(1);
    await scenario.decide(pending.approvalId, true);
    await scenario.spawn();
    await scenario.expectApprovedOnce(runId);
  });

  it('while parked, with no worker at all', async ({ expect }) => {
    const scenario = await Scenario.open(expect, opened);
    const runId = 'crash-while-parked';
    const first = await scenario.spawn();
    await scenario.enqueue(runId);
    const pending = await scenario.pendingOf(runId);
    await eventually(async () =>
      (await (await Job.fromId(scenario.queue, runId))?.getState()) === 'waiting-children' ? true : undefined,
    );
    await first.kill();
    await scenario.decide(pending.approvalId, true);
    await scenario.spawn();
    await scenario.expectApprovedOnce(runId);
  });

  it('after resume, before the approved tool executes', async ({ expect }) => {
    const scenario = await Scenario.open(expect, opened);
    const runId = 'crash-after-resume';
    const doomed = await scenario.spawn({ AGENTQ_TEST_CRASH_AT: 'after-resume', AGENTQ_TEST_CRASH_RUN: runId });
    await scenario.enqueue(runId);
    const pending = await scenario.pendingOf(runId);
    await scenario.decide(pending.approvalId, true);
    await doomed.exited;
    expect(await scenario.notes()).not.toContain(runId);
    await scenario.spawn();
    await scenario.expectApprovedOnce(runId);
  });

  it('a denied call stays denied across a crash after resume', async ({ expect }) => {
    const scenario = await Scenario.open(expect, opened);
    const runId = 'crash-denied';
    const doomed = await scenario.spawn({ AGENTQ_TEST_CRASH_AT: 'after-resume', AGENTQ_TEST_CRASH_RUN: runId });
    await scenario.enqueue(runId);
    const pending = await scenario.pendingOf(runId);
    await scenario.decide(pending.approvalId, false);
    await doomed.exited;
    await scenario.spawn();
    const finished = await waitForJob(scenario.queue, runId, 300_000);
    expect(finished.state).toBe('completed');
    expect(runResultSchema.parse(finished.returnvalue).toolCalls[0]?.approval?.approved).toBe(false);
    expect(await scenario.notes()).not.toContain(runId);
  });
});
