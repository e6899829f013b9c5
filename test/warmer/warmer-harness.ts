import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  catalogEntrySchema,
  createLogger,
  catalogStatusSchema,
  loadConfig,
  safeParseJson,
  silentLogger,
  QUEUE_NAMES,
  type CatalogEntry,
  type CatalogStatus,
  type Config,
  type Logger,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { keyNames, ServerStore, type KeyNames } from '@agentq/store';
import { readWarmerHealth, startCatalogWarmer, type CatalogWarmer } from '@agentq/catalog-warmer';
import { Queue, QueueEvents } from 'bullmq';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { stopChild, tsxLoaderUrl } from '../fixtures/mcp/spawn-fixture.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Repository root. */
export const repositoryRoot = join(here, '..', '..');
/** The warmer's role entry point. */
export const warmerMainPath = join(repositoryRoot, 'apps', 'catalog-warmer', 'src', 'main.ts');

/**
 * Polls `check` every 25 ms until it returns a truthy value, failing after `timeoutMs` (default
 * 60 s: a bound for a machine under load, never a measure of speed).
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${options.what ?? 'condition'}${last ? ` (last error: ${String(last)})` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export { freePort } from '../helpers/redis.js';

/** Per-file warmer test state on the suite's Redis, under a private prefix. */
export interface WarmerHarness {
  ctx: TestContext;
  keys: KeyNames;
  store: ServerStore;
  queue: Queue;
  events: QueueEvents;
  /** Environment for warmer processes and `loadConfig`. */
  env: Record<string, string>;
  config(overrides?: Record<string, string>): Config;
  startWarmer(options?: { env?: Record<string, string>; warmerId?: string; logger?: Logger }): Promise<CatalogWarmer>;
  spawnWarmer(options?: { env?: Record<string, string> }): ChildProcess;
  putServer(definition: ServerDefinitionInput): Promise<void>;
  entry(serverId: string): Promise<CatalogEntry | null>;
  status(serverId: string): Promise<CatalogStatus | null>;
  close(): Promise<void>;
}

/** Creates a harness. `watchLeaseMs` is short by default so takeovers are quick. */
export async function createWarmerHarness(options: { watchLeaseMs?: number } = {}): Promise<WarmerHarness> {
  const ctx = createTestContext();
  const keys = keyNames(ctx.prefix);
  const env: Record<string, string> = {
    REDIS_URL: ctx.redisUrl,
    AGENTQ_PREFIX: ctx.prefix,
    AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
    AGENTQ_WATCH_LEASE_MS: String(options.watchLeaseMs ?? 3_000),
    AGENTQ_WARMER_CONCURRENCY: '4',
    LOG_LEVEL: process.env.AGENTQ_TEST_LOG_LEVEL ?? 'silent',
  };
  const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
  const queue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis.duplicate(), prefix: ctx.prefix });
  const events = new QueueEvents(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis.duplicate(), prefix: ctx.prefix });
  await events.waitUntilReady();
  const warmers: CatalogWarmer[] = [];
  const children: ChildProcess[] = [];
  const config = (overrides: Record<string, string> = {}) => loadConfig({ ...env, ...overrides });

  return {
    ctx,
    keys,
    store,
    queue,
    events,
    env,
    config,
    async startWarmer(startOptions = {}) {
      const warmer = await startCatalogWarmer({
        config: config(startOptions.env),
        logger:
          startOptions.logger ??
          (process.env.AGENTQ_TEST_LOG_LEVEL
            ? createLogger({ level: process.env.AGENTQ_TEST_LOG_LEVEL, name: 'warmer-test' })
            : silentLogger()),
        warmerId: startOptions.warmerId,
        env: { ...process.env, ...startOptions.env },
      });
      warmers.push(warmer);
      return warmer;
    },
    spawnWarmer(spawnOptions = {}) {
      const child = spawn(process.execPath, ['--import', tsxLoaderUrl, warmerMainPath], {
        cwd: repositoryRoot,
        env: { ...process.env, ...env, ...spawnOptions.env },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      return child;
    },
    async putServer(definition) {
      await store.put(definition);
    },
    async entry(serverId) {
      const text = await ctx.redis.get(keys.tools(serverId));
      if (text === null) return null;
      const parsed = safeParseJson(text, catalogEntrySchema);
      if (!parsed.success) throw parsed.error;
      return parsed.data;
    },
    async status(serverId) {
      const text = await ctx.redis.get(keys.status(serverId));
      if (text === null) return null;
      const parsed = safeParseJson(text, catalogStatusSchema);
      if (!parsed.success) throw parsed.error;
      return parsed.data;
    },
    async close() {
      await Promise.allSettled(warmers.map((warmer) => warmer.close()));
      await Promise.allSettled(children.map((child) => stopChild(child, 5_000)));
      await events.close();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await ctx.close();
    },
  };
}

/** Ids of the warmers that are live and running, as their health records say. */
export async function liveWarmerIds(harness: WarmerHarness, livenessMs: number): Promise<string[]> {
  return (await readWarmerHealth({ redis: harness.ctx.redis, prefix: harness.ctx.prefix, livenessMs }))
    .filter((warmer) => warmer.live && warmer.record?.state === 'running')
    .map((warmer) => warmer.id);
}

/** A real agentq logger whose lines are kept in memory, parsed, for assertions on what was logged. */
export function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    destination: {
      write(text: string) {
        for (const line of text.split('\n'))
          if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  return { logger, lines };
}
