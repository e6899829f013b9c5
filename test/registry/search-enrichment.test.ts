import type { AgentWorker } from '@agentq/agent-worker';
import { createSearchEnricher } from '@agentq/models';
import { createToolEnrichmentStore, enrichCatalogTools, toolEnrichmentDigest } from '@agentq/registry';
import { digestOf, type CatalogEntry } from '@agentq/shared';
import { keyNames, requestRefresh } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  examplesWordOf,
  startFakeEnrichmentChat,
  type FakeEnrichmentChat,
} from '../fixtures/providers/fake-enrichment-chat.js';
import { capturingLogger, createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import { everythingCommand } from '../worker/helpers/catalog.js';
import { runsQueue, startTestWorker } from '../worker/helpers/worker-harness.js';
import { searchRun, searchThroughRun } from './search-through-run.js';

const model = 'openai-compatible:fake-enrich';
const everything = {
  id: 'everything',
  transport: { type: 'stdio' as const, command: everythingCommand, args: ['stdio'] },
};

/** The `enriched catalog tools` lines a warmer logged for `serverId`. */
function enrichmentLines(lines: Array<Record<string, unknown>>, serverId: string) {
  return lines.filter((line) => line.msg === 'enriched catalog tools' && line.serverId === serverId);
}

/** Stops what a suite started, the worker first. */
async function closeSuite(parts: {
  worker?: AgentWorker;
  queue?: Queue;
  harness?: WarmerHarness;
  chat?: FakeEnrichmentChat;
}) {
  await parts.worker?.close();
  await parts.queue?.obliterate({ force: true }).catch(() => {});
  await parts.queue?.close();
  await parts.harness?.close();
  await parts.chat?.close();
}

describe('description enrichment through a warmer and a worker (loopback model, real Redis)', () => {
  let chat: FakeEnrichmentChat;
  let harness: WarmerHarness;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;
  let entry: CatalogEntry;
  let env: Record<string, string>;
  const captured = capturingLogger();

  beforeAll(async () => {
    chat = await startFakeEnrichmentChat();
    env = { AGENTQ_SEARCH_ENRICH_MODEL: model, OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl };
    harness = await createWarmerHarness();
    await harness.startWarmer({ env, logger: captured.logger });
    await harness.putServer(everything);
    entry = await waitFor(() => harness.entry('everything'), { what: 'the first catalog entry' });
  });

  afterAll(() => closeSuite({ worker, queue, harness, chat }));

  it('the first warm asks the model once per tool, a rewarm asks it nothing', async () => {
    expect(entry.tools.length).toBeGreaterThan(5);
    const store = createToolEnrichmentStore({ redis: harness.ctx.redis, prefix: harness.ctx.prefix, modelId: model });
    const digests = [...new Set(entry.tools.map(toolEnrichmentDigest))];
    await waitFor(async () => ((await store.read(digests)).size === digests.length ? true : undefined), {
      what: 'an enrichment for every tool',
    });
    expect([...chat.asked].sort()).toEqual(entry.tools.map((tool) => tool.name).sort());
    // The pass logs after its last write: wait for the line rather than expect it at once.
    const [first] = await waitFor(
      async () => {
        const lines = enrichmentLines(captured.lines, 'everything');
        return lines.length > 0 ? lines : undefined;
      },
      { what: 'the log of the first enrichment pass' },
    );
    expect(first).toMatchObject({ calls: digests.length, failed: 0 });

    await requestRefresh(harness.queue, { serverId: 'everything', reason: 'on-demand' });
    const [, second] = await waitFor(
      async () => {
        const lines = enrichmentLines(captured.lines, 'everything');
        return lines.length >= 2 ? lines : undefined;
      },
      { what: 'the enrichment check of the second read' },
    );
    expect(second).toMatchObject({ calls: 0, reused: digests.length });
    expect(chat.asked).toHaveLength(digests.length);
  });

  it('sends a changed tool once, and ignores a corrupt stored entry with a warning', async () => {
    const config = harness.config(env);
    const enricher = createSearchEnricher(config);
    if (!enricher) throw new Error('the enricher should be configured');
    const { logger, lines } = capturingLogger();
    const store = createToolEnrichmentStore({
      redis: harness.ctx.redis,
      prefix: harness.ctx.prefix,
      modelId: model,
      logger,
    });
    const [first, ...rest] = entry.tools;
    if (!first) throw new Error('no tools');
    const changed = [{ ...first, description: `${first.description ?? ''} Now faster.` }, ...rest];
    const asked = chat.asked.length;
    const result = await enrichCatalogTools({ enricher, store, tools: changed });
    expect(result).toMatchObject({ calls: 1, enriched: 1, reused: rest.length });
    expect(chat.asked.slice(asked)).toEqual([first.name]);

    const digest = toolEnrichmentDigest(changed[0]!);
    const key = keyNames(harness.ctx.prefix).toolEnrichment(digestOf(model, 16), digest);
    await harness.ctx.redis.set(key, '{"not":"a list"}');
    const read = await store.read([digest, toolEnrichmentDigest(rest[0]!)]);
    expect(read.has(digest)).toBe(false);
    expect(read.size).toBe(1);
    expect(lines.some((line) => line.msg === 'ignored unreadable tool enrichments')).toBe(true);
  });

  it('a worker finds a tool by a word only its enrichment contains', async () => {
    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    queue = runsQueue({ redis: harness.ctx.redis, prefix: harness.ctx.prefix });
    const query = examplesWordOf('getTinyImage');
    const names = await searchThroughRun(queue, { runId: 'enriched-1', server: 'everything', query });
    expect(names[0]).toBe('mcp__everything__getTinyImage');
  });
});

describe('examples written after a worker started (loopback model, real Redis)', () => {
  let chat: FakeEnrichmentChat;
  let harness: WarmerHarness;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;

  beforeAll(async () => {
    chat = await startFakeEnrichmentChat();
    harness = await createWarmerHarness();
  });

  afterAll(() => closeSuite({ worker, queue, harness, chat }));

  it('reach a running worker when the warmer announces them, without a version change or a restart', async () => {
    const env = { AGENTQ_SEARCH_ENRICH_MODEL: model, OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl };
    const keys = keyNames(harness.ctx.prefix);
    // The model answers nothing until released: the list is written, its examples are not.
    chat.held = true;
    await harness.startWarmer({ env });
    await harness.putServer(everything);
    const first = await waitFor(() => harness.entry('everything'), { what: 'the catalog entry' });
    const { version } = first;
    expect(version).toBeTruthy();

    const { logger, lines } = capturingLogger();
    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env, logger });
    queue = runsQueue({ redis: harness.ctx.redis, prefix: harness.ctx.prefix });
    const query = examplesWordOf('getTinyImage');
    // The worker's registry now holds the server, read before any example existed.
    const before = await searchRun(queue, { runId: 'late-1', server: 'everything', query });
    expect(before.names[0]).not.toBe('mcp__everything__getTinyImage');
    expect(before.catalogVersion.everything).toBe(version);
    // A re-read of the unchanged list rewrites the entry (a new `refreshedAt`), not its version. The
    // everything server adds tools once a session is initialized and announces `tools/list_changed`
    // for them, so the warmer's watcher session causes such a re-read whenever it connects: here
    // one is asked for, so that it always happens while the examples are pending.
    await requestRefresh(harness.queue, { serverId: 'everything', reason: 'on-demand' });
    await waitFor(async () => ((await harness.entry('everything'))?.refreshedAt ?? 0) > first.refreshedAt, {
      what: 'a rewrite of the unchanged list',
    });
    await waitFor(
      async () => {
        const counts = (await harness.ctx.redis.pubsub('NUMSUB', keys.toolsEnriched)) as [string, number];
        return Number(counts[1]) > 0 ? true : undefined;
      },
      { what: "the worker's subscription to tools.enriched" },
    );

    chat.held = false;
    const read = await waitFor(
      () => lines.find((line) => line.msg === 'read the new examples of a server' && line.serverId === 'everything'),
      { what: 'the worker re-reading the announced examples', timeoutMs: 120_000 },
    );
    expect(read.withExamples).toBeGreaterThan(0);
    const after = await searchRun(queue, { runId: 'late-2', server: 'everything', query });
    expect(after.names[0]).toBe('mcp__everything__getTinyImage');
    // The catalog version the run was built from, not `P:mcp.version`: that key digests the entry's
    // bytes, `refreshedAt` included, so the re-read above moved it.
    expect(after.catalogVersion.everything).toBe(version);
  });

  it('ignores a malformed announcement with a warning', async () => {
    const { logger, lines } = capturingLogger();
    const other = await startTestWorker({
      redisUrl: harness.ctx.redisUrl,
      prefix: harness.ctx.prefix,
      env: { AGENTQ_SEARCH_ENRICH_MODEL: model, OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl },
      logger,
    });
    try {
      const channel = keyNames(harness.ctx.prefix).toolsEnriched;
      await waitFor(
        async () => {
          // Published until this worker has subscribed and warned (its subscription is not awaited).
          await harness.ctx.redis.publish(channel, 'Not A Server!');
          return lines.find((line) => line.msg === 'ignored a malformed tools-enriched message');
        },
        { what: 'the warning about the malformed message' },
      );
    } finally {
      await other.close();
    }
  });
});

