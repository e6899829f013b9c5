import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startAgentWorker } from '@agentq/agent-worker';
import {
  defaultRunJobOptions,
  loadConfig,
  QUEUE_NAMES,
  runSpecSchema,
  silentLogger,
  type CatalogTool,
} from '@agentq/shared';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { tsxLoaderUrl } from '../../test/fixtures/mcp/spawn-fixture.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import type { BenchFigure, BenchSuite } from '../bench-types.js';

const servers = 40;
const toolsPerServer = 50;
const childFlag = 'AGENTQ_BENCH_WORKER_MEMORY_CHILD';

function toolsOf(server: number): CatalogTool[] {
  return Array.from({ length: toolsPerServer }, (_, index) => ({
    name: `operation_${index}`,
    title: `Operation ${index} of service ${server}`,
    description: `Performs operation ${index} on records of service ${server}: filters, paginates and returns matching items with their metadata.`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'Record id.' },
        query: { type: 'string', description: 'Free-text filter.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size.' },
        cursor: { type: 'string', description: 'Opaque pagination cursor.' },
        fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return.' },
      },
      required: ['id'],
    },
  }));
}

async function runOnce(queue: Queue, runId: string, mcpServers: string[]): Promise<void> {
  const spec = runSpecSchema.parse({
    assistant: { model: 'scripted:bench', mcpServers, script: [{ text: 'ok' }] },
    input: { prompt: 'hello' },
  });
  await queue.add('run', spec, { ...defaultRunJobOptions({ attempts: 1 }), jobId: runId });
  for (;;) {
    const state = await (await Job.fromId(queue, runId))?.getState();
    if (state === 'completed') return;
    if (state === 'failed') throw new Error(`run ${runId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function settledMemory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

/** The measuring side, in its own process so that nothing else shares its heap. */
async function child(): Promise<void> {
  const redisUrl = process.env.REDIS_URL as string;
  const prefix = process.env.AGENTQ_PREFIX as string;
  const config = loadConfig({ REDIS_URL: redisUrl, AGENTQ_PREFIX: prefix, LOG_LEVEL: 'silent' });
  const worker = await startAgentWorker({ config, logger: silentLogger() });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAMES.agentRuns, { connection: redis, prefix });
  // Idle: started, every code path loaded by one run without tools.
  await runOnce(queue, 'warmup', []);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const idle = settledMemory();
  await runOnce(
    queue,
    'synced',
    Array.from({ length: servers }, (_, index) => `svc-${index}`),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  const synced = settledMemory();
  process.stdout.write(`${JSON.stringify({ idle, synced })}\n`);
  await worker.close();
  await queue.close();
  redis.disconnect();
}

if (process.env[childFlag]) {
  await child();
  process.exit(0);
}

/**
 * Resident memory of a worker process whose registry holds 2 000 synced MCP tools (40 cached
 * servers × 50 tools with realistic schemas), over the same worker idle. Measured in a child
 * process with `--expose-gc`, after a GC each time.
 */
const suite: BenchSuite = {
  name: 'worker-memory',
  description: 'worker RSS with 2 000 tools synced over an idle worker (report)',
  async run(context) {
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    try {
      for (let index = 0; index < servers; index += 1) {
        const definition = await putServer({
          redis,
          prefix,
          definition: { id: `svc-${index}`, transport: { type: 'stdio', command: '/nonexistent/never-started' } },
        });
        await writeCatalogEntry({ redis, prefix, definition, tools: toolsOf(index) });
      }
      const output = await new Promise<string>((resolve, reject) => {
        const processChild = spawn(
          process.execPath,
          ['--expose-gc', '--import', tsxLoaderUrl, fileURLToPath(import.meta.url)],
          {
            env: { ...process.env, [childFlag]: '1', REDIS_URL: context.redisUrl, AGENTQ_PREFIX: prefix },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        let text = '';
        processChild.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        processChild.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`child exited ${code}`))));
      });
      type Memory = { rss: number; heap: number };
      const { idle, synced } = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as { idle: Memory; synced: Memory };
      const megabytes = (bytes: number) => bytes / 1024 / 1024;
      const figures: BenchFigure[] = [
        {
          name: `rss.synced/idle@${servers * toolsPerServer}`,
          value: synced.rss / idle.rss,
          unit: 'ratio',
          details: { idle, synced },
        },
        { name: 'rss.idle', value: megabytes(idle.rss), unit: 'MB' },
        { name: `rss.synced@${servers * toolsPerServer}`, value: megabytes(synced.rss), unit: 'MB' },
        { name: 'heap.idle', value: megabytes(idle.heap), unit: 'MB' },
        { name: `heap.synced@${servers * toolsPerServer}`, value: megabytes(synced.heap), unit: 'MB' },
        { name: 'heap.per-tool', value: (synced.heap - idle.heap) / (servers * toolsPerServer) / 1024, unit: 'KB' },
      ];
      return figures;
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
