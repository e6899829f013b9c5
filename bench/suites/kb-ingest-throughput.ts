import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ingestSource, KnowledgeBaseStore } from '@agentq/kb';
import { keyNames } from '@agentq/store';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix, testPrefix } from '../../test/helpers/redis.js';
import type { BenchSuite } from '../bench-types.js';

// Prose-like Markdown: sections of paragraphs drawn from a few thousand words.
function handbook(sections: number): string {
  const words = Array.from({ length: 3_000 }, (_, index) => `word${index.toString(36)}ing`);
  const parts = ['# Handbook'];
  let seed = 7;
  const next = () => (seed = (seed * 48_271) % 2_147_483_647);
  for (let section = 0; section < sections; section += 1) {
    parts.push(`## Section ${section}`);
    for (let paragraph = 0; paragraph < 6; paragraph += 1) {
      parts.push(Array.from({ length: 120 }, () => words[next() % words.length]).join(' ') + '.');
    }
  }
  return parts.join('\n\n');
}

/**
 * Ingest throughput: one Markdown file read, chunked, stemmed and written by `ingestSource` (the
 * indexer's whole job, version switch included), against the raw cost of writing the same chunk
 * records to Redis in the same batches.
 */
const suite: BenchSuite = {
  name: 'kb-ingest-throughput',
  description: 'kb ingest: chunks/s of ingestSource over writing the same chunks to Redis',
  async run({ redisUrl, quick }) {
    const prefix = testPrefix();
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'bench-kb-ingest' });
    const folder = await mkdtemp(join(tmpdir(), 'agentq-bench-kb-'));
    try {
      const path = join(folder, 'handbook.md');
      await writeFile(path, handbook(quick ? 80 : 400));
      const store = new KnowledgeBaseStore({ redis, prefix });
      await store.create({ name: 'bench' });
      const started = performance.now();
      const result = await ingestSource({
        redis,
        store,
        job: { kb: 'bench', source: { type: 'file', path }, origin: 'local', requestedAt: Date.now() },
        read: { maxBytes: 64 * 1024 * 1024 },
      });
      const ingestMs = performance.now() - started;

      // Baseline: the very records the ingest wrote, written again to a fresh key, same batch size.
      const { manifest } = await store.current('bench');
      const document = manifest.documents[0];
      if (!document) throw new Error('nothing ingested');
      const records = await redis.hgetall(keyNames(prefix).kbChunks('bench', document.id, document.digest));
      const entries = Object.entries(records);
      const rawKey = `${prefix}:bench.raw`;
      const rawStarted = performance.now();
      for (let start = 0; start < entries.length; start += 250) {
        await redis.hset(rawKey, ...entries.slice(start, start + 250).flat());
      }
      const rawMs = performance.now() - rawStarted;
      const chunks = result.chunks;
      return [
        {
          name: 'ingest.chunks-per-second',
          value: Math.round(chunks / (ingestMs / 1000)),
          unit: 'chunks/s',
          details: { chunks, ingestMs },
        },
        {
          name: 'raw-write.chunks-per-second',
          value: Math.round(chunks / (rawMs / 1000)),
          unit: 'chunks/s',
          details: { chunks, rawMs },
        },
        {
          name: 'ingest/raw-write',
          value: Number((ingestMs / rawMs).toFixed(2)),
          unit: 'x',
          details: { ingestMs, rawMs },
        },
      ];
    } finally {
      await rm(folder, { recursive: true, force: true });
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
