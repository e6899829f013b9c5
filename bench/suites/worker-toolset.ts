import { randomUUID } from 'node:crypto';
import { McpClientPool } from '@agentq/agent-worker';
import { createCatalogReader, ToolRegistry } from '@agentq/registry';
import { runSpecSchema, silentLogger, type CatalogTool, type ServerDefinition } from '@agentq/shared';
import { Redis } from 'ioredis';
import { buildRunTools } from '../../apps/agent-worker/src/run/build-run-tools.js';
import { fixtureStdioTransport } from '../../test/fixtures/mcp/spawn-fixture.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { listToolsLive, putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import { atLeast, type BenchFigure, type BenchSuite } from '../bench-types.js';

const servers = 20;
// 48 synthetic tools plus the fixture's two built-in ones: 50 per server, 1 000 in all.
const syntheticPerServer = 48;

/** Maps with at most `limit` calls in flight: 20 servers spawned at once starve a small machine. */
async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      out[index] = await map(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Building a run's tool set from the catalog cache (1 000 tools over 20 servers), against what a
 * worker without a cache would do: connect to the same 20 fixture servers and list their tools.
 * The live side connects five at a time (all 20 at once time out on a 2-core machine). The
 * cache side is measured with a fresh registry (a new worker process: full sync) and with the
 * process registry already synced (every later run).
 */
const suite: BenchSuite = {
  name: 'worker-toolset',
  description:
    'tool-set build from cache (1 000 tools, 20 servers) vs live connect + tools/list, 5 at a time (goal >= 50x)',
  async run(context) {
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    const logger = silentLogger();
    try {
      const definitions: ServerDefinition[] = [];
      for (let index = 0; index < servers; index += 1) {
        definitions.push(
          await putServer({
            redis,
            prefix,
            definition: {
              id: `fx-${String(index).padStart(2, '0')}`,
              transport: fixtureStdioTransport({ tools: syntheticPerServer, name: `fixture ${index}` }),
            },
          }),
        );
      }

      // Baseline: live connect + tools/list to all 20 servers at once.
      const liveRounds = context.quick ? 1 : 3;
      const liveTimes: number[] = [];
      let lists: CatalogTool[][] = [];
      for (let round = 0; round < liveRounds; round += 1) {
        const started = performance.now();
        lists = await mapLimited(definitions, 5, (definition) => listToolsLive(definition, 120_000));
        liveTimes.push(performance.now() - started);
      }
      for (const [index, definition] of definitions.entries()) {
        await writeCatalogEntry({ redis, prefix, definition, tools: lists[index] ?? [] });
      }
      const toolCount = lists.reduce((sum, list) => sum + list.length, 0);

      const spec = runSpecSchema.parse({
        assistant: {
          model: 'scripted:bench',
          mcpServers: definitions.map((definition) => definition.id),
          script: [{ text: 'ok' }],
        },
        input: { prompt: 'hello' },
      });
      const reader = createCatalogReader({ redis, prefix, logger });
      const caller = new McpClientPool({ logger });
      const build = async (registry: ToolRegistry) =>
        await buildRunTools({
          spec,
          registry,
          reader,
          caller,
          contextWindow: 128_000,
          state: { allowedNames: [], inspectedNames: [] },
          wrap: (tools) => tools,
          logger,
        });

      const iterations = context.quick ? 5 : 20;
      const coldTimes: number[] = [];
      const warmTimes: number[] = [];
      const shared = new ToolRegistry({ logger });
      await build(shared);
      let selected = 0;
      for (let iteration = 0; iteration < iterations; iteration += 1) {
        let started = performance.now();
        const cold = await build(new ToolRegistry({ logger }));
        coldTimes.push(performance.now() - started);
        selected = Object.keys(cold.allTools).length;
        started = performance.now();
        await build(shared);
        warmTimes.push(performance.now() - started);
      }
      await caller.close();

      const live = median(liveTimes);
      const cold = median(coldTimes);
      const warm = median(warmTimes);
      const figures: BenchFigure[] = [
        {
          name: `toolset.live/cache-fresh@${toolCount}`,
          value: live / cold,
          unit: 'x faster',
          ...atLeast(live / cold, 50),
          details: { liveMs: live, cacheFreshRegistryMs: cold, toolsSelected: selected, servers },
        },
        {
          name: `toolset.live/cache-synced@${toolCount}`,
          value: live / warm,
          unit: 'x faster',
          ...atLeast(live / warm, 50),
          details: { liveMs: live, cacheSyncedRegistryMs: warm },
        },
        { name: 'toolset.live', value: live, unit: 'ms' },
        { name: 'toolset.cache-fresh', value: cold, unit: 'ms' },
        { name: 'toolset.cache-synced', value: warm, unit: 'ms' },
      ];
      return figures;
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
