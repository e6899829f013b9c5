import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createCatalogReader, syncMcpToolsToRegistry, ToolRegistry, type McpToolCaller } from '@agentq/registry';
import { toolId } from '@agentq/shared';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { realisticServers } from '../../test/fixtures/tool-pools/realistic-pool.js';
import { writeCatalog } from '../../test/fixtures/tool-pools/write-catalog.js';
import { atMost, type BenchSuite } from '../bench-types.js';

const caller: McpToolCaller = { callTool: async () => ({ content: [] }) };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Sync cost at 2 000 tools (40 servers × 50), against a real Redis: a sync where nothing changed,
 * over a full sync into a fresh registry and reader (a worker that has seen nothing yet). Both
 * include the catalog read, one pipeline round trip. Medians: the no-change figure is taken over
 * the four syncs that follow each full one, so the full sync's garbage lands where it would in a
 * worker, somewhere among the steady-state syncs.
 */
const suite: BenchSuite = {
  name: 'registry-sync-cost',
  description: 'no-change sync / full sync at 2 000 tools, real Redis (goal <= 0.05)',
  async run(context) {
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    try {
      const servers = realisticServers({ servers: 40, toolsPerServer: 50 });
      await writeCatalog(redis, prefix, servers);
      const selected = new Set(
        servers.flatMap((server) => server.tools.map((tool) => toolId(server.definition.id, tool.name))),
      );
      const iterations = context.quick ? 5 : 25;
      const full: number[] = [];
      const unchanged: number[] = [];
      // Warm-up: module caches, JIT, connection.
      for (let round = 0; round < 2; round += 1) {
        const reader = createCatalogReader({ redis, prefix });
        const registry = new ToolRegistry();
        await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
        await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
      }
      let registered = 0;
      for (let round = 0; round < iterations; round += 1) {
        // A fresh reader and registry: a worker process that has seen nothing yet.
        const reader = createCatalogReader({ redis, prefix });
        const registry = new ToolRegistry();
        let started = performance.now();
        await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
        full.push(performance.now() - started);
        registered = registry.size;
        // Steady state: a worker syncs before every run, and most syncs find nothing changed.
        for (let repeat = 0; repeat < 4; repeat += 1) {
          started = performance.now();
          await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
          unchanged.push(performance.now() - started);
        }
      }
      const fullMs = median(full);
      const unchangedMs = median(unchanged);
      const ratio = unchangedMs / fullMs;
      return [
        {
          name: 'sync.noChange/full@2000',
          value: ratio,
          unit: 'ratio',
          ...atMost(ratio, 0.05),
          details: {
            fullMedianMs: fullMs,
            noChangeMedianMs: unchangedMs,
            iterations,
            tools: registered,
            servers: servers.length,
          },
        },
        { name: 'sync.full@2000', value: fullMs, unit: 'ms (median)' },
        { name: 'sync.noChange@2000', value: unchangedMs, unit: 'ms (median)' },
      ];
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
