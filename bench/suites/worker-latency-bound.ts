import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { defaultRunJobOptions, loadConfig, QUEUE_NAMES, runSpecSchema, silentLogger } from '@agentq/shared';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { generateText, jsonSchema, stepCountIs, tool, type ToolSet } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createModelFetch } from '../../apps/agent-worker/src/models/create-model-fetch.js';
import { Redis } from 'ioredis';
import { freePrivatePort } from '../../test/chaos/chaos-fleet.js';
import { tsxLoaderUrl } from '../../test/fixtures/mcp/spawn-fixture.js';
import { everythingCommand, warmServer } from '../../test/worker/helpers/catalog.js';
import { atLeast, atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

const childFlag = 'AGENTQ_BENCH_LATENCY_CHILD';
const sdkQueueName = 'bare-sdk';
const prefix = 'bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The measured side, in its own process (`--expose-gc`) so that its heap holds only the worker:
 * `agentq` runs an agent worker, `bare` a BullMQ worker whose job sleeps `stepMs` per step, `sdk`
 * a BullMQ worker whose job is one `generateText` call (see {@link sdkFloorWorker}). On `measure`
 * from the parent it collects garbage and prints its heap.
 */
async function child(): Promise<void> {
  const mode = process.env.BENCH_MODE as 'agentq' | 'bare' | 'sdk';
  const concurrency = Number(process.env.BENCH_CONCURRENCY);
  const role = process.env.BENCH_ROLE ?? 'timed';
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
  } else if (mode === 'sdk') {
    close = await sdkFloorWorker(redisUrl, concurrency);
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
  // AGENTQ_BENCH_HEAP_SNAPSHOTS=<folder>: the agentq worker writes a heap snapshot at every heap
  // measurement (idle, then with every run parked on the model), for finding what a run holds.
  const snapshots = mode === 'agentq' ? process.env.AGENTQ_BENCH_HEAP_SNAPSHOTS : undefined;
  let snapshotCount = 0;
  const heap = () => {
    gc();
    gc();
    if (snapshots)
      writeHeapSnapshot(join(snapshots, `agentq-${concurrency}-${role}-${(snapshotCount += 1)}.heapsnapshot`));
    return process.memoryUsage().heapUsed;
  };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // `stats`: CPU used so far (µs) and the event-loop delay since the last `stats` (ms).
  const stats = () => {
    const cpu = process.cpuUsage();
    const out = {
      cpuMicros: cpu.user + cpu.system,
      delayP99Ms: delay.percentile(99) / 1e6,
      delayMaxMs: delay.max / 1e6,
    };
    delay.reset();
    return out;
  };
  // AGENTQ_BENCH_PROFILE=<file>: a CPU profile of the agentq worker from start to the first heap
  // measurement (after the timed batches), for finding where a run's CPU goes.
  const profileFile = mode === 'agentq' ? process.env.AGENTQ_BENCH_PROFILE : undefined;
  const profiler = profileFile ? await startProfile() : undefined;
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'measure' && profiler && profileFile) await profiler.stop(profileFile);
    if (line === 'measure') process.stdout.write(`${JSON.stringify({ heap: heap() })}\n`);
    if (line === 'stats') process.stdout.write(`${JSON.stringify(stats())}\n`);
    if (line === 'stop') break;
  }
  await close();
}

/**
 * The floor of the stack itself: a BullMQ worker whose job is one `generateText` call with the
 * same model (the OpenAI-compatible provider over agentq's model transport, against the same
 * loopback server) and the same tools as the agentq runs (server-everything's, from
 * `BENCH_TOOLS_FILE`, their `echo` answering in-process), for `steps` steps. No checkpoint, no
 * registry, no MCP: what a run costs before agentq does anything of its own.
 */
