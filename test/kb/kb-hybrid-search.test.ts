import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKnowledgeBaseReader,
  ingestSource,
  KnowledgeBaseStore,
  type KbChunkEmbedding,
  type LoadedKnowledgeBaseReader,
} from '@agentq/kb';
import { createEmbedder } from '@agentq/models';
import { createQueryEmbedder, type Embedder } from '@agentq/shared';
import { createToolVectorStore } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fixtures/embedding/fake-embedding-server.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const model = 'openai-compatible:fake-embed';

describe('hybrid kb_search: chunks embedded at ingest, vectors loaded with the version, ranks fused', () => {
  let ctx: TestContext;
  let folder: string;
  let store: KnowledgeBaseStore;
  let subscriber: Redis;
  let embeddings: FakeEmbeddingServer;
  let embedding: KbChunkEmbedding;
  let reader: LoadedKnowledgeBaseReader;

  async function ingest(name: string, text: string): Promise<{ version: number; chunks: number }> {
    const path = join(folder, name);
    await writeFile(path, text);
    const outcome = await ingestSource({
      store,
      job: { kb: 'manuals', source: { type: 'file', path }, origin: 'local', requestedAt: Date.now() },
      read: { maxBytes: 1_000_000, allowPrivateNetwork: false },
      embedding,
    });
    expect(outcome.status).toBe('updated');
    return { version: outcome.version, chunks: outcome.chunks };
  }

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-kb-hybrid-'));
    embeddings = await startFakeEmbeddingServer();
    const embedder = createEmbedder({
      embeddingModel: model,
      embeddingBaseUrl: embeddings.baseUrl,
      openaiApiKey: undefined,
      openaiCompatibleBaseUrl: undefined,
      openaiCompatibleApiKey: undefined,
    }) as Embedder;
    const vectors = createToolVectorStore({ redis: ctx.redis, prefix: ctx.prefix, modelId: embedder.modelId });
    embedding = { embedder, vectors };
    store = new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.create({ name: 'manuals' });
    subscriber = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    reader = createKnowledgeBaseReader({
      redis: ctx.redis,
      subscriber,
      keyPrefix: ctx.prefix,
      embedding: { vectors, embedQuery: createQueryEmbedder(embedder) },
    });
  });

  afterAll(async () => {
    await reader?.close();
    subscriber?.disconnect();
    await embeddings?.close();
    await rm(folder, { recursive: true, force: true });
    await ctx?.close();
  });

  it('embeds every chunk at ingest and reads the vectors when the version loads, before any search', async () => {
    const { version, chunks } = await ingest(
      'pumps.md',
      '# Pumps\n\nHydraulic pumps are primed before the first start.\n\n# Gearboxes\n\nGearbox oil is changed yearly.\n',
    );
    expect(chunks).toBeGreaterThan(0);
    expect(embeddings.texts).toHaveLength(chunks);
    await vi.waitFor(() => expect(reader.loadedVersion('manuals')).toBe(version), { timeout: 20_000 });
    expect(reader.stats.vectorReads).toBe(chunks);
    expect(embeddings.texts).toHaveLength(chunks);
  });

  it('finds a chunk by its vector when no word of the query matches it lexically', async () => {
    // Misspelt: neither word survives analysis into any chunk's terms.
    const query = 'hydrolic pumpz';
    const lexical = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    expect(await lexical.search({ query, kbs: ['manuals'], limit: 3 })).toEqual([]);
    await lexical.close();

    const builds = reader.stats.indexBuilds;
    const [hit] = await reader.search({ query, kbs: ['manuals'], limit: 3 });
    expect(hit).toMatchObject({ kb: 'manuals', location: { heading: 'Pumps' } });
    expect(embeddings.texts).toContain(query);
    expect(reader.stats.indexBuilds).toBe(builds);
  });

  it('embeds only the new chunks of a new version, and reuses the loaded vectors of the others', async () => {
    const embedded = embeddings.texts.length;
    const reads = reader.stats.vectorReads;
    const { version, chunks } = await ingest('valves.md', '# Valves\n\nRelief valves open at ten bar.\n');
    expect(embeddings.texts.length - embedded).toBe(chunks);
    await vi.waitFor(() => expect(reader.loadedVersion('manuals')).toBe(version), { timeout: 20_000 });
    expect(reader.stats.vectorReads - reads).toBe(chunks);
    const [hit] = await reader.search({ query: 'releif valvs', kbs: ['manuals'], limit: 3 });
    expect(hit).toMatchObject({ version, location: { heading: 'Valves' } });
  });
});
