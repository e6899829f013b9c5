import { readWarmerHealth, resolveWarmerTimings, startCatalogWarmer } from '@agentq/catalog-warmer';
import { silentLogger } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFixture, type HttpFixture } from '../../test/fixtures/mcp/spawn-fixture.js';
import { median, openBenchSpace, until } from '../../test/warmer/warmer-bench-support.js';
import { atMost, type BenchContext, type BenchFigure, type BenchSuite } from '../bench-types.js';

// list_changed → cache updated, against a raw tools/list round trip to the same server.
// Subject: from the moment the fixture sends `notifications/tools/list_changed` (its own clock,
// same machine) to the `catalog.updated` event for the new version, through the real path:
// watcher → requestRefresh → BullMQ → lock → tools/list over the watcher's connection → Lua write
// → publish. Measured for a loopback server that answers at once and for one that takes 20 ms per
// answer, like a server across a network.
async function measure(input: { context: BenchContext; slowMs: number; iterations: number }) {
  const space = openBenchSpace(input.context.redisUrl);
  const fixture: HttpFixture = await startHttpFixture({ tools: 20, listChanged: true, slowMs: input.slowMs });
  const raw = new Client({ name: 'bench-raw', version: '1.0.0' });
  const subscriber = space.redis.duplicate();
  const config = space.config({ AGENTQ_WATCH_LEASE_MS: '3000' });
  const warmer = await (async () => {
    await space.store.put({ id: 'bench', transport: { type: 'streamable-http', url: fixture.url } });
    return await startCatalogWarmer({ config, logger: silentLogger() });
  })();
  try {
    await raw.connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
    for (let index = 0; index < 5; index += 1) await raw.listTools();
    const rawTimes: number[] = [];
    for (let index = 0; index < input.iterations; index += 1) {
      const started = performance.now();
      await raw.listTools();
      rawTimes.push(performance.now() - started);
    }

    const keys = keyNames(space.prefix);
    const livenessMs = resolveWarmerTimings({ watchLeaseMs: 3_000 }).livenessMs;
    await until(async () => {
      const health = await readWarmerHealth({ redis: space.redis, prefix: space.prefix, livenessMs });
      return health.some((warmer) => warmer.record?.watchingServers.includes('bench'));
    });
    await until(async () => (await space.redis.exists(keys.tools('bench'))) === 1);
    // Let the watcher's catch-up refresh settle.
    await new Promise((resolve) => setTimeout(resolve, 500));

    let waiting: ((at: number) => void) | undefined;
    subscriber.on('message', (_channel: string, message: string) => {
      const at = performance.timeOrigin + performance.now();
      const event = JSON.parse(message) as { serverId: string; version: string };
      if (event.serverId === 'bench') waiting?.(at);
    });
    await subscriber.subscribe(keys.catalogUpdated);
    const updateTimes: number[] = [];
    for (let index = 0; index < input.iterations + 3; index += 1) {
      const updated = new Promise<number>((resolve) => (waiting = resolve));
      const { notifiedAt } = await fixture.addToolTimed(`added_${index}`);
      const updatedAt = await updated;
      if (index >= 3) updateTimes.push(updatedAt - notifiedAt);
    }
    return { raw: median(rawTimes), update: median(updateTimes) };
  } finally {
    await subscriber.quit().catch(() => {});
    await raw.close().catch(() => {});
    await warmer.close();
    await fixture.stop();
    await space.close();
  }
}

const suite: BenchSuite = {
  name: 'warmer-list-changed',
  description: 'list_changed notification → catalog updated, over one raw tools/list round trip',
  async run(context): Promise<BenchFigure[]> {
    const iterations = context.quick ? 10 : 40;
    const figures: BenchFigure[] = [];
    for (const slowMs of [20, 0]) {
      const result = await measure({ context, slowMs, iterations });
      const ratio = result.update / result.raw;
      figures.push({
        name: `list_changed→cache / raw tools/list (server answers in ${slowMs} ms)`,
        value: ratio,
        unit: 'ratio',
        ...atMost(ratio, 2),
        details: { medianUpdateMs: result.update, medianRawListMs: result.raw, iterations, serverLatencyMs: slowMs },
      });
      figures.push({
        name: `list_changed→cache fixed overhead (server answers in ${slowMs} ms)`,
        value: result.update - result.raw,
        unit: 'ms',
        details: result,
      });
    }
    return figures;
  },
};

export default suite;
