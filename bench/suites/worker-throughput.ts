import { randomUUID } from 'node:crypto';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { defaultRunJobOptions, loadConfig, QUEUE_NAMES, runSpecSchema, silentLogger } from '@agentq/shared';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { atLeast, type BenchFigure, type BenchSuite } from '../bench-types.js';

async function drain(queue: Queue, total: number): Promise<void> {
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed');
    if ((counts.completed ?? 0) + (counts.failed ?? 0) >= total) {
      if ((counts.failed ?? 0) > 0) throw new Error(`${counts.failed} jobs failed`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Adds `count` jobs to a paused queue, resumes it and times until all are done. */
async function timeBatch(queue: Queue, jobs: Array<{ name: string; data: unknown; opts?: object }>): Promise<number> {
  await queue.pause();
  await queue.addBulk(jobs);
  const started = performance.now();
  await queue.resume();
  await drain(queue, jobs.length);
  const seconds = (performance.now() - started) / 1_000;
  await queue.obliterate({ force: true });
  return seconds;
}

/**
 * Throughput of one-step scripted runs through a real agent worker, against bare BullMQ no-op jobs
 * on the same Redis with one worker process each and the same concurrency. The two alternate in
 * rounds, so that load from other processes on the machine hits both alike. A run pays for what
 * makes it durable and safe: spec validation, a checkpoint read and write, the cache-only tool-set
 * build, the AI SDK loop and the result.
 */
const suite: BenchSuite = {
  name: 'worker-throughput',
  description: 'one-step scripted runs per second over bare BullMQ no-op jobs per second (goal >= 0.35, issue #22)',
  async run(context) {
    const rounds = context.quick ? 2 : 4;
    const perRound = context.quick ? 200 : 500;
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const figures: BenchFigure[] = [];
    const spec = runSpecSchema.parse({
      assistant: { model: 'scripted:bench', script: [{ text: 'ok' }] },
      input: { prompt: 'hello' },
    });
    const prefixes: string[] = [];
    try {
      for (const concurrency of [4, 16]) {
        const prefix = `bench-${randomUUID()}`;
        prefixes.push(prefix);
        const bareQueue = new Queue('bare', { connection: redis, prefix });
        const bareWorker = new Worker('bare', async (job: Job) => job.data as unknown, {
          connection: redis,
          prefix,
          concurrency,
        });
        const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: redis, prefix });
        const worker: AgentWorker = await startAgentWorker({
          config: loadConfig({
            REDIS_URL: context.redisUrl,
            AGENTQ_PREFIX: prefix,
            AGENTQ_WORKER_CONCURRENCY: String(concurrency),
            LOG_LEVEL: 'silent',
          }),
          logger: silentLogger(),
        });
        let bareSeconds = 0;
        let runSeconds = 0;
        for (let round = 0; round < rounds; round += 1) {
          bareSeconds += await timeBatch(
            bareQueue,
            Array.from({ length: perRound }, (_, index) => ({ name: 'noop', data: { index } })),
          );
          runSeconds += await timeBatch(
            runs,
            Array.from({ length: perRound }, (_, index) => ({
              name: 'run',
              data: spec,
              opts: { ...defaultRunJobOptions({ attempts: 3 }), jobId: `run-${round}-${index}` },
            })),
          );
        }
        await worker.close();
        await bareWorker.close();
        await bareQueue.close();
        await runs.close();
        const total = rounds * perRound;
        const bareRate = total / bareSeconds;
        const runRate = total / runSeconds;
        const ratio = runRate / bareRate;
        figures.push({
          name: `throughput.runs/noop@c${concurrency}`,
          value: ratio,
          unit: 'ratio',
          ...atLeast(ratio, 0.35),
          details: { jobs: total, concurrency, bareJobsPerSecond: bareRate, runsPerSecond: runRate },
        });
        figures.push({ name: `throughput.runs@c${concurrency}`, value: runRate, unit: 'runs/s' });
        figures.push({ name: `throughput.noop@c${concurrency}`, value: bareRate, unit: 'jobs/s' });
      }
      return figures;
    } finally {
      for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
