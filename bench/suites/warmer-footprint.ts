import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { readWarmerHealth, resolveWarmerTimings } from '@agentq/catalog-warmer';
import { keyNames } from '@agentq/store';
import { startHttpFixture, stopChild, tsxLoaderUrl, type HttpFixture } from '../../test/fixtures/mcp/spawn-fixture.js';
import { openBenchSpace, runPool, until } from '../../test/warmer/warmer-bench-support.js';
import type { BenchFigure, BenchSuite } from '../bench-types.js';

// Memory of one warmer process and Redis bytes per cached tool, with 10 000 tools cached from
// 10 HTTP fixture servers of 1 000 tools each (paginated, watched for list_changed). The warmer
// is a child process running `startCatalogWarmer` (test/warmer/footprint-probe.ts), which
// reports its memory after a full GC before any server exists and after everything is cached.
const SERVERS = 10;
const probe = join(import.meta.dirname, '..', '..', 'test', 'warmer', 'footprint-probe.ts');

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

function measurer(child: ChildProcess): () => Promise<Memory> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const pending: Array<(memory: Memory) => void> = [];
  lines.on('line', (line) => pending.shift()?.(JSON.parse(line) as Memory));
  return () =>
    new Promise((resolve) => {
      pending.push(resolve);
      child.stdin?.write('measure\n');
    });
}

const suite: BenchSuite = {
  name: 'warmer-footprint',
  description: 'warmer RSS and Redis bytes per cached tool at 10 000 tools',
  async run(context): Promise<BenchFigure[]> {
    const toolsPerServer = context.quick ? 100 : 1_000;
    const space = openBenchSpace(context.redisUrl);
    const keys = keyNames(space.prefix);
    const fixtures: HttpFixture[] = [];
    const child = spawn(process.execPath, ['--expose-gc', '--import', tsxLoaderUrl, probe], {
      env: { ...process.env, ...space.env({ AGENTQ_WATCH_LEASE_MS: '3000' }) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const measure = measurer(child);
    try {
      const livenessMs = resolveWarmerTimings({ watchLeaseMs: 3_000 }).livenessMs;
      await until(
        async () => (await readWarmerHealth({ redis: space.redis, prefix: space.prefix, livenessMs })).length === 1,
      );
      // Baseline after one small server went through the whole path, so that code compiled and
      // modules loaded on first use do not count as memory per tool.
      const warmup = await startHttpFixture({ tools: 3, listChanged: true });
      fixtures.push(warmup);
      await space.store.put({ id: 'footprint-warmup', transport: { type: 'streamable-http', url: warmup.url } });
      await until(async () => (await space.redis.exists(keys.tools('footprint-warmup'))) === 1);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const idle = await measure();

      // 3 fixed tools per server (counter, fail, add) come on top of the synthetic ones.
      const synthetic = toolsPerServer - 3;
      const big = await runPool(
        Array.from(
          { length: SERVERS },
          () => () => startHttpFixture({ tools: synthetic, pageSize: 250, listChanged: true }),
        ),
        4,
      );
      fixtures.push(...big);
      const ids = big.map((_, index) => `footprint-${index}`);
      for (const [index, fixture] of big.entries()) {
        await space.store.put({ id: ids[index] ?? '', transport: { type: 'streamable-http', url: fixture.url } });
      }
      await until(async () => (await space.redis.exists(...ids.map((id) => keys.tools(id)))) === ids.length, 120_000);
      await until(async () => {
        const health = await readWarmerHealth({ redis: space.redis, prefix: space.prefix, livenessMs });
        return health[0]?.record?.watchingServers.length === SERVERS + 1;
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const warm = await measure();

      let redisBytes = 0;
      let jsonBytes = 0;
      let tools = 0;
      for (const id of ids) {
        redisBytes += Number(await space.redis.call('MEMORY', 'USAGE', keys.tools(id), 'SAMPLES', '0'));
        redisBytes += Number(await space.redis.call('MEMORY', 'USAGE', keys.status(id), 'SAMPLES', '0'));
        const text = (await space.redis.get(keys.tools(id))) ?? '{"tools":[]}';
        jsonBytes += Buffer.byteLength(text);
        tools += (JSON.parse(text) as { tools: unknown[] }).tools.length;
      }
      return [
        {
          name: `redis bytes per cached tool (${tools} tools)`,
          value: redisBytes / tools,
          unit: 'bytes',
          details: { redisBytes, tools },
        },
        { name: 'entry JSON bytes per cached tool', value: jsonBytes / tools, unit: 'bytes', details: { jsonBytes } },
        {
          name: `warmer retained heap per cached tool (${SERVERS} watched servers)`,
          value: (warm.heapUsed - idle.heapUsed) / tools,
          unit: 'bytes',
          details: { idle, warm },
        },
        {
          name: 'warmer RSS growth per cached tool (peak of the refreshes)',
          value: (warm.rss - idle.rss) / tools,
          unit: 'bytes',
        },
        { name: 'warmer RSS with everything cached', value: warm.rss / 1024 / 1024, unit: 'MiB' },
      ];
    } finally {
      child.stdin?.end();
      await stopChild(child, 10_000);
      await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
      await space.close();
    }
  },
};

export default suite;
