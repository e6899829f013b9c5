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

// Sized by work, not by the clock: the runs arrive through a bounded window and the workers are
// killed after a number of runs finish, so a busy machine runs the same scenario, only slower.
const runCount = 100;
/** Runs enqueued but not finished, at most. */
const inFlightWindow = 25;
/** A random worker is killed after every 4 to 8 finished runs, this many times at most. */
const maxKills = 16;
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
      definition: {
        id: 'fx',
        transport: fixtureStdioTransport({ counterFile }),
        // Generous: fixture processes start slowly on a busy machine, and a connect timeout would
        // turn an approved call into a tool error that this file would count as not executed.
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
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

  it('ends every run in the state its decisions imply', { timeout: 600_000 }, async () => {
    const seed = Number(process.env.AGENTQ_SOAK_SEED ?? 20261130);
    const next = random(seed);
    const plans = new Map<string, Plan>();
    for (let index = 0; index < runCount; index += 1) {
      const roll = next();
      plans.set(`soak-${index}`, roll < 0.45 ? 'approve' : roll < 0.8 ? 'deny' : 'expire');
    }

    let stop = false;
    let starting = 0;
    let kills = 0;
    let decisions = 0;
    let paused = false;
    const decisionErrors: string[] = [];
    const startErrors: string[] = [];
    const scheduled = new Set<string>();
    const pendingDecisions: Array<Promise<void>> = [];
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    const crashPoints = ['after-step', 'after-checkpoint', 'after-child-add', 'after-resume'];
    let hooked = 0;
    const start = async () => {
      // Some workers also die by their own hand at the worst moments of an approval.
      const point = next() < 0.25 ? crashPoints[Math.floor(next() * crashPoints.length)] : undefined;
      if (point) hooked += 1;
      const env: Record<string, string> = point ? { AGENTQ_TEST_CRASH_AT: point } : {};
      const worker = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
      workers.add(worker);
      void worker.exited.then(() => {
        workers.delete(worker);
        replenish();
      });
    };
    // Two workers at all times, except in a chaos pause: one killed by the chaos loop or by its
    // own crash hook is replaced as soon as it is gone, so the runs always make progress.
    const replenish = () => {
      if (stop || paused) return;
      for (let missing = 2 - workers.size - starting; missing > 0; missing -= 1) {
        starting += 1;
        void start()
          .catch((error: Error) => {
            startErrors.push(error.message);
          })
          .finally(() => {
            starting -= 1;
            replenish();
          });
      }
    };
    await Promise.all([start(), start()]);

    /** Resolves once `count` runs have finished (or the test is stopping). */
    const untilFinished = async (count: number) => {
      while (!stop && (await queue.getJobCountByTypes('completed', 'failed')) < count) await sleep(200);
    };

    const decider = (async () => {
      while (!stop) {
        for (const approval of await listPendingApprovals(ctx)) {
          const plan = plans.get(approval.runId);
          if (!plan || plan === 'expire' || scheduled.has(approval.approvalId)) continue;
          scheduled.add(approval.approvalId);
          // Decisions race the parking, the kills and each other.
          const delay = Math.floor(next() * 4_000);
          pendingDecisions.push(
            sleep(delay).then(async () => {
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
        await sleep(200);
      }
    })();

    const chaos = (async () => {
      let threshold = 0;
      while (!stop && kills < maxKills) {
        threshold += 4 + Math.floor(next() * 5);
        await untilFinished(threshold);
        if (stop) break;
        const alive = [...workers];
        const victim = alive[Math.floor(next() * alive.length)];
        if (!victim) continue;
        // Sometimes the replacement waits a moment, so that with the other worker also gone (a
        // crash hook) nobody is left: parked runs must not care.
        paused = next() < 0.3;
        await victim.kill();
        kills += 1;
        if (paused) await sleep(1_000);
        paused = false;
        replenish();
      }
    })();

    // Runs keep arriving while others park, resume and finish, so kills land on every phase.
    const producer = (async () => {
      let index = 0;
      for (const [runId, plan] of plans) {
        await untilFinished(index + 1 - inFlightWindow);
        if (stop) break;
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

    /** What a run that did not finish is waiting on, for the failure message. */
    const stuckRunReport = async (runId: string) => {
      const job = await queue.getJob(runId);
      const approvalJobs = (
        await approvalsQueue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'])
      ).filter((each) => (each?.data as { runId?: string } | undefined)?.runId === runId);
      return {
        plan: plans.get(runId),
        state: await queue.getJobState(runId),
        attemptsMade: job?.attemptsMade,
        attemptsStarted: job?.attemptsStarted,
        failedReason: job?.failedReason,
        dependencies: await job?.getDependencies(),
        approvals: await Promise.all(
          approvalJobs.map(async (each) => ({
            id: each.id,
            state: await each.getState(),
            delay: each.delay,
            timestamp: each.timestamp,
            attemptsStarted: each.attemptsStarted,
            failedReason: each.failedReason,
            returnvalue: each.returnvalue as unknown,
          })),
        ),
        workers: workers.size,
        starting,
        now: Date.now(),
      };
    };
    const outcomes = new Map<string, { approved: boolean | undefined; reason: string }>();
    try {
      for (const runId of plans.keys()) {
        const finished = await waitForJob(queue, runId, 300_000).catch(async (error: Error) => {
          throw new Error(`${error.message}; ${JSON.stringify(await stuckRunReport(runId))}`);
        });
        expect(finished.state, `${runId}: ${finished.failedReason}`).toBe('completed');
        const result = runResultSchema.parse(finished.returnvalue);
        const call = result.toolCalls[0];
        outcomes.set(runId, { approved: call?.approval?.approved, reason: JSON.stringify(call?.output ?? null) });
      }
    } finally {
      stop = true;
      await Promise.all([producer, decider, chaos, ...pendingDecisions]);
      // Workers still starting join the set that afterAll kills.
      while (starting > 0) await sleep(100);
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
    expect(startErrors).toEqual([]);
    console.log(
      `[soak] seed ${seed}: ${runCount} runs — ${counts.approve} approved (${counts.ranOnce} ran exactly once, ` +
        `${counts.interrupted} interrupted between claim and call and reported so), ${counts.deny} denied, ` +
        `${counts.expire} expired; ${counts.executed} tool executions; ${counts.decisions} decisions; ` +
        `${counts.kills} workers killed at random, ${counts.hooked} started with a crash hook`,
    );
  });
});
