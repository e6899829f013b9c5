import { randomUUID } from 'node:crypto';
import { createModelResolver, createRunProcessor, McpClientPool, RunStore } from '@agentq/agent-worker';
import { createCatalogReader, createRunToolState, ToolRegistry, type McpToolCaller } from '@agentq/registry';
import {
  catalogStatusSchema,
  QUEUE_NAMES,
  runSpecSchema,
  silentLogger,
  type CatalogTool,
  type RunSpec,
} from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { buildRunTools } from '../../apps/agent-worker/src/run/build-run-tools.js';
import { fixtureStdioTransport } from '../../test/fixtures/mcp/spawn-fixture.js';
import { realisticServers, seededRandom } from '../../test/fixtures/tool-pools/realistic-pool.js';
import { writeCatalog } from '../../test/fixtures/tool-pools/write-catalog.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

/**
 * Run start at scale: 500 servers × 20 tools cached, each run naming a random 50-server subset
 * (1 000 tools, so deferral applies), in a worker whose process registry has already synced every
 * server. Times `buildRunTools`, the run-start stage of the processor (resolve the spec's tool ids,
 * sync the registry, select, apply the approval policy, defer), against the floor of one Redis
 * round trip (`PING`) measured alongside.
 */
async function measureLargeCatalogStart(options: { redisUrl: string; quick: boolean }): Promise<BenchFigure[]> {
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const prefix = `bench-${randomUUID()}`;
  const logger = silentLogger();
  const caller: McpToolCaller = { callTool: async () => ({ content: [] }) };
  try {
    const servers = realisticServers({ servers: 500, toolsPerServer: 20 });
    await writeCatalog(redis, prefix, servers);
    const ids = servers.map((server) => server.definition.id);
    const reader = createCatalogReader({ redis, prefix, logger });
    const registry = new ToolRegistry({ logger });
    const random = seededRandom(15);
    const subset = () => {
      const pool = [...ids];
      for (let index = 0; index < 50; index += 1) {
        const pick = index + Math.floor(random() * (pool.length - index));
        [pool[index], pool[pick]] = [pool[pick] as string, pool[index] as string];
      }
      return pool.slice(0, 50);
    };
    const start = async (mcpServers: string[]) => {
      const spec = runSpecSchema.parse({
        assistant: { model: 'scripted:bench', mcpServers, script: [{ text: 'ok' }] },
        input: { prompt: 'hello' },
      });
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const tools = await buildRunTools({
        spec,
        registry,
        reader,
        caller,
        contextWindow: 128_000,
        state: createRunToolState(),
        wrap: (set) => set,
        logger,
      });
      const cpu = process.cpuUsage(cpuBefore);
      return {
        ms: performance.now() - started,
        cpuMs: (cpu.user + cpu.system) / 1_000,
        deferred: tools.deferred.length,
      };
    };
    // A synced worker: every server read once, then warm-up runs.
    await start(ids.slice(0, 200));
    await start(ids.slice(200, 400));
    await start(ids.slice(400));
    for (let warmup = 0; warmup < 20; warmup += 1) await start(subset());
    const iterations = options.quick ? 50 : 300;
    const times: number[] = [];
    const pings: number[] = [];
    let cpuMs = 0;
    let deferred = 0;
    for (let iteration = 0; iteration < iterations; iteration += 1) {
      const result = await start(subset());
      times.push(result.ms);
      cpuMs += result.cpuMs;
      deferred = result.deferred;
      const pinged = performance.now();
      await redis.ping();
      pings.push(performance.now() - pinged);
    }
    const p50 = median(times);
    return [
      {
        name: 'run-start.p50@500x20',
        value: p50,
        unit: 'ms',
        ...atMost(p50, 2),
        details: {
          iterations,
          p95Ms: quantile(times, 0.95),
          pingP50Ms: median(pings),
          toolsPerRun: 1_000,
          deferredPerRun: deferred,
          registrySize: registry.size,
        },
      },
      { name: 'run-start.p95@500x20', value: quantile(times, 0.95), unit: 'ms' },
      // Process CPU (every thread, GC included) from each start's beginning to its end, averaged:
      // the load of a shared machine inflates it far less than wall time.
      { name: 'run-start.cpu@500x20', value: cpuMs / iterations, unit: 'ms' },
      { name: 'run-start.p50/ping@500x20', value: p50 / median(pings), unit: 'ratio' },
    ];
  } finally {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

const tools: CatalogTool[] = Array.from({ length: 10 }, (_, index) => ({
  name: `tool_${index}`,
  description: `Tool number ${index}.`,
  inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
}));

/**
 * The cost of a dead MCP server on a run: one-step runs whose assistant names a healthy cached
 * server, with and without a dead one beside it (its process cannot start, its last refresh failed
 * and its cached list is empty). The run processor is timed directly, A and B interleaved, median
 * of each. Cache-only tool sets mean the dead server costs one more key in the same Redis round
 * trip, never a connection attempt.
 */
const suite: BenchSuite = {
  name: 'worker-run-start',
  description:
    'run time with one dead MCP server configured over without (goal <= 1.05); run start p50 at 500 servers × 20 tools (goal <= 2 ms, issue #22)',
  async run(context) {
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    const logger = silentLogger();
    const keys = keyNames(prefix);
    try {
      const healthy = await putServer({
        redis,
        prefix,
        definition: { id: 'healthy', transport: fixtureStdioTransport() },
      });
      await writeCatalogEntry({ redis, prefix, definition: healthy, tools });
      const dead = await putServer({
        redis,
        prefix,
        definition: { id: 'dead', transport: { type: 'stdio', command: '/nonexistent/mcp-server' } },
      });
      await writeCatalogEntry({ redis, prefix, definition: dead, tools: [] });
      await redis.set(
        keys.status('dead'),
        JSON.stringify(
          catalogStatusSchema.parse({
            state: 'error',
            error: 'spawn /nonexistent/mcp-server ENOENT',
            lastAttemptAt: Date.now(),
            toolCount: 0,
            failures: 7,
          }),
        ),
      );

      const approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: redis, prefix });
      const pool = new McpClientPool({ logger });
      const processor = createRunProcessor({
        store: new RunStore({ redis, prefix, logger }),
        redis,
        prefix,
        registry: new ToolRegistry({ logger }),
        reader: createCatalogReader({ redis, prefix, logger }),
        caller: pool,
        models: createModelResolver({ config: {} as never }),
        approvalsQueue,
        config: { approvalTimeoutMs: 60_000 },
        logger,
        env: {},
      });
      const specOf = (mcpServers: string[]): RunSpec =>
        runSpecSchema.parse({
          assistant: { model: 'scripted:bench', mcpServers, script: [{ text: 'ok' }] },
          input: { prompt: 'hello' },
        });
      const without = specOf(['healthy']);
      const withDead = specOf(['healthy', 'dead']);
      let counter = 0;
      const time = async (spec: RunSpec) => {
        counter += 1;
        const job = {
          id: `run-${counter}`,
          data: spec,
          attemptsStarted: 1,
          attemptsMade: 0,
          stalledCounter: 0,
          queueQualifiedName: `${prefix}:${QUEUE_NAMES.agentRuns}`,
          updateProgress: async () => undefined,
        } as unknown as Job;
        const started = performance.now();
        // No lock token: this harness holds no BullMQ lock, so the run is not fenced.
        await processor(job, undefined);
        return performance.now() - started;
      };
      for (let warmup = 0; warmup < 20; warmup += 1) {
        await time(without);
        await time(withDead);
      }
      const iterations = context.quick ? 100 : 400;
      const a: number[] = [];
      const b: number[] = [];
      for (let iteration = 0; iteration < iterations; iteration += 1) {
        // Alternate which goes first, so that neither always follows the other.
        if (iteration % 2 === 0) {
          a.push(await time(without));
          b.push(await time(withDead));
        } else {
          b.push(await time(withDead));
          a.push(await time(without));
        }
      }
      await pool.close();
      await approvalsQueue.close();
      const ratio = median(b) / median(a);
      const figures: BenchFigure[] = [
        {
          name: 'run-start.dead/without',
          value: ratio,
          unit: 'ratio',
          ...atMost(ratio, 1.05),
          details: { iterations, medianWithoutMs: median(a), medianWithDeadMs: median(b) },
        },
        { name: 'run-start.without', value: median(a), unit: 'ms' },
        { name: 'run-start.with-dead', value: median(b), unit: 'ms' },
      ];
      figures.push(...(await measureLargeCatalogStart(context)));
      return figures;
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
