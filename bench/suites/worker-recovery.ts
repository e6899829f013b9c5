import { randomUUID } from 'node:crypto';
import { loadConfig } from '@agentq/shared';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import {
  enqueueRun,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from '../../test/worker/helpers/worker-harness.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

/**
 * Time from a worker's `kill -9` (mid-run, right after a checkpoint) until another worker has
 * finished the run, with the configured recovery defaults, beside the same measurement with the
 * old 30 s lock + 30 s stalled interval in the same run. The goal is absolute (the 15 s):
 * recovery is bounded by the lock and the stalled check, not by CPU.
 */
const suite: BenchSuite = {
  name: 'worker-recovery',
  description: 'kill -9 of a worker mid-run -> run finished by another worker (goal <= 15 s with the defaults)',
  async run(context) {
    const defaults = loadConfig({});
    const settings = [
      {
        name: 'defaults',
        tuning: {
          lockDurationMs: defaults.runLockMs,
          stalledIntervalMs: defaults.runStalledIntervalMs,
          maxStalledCount: defaults.runMaxStalled,
        },
      },
      ...(context.quick ? [] : [{ name: 'old-30s', tuning: { lockDurationMs: 30_000, stalledIntervalMs: 30_000 } }]),
    ];
    const figures: BenchFigure[] = [];
    for (const setting of settings) {
      const seconds = await measureRecovery(context.redisUrl, setting.tuning);
      figures.push({
        name: `recovery.${setting.name}`,
        value: seconds,
        unit: 's',
        ...(setting.name === 'defaults' ? atMost(seconds, 15) : {}),
        details: { tuning: setting.tuning },
      });
    }
    return figures;
  },
};

async function measureRecovery(
  redisUrl: string,
  tuning: { lockDurationMs: number; stalledIntervalMs: number; maxStalledCount?: number },
): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const prefix = `bench-${randomUUID()}`;
  const queue = runsQueue({ redis, prefix });
  const workers: WorkerProcess[] = [];
  try {
    // The first worker kills itself (SIGKILL) right after the run's first checkpoint.
    const doomed = await spawnWorkerProcess({
      redisUrl,
      prefix,
      tuning,
      env: { AGENTQ_TEST_CRASH_AT: 'after-step' },
    });
    workers.push(doomed);
    await enqueueRun(queue, {
      runId: 'recover-me',
      spec: {
        assistant: { model: 'scripted:bench', script: [{ text: 'one' }, { text: 'two' }], maxSteps: 2 },
        input: { prompt: 'go' },
      },
    });
    await doomed.exited;
    const killedAt = performance.now();
    const rescuer = await spawnWorkerProcess({ redisUrl, prefix, tuning });
    workers.push(rescuer);
    const finished = await waitForJob(queue, 'recover-me', 120_000);
    if (finished.state !== 'completed') throw new Error(`run ended ${finished.state}: ${finished.failedReason}`);
    return (performance.now() - killedAt) / 1_000;
  } finally {
    for (const worker of workers) await worker.kill();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  }
}

export default suite;
