import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKnowledgeBaseReader,
  ingestSource,
  KnowledgeBaseStore,
  type LoadedKnowledgeBaseReader,
} from '@agentq/kb';
import { keyNames } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('knowledge base reader preloads a version on kb.updated, off the search path', () => {
  let ctx: TestContext;
  let folder: string;
  let store: KnowledgeBaseStore;
  let subscriber: Redis;
  let reader: LoadedKnowledgeBaseReader;

  async function ingest(name: string, text: string): Promise<number> {
    const path = join(folder, name);
    await writeFile(path, text);
    const outcome = await ingestSource({
      redis: ctx.redis,
      store,
      job: { kb: 'docs', source: { type: 'file', path }, origin: 'local', requestedAt: Date.now() },
      read: { maxBytes: 1_000_000, allowPrivateNetwork: false },
    });
    expect(outcome.status).toBe('updated');
    return outcome.version;
  }

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-kb-preload-'));
    store = new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.create({ name: 'docs' });
    await ingest('a.md', '# Pumps\n\nHydraulic pumps are primed before the first start.\n');
    subscriber = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    reader = createKnowledgeBaseReader({ redis: ctx.redis, subscriber, keyPrefix: ctx.prefix });
  });

  afterAll(async () => {
    await reader?.close();
    subscriber?.disconnect();
    await rm(folder, { recursive: true, force: true });
    await ctx?.close();
  });

  it('loads the KBs that exist at start without a search', async () => {
    const { manifest } = await store.current('docs');
    await vi.waitFor(() => expect(reader.loadedVersion('docs')).toBe(manifest.version), { timeout: 20_000 });
    expect(reader.stats.indexBuilds).toBe(1);
  });

  it('loads a new version when it is announced, so the first search after the switch does no load', async () => {
    const builds = reader.stats.indexBuilds;
    const version = await ingest('b.md', '# Valves\n\nRelief valves open at ten bar.\n');
    await vi.waitFor(() => expect(reader.loadedVersion('docs')).toBe(version), { timeout: 20_000 });
    expect(reader.stats.indexBuilds).toBe(builds + 1);
    const [hit] = await reader.search({ query: 'relief valves', kbs: ['docs'], limit: 1 });
    expect(hit).toMatchObject({ kb: 'docs', version, location: { heading: 'Valves' } });
    expect(reader.stats.indexBuilds).toBe(builds + 1);
  });

  it('answers from the loaded version while a newer one is not loaded yet, then loads it in the background', async () => {
    const before = reader.loadedVersion('docs') as number;
    const builds = reader.stats.indexBuilds;
    // With the subscription down, the reader misses this switch's announcement; a search notices
    // the newer pointer, answers from what it holds and queues the load.
    await subscriber.unsubscribe(keyNames(ctx.prefix).kbUpdated);
    const version = await ingest('c.md', '# Seals\n\nShaft seals are replaced every year.\n');
    const hits = await reader.search({ query: 'hydraulic pumps', kbs: ['docs'], limit: 1 });
    expect(hits[0]?.version).toBe(before);
    await vi.waitFor(() => expect(reader.loadedVersion('docs')).toBe(version), { timeout: 20_000 });
    expect(reader.stats.indexBuilds).toBe(builds + 1);
  });

  it('drops a removed KB from memory when its removal is announced', async () => {
    await subscriber.subscribe(keyNames(ctx.prefix).kbUpdated);
    expect(reader.loadedVersion('docs')).toBeGreaterThan(0);
    await store.remove('docs');
    await vi.waitFor(() => expect(reader.loadedVersion('docs')).toBeUndefined(), { timeout: 20_000 });
    expect(await reader.search({ query: 'hydraulic pumps', kbs: ['docs'], limit: 1 })).toEqual([]);
  });
});