describe('a slow or failing enrichment model (loopback model, real Redis)', () => {
  let chat: FakeEnrichmentChat;
  let harness: WarmerHarness;

  beforeAll(async () => {
    // Slower than any wait of this test: only the write path is observed while it hangs.
    chat = await startFakeEnrichmentChat({ delayMs: 600_000 });
    harness = await createWarmerHarness();
  });

  afterAll(async () => {
    await harness?.close();
    await chat?.close();
  });

  it('never holds back or fails the list', async () => {
    const env = { AGENTQ_SEARCH_ENRICH_MODEL: model, OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl };
    const slow = await harness.startWarmer({ env });
    await harness.putServer(everything);
    const entry = await waitFor(() => harness.entry('everything'), { what: 'the catalog entry' });
    expect(entry.tools.length).toBeGreaterThan(5);
    expect((await harness.status('everything'))?.state).toBe('connected');
    // The model has not answered anything, yet the list is there; then it is asked.
    expect(chat.answered).toBe(0);
    await waitFor(async () => (chat.asked.length > 0 ? true : undefined), { what: 'a request to the model' });
    // Closing aborts the hanging calls.
    await slow.close();

    chat.delayMs = 0;
    chat.failing = true;
    const { logger, lines } = capturingLogger();
    await harness.startWarmer({ env, logger });
    await requestRefresh(harness.queue, { serverId: 'everything', reason: 'on-demand' });
    const warned = await waitFor(
      async () => lines.find((line) => line.msg === 'could not enrich some catalog tools; retried on the next read'),
      { what: 'the warning of the failing model' },
    );
    expect(warned.failed).toBeGreaterThan(0);
    const status = await harness.status('everything');
    expect(status?.state).toBe('connected');
    const store = createToolEnrichmentStore({ redis: harness.ctx.redis, prefix: harness.ctx.prefix, modelId: model });
    expect((await store.read(entry.tools.map(toolEnrichmentDigest))).size).toBe(0);
  });
});
