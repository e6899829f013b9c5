import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { defaultRunJobOptions, loadConfig, QUEUE_NAMES, runSpecSchema, silentLogger } from '@agentq/shared';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { freePrivatePort } from '../../test/chaos/chaos-fleet.js';
import { tsxLoaderUrl } from '../../test/fixtures/mcp/spawn-fixture.js';
import { everythingCommand, warmServer } from '../../test/worker/helpers/catalog.js';
import { atLeast, atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

const childFlag = 'AGENTQ_BENCH_LATENCY_CHILD';
const prefix = 'bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The measured side, in its own process (`--expose-gc`) so that its heap holds only the worker:
 * `agentq` runs an agent worker, `bare` a BullMQ worker whose job sleeps `stepMs` per step. On
 * `measure` from the parent it collects garbage and prints its heap.
 */
async function child(): Promise<void> {
  const mode = process.env.BENCH_MODE as 'agentq' | 'bare';
  const concurrency = Number(process.env.BENCH_CONCURRENCY);
  const redisUrl = process.env.REDIS_URL as string;
  let close: () => Promise<void>;
  if (mode === 'agentq') {
    const worker: AgentWorker = await startAgentWorker({
      config: loadConfig({
        REDIS_URL: redisUrl,
        AGENTQ_PREFIX: prefix,
        AGENTQ_WORKER_CONCURRENCY: String(concurrency),
        OPENAI_COMPATIBLE_BASE_URL: process.env.BENCH_MODEL_URL,
        OPENAI_COMPATIBLE_API_KEY: 'bench-key',
        AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
        LOG_LEVEL: 'silent',
      }),
      logger: silentLogger(),
    });
    close = () => worker.close();
  } else {
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const worker = new Worker(
      'bare',
      async (job) => {
        const { steps, stepMs } = job.data as { steps: number; stepMs: number };
        for (let step = 0; step < steps; step += 1) await sleep(stepMs);
        return { ok: true };
      },
      { connection, prefix, concurrency },
    );
    await worker.waitUntilReady();
    close = async () => {
      await worker.close();
      connection.disconnect();
    };
  }
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'measure') process.stdout.write(`${JSON.stringify({ heap: heap() })}\n`);
    if (line === 'stop') break;
  }
  await close();
}

if (process.env[childFlag]) {
  await child();
  process.exit(0);
}

/** A worker child and a way to ask it for its heap. */
interface MeasuredChild {
  process: ChildProcess;
  heap(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(env: Record<string, string>): Promise<MeasuredChild> {
  const processChild = spawn(
    process.execPath,
    ['--expose-gc', '--import', tsxLoaderUrl, fileURLToPath(import.meta.url)],
    { env: { ...process.env, [childFlag]: '1', ...env }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: processChild.stdout as NodeJS.ReadableStream });
  const waiting: Array<(value: Record<string, number | boolean>) => void> = [];
  lines.on('line', (line) => {
    try {
      waiting.shift()?.(JSON.parse(line) as Record<string, number | boolean>);
    } catch {
      // not ours
    }
  });
  const next = () => new Promise<Record<string, number | boolean>>((resolve) => waiting.push(resolve));
  await next();
  const exited = new Promise<void>((resolve) => processChild.once('exit', () => resolve()));
  return {
    process: processChild,
    async heap() {
      const answer = next();
      processChild.stdin?.write('measure\n');
      return (await answer).heap as number;
    },
    async stop() {
      processChild.stdin?.write('stop\n');
      await Promise.race([exited, sleep(30_000)]);
      processChild.kill('SIGKILL');
    },
  };
}

/**
 * An OpenAI-compatible chat completions endpoint that answers after `delayMs`: with a call of the
 * first tool whose name ends in `echo` until the conversation holds `steps - 1` tool results
 * (the model id is `steps-<n>`), then with text. Counts the requests it is holding.
 */
function startModelServer(): {
  server: Server;
  url: Promise<string>;
  inFlight: () => number;
  setDelay(ms: number): void;
} {
  let delayMs = 1_000;
  let inFlight = 0;
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      inFlight += 1;
      setTimeout(() => {
        inFlight -= 1;
        const body = JSON.parse(text) as {
          model: string;
          messages: Array<{ role: string }>;
          tools?: Array<{ function: { name: string } }>;
        };
        const steps = Number(/steps-(\d+)/.exec(body.model)?.[1] ?? 1);
        const results = body.messages.filter((message) => message.role === 'tool').length;
        const echo = body.tools?.find((tool) => tool.function.name.endsWith('echo'))?.function.name;
        const message =
          results < steps - 1 && echo
            ? {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { id: `call_${results}`, type: 'function', function: { name: echo, arguments: '{"message":"hi"}' } },
                ],
              }
            : { role: 'assistant', content: 'ok' };
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id: `bench-${results}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
            usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
          }),
        );
      }, delayMs);
    });
  });
  const url = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`);
    }),
  );
  return {
    server,
    url,
    inFlight: () => inFlight,
    setDelay(ms) {
      delayMs = ms;
    },
  };
}

