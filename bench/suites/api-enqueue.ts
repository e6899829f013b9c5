import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
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

/** Starts `agentq api` the way it is deployed: its own process. */
async function startApiProcess(options: {
  redisUrl: string;
  prefix: string;
}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      REDIS_URL: options.redisUrl,
      AGENTQ_PREFIX: options.prefix,
      AGENTQ_API_TOKEN: TOKEN,
      AGENTQ_API_PORT: String(port),
      LOG_LEVEL: 'silent',
    },
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

/**
 * `POST /v1/runs` against a direct `enqueueRun`, same Redis, same concurrency. The API runs in its
 * own process, as deployed, and the producer keeps its connections alive; the figure is what a
 * service gets from the HTTP API compared with importing the client library.
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
    const api = await startApiProcess({ redisUrl: context.redisUrl, prefix });
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const cleanup = createRedisConnection({ url: context.redisUrl, role: 'worker' });
    try {
      const direct: number[] = [];
      const http: number[] = [];
      const viaClient = async () => void (await client.enqueueRun(spec));
      const viaHttp = () => postRun(api.url, agent);
      await throughput(100, concurrency, viaClient);
      await throughput(100, concurrency, viaHttp);
      // Alternate the two so that background load on the machine hits both alike.
      for (let round = 0; round < rounds; round += 1) {
        direct.push(await throughput(perRound, concurrency, viaClient));
        http.push(await throughput(perRound, concurrency, viaHttp));
      }
      const ratio = median(http) / median(direct);
      return [
        {
          name: 'post-runs/enqueue-run',
          value: ratio,
          unit: 'ratio',
          ...atLeast(ratio, 0.5),
          details: { directPerSecond: direct, httpPerSecond: http, perRound, rounds, concurrency },
        },
        { name: 'post-runs.per-second', value: median(http), unit: 'runs/s' },
        { name: 'enqueue-run.per-second', value: median(direct), unit: 'runs/s' },
      ];
    } finally {
      agent.destroy();
      api.child.kill('SIGTERM');
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
