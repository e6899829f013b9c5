import { startCatalogWarmer } from '@agentq/catalog-warmer';
import { silentLogger } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFixture, type HttpFixture } from '../../test/fixtures/mcp/spawn-fixture.js';
import { median, openBenchSpace, runPool, until } from '../../test/warmer/warmer-bench-support.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

// Prewarm of N HTTP fixture servers by a warmer, against N raw "connect + tools/list" calls at the
// same concurrency (the warmer's refresh concurrency). The warmer's time runs from
// `startCatalogWarmer()` to the last entry in Redis, so it includes its own start, the queue
// round trips, the cache writes and its watchers probing every server at the same time.
const CONCURRENCY = 8;

async function rawPass(fixtures: readonly HttpFixture[]): Promise<number> {
  const started = performance.now();
  await runPool(
    fixtures.map((fixture) => async () => {
      const client = new Client({ name: 'bench-raw', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(fixture.url)));
      await client.listTools();
      await client.close();
    }),
    CONCURRENCY,
  );
  return performance.now() - started;
}

async function warmerPass(redisUrl: string, fixtures: readonly HttpFixture[]): Promise<number> {
  const space = openBenchSpace(redisUrl);
  try {
    const ids = fixtures.map((_, index) => `server-${String(index).padStart(3, '0')}`);
    for (const [index, fixture] of fixtures.entries()) {
      await space.store.put({ id: ids[index] ?? '', transport: { type: 'streamable-http', url: fixture.url } });
    }
    const keys = keyNames(space.prefix);
    const config = space.config({ AGENTQ_WARMER_CONCURRENCY: String(CONCURRENCY) });
    const started = performance.now();
    const warmer = await startCatalogWarmer({ config, logger: silentLogger() });
    try {
      await until(async () => (await space.redis.exists(...ids.map((id) => keys.tools(id)))) === ids.length);
      return performance.now() - started;
    } finally {
      await warmer.close();
    }
  } finally {
    await space.close();
  }
}

const suite: BenchSuite = {
  name: 'warmer-prewarm',
  description: `prewarm of N HTTP fixture servers, over N raw connect+listTools at concurrency ${CONCURRENCY}`,
  async run(context): Promise<BenchFigure[]> {
    const count = context.quick ? 10 : 50;
    const rounds = context.quick ? 1 : 3;
    const fixtures = await runPool(
      Array.from({ length: count }, () => () => startHttpFixture({ tools: 10 })),
      4,
    );
    try {
      await rawPass(fixtures);
      const raw: number[] = [];
      const warmer: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        raw.push(await rawPass(fixtures));
        warmer.push(await warmerPass(context.redisUrl, fixtures));
      }
      const ratio = median(warmer) / median(raw);
      return [
        {
          name: `prewarm ${count} HTTP servers / ${count} raw listTools (concurrency ${CONCURRENCY})`,
          value: ratio,
          unit: 'ratio',
          ...atMost(ratio, 1.5),
          details: { warmerMs: warmer, rawMs: raw, servers: count, concurrency: CONCURRENCY },
        },
      ];
    } finally {
      await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
    }
  },
};

export default suite;