/** Sums `INFO commandstats` calls and reads the input bytes of `INFO stats`. */
async function redisCounters(redis: Redis): Promise<{ commands: number; inputBytes: number }> {
  const stats = await redis.info('commandstats');
  let commands = 0;
  for (const match of stats.matchAll(/calls=(\d+)/g)) commands += Number(match[1]);
  const general = await redis.info('stats');
  const inputBytes = Number(/total_net_input_bytes:(\d+)/.exec(general)?.[1] ?? 0);
  return { commands, inputBytes };
}

function historyOf(length: number) {
  return Array.from({ length }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${index} of an ongoing conversation about invoices, with enough words to look like a real turn of about two hundred characters, which is what a chat history usually carries per message.`,
  }));
}

/**
 * Latency-bound runs: one worker process at concurrency 500 against a local OpenAI-compatible
 * model answering in 1 s per step, 1-step and 3-step runs (a 3-step run calls server-everything's
 * `echo` twice), over a bare BullMQ worker whose job sleeps 1 s per step at the same concurrency
 * on the same private Redis. Also: heap per in-flight run after GC, Redis commands per run (INFO
 * commandstats on the private Redis) and bytes written per step with a 20-message history.
 */
const suite: BenchSuite = {
  name: 'worker-latency-bound',
  description:
    'latency-bound runs/s over bare sleeping jobs at concurrency 500 (goal >= 0.9), heap per run, Redis commands per run',
  async run(context) {
    const concurrency = context.quick ? 100 : 500;
    const runsPerBatch = concurrency * 2;
    const stepMs = 1_000;
    const folder = await mkdtemp(join(tmpdir(), 'agentq-bench-latency-'));
    const port = await freePrivatePort();
    const redisProcess = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', folder, '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const redisUrl = `redis://127.0.0.1:${port}`;
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined); // refused until the private server listens
    const model = startModelServer();
    const figures: BenchFigure[] = [];
    try {
      for (let tries = 0; (await redis.ping().catch(() => '')) !== 'PONG'; tries += 1) {
        if (tries > 100) throw new Error('private redis-server did not start');
        await sleep(100);
      }
      await warmServer({
        redis,
        prefix,
        definition: { id: 'everything', transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] } },
      });
      const modelUrl = await model.url;
      const events = new QueueEvents(QUEUE_NAMES.agentRuns, { connection: redis.duplicate(), prefix });
      const bareEvents = new QueueEvents('bare', { connection: redis.duplicate(), prefix });
      await Promise.all([events.waitUntilReady(), bareEvents.waitUntilReady()]);
      let completed = 0;
      const onDone = () => {
        completed += 1;
      };
      for (const each of [events, bareEvents]) {
        each.on('completed', onDone);
        each.on('failed', onDone);
      }
      const runsQueue = new Queue(QUEUE_NAMES.agentRuns, { connection: redis, prefix });
      const bareQueue = new Queue('bare', { connection: redis, prefix });

      /** Adds a batch to a paused queue, resumes it, and times it to the last completion. */
      const timeBatch = async (
        queue: Queue,
        jobs: Array<{ name: string; data: unknown; opts?: object }>,
      ): Promise<{ seconds: number; commands: number; inputBytes: number }> => {
        await queue.pause();
        completed = 0;
        await redis.config('RESETSTAT');
        const before = await redisCounters(redis);
        await queue.addBulk(jobs);
        const started = performance.now();
        await queue.resume();
        while (completed < jobs.length) await sleep(20);
        const seconds = (performance.now() - started) / 1_000;
        const after = await redisCounters(redis);
        await queue.obliterate({ force: true });
        return {
          seconds,
          commands: after.commands - before.commands,
          inputBytes: after.inputBytes - before.inputBytes,
        };
      };
      const runJobs = (steps: number, batch: number, history = 0) => {
        const spec = runSpecSchema.parse({
          assistant: {
            model: `openai-compatible:steps-${steps}`,
            mcpServers: steps > 1 ? ['everything'] : [],
            maxSteps: steps + 1,
          },
          input:
            history > 0
              ? { messages: [...historyOf(history), { role: 'user', content: 'go on' }] }
              : { prompt: 'hello' },
        });
        return Array.from({ length: runsPerBatch }, (_, index) => ({
          name: 'run',
          data: spec,
          opts: { ...defaultRunJobOptions({ attempts: 1 }), jobId: `run-${steps}-${history}-${batch}-${index}` },
        }));
      };
      const bareJobs = (steps: number) =>
        Array.from({ length: runsPerBatch }, (_, index) => ({ name: 'noop', data: { steps, stepMs, index } }));

      const agentq = await startChild({
        BENCH_MODE: 'agentq',
        BENCH_CONCURRENCY: String(concurrency),
        REDIS_URL: redisUrl,
        BENCH_MODEL_URL: modelUrl,
      });
      const bare = await startChild({
        BENCH_MODE: 'bare',
        BENCH_CONCURRENCY: String(concurrency),
        REDIS_URL: redisUrl,
      });
      try {
        // Warm both paths once (module loading, the MCP connection, the registry sync).
        // A full batch at full concurrency first: JIT, sockets to the model and 500 open slots.
        model.setDelay(10);
        await timeBatch(runsQueue, runJobs(3, -1).slice(0, 20));
        await timeBatch(runsQueue, runJobs(1, -2));
        await timeBatch(bareQueue, bareJobs(1).slice(0, 20));
        model.setDelay(stepMs);
        for (const steps of [1, 3]) {
          const base = await timeBatch(bareQueue, bareJobs(steps));
          const runs = await timeBatch(runsQueue, runJobs(steps, 0));
          const ratio = base.seconds / runs.seconds;
          figures.push({
            name: `latency-bound.runs/bare@c${concurrency}.${steps}-step`,
            value: ratio,
            unit: 'ratio',
            ...atLeast(ratio, 0.9),
            details: { runs: runsPerBatch, runSeconds: runs.seconds, bareSeconds: base.seconds },
          });
          figures.push({
            name: `latency-bound.runs/s.${steps}-step`,
            value: runsPerBatch / runs.seconds,
            unit: 'runs/s',
          });
          figures.push({
            name: `redis.commands/run.${steps}-step`,
            value: runs.commands / runsPerBatch,
            unit: 'commands',
            details: { bare: base.commands / runsPerBatch },
          });
          figures.push({
            name: `redis.commands/bare-job.${steps}-step`,
            value: base.commands / runsPerBatch,
            unit: 'commands',
          });
        }
        // Bytes per step: 3-step runs with a 20-message history, against 3-step runs without.
        model.setDelay(50);
        const withHistory = await timeBatch(runsQueue, runJobs(3, 1, 20));
        figures.push({
          name: 'redis.bytes-in/step.history-20',
          value: withHistory.inputBytes / (runsPerBatch * 3),
          unit: 'bytes',
        });

        // Heap per in-flight run: every run waiting on the model, after GC, over the idle worker.
        model.setDelay(600_000);
        const idleAgentq = await agentq.heap();
        const idleBare = await bare.heap();
        await runsQueue.addBulk(runJobs(1, 2).slice(0, concurrency));
        await bareQueue.addBulk(
          Array.from({ length: concurrency }, (_, index) => ({
            name: 'noop',
            data: { steps: 1, stepMs: 600_000, index },
          })),
        );
        for (
          let waited = 0;
          model.inFlight() < concurrency || (await bareQueue.getActiveCount()) < concurrency;
          waited += 1
        ) {
          if (waited > 1_200) throw new Error(`only ${model.inFlight()} runs reached the model`);
          await sleep(100);
        }
        const busyAgentq = await agentq.heap();
        const busyBare = await bare.heap();
        const perRun = (busyAgentq - idleAgentq) / concurrency / 1024;
        figures.push({
          name: `heap.per-in-flight-run@c${concurrency}`,
          value: perRun,
          unit: 'KB',
          ...atMost(perRun, 64),
          details: { idle: idleAgentq, busy: busyAgentq },
        });
        figures.push({
          name: `heap.per-in-flight-bare-job@c${concurrency}`,
          value: (busyBare - idleBare) / concurrency / 1024,
          unit: 'KB',
        });
      } finally {
        await Promise.all([agentq.stop(), bare.stop()]);
        await Promise.all([runsQueue.close(), bareQueue.close(), events.close(), bareEvents.close()]);
      }
      return figures;
    } finally {
      model.server.closeAllConnections();
      model.server.close();
      redis.disconnect();
      redisProcess.kill('SIGKILL');
      await rm(folder, { recursive: true, force: true });
    }
  },
};

export default suite;
