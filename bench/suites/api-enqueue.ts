import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { createRedisConnection } from '@agentq/store';
import { Queue } from 'bullmq';
import { deleteKeysWithPrefix, freePort } from '../../test/helpers/redis.js';
import { atLeast, type BenchFigure, type BenchSuite } from '../bench-types.js';

const TOKEN = 'bench-token-0123456789abcdef';
const spec = { assistant: { model: 'scripted:demo' }, input: { prompt: 'benchmark run' } };
const body = JSON.stringify({ spec });
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `total` calls of `call`, `concurrency` at a time; returns calls per second. */
async function throughput(total: number, concurrency: number, call: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        await call();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * CPU time a process has used so far, in microseconds, summed over its threads from
 * `/proc/<pid>/task/<tid>/schedstat` (nanoseconds, unlike the 10 ms ticks of `/proc/<pid>/stat`);
 * `undefined` where there is no `/proc`.
 */
async function processCpuMicros(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    let nanos = 0;
    for (const task of await readdir(`/proc/${pid}/task`)) {
      const text = await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0');
      nanos += Number(text.split(' ')[0]);
    }
    return nanos / 1000;
  } catch {
    return undefined;
  }
}

/** The bench process's own CPU time so far, in microseconds. */
function ownCpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Starts `agentq api` the way it is deployed: its own process, optionally under the CPU profiler. */
async function startApiProcess(options: {
  redisUrl: string;
  prefix: string;
  logLevel: string;
  profileDir?: string;
}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const profile = options.profileDir
    ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir, '--cpu-prof-interval', '250']
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'apps/api/src/main.ts'], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      REDIS_URL: options.redisUrl,
      AGENTQ_PREFIX: options.prefix,
      AGENTQ_API_TOKEN: TOKEN,
      AGENTQ_API_PORT: String(port),
      LOG_LEVEL: options.logLevel,
    },
    // Log lines go to /dev/null: written, never read.
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the API process did not start');
}

/** One `POST /v1/runs` over a keep-alive connection. */
function postRun(url: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/v1/runs`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        response.resume();
        response.once('end', () =>
          response.statusCode === 201 ? resolve() : reject(new Error(`POST /v1/runs answered ${response.statusCode}`)),
        );
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/** Waits (bounded) for a child to exit, so that a `--cpu-prof` file is written. */
async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * `POST /v1/runs` against a direct `enqueueRun`, same Redis, same concurrency. The API runs in its
 * own process, as deployed, and the producer keeps its connections alive; the figure is what a
 * service gets from the HTTP API compared with importing the client library.
 *
 * Wall-clock rates swing on a shared machine, so CPU per run is reported beside them: the API
 * process's (all its threads), the bench's HTTP client's, and the direct enqueue's (the bench
 * process while only it runs). `AGENTQ_BENCH_PROFILE=<file>` writes a CPU profile of the API process
 * (250 µs sampling, from its start to its exit; `bench/profile-summary.ts` reads it).
 * `AGENTQ_BENCH_API_LOG_LEVEL` sets the API's `LOG_LEVEL` (default `silent`; a deployment's default
 * is `info`).
 */
const suite: BenchSuite = {
  name: 'api-enqueue',
  description: 'POST /v1/runs throughput (API in its own process) over direct client.enqueueRun',
  async run(context): Promise<BenchFigure[]> {
    const prefix = `bench-${randomUUID()}`;
    const perRound = context.quick ? 300 : 2_000;
    const rounds = context.quick ? 1 : 3;
    const concurrency = 64;
    const client = createAgentqClient({ redisUrl: context.redisUrl, prefix });
    const profileFile = process.env.AGENTQ_BENCH_PROFILE;
    const profileDir = profileFile ? await mkdtemp(join(tmpdir(), 'agentq-api-profile-')) : undefined;
    const logLevel = process.env.AGENTQ_BENCH_API_LOG_LEVEL ?? 'silent';
    const api = await startApiProcess({ redisUrl: context.redisUrl, prefix, logLevel, profileDir });
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const cleanup = createRedisConnection({ url: context.redisUrl, role: 'worker' });
    try {
      const direct: number[] = [];
      const http: number[] = [];
      const directCpu: number[] = [];
      const apiCpu: number[] = [];
      const clientCpu: number[] = [];
      const viaClient = async () => void (await client.enqueueRun(spec));
      const viaHttp = () => postRun(api.url, agent);
      await throughput(100, concurrency, viaClient);
      await throughput(100, concurrency, viaHttp);
      // Alternate the two so that background load on the machine hits both alike.
      for (let round = 0; round < rounds; round += 1) {
        let own = ownCpuMicros();
        direct.push(await throughput(perRound, concurrency, viaClient));
        directCpu.push((ownCpuMicros() - own) / perRound);
        own = ownCpuMicros();
        const apiBefore = await processCpuMicros(api.child.pid);
        http.push(await throughput(perRound, concurrency, viaHttp));
        clientCpu.push((ownCpuMicros() - own) / perRound);
        const apiAfter = await processCpuMicros(api.child.pid);
        if (apiBefore !== undefined && apiAfter !== undefined) apiCpu.push((apiAfter - apiBefore) / perRound);
      }
      const ratio = median(http) / median(direct);
      const cpu = (values: number[], name: string): BenchFigure[] =>
        values.length > 0 ? [{ name, value: median(values), unit: 'µs CPU/run', details: { values } }] : [];
      return [
        {
          name: 'post-runs/enqueue-run',
          value: ratio,
          unit: 'ratio',
          ...atLeast(ratio, 0.5),
          details: { directPerSecond: direct, httpPerSecond: http, perRound, rounds, concurrency, logLevel },
        },
        { name: 'post-runs.per-second', value: median(http), unit: 'runs/s' },
        { name: 'enqueue-run.per-second', value: median(direct), unit: 'runs/s' },
        ...cpu(apiCpu, 'post-runs.api-cpu'),
        ...cpu(clientCpu, 'post-runs.http-client-cpu'),
        ...cpu(directCpu, 'enqueue-run.cpu'),
      ];
    } finally {
      agent.destroy();
      api.child.kill('SIGTERM');
      if (profileFile && profileDir) {
        await exited(api.child);
        const [written] = (await readdir(profileDir)).filter((file) => file.endsWith('.cpuprofile'));
        if (written) await copyFile(join(profileDir, written), profileFile);
        await rm(profileDir, { recursive: true, force: true });
      }
      await client.close();
      const queue = new Queue(QUEUE_NAMES.agentRuns, { connection: cleanup, prefix });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await deleteKeysWithPrefix(cleanup as never, prefix);
      cleanup.disconnect();
    }
  },
};

export default suite;
