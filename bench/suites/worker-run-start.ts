import { randomUUID } from 'node:crypto';
import { createModelResolver, createRunProcessor, McpClientPool, RunStore } from '@agentq/agent-worker';
import { createCatalogReader, ToolRegistry } from '@agentq/registry';
import {
  catalogStatusSchema,
  keyNames,
  QUEUE_NAMES,
  runSpecSchema,
  silentLogger,
  type CatalogTool,
  type RunSpec,
} from '@agentq/shared';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { fixtureStdioTransport } from '../../test/fixtures/mcp/spawn-fixture.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
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
  description: 'run time with one dead MCP server configured over without (goal <= 1.05)',
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
      return figures;
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
