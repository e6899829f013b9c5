import { performance } from 'node:perf_hooks';
import { createKnowledgeBaseReader, KnowledgeBaseStore } from '@agentq/kb';
import { termCounts, type KbChunk, type KbDocument } from '@agentq/shared';
import { keyNames, type ToolVectorStore } from '@agentq/store';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix, testPrefix } from '../../test/helpers/redis.js';
import { atMost, type BenchSuite } from '../bench-types.js';

/**
 * kb_search at 50 000 chunks: the p50 of a search once the KB version is loaded (goal <= 5 ms),
 * the count of index builds after that first load (goal 0), and as a baseline the round trip that
 * every search makes anyway (the `MGET` of the version pointer).
 */
const suite: BenchSuite = {
  name: 'kb-search',
  description: 'kb_search p50 at 50 000 chunks, index builds on the read path once loaded',
  async run({ redisUrl, quick }) {
    const total = 50_000;
    const documents = 50;
    const prefix = testPrefix();
    const keys = keyNames(prefix);
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'bench-kb-search' });
    try {
      const store = new KnowledgeBaseStore({ redis, prefix });
      await store.create({ name: 'bench' });
      // A Zipf-like vocabulary of already-stemmed words, so the index has a realistic long tail.
      const vocabulary = Array.from({ length: 30_000 }, (_, index) => `w${index.toString(36)}`);
      let seed = 11;
      const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
      const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 3)] as string;
      const perDocument = total / documents;
      const docs: KbDocument[] = [];
      for (let documentIndex = 0; documentIndex < documents; documentIndex += 1) {
        const id = documentIndex.toString(16).padStart(16, '0');
        const digest = documentIndex.toString(16).padStart(64, '0');
        const key = keys.kbChunks('bench', id, digest);
        await store.trackChunkSet('bench', key);
        for (let start = 0; start < perDocument; start += 500) {
          const fields: string[] = [];
          for (let ordinal = start; ordinal < Math.min(perDocument, start + 500); ordinal += 1) {
            const words = Array.from({ length: 100 }, word);
            const chunk: KbChunk = {
              id: `${id}-${ordinal}`,
              documentId: id,
              ordinal,
              text: words.join(' '),
              heading: `Section ${ordinal}`,
              terms: termCounts(words),
              length: words.length,
            };
            fields.push(chunk.id, JSON.stringify(chunk));
          }
          await redis.hset(key, ...fields);
        }
        docs.push({
          id,
          source: `/bench/doc-${documentIndex}.md`,
          kind: 'markdown',
          digest,
          chunks: perDocument,
          addedAt: Date.now(),
        });
      }
      await store.commit({ kb: 'bench', change: () => docs });

      const reader = createKnowledgeBaseReader({ redis, keyPrefix: prefix });
      const loadStarted = performance.now();
      await reader.search({ query: 'w1 w2', kbs: ['bench'], limit: 5 });
      const loadMs = performance.now() - loadStarted;
      const buildsAfterLoad = reader.stats.indexBuilds;

      const queries = Array.from({ length: quick ? 100 : 1_000 }, () => `${word()} ${word()} ${word()}`);
      const samples: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        await reader.search({ query, kbs: ['bench'], limit: 5 });
        samples.push(performance.now() - started);
      }
      const pointer: number[] = [];
      for (let index = 0; index < queries.length; index += 1) {
        const started = performance.now();
        await redis.mget(keys.kbVersion('bench'));
        pointer.push(performance.now() - started);
      }
      const hybrid = await hybridSearch({ redis, prefix, queries });
      const p50 = percentile(samples, 0.5);
      const pointerP50 = percentile(pointer, 0.5);
      const extraBuilds = reader.stats.indexBuilds - buildsAfterLoad;
      return [
        {
          name: 'search.p50@50000',
          value: Number(p50.toFixed(3)),
          unit: 'ms',
          ...atMost(p50, 5),
          details: { p99: percentile(samples, 0.99), queries: queries.length },
        },
        { name: 'index-builds-after-load', value: extraBuilds, unit: 'builds', ...atMost(extraBuilds, 0) },
        { name: 'first-search-load@50000', value: Math.round(loadMs), unit: 'ms', details: { chunks: total } },
        { name: 'pointer-mget.p50 (baseline)', value: Number(pointerP50.toFixed(3)), unit: 'ms' },
        { name: 'search/pointer-mget', value: Number((p50 / pointerP50).toFixed(2)), unit: 'x' },
        {
          name: `hybrid.search.p50@50000x${DIMENSIONS}`,
          value: Number(hybrid.p50.toFixed(3)),
          unit: 'ms',
          details: { p99: hybrid.p99, note: 'vectors in memory, query embedding excluded' },
        },
        { name: 'hybrid/lexical search', value: Number((hybrid.p50 / p50).toFixed(2)), unit: 'x' },
        { name: `hybrid.load@50000x${DIMENSIONS}`, value: Math.round(hybrid.loadMs), unit: 'ms' },
      ];
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

/** Dimensions of the vectors of the hybrid measurement (a common size of hosted embedding models). */
const DIMENSIONS = 768;

/**
 * The same KB searched hybrid: every chunk with a vector (random, from an in-memory store, so the
 * figure is the reader's work: loading the vectors with the version, and the cosine ranking and
 * fusion of each search), and a query vector that costs nothing to make.
 */
async function hybridSearch(options: {
  redis: Redis;
  prefix: string;
  queries: readonly string[];
}): Promise<{ p50: number; p99: number; loadMs: number }> {
  let seed = 7;
  const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647 - 0.5;
  const vectorOf = () => Float32Array.from({ length: DIMENSIONS }, next);
  // A pool of random vectors, copied out per chunk: making 38 million random numbers would
  // otherwise be most of the measured load.
  const pool = Array.from({ length: 1_000 }, vectorOf);
  let drawn = 0;
  const vectors: ToolVectorStore = {
    missing: async () => [],
    write: async () => undefined,
    read: async (digests) =>
      new Map(digests.map((digest) => [digest, Float32Array.from(pool[(drawn += 1) % pool.length] as Float32Array)])),
  };
  const queryVector = Array.from(vectorOf());
  const reader = createKnowledgeBaseReader({
    redis: options.redis,
    keyPrefix: options.prefix,
    embedding: { vectors, embedQuery: async () => queryVector },
  });
  const loadStarted = performance.now();
  await reader.search({ query: 'w1 w2', kbs: ['bench'], limit: 5 });
  const loadMs = performance.now() - loadStarted;
  const samples: number[] = [];
  for (const query of options.queries.slice(0, 200)) {
    const started = performance.now();
    await reader.search({ query, kbs: ['bench'], limit: 5 });
    samples.push(performance.now() - started);
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), loadMs };
}

function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

export default suite;
