import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startAgentWorker, type AgentWorker, type AgentWorkerTuning, type ModelResolver } from '@agentq/agent-worker';
import {
  defaultRunJobOptions,
  loadConfig,
  QUEUE_NAMES,
  runSpecSchema,
  silentLogger,
  type Config,
  type Logger,
  type RunCheckpoint,
  type RunSpecInput,
} from '@agentq/shared';
import { RunStore } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { tsxLoaderUrl } from '../../fixtures/mcp/spawn-fixture.js';

/** Short locks so that a killed worker's runs are taken over within a couple of seconds. */
export const fastTuning: AgentWorkerTuning = {
  lockDurationMs: 2_000,
  stalledIntervalMs: 1_000,
  maxStalledCount: 50,
  sweepIntervalMs: 500,
  sweepGraceMs: 200,
  closeTimeoutMs: 5_000,
  mcpIdleMs: 5_000,
};

/** Config of a test worker on the context's Redis and prefix. */
export function testConfig(options: { redisUrl: string; prefix: string; env?: Record<string, string> }): Config {
  return loadConfig({
    REDIS_URL: options.redisUrl,
    AGENTQ_PREFIX: options.prefix,
    LOG_LEVEL: 'silent',
    AGENTQ_WORKER_CONCURRENCY: '4',
    ...options.env,
  });
}

/** Starts an in-process worker with fast lock settings. */
export async function startTestWorker(options: {
  redisUrl: string;
  prefix: string;
  env?: Record<string, string>;
  tuning?: AgentWorkerTuning;
  /** @default a silent logger */
  logger?: Logger;
  /** @default the real resolver (scripted models work without keys) */
  models?: ModelResolver;
}): Promise<AgentWorker> {
  return await startAgentWorker({
    config: testConfig(options),
    logger: options.logger ?? silentLogger(),
    ...(options.models ? { models: options.models } : {}),
    env: { ...process.env, ...options.env },
    tuning: { ...fastTuning, ...options.tuning },
  });
}

/** The `agent-runs` queue of a prefix. */
export function runsQueue(options: { redis: Redis; prefix: string }): Queue {
  return new Queue(QUEUE_NAMES.agentRuns, { connection: options.redis, prefix: options.prefix });
}

/** Enqueues a run as a producer would: parse, then add with the shared defaults. */
export async function enqueueRun(queue: Queue, options: { runId: string; spec: RunSpecInput; attempts?: number }) {
  const spec = runSpecSchema.parse(options.spec);
  return await queue.add('run', spec, {
    ...defaultRunJobOptions({ attempts: options.attempts ?? 3 }),
    jobId: options.runId,
  });
}

/** Enqueues raw data without validation (for bad-spec tests). */
export async function enqueueRaw(queue: Queue, options: { runId: string; data: unknown; attempts?: number }) {
  return await queue.add('run', options.data, {
    ...defaultRunJobOptions({ attempts: options.attempts ?? 3 }),
    jobId: options.runId,
  });
}

/** Outcome of a finished job. */
export interface FinishedJob {
  state: 'completed' | 'failed';
  returnvalue: unknown;
  failedReason: string | undefined;
  attemptsMade: number;
}

/** Polls a job until it completes or fails. */
export async function waitForJob(queue: Queue, jobId: string, timeoutMs = 45_000): Promise<FinishedJob> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job = await Job.fromId(queue, jobId);
    if (job) {
      const state = await job.getState();
      if (state === 'completed' || state === 'failed') {
        // Read the job again: the copy above may predate the move to its final state.
        const final = (await Job.fromId(queue, jobId)) ?? job;
        return {
          state,
          returnvalue: final.returnvalue,
          failedReason: final.failedReason,
          attemptsMade: final.attemptsMade,
        };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} did not finish within ${timeoutMs} ms`);
}

/** A run's checkpoint as the workers stored it (head and step log, or a single blob), or `null`. */
export async function readCheckpoint(
  ctx: { redis: Redis; prefix: string },
  runId: string,
): Promise<RunCheckpoint | null> {
  return await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).read(runId);
}

/** Polls until `check` returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const workerProcessPath = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

/** A worker running in its own process, for crash tests. */
export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful close), then waits; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `worker-process.ts` (which starts `startAgentWorker`) with fast lock settings. */
export async function spawnWorkerProcess(options: {
  redisUrl: string;
  prefix: string;
  env?: Record<string, string>;
  tuning?: AgentWorkerTuning;
}): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', tsxLoaderUrl, workerProcessPath, JSON.stringify({ ...fastTuning, ...options.tuning })],
    {
      env: {
        ...process.env,
        REDIS_URL: options.redisUrl,
        AGENTQ_PREFIX: options.prefix,
        LOG_LEVEL: 'silent',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      collect(chunk);
      if (output.includes('WORKER READY')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((code) => reject(new Error(`worker process exited (${code}) before it was ready: ${output}`)));
  });
  return {
    child,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Tears down what a worker suite started, in order and skipping what never started: the worker,
 * then its runs queue (obliterated), then the test context's keys and connection.
 */
export async function stopWorkerSuite(parts: {
  worker?: AgentWorker;
  queue?: Queue;
  ctx?: { close(): Promise<void> };
}) {
  await parts.worker?.close();
  await parts.queue?.obliterate({ force: true });
  await parts.queue?.close();
  await parts.ctx?.close();
}