async function sdkFloorWorker(redisUrl: string, concurrency: number): Promise<() => Promise<void>> {
  const catalog = JSON.parse(await readFile(process.env.BENCH_TOOLS_FILE as string, 'utf8')) as Array<{
    name: string;
    description?: string;
    inputSchema: Record<string, unknown>;
  }>;
  const tools: ToolSet = {};
  for (const entry of catalog) {
    tools[`everything__${entry.name}`] = tool({
      description: entry.description,
      inputSchema: jsonSchema(entry.inputSchema as never),
      execute: async (input: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(input) }] }),
    });
  }
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: process.env.BENCH_MODEL_URL as string,
    apiKey: 'bench-key',
    fetch: createModelFetch(),
  });
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker(
    sdkQueueName,
    async (job) => {
      const { steps } = job.data as { steps: number };
      const result = await generateText({
        model: provider.chatModel(`steps-${steps}`),
        prompt: 'hello',
        tools,
        stopWhen: stepCountIs(steps + 1),
        maxRetries: 0,
      });
      return { text: result.text };
    },
    { connection, prefix, concurrency },
  );
  await worker.waitUntilReady();
  return async () => {
    await worker.close();
    connection.disconnect();
  };
}

/** Starts the V8 CPU profiler; `stop` writes the profile once. */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  let stopped = false;
  return {
    async stop(file) {
      if (stopped) return;
      stopped = true;
      const { profile } = await session.post('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

if (process.env[childFlag]) {
  await child();
  process.exit(0);
}

/** A worker child and a way to ask it for its heap. */
interface MeasuredChild {
  process: ChildProcess;
  heap(): Promise<number>;
  /** CPU used so far, and the event-loop delay since the last call. */
  stats(): Promise<ChildStats>;
  stop(): Promise<void>;
  /** Ends it at once, runs in flight and all. */
  kill(): Promise<void>;
}

interface ChildStats {
  cpuMicros: number;
  delayP99Ms: number;
  delayMaxMs: number;
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
    async stats() {
      const answer = next();
      processChild.stdin?.write('stats\n');
      return (await answer) as unknown as ChildStats;
    },
    async stop() {
      processChild.stdin?.write('stop\n');
      await Promise.race([exited, sleep(30_000)]);
      processChild.kill('SIGKILL');
    },
    async kill() {
      processChild.kill('SIGKILL');
      await Promise.race([exited, sleep(10_000)]);
    },
  };
}

/**
 * An OpenAI-compatible chat completions endpoint that answers after `delayMs`: with a call of the
 * first tool whose name ends in `echo` until the conversation holds `steps - 1` tool results
 * (the model id is `steps-<n>`), then with text. A call whose conversation holds fewer than
 * `fromResults` tool results (see `setDelay`) is answered at once, so that runs can be held at a
 * later step. Counts the requests it is holding; a request whose client went away (a killed
 * worker) stops counting at once.
 */
function startModelServer(): {
  server: Server;
  url: Promise<string>;
  inFlight: () => number;
  setDelay(ms: number, fromResults?: number): void;
} {
  let delayMs = 1_000;
  let holdFrom = 0;
  let inFlight = 0;
  const server = createServer((request: IncomingMessage, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const body = JSON.parse(text) as {
        model: string;
        messages: Array<{ role: string }>;
        tools?: Array<{ function: { name: string } }>;
      };
      const results = body.messages.filter((message) => message.role === 'tool').length;
      const held = results >= holdFrom;
      if (held) inFlight += 1;
      const timer = setTimeout(
        () => {
          if (held) inFlight -= 1;
          response.off('close', abandoned);
          const steps = Number(/steps-(\d+)/.exec(body.model)?.[1] ?? 1);
          const echo = body.tools?.find((tool) => tool.function.name.endsWith('echo'))?.function.name;
          const message =
            results < steps - 1 && echo
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    {
                      id: `call_${results}`,
                      type: 'function',
                      function: { name: echo, arguments: '{"message":"hi"}' },
                    },
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
        },
        held ? delayMs : 0,
      );
      const abandoned = () => {
        clearTimeout(timer);
        if (held) inFlight -= 1;
      };
      response.once('close', abandoned);
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
    setDelay(ms, fromResults = 0) {
      delayMs = ms;
      holdFrom = fromResults;
    },
  };
}

/** Redis counters: calls per command (`INFO commandstats`, script-internal calls included) and input bytes. */
interface RedisCounters {
  commands: number;
  byCommand: Record<string, number>;
  inputBytes: number;
}

async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const stats = await redis.info('commandstats');
  let commands = 0;
  const byCommand: Record<string, number> = {};
  for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const calls = Number(match[2]);
    byCommand[match[1] as string] = calls;
    commands += calls;
  }
  const general = await redis.info('stats');
  const inputBytes = Number(/total_net_input_bytes:(\d+)/.exec(general)?.[1] ?? 0);
  return { commands, byCommand, inputBytes };
}

function historyOf(length: number) {
  return Array.from({ length }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${index} of an ongoing conversation about invoices, with enough words to look like a real turn of about two hundred characters, which is what a chat history usually carries per message.`,
  }));
}

/** One step count's timed batches: agentq's runs, the bare floor's jobs and the SDK floor's. */
interface StepCosts {
  runs: BatchCost;
  base: BatchCost;
  floor: BatchCost;
}

/** What one timed batch cost: wall time, Redis and the measured worker's CPU and event-loop delay. */
interface BatchCost {
  seconds: number;
  commands: number;
  /** Calls per run (or job) by Redis command, the `INFO commandstats` names. */
  perRunByCommand: Record<string, number>;
  inputBytes: number;
  cpuMsPerRun: number;
  delayP99Ms: number;
  delayMaxMs: number;
}

/** The queues, events and model shared by every concurrency of one suite run. */
interface Rig {
  redis: Redis;
  redisUrl: string;
  model: ReturnType<typeof startModelServer>;
  modelUrl: string;
  runsQueue: Queue;
  bareQueue: Queue;
  /** The jobs of the `sdk` floor (see {@link sdkFloorWorker}). */
  sdkQueue: Queue;
  /** server-everything's tools, as the `sdk` floor reads them. */
  toolsFile: string;
  completed: { count: number };
}

const stepMs = 1_000;
/** 1-step runs each side runs before it is measured: `AGENTQ_BENCH_LATENCY_WARMUP`, 3 000 unless set (at least C). */
const warmupRuns = Number(process.env.AGENTQ_BENCH_LATENCY_WARMUP ?? 3_000) || 0;

/** Adds a batch to a paused queue, resumes it, and times it to the last completion. */
async function timeBatch(
  rig: Rig,
  queue: Queue,
  measured: MeasuredChild,
  jobs: Array<{ name: string; data: unknown; opts?: object }>,
): Promise<BatchCost> {
  const { redis } = rig;
  await queue.pause();
  rig.completed.count = 0;
  await redis.config('RESETSTAT');
  const before = await redisCounters(redis);
  await queue.addBulk(jobs);
  const startStats = await measured.stats();
  const started = performance.now();
  await queue.resume();
  // Completions come from QueueEvents; its stream is trimmed (10 000 events by default), so at
  // C = 2 000 a lagging reader can miss some. Once a second the queue itself says whether anything
  // is left to run.
  for (let tick = 1; rig.completed.count < jobs.length; tick += 1) {
    await sleep(20);
    if (tick % 50 === 0 && (await queue.getJobCountByTypes('wait', 'active', 'delayed', 'prioritized')) === 0) break;
  }
  const seconds = (performance.now() - started) / 1_000;
  const endStats = await measured.stats();
  const after = await redisCounters(redis);
  await queue.obliterate({ force: true });
  const perRunByCommand: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after.byCommand)) {
    const delta = calls - (before.byCommand[name] ?? 0);
    // The counters' own INFO and CONFIG calls are not the batch's.
    if (delta > 0 && name !== 'info' && name !== 'config|resetstat') perRunByCommand[name] = delta / jobs.length;
  }
  return {
    seconds,
    commands: after.commands - before.commands,
    perRunByCommand,
    inputBytes: after.inputBytes - before.inputBytes,
    cpuMsPerRun: (endStats.cpuMicros - startStats.cpuMicros) / 1_000 / jobs.length,
    delayP99Ms: endStats.delayP99Ms,
    delayMaxMs: endStats.delayMaxMs,
  };
}

/**
 * `count` runs of `steps` steps. Every run may use server-everything (a 1-step run just never
 * calls it), so that the difference between 1-step and 3-step runs is the two extra steps alone.
 */
function runJobs(count: number, steps: number, batch: string, history = 0) {
  const spec = runSpecSchema.parse({
    assistant: { model: `openai-compatible:steps-${steps}`, mcpServers: ['everything'], maxSteps: steps + 1 },
    input:
      history > 0 ? { messages: [...historyOf(history), { role: 'user', content: 'go on' }] } : { prompt: 'hello' },
  });
  return Array.from({ length: count }, (_, index) => ({
    name: 'run',
    data: spec,
    opts: { ...defaultRunJobOptions({ attempts: 1 }), jobId: `run-${steps}-${history}-${batch}-${index}` },
  }));
}

function bareJobs(count: number, steps: number, ms = stepMs) {
  return Array.from({ length: count }, (_, index) => ({ name: 'noop', data: { steps, stepMs: ms, index } }));
}

function sdkJobs(count: number, steps: number) {
  return Array.from({ length: count }, (_, index) => ({ name: 'call', data: { steps, index } }));
}

/** Sum of calls by command, rounded for the record. */
function rounded(byCommand: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byCommand)
      .sort(([, a], [, b]) => b - a)
      .map(([name, calls]) => [name, Math.round(calls * 100) / 100]),
  );
}

/** Calls per extra step by command: (3-step − 1-step) / 2. */
function perExtraStep(one: Record<string, number>, three: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of new Set([...Object.keys(one), ...Object.keys(three)])) {
    const delta = ((three[name] ?? 0) - (one[name] ?? 0)) / 2;
    if (Math.abs(delta) >= 0.01) out[name] = delta;
  }
  return out;
}

/** Every figure of the latency-bound table at one concurrency, agentq beside bare BullMQ. */
async function measureAt(rig: Rig, concurrency: number, withBytes: boolean): Promise<BenchFigure[]> {
  const { model, runsQueue, bareQueue } = rig;
  const runsPerBatch = concurrency * 2;
  const figures: BenchFigure[] = [];
  const at = `@c${concurrency}`;
  // The later-step heap worker is not profiled (its profile would overwrite the timed batches'),
  // and its heap snapshots are named apart.
  const startAgentq = (role: 'timed' | 'step-3' = 'timed') =>
    startChild({
      BENCH_MODE: 'agentq',
      BENCH_CONCURRENCY: String(concurrency),
      BENCH_ROLE: role,
      REDIS_URL: rig.redisUrl,
      BENCH_MODEL_URL: rig.modelUrl,
      ...(role === 'timed' ? {} : { AGENTQ_BENCH_PROFILE: '' }),
    });
  const agentq = await startAgentq();
  const bare = await startChild({
    BENCH_MODE: 'bare',
    BENCH_CONCURRENCY: String(concurrency),
    REDIS_URL: rig.redisUrl,
  });
  const sdk = await startChild({
    BENCH_MODE: 'sdk',
    BENCH_CONCURRENCY: String(concurrency),
    REDIS_URL: rig.redisUrl,
    BENCH_MODEL_URL: rig.modelUrl,
    BENCH_TOOLS_FILE: rig.toolsFile,
  });
  try {
    // Warm every path once (module loading, the MCP connection, the registry sync, JIT, sockets to
    // the model and the worker's open slots); the SDK floor the same way as agentq.
    // Until the worker has run a few thousand runs, much of a run's CPU is V8 still compiling
    // and tuning (a cold pass here cost up to twice a warm one's CPU per run, agentq's and a bare
    // `generateText` job's alike), so each side first runs warmupRuns 1-step runs in batches of C.
    model.setDelay(10);
    await timeBatch(rig, runsQueue, agentq, runJobs(20, 3, `w${concurrency}`));
    await timeBatch(rig, rig.sdkQueue, sdk, sdkJobs(20, 3));
    for (let round = 0; round < Math.max(1, Math.ceil(warmupRuns / concurrency)); round += 1) {
      await timeBatch(rig, runsQueue, agentq, runJobs(concurrency, 1, `w${concurrency}-${round}`));
      await timeBatch(rig, rig.sdkQueue, sdk, sdkJobs(concurrency, 1));
      await timeBatch(rig, bareQueue, bare, bareJobs(concurrency, 1, 10));
    }
    model.setDelay(stepMs);
    const cost: Record<number, StepCosts> = {};
    for (const steps of [1, 3]) {
      const base = await timeBatch(rig, bareQueue, bare, bareJobs(runsPerBatch, steps));
      const floor = await timeBatch(rig, rig.sdkQueue, sdk, sdkJobs(runsPerBatch, steps));
      const runs = await timeBatch(rig, runsQueue, agentq, runJobs(runsPerBatch, steps, `m${concurrency}`));
      cost[steps] = { runs, base, floor };
      const ratio = base.seconds / runs.seconds;
      figures.push(
        {
          name: `latency-bound.runs/bare${at}.${steps}-step`,
          value: ratio,
          unit: 'ratio',
          ...atLeast(ratio, steps === 1 ? 0.9 : 0.95),
          details: { runs: runsPerBatch, runSeconds: runs.seconds, bareSeconds: base.seconds },
        },
        {
          // The same runs over the stack's own floor: a BullMQ job that only calls `generateText`.
          name: `latency-bound.runs/sdk-floor${at}.${steps}-step`,
          value: floor.seconds / runs.seconds,
          unit: 'ratio',
          details: { sdkSeconds: floor.seconds, sdkOverBare: base.seconds / floor.seconds },
        },
      );
    }
    const one = cost[1] as StepCosts;
    const three = cost[3] as StepCosts;
    figures.push(
      {
        name: `cpu.ms/run${at}.1-step`,
        value: one.runs.cpuMsPerRun,
        unit: 'ms',
        ...atMost(one.runs.cpuMsPerRun, 1.5),
        details: {
          bare: one.base.cpuMsPerRun,
          threeStep: three.runs.cpuMsPerRun,
          bareThreeStep: three.base.cpuMsPerRun,
        },
      },
      { name: `cpu.ms/bare-job${at}.1-step`, value: one.base.cpuMsPerRun, unit: 'ms' },
      {
        name: `cpu.ms/sdk-job${at}.1-step`,
        value: one.floor.cpuMsPerRun,
        unit: 'ms',
        details: { threeStep: three.floor.cpuMsPerRun },
      },
      {
        name: `event-loop.p99-ms${at}.1-step`,
        value: one.runs.delayP99Ms,
        unit: 'ms',
        ...atMost(one.runs.delayP99Ms, 50),
        details: { max: one.runs.delayMaxMs, threeStepP99: three.runs.delayP99Ms, threeStepMax: three.runs.delayMaxMs },
      },
      {
        name: `event-loop.p99-ms/bare${at}.1-step`,
        value: one.base.delayP99Ms,
        unit: 'ms',
        details: { max: one.base.delayMaxMs, threeStepP99: three.base.delayP99Ms },
      },
      {
        name: `event-loop.p99-ms/sdk${at}.1-step`,
        value: one.floor.delayP99Ms,
        unit: 'ms',
        details: { max: one.floor.delayMaxMs, threeStepP99: three.floor.delayP99Ms },
      },
    );
    const commandsOne = one.runs.commands / runsPerBatch;
    const commandsStep = (three.runs.commands - one.runs.commands) / runsPerBatch / 2;
    const bareOne = one.base.commands / runsPerBatch;
    const bareStep = (three.base.commands - one.base.commands) / runsPerBatch / 2;
    figures.push(
      {
        name: `redis.commands/run${at}.1-step`,
        value: commandsOne,
        unit: 'commands',
        ...atMost(commandsOne, 30),
        details: { byCommand: rounded(one.runs.perRunByCommand), bare: rounded(one.base.perRunByCommand) },
      },
      {
        name: `redis.commands/extra-step${at}`,
        value: commandsStep,
        unit: 'commands',
        ...atMost(commandsStep, 6),
        details: {
          byCommand: rounded(perExtraStep(one.runs.perRunByCommand, three.runs.perRunByCommand)),
          bare: rounded(perExtraStep(one.base.perRunByCommand, three.base.perRunByCommand)),
        },
      },
      { name: `redis.commands/bare-job${at}.1-step`, value: bareOne, unit: 'commands' },
      { name: `redis.commands/bare-extra-step${at}`, value: bareStep, unit: 'commands' },
    );
    if (withBytes) {
      // Bytes per step: 3-step runs with a 20-message history.
      model.setDelay(50);
      const withHistory = await timeBatch(rig, runsQueue, agentq, runJobs(runsPerBatch, 3, `h${concurrency}`, 20));
      figures.push({
        name: 'redis.bytes-in/step.history-20',
        value: withHistory.inputBytes / (runsPerBatch * 3),
        unit: 'bytes',
      });
    }
    figures.push(...(await heapAt(rig, concurrency, { agentq, bare, sdk })));
  } finally {
    // Runs parked on the model would hold a graceful close for minutes: end them all at once.
    await Promise.all([agentq.kill(), bare.kill(), sdk.kill()]);
    await Promise.all([rig.runsQueue, rig.bareQueue, rig.sdkQueue].map((queue) => queue.obliterate({ force: true })));
  }
  figures.push(await laterStepHeapAt(rig, concurrency, startAgentq));
  return figures;
}

/** Waits until `count` model calls are held, failing after three minutes. */
async function untilHeld(rig: Rig, count: number, extra: () => Promise<boolean> = async () => true): Promise<void> {
  for (let waited = 0; rig.model.inFlight() < count || !(await extra()); waited += 1) {
    if (waited > 1_800) throw new Error(`only ${rig.model.inFlight()} runs reached the model`);
    await sleep(100);
  }
}

/**
 * Heap per in-flight run held at its third model call (3-step runs over a 20-message history, the
 * first two calls answered at once), in a fresh worker: what a run keeps of the steps it has done.
 */
async function laterStepHeapAt(
  rig: Rig,
  concurrency: number,
  startAgentq: (role: 'step-3') => Promise<MeasuredChild>,
): Promise<BenchFigure> {
  const agentq = await startAgentq('step-3');
  try {
    rig.model.setDelay(10);
    await timeBatch(rig, rig.runsQueue, agentq, runJobs(20, 3, `lw${concurrency}`, 20));
    rig.model.setDelay(600_000, 2);
    const idle = await agentq.heap();
    await rig.runsQueue.addBulk(runJobs(concurrency, 3, `l${concurrency}`, 20));
    await untilHeld(rig, concurrency);
    const busy = await agentq.heap();
    const perRun = (busy - idle) / concurrency / 1024;
    return {
      name: `heap.per-in-flight-run@c${concurrency}.step-3`,
      value: perRun,
      unit: 'KB',
      ...atMost(perRun, 32),
      details: { idle, busy, history: 20 },
    };
  } finally {
    await agentq.kill();
    rig.model.setDelay(stepMs);
    await rig.runsQueue.obliterate({ force: true });
  }
}

/** Heap per in-flight run: every run waiting on the model, after GC, over the idle worker. */
async function heapAt(
  rig: Rig,
  concurrency: number,
  children: { agentq: MeasuredChild; bare: MeasuredChild; sdk: MeasuredChild },
): Promise<BenchFigure[]> {
  const { model, runsQueue, bareQueue } = rig;
  const { agentq, bare, sdk } = children;
  model.setDelay(600_000);
  const idleAgentq = await agentq.heap();
  const idleBare = await bare.heap();
  const idleSdk = await sdk.heap();
  await runsQueue.addBulk(runJobs(concurrency, 1, `p${concurrency}`));
  await bareQueue.addBulk(bareJobs(concurrency, 1, 600_000));
  await rig.sdkQueue.addBulk(sdkJobs(concurrency, 1));
  await untilHeld(rig, 2 * concurrency, async () => (await bareQueue.getActiveCount()) >= concurrency);
  const busyAgentq = await agentq.heap();
  const busyBare = await bare.heap();
  const busySdk = await sdk.heap();
  const perRun = (busyAgentq - idleAgentq) / concurrency;
  const perBare = (busyBare - idleBare) / concurrency;
  const perSdk = (busySdk - idleSdk) / concurrency;
  const gib = 1024 ** 3;
  return [
    {
      name: `heap.per-in-flight-run@c${concurrency}`,
      value: perRun / 1024,
      unit: 'KB',
      ...atMost(perRun / 1024, 32),
      details: { idle: idleAgentq, busy: busyAgentq },
    },
    {
      name: `heap.per-in-flight-bare-job@c${concurrency}`,
      value: perBare / 1024,
      unit: 'KB',
      details: { idle: idleBare, busy: busyBare },
    },
    {
      // A job parked in `generateText` on the same model and tools: the stack's own floor.
      name: `heap.per-in-flight-sdk-job@c${concurrency}`,
      value: perSdk / 1024,
      unit: 'KB',
      details: { idle: idleSdk, busy: busySdk },
    },
    {
      // What one more GiB of worker heap holds, over the idle worker's own heap.
      name: `heap.runs-in-flight/GiB@c${concurrency}`,
      value: Math.round(gib / Math.max(perRun, 1)),
      unit: 'runs',
      details: { bare: Math.round(gib / Math.max(perBare, 1)), idleHeapMiB: idleAgentq / 1024 ** 2 },
    },
  ];
}

/**
 * Latency-bound runs: one worker process at concurrency C (100, 500 and 2 000; `--quick` 100 only)
 * against a local OpenAI-compatible model answering in 1 s per step, 1-step and 3-step runs (a
 * 3-step run calls server-everything's `echo` twice), beside a bare BullMQ worker whose job sleeps
 * 1 s per step at the same concurrency on the same private Redis, and a BullMQ worker whose job
 * only calls `generateText` with the same model and tools (the stack's own floor). Per C: achieved
 * rate over both floors', the worker's CPU per run and event-loop delay p99 while the batch is in flight, Redis
 * commands per 1-step run and per extra step (INFO commandstats, with the breakdown by command in
 * the JSON record), heap per in-flight run after GC and runs in flight per GiB of heap.
 */
const suite: BenchSuite = {
  name: 'worker-latency-bound',
  description:
    'latency-bound runs over bare sleeping jobs and bare generateText jobs at C = 100, 500, 2000: rate, CPU, event-loop delay, Redis commands, heap per run',
  async run(context) {
    // AGENTQ_BENCH_LATENCY_C=500,2000 measures only those (a C = 2 000 pass takes long on a busy machine).
    const chosen = process.env.AGENTQ_BENCH_LATENCY_C?.split(',')
      .map(Number)
      .filter((value) => value > 0);
    const concurrencies = chosen?.length ? chosen : context.quick ? [100] : [100, 500, 2_000];
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
      const { tools } = await warmServer({
        redis,
        prefix,
        definition: { id: 'everything', transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] } },
      });
      const toolsFile = join(folder, 'everything-tools.json');
      await writeFile(toolsFile, JSON.stringify(tools));
      const eventConnections = [redis.duplicate(), redis.duplicate(), redis.duplicate()];
      for (const connection of eventConnections) connection.on('error', () => undefined);
      const [runEventsConnection, bareEventsConnection, sdkEventsConnection] = eventConnections as [
        Redis,
        Redis,
        Redis,
      ];
      const events = new QueueEvents(QUEUE_NAMES.agentRuns, { connection: runEventsConnection, prefix });
      const bareEvents = new QueueEvents('bare', { connection: bareEventsConnection, prefix });
      const sdkEvents = new QueueEvents(sdkQueueName, { connection: sdkEventsConnection, prefix });
      await Promise.all([events.waitUntilReady(), bareEvents.waitUntilReady(), sdkEvents.waitUntilReady()]);
      const completed = { count: 0 };
      const onDone = () => {
        completed.count += 1;
      };
      for (const each of [events, bareEvents, sdkEvents]) {
        each.on('completed', onDone);
        each.on('failed', onDone);
      }
      const rig: Rig = {
        redis,
        redisUrl,
        model,
        modelUrl: await model.url,
        runsQueue: new Queue(QUEUE_NAMES.agentRuns, { connection: redis, prefix }),
        bareQueue: new Queue('bare', { connection: redis, prefix }),
        sdkQueue: new Queue(sdkQueueName, { connection: redis, prefix }),
        toolsFile,
        completed,
      };
      try {
        for (const [index, concurrency] of concurrencies.entries()) {
          console.error(`  worker-latency-bound at C = ${concurrency}…`);
          const measured = await measureAt(rig, concurrency, index === 0);
          figures.push(...measured);
          // Each concurrency's figures as soon as they exist, should a later one not finish.
          console.error(JSON.stringify({ concurrency, figures: measured }));
        }
      } finally {
        await Promise.all(
          [rig.runsQueue, rig.bareQueue, rig.sdkQueue, events, bareEvents, sdkEvents].map((each) => each.close()),
        );
        for (const connection of eventConnections) connection.disconnect();
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
