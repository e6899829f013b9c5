import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { INTERRUPTED_TOOL_CALL } from '@agentq/agent-worker';
import { QUEUE_NAMES, runResultSchema } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from '../worker/helpers/worker-harness.js';

type Plan = 'approve' | 'deny' | 'expire';

const runCount = 200;
const expireAfterMs = 8_000;

// Deterministic pseudo-random numbers, so a failing soak can be replayed with the same seed.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('soak: approvals decided at random while workers are killed and restarted', () => {
  let ctx: TestContext;
  let queue: Queue;
  let approvalsQueue: Queue;
  let folder: string;
  let counterFile: string;
  const workers = new Set<WorkerProcess>();

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-soak-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    queue = runsQueue(ctx);
    approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await Promise.all([...workers].map((worker) => worker.kill()));
    for (const each of [queue, approvalsQueue]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('ends every run in the state its decisions imply', { timeout: 420_000 }, async () => {
    const seed = Number(process.env.AGENTQ_SOAK_SEED ?? 20261130);
    const next = random(seed);
    const plans = new Map<string, Plan>();
    for (let index = 0; index < runCount; index += 1) {
      const roll = next();
      plans.set(`soak-${index}`, roll < 0.45 ? 'approve' : roll < 0.8 ? 'deny' : 'expire');
    }

    const crashPoints = ['after-step', 'after-checkpoint', 'after-child-add', 'after-resume'];
    let hooked = 0;
    const start = async () => {
      // Some workers also die by their own hand at the worst moments of an approval.
      const point = next() < 0.25 ? crashPoints[Math.floor(next() * crashPoints.length)] : undefined;
      if (point) hooked += 1;
      const env: Record<string, string> = point ? { AGENTQ_TEST_CRASH_AT: point } : {};
      const worker = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
      workers.add(worker);
      void worker.exited.then(() => workers.delete(worker));
    };
    await Promise.all([start(), start()]);

    let stop = false;
    let starting = 0;
    let kills = 0;
    let decisions = 0;
    const decisionErrors: string[] = [];
    const scheduled = new Set<string>();
    const pendingDecisions: Array<Promise<void>> = [];

    const decider = (async () => {
      while (!stop) {
        for (const approval of await listPendingApprovals(ctx)) {
          const plan = plans.get(approval.runId);
          if (!plan || plan === 'expire' || scheduled.has(approval.approvalId)) continue;
          scheduled.add(approval.approvalId);
          const delay = Math.floor(next() * 6_000);
          pendingDecisions.push(
            new Promise<void>((resolve) => setTimeout(resolve, delay)).then(async () => {
              try {
                await decide(ctx, {
                  approvalId: approval.approvalId,
                  approved: plan === 'approve',
                  reason: plan === 'deny' ? 'soak says no' : undefined,
                  decidedBy: 'soak',
                });
                decisions += 1;
              } catch (error) {
                decisionErrors.push(`${approval.runId}: ${(error as Error).message}`);
              }
            }),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    const chaos = (async () => {
      while (!stop) {
        await new Promise((resolve) => setTimeout(resolve, 1_500 + Math.floor(next() * 2_500)));
        if (stop) break;
        const alive = [...workers];
        const victim = alive[Math.floor(next() * alive.length)];
        if (victim) {
          await victim.kill();
          kills += 1;
        }
        // Sometimes nobody is left for a moment: parked runs must not care. Replacements start
        // in the background (workers that died on a crash hook are replaced too).
        if (next() < 0.3) await new Promise((resolve) => setTimeout(resolve, 1_000));
        for (let missing = 2 - workers.size - starting; missing > 0; missing -= 1) {
          starting += 1;
          void start().finally(() => {
            starting -= 1;
          });
        }
      }
    })();

    // Runs arrive over about 25 s, so that kills land on every phase of many runs.
    const producer = (async () => {
      let index = 0;
      for (const [runId, plan] of plans) {
        if (index > 0 && index % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 2_500));
        index += 1;
        await enqueueRun(queue, {
          runId,
          spec: {
            assistant: {
              model: 'scripted:test',
              mcpServers: ['fx'],
              script: [
                { toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input: { note: runId } }] },
                { text: 'done' },
              ],
            },
            input: { prompt: 'count' },
            approval: { requireFor: ['fx:*'], timeoutMs: plan === 'expire' ? expireAfterMs : 240_000 },
          },
        });
      }
    })();

    const outcomes = new Map<string, { approved: boolean | undefined; reason: string }>();
    try {
      for (const runId of plans.keys()) {
        const finished = await waitForJob(queue, runId, 240_000);
        expect(finished.state, `${runId}: ${finished.failedReason}`).toBe('completed');
        const result = runResultSchema.parse(finished.returnvalue);
        const call = result.toolCalls[0];
        outcomes.set(runId, { approved: call?.approval?.approved, reason: JSON.stringify(call?.output ?? null) });
      }
    } finally {
      stop = true;
      await Promise.all([producer, decider, chaos, ...pendingDecisions]);
    }

    const counted = await readCounterNotes(counterFile);
    const counts = {
      approve: 0,
      deny: 0,
      expire: 0,
      ranOnce: 0,
      interrupted: 0,
      executed: counted.length,
      kills,
      decisions,
      hooked,
    };
    for (const [runId, plan] of plans) {
      counts[plan] += 1;
      const outcome = outcomes.get(runId);
      const executions = counted.filter((note) => note === runId).length;
      if (plan === 'approve') {
        expect(outcome?.approved, runId).toBe(true);
        // Never twice. Exactly once, unless a kill landed between the call's claim and its
        // request: then it ran at most once and the model was told it was interrupted.
        expect(executions, `${runId}: ${outcome?.reason}`).toBeLessThanOrEqual(1);
        if (outcome?.reason.includes(INTERRUPTED_TOOL_CALL)) counts.interrupted += 1;
        else {
          expect(executions, `${runId}: ${outcome?.reason}`).toBe(1);
          counts.ranOnce += 1;
        }
      } else {
        expect(outcome?.approved, runId).toBe(false);
        expect(executions, runId).toBe(0);
        expect(outcome?.reason, runId).toContain(plan === 'deny' ? 'soak says no' : 'expired');
      }
    }
    expect(decisionErrors).toEqual([]);
    console.log(
      `[soak] seed ${seed}: ${runCount} runs — ${counts.approve} approved (${counts.ranOnce} ran exactly once, ` +
        `${counts.interrupted} interrupted between claim and call and reported so), ${counts.deny} denied, ` +
        `${counts.expire} expired; ${counts.executed} tool executions; ${counts.decisions} decisions; ` +
        `${counts.kills} workers killed at random, ${counts.hooked} started with a crash hook`,
    );
  });
});
