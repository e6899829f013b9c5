import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startIndexer, type Indexer } from '@agentq/indexer';
import { KnowledgeBaseStore, openKnowledgeBaseReader, type OpenedKnowledgeBaseReader } from '@agentq/kb';
import { createEmbedder } from '@agentq/models';
import { QUEUE_NAMES, silentLogger, type Config } from '@agentq/shared';
import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../api/start-test-api.js';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fixtures/embedding/fake-embedding-server.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('an indexer and a worker reader configured with an embedding model', () => {
  let ctx: TestContext;
  let folder: string;
  let embeddings: FakeEmbeddingServer;
  let config: Config;
  let indexer: Indexer;
  let queue: Queue;
  let events: QueueEvents;
  let eventsConnection: Redis;
  let opened: OpenedKnowledgeBaseReader;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-kb-indexer-embed-'));
    embeddings = await startFakeEmbeddingServer();
    config = testConfig(ctx, {
      AGENTQ_EMBEDDING_MODEL: 'openai-compatible:fake-embed',
      AGENTQ_EMBEDDING_BASE_URL: embeddings.baseUrl,
    });
    indexer = await startIndexer({ config, logger: silentLogger() });
    queue = new Queue(QUEUE_NAMES.kbIngest, { connection: ctx.redis, prefix: ctx.prefix });
    eventsConnection = ctx.redis.duplicate();
    events = new QueueEvents(QUEUE_NAMES.kbIngest, { connection: eventsConnection, prefix: ctx.prefix });
    await events.waitUntilReady();
    opened = openKnowledgeBaseReader({ config, logger: silentLogger(), embedder: createEmbedder(config) });
  });

  afterAll(async () => {
    await opened?.close();
    await events?.close();
    eventsConnection?.disconnect();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await indexer?.close();
    await embeddings?.close();
    await rm(folder, { recursive: true, force: true });
    await ctx?.close();
  });

  it('embeds chunks at ingest, and kb_search finds a misspelt need through the vectors', async () => {
    await new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix }).create({ name: 'plant' });
    const path = join(folder, 'turbines.md');
    await writeFile(path, '# Turbines\n\nTurbine blades are inspected every spring.\n');
    const job = await queue.add('ingest', {
      kb: 'plant',
      source: { type: 'file', path },
      origin: 'local',
      requestedAt: Date.now(),
    });
    const result = (await job.waitUntilFinished(events, 60_000)) as { version: number; chunks: number };
    expect(result.chunks).toBeGreaterThan(0);
    expect(embeddings.texts).toHaveLength(result.chunks);
    expect(embeddings.texts[0]).toContain('Turbine blades');

    const { reader } = opened;
    await vi.waitFor(() => expect(reader.loadedVersion('plant')).toBe(result.version), { timeout: 20_000 });
    expect(reader.stats.vectorReads).toBe(result.chunks);
    // Neither word survives analysis into the chunk's terms; only the vectors connect them.
    const [hit] = await reader.search({ query: 'turbyne bladez', kbs: ['plant'], limit: 3 });
    expect(hit).toMatchObject({ kb: 'plant', version: result.version, location: { heading: 'Turbines' } });
  });
});
