import { AgentqError, type KbChunk, type KbDocument } from '@agentq/shared';
import { KnowledgeBaseStore } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const digest = (character: string) => character.repeat(64);

function chunk(documentId: string, ordinal: number): KbChunk {
  return { id: `${documentId}-${ordinal}`, documentId, ordinal, text: `text ${ordinal}`, terms: 'text:1', length: 1 };
}

function document(id: string, chunks: number, contentDigest = digest('a')): KbDocument {
  return { id, source: `/docs/${id}.md`, kind: 'markdown', digest: contentDigest, chunks, addedAt: 1 };
}

describe('KnowledgeBaseStore reads and chunk writes', () => {
  let ctx: TestContext;
  let store: KnowledgeBaseStore;

  beforeAll(() => {
    ctx = createTestContext();
    store = new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('names every KB and reads the definitions and versions of the ones asked for', async () => {
    await store.create({ name: 'alpha', description: 'first' });
    await store.create({ name: 'beta' });
    await store.commit({ kb: 'alpha', change: () => [] });
    await ctx.redis.hset(store.keys.kbs, 'broken', '{not json');

    expect((await store.names()).sort()).toEqual(['alpha', 'beta', 'broken']);
    const definitions = await store.definitions(['alpha', 'broken', 'missing']);
    expect([...definitions.keys()]).toEqual(['alpha']);
    expect(definitions.get('alpha')).toMatchObject({ name: 'alpha', description: 'first' });

    // A KB without a version, and a pointer that is not a number, are left out.
    await ctx.redis.set(store.keys.kbVersion('broken'), 'seven');
    const versions = await store.versions(['alpha', 'alpha', 'beta', 'broken']);
    expect([...versions]).toEqual([['alpha', (await store.current('alpha')).manifest.version]]);
    expect(await store.versions([])).toEqual(new Map());
  });

  it('tells a gone manifest from a corrupt one, and readManifest throws only for the corrupt one', async () => {
    const { version } = await store.commit({ kb: 'beta', change: () => [document('0123456789abcdef', 2)] });
    const read = await store.lookupManifest('beta', version);
    expect(read.status === 'ok' && read.manifest.documents.map((entry) => entry.id)).toEqual(['0123456789abcdef']);
    expect(await store.lookupManifest('beta', version + 100)).toEqual({ status: 'missing' });
    expect(await store.readManifest('beta', version + 100)).toBeUndefined();

    await ctx.redis.set(store.keys.kbManifest('beta', version + 200), '{"kb":"beta"}');
    const corrupt = await store.lookupManifest('beta', version + 200);
    expect(corrupt.status).toBe('corrupt');
    const thrown = await store.readManifest('beta', version + 200).catch((error: unknown) => error);
    expect(AgentqError.isInstance(thrown) && thrown.code).toBe('VALIDATION');
  });

  it('writes chunks by id, lists their ids, reads sets back in order, and clears a set', async () => {
    const key = store.keys.kbChunks('beta', '0123456789abcdef', digest('a'));
    const other = store.keys.kbChunks('beta', 'fedcba9876543210', digest('b'));
    await store.writeChunks(key, [chunk('d', 2), chunk('d', 0)]);
    await store.writeChunks(key, [chunk('d', 1), chunk('d', 0)]);
    await store.writeChunks(key, []);
    expect((await store.chunkIds(key)).sort()).toEqual(['d-0', 'd-1', 'd-2']);

    await ctx.redis.hset(key, 'stray', 'not a chunk');
    const [full, gone] = await store.readChunkSets([key, other]);
    // The stray field counts (a reader sees the set is not what its manifest says) but is not a chunk.
    expect(full?.fieldCount).toBe(4);
    expect(full?.chunks.map((entry) => entry.ordinal)).toEqual([0, 1, 2]);
    expect(gone).toEqual({ fieldCount: 0, chunks: [] });
    expect(await store.readChunkSets([])).toEqual([]);

    await store.clearChunkSet(key);
    expect(await store.chunkIds(key)).toEqual([]);
  });

  it('switches versions through its script and refuses a KB removed meanwhile', async () => {
    const before = (await store.current('alpha')).manifest.version;
    const { version, changed } = await store.commit({ kb: 'alpha', change: () => [document('00000000000000aa', 1)] });
    expect(changed).toBe(true);
    expect(version).toBeGreaterThan(before);
    expect(await ctx.redis.get(store.keys.kbVersion('alpha'))).toBe(String(version));

    const removedMeanwhile = await store
      .commit({
        kb: 'alpha',
        change: (documents) => {
          // The definition goes between the read and the switch: the switch must see it gone.
          void ctx.redis.hdel(store.keys.kbs, 'alpha');
          return [...documents, document('00000000000000bb', 1)];
        },
      })
      .catch((error: unknown) => error);
    expect(AgentqError.isInstance(removedMeanwhile) && removedMeanwhile.code).toBe('NOT_FOUND');
    expect(await ctx.redis.get(store.keys.kbVersion('alpha'))).toBe(String(version));
  });

  it('subscribes to version switches and parses only what comes on kb.updated', async () => {
    const subscriber = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    try {
      const events: unknown[] = [];
      subscriber.on('message', (channel: string, message: string) => {
        const parsed = store.parseUpdate(channel, message);
        if (parsed) events.push(parsed.success ? parsed.data : 'malformed');
      });
      await store.subscribeToUpdates(subscriber);
      await ctx.redis.publish(store.keys.kbUpdated, 'not json');
      const { version } = await store.commit({ kb: 'beta', change: () => [] });
      await vi.waitFor(() => expect(events).toEqual(['malformed', { kb: 'beta', version }]), { timeout: 20_000 });
      expect(store.parseUpdate(`${ctx.prefix}:other`, '{}')).toBeUndefined();

      await store.unsubscribeFromUpdates(subscriber);
      await ctx.redis.publish(store.keys.kbUpdated, JSON.stringify({ kb: 'beta', version: version + 1 }));
      // A round trip on the subscriber itself: any message published before it has been delivered.
      await subscriber.ping();
      expect(events).toHaveLength(2);
    } finally {
      subscriber.disconnect();
    }
  });
});
