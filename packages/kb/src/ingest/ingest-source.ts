import {
  NonRetryableError,
  silentLogger,
  termCounts,
  type KbChunk,
  type KbIngestJob,
  type KbIngestResult,
  type Logger,
} from '@agentq/shared';
import { fillMissingVectors, type KnowledgeBaseStore, type RedisConnection } from '@agentq/store';
import { chunkEmbeddingDigest, chunkEmbeddingText, type KbChunkEmbedding } from '../embedding/chunk-embedding.js';
import { kbTerms } from '../text/kb-terms.js';
import { z } from 'zod';
import { chunkSections, type ChunkOptions, type PlannedChunk } from '../chunk/chunk-sections.js';
import { parseDocument } from '../sources/parse-document.js';
import { readSource, type ReadSourceOptions } from '../sources/read-source.js';
import { chunkIdOf, documentIdOf } from './document-id.js';

/**
 * How far an ingest got: chunks `[0, written)` of the content with `digest` are in Redis. Kept as
 * the job's progress, so a retried job (after a crash or a `kill -9`) skips what is written.
 */
export const ingestProgressSchema = z.object({
  digest: z.string(),
  written: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});

/** See {@link ingestProgressSchema}. */
export type IngestProgress = z.infer<typeof ingestProgressSchema>;

/** Options of {@link ingestSource}. */
export interface IngestSourceOptions {
  /**
   * Unused: chunks are written through `store`, on its connection.
   * @deprecated pass `store` only
   */
  redis?: RedisConnection;
  /** The knowledge base records the chunks and the new version are written to. */
  store: KnowledgeBaseStore;
  job: KbIngestJob;
  /** Limits and guard settings for reading the source. */
  read: Omit<ReadSourceOptions, 'source' | 'origin' | 'signal'>;
  /** Progress of an earlier attempt of the same job. */
  resumeFrom?: IngestProgress;
  /** Called after each batch is written (the processor stores it as the job's progress). */
  onProgress?: (progress: IngestProgress) => Promise<void>;
  /** Chunks per Redis write. @default 250 */
  batchSize?: number;
  chunking?: ChunkOptions;
  signal?: AbortSignal;
  logger?: Logger;
  /**
   * With an embedding model: each batch's chunks are embedded (texts already stored are not sent
   * again) before the batch is written, so `kb_search` can fuse vector and BM25 ranks. A model
   * failure is logged and the ingest goes on without those vectors: they only improve search.
   * @default none (lexical search only)
   */
  embedding?: KbChunkEmbedding;
}

/**
 * Ingests one source into a new version of its KB:
 * 1. reads it and takes the SHA-256 of its bytes; the same document with the same digest in the
 *    current version makes the job a no-op (`unchanged`);
 * 2. parses and chunks it (deterministic, so chunk ids are the same on every attempt);
 * 3. writes the chunks, with their stemmed term counts, into the document's chunk set in batches,
 *    resuming after the last batch an earlier attempt recorded; writes are idempotent by chunk id;
 * 4. checks the set holds exactly the planned ids, then switches the KB to a new version naming it.
 *
 * Nothing becomes visible before step 4, so a failure at any point keeps the last good version.
 *
 * With `embedding`, step 3 also stores each batch's vectors, by text digest, before the batch.
 */
export async function ingestSource(options: IngestSourceOptions): Promise<KbIngestResult> {
  const { store, job } = options;
  const logger = (options.logger ?? silentLogger()).child({ component: 'kb-ingest', kb: job.kb });
  await store.get(job.kb);
  const content = await readSource({ ...options.read, source: job.source, origin: job.origin, signal: options.signal });
  const documentId = documentIdOf(job.source);
  const { manifest } = await store.current(job.kb);
  const existing = manifest.documents.find((document) => document.id === documentId);
  if (existing?.digest === content.digest) {
    logger.info({ documentId, version: manifest.version }, 'source unchanged');
    return { status: 'unchanged', kb: job.kb, version: manifest.version, documentId, chunks: 0 };
  }

  const parsed = await parseDocument({ kind: content.kind, bytes: content.bytes });
  const planned = chunkSections(parsed.sections, options.chunking);
  if (planned.length === 0) {
    throw new NonRetryableError({
      code: 'EMPTY_SOURCE',
      field: 'source',
      message: `${content.source} has no text to index`,
    });
  }
  const key = store.keys.kbChunks(job.kb, documentId, content.digest);
  await store.trackChunkSet(job.kb, key);
  const batchSize = Math.max(1, options.batchSize ?? 250);
  const resumeAt =
    options.resumeFrom?.digest === content.digest && options.resumeFrom.total === planned.length
      ? Math.min(options.resumeFrom.written, planned.length)
      : 0;
  if (resumeAt > 0) logger.info({ documentId, resumeAt, total: planned.length }, 'resuming ingest');
  const toChunk = (chunk: PlannedChunk): KbChunk => {
    const terms = kbTerms(chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text, 'index');
    const stored: KbChunk = {
      id: chunkIdOf({ documentId, digest: content.digest, ordinal: chunk.ordinal }),
      documentId,
      ordinal: chunk.ordinal,
      text: chunk.text,
      terms: termCounts(terms),
      length: terms.length,
    };
    if (chunk.heading !== undefined) stored.heading = chunk.heading;
    if (chunk.page !== undefined) stored.page = chunk.page;
    return stored;
  };
  const embedBatch = async (embedding: KbChunkEmbedding, batch: readonly KbChunk[]) => {
    const textsByDigest = new Map(batch.map((chunk) => [chunkEmbeddingDigest(chunk), chunkEmbeddingText(chunk)]));
    try {
      const result = await fillMissingVectors({
        embedder: embedding.embedder,
        store: embedding.vectors,
        textsByDigest,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (result.embedded > 0) logger.debug({ documentId, ...result }, 'embedded chunks');
    } catch (error) {
      options.signal?.throwIfAborted();
      logger.warn(
        { documentId, error: error instanceof Error ? error.message : String(error) },
        'could not embed chunks; kb_search stays lexical for them',
      );
    }
  };
  const writeRange = async (from: number) => {
    for (let start = from; start < planned.length; start += batchSize) {
      options.signal?.throwIfAborted();
      const batch = planned.slice(start, start + batchSize).map(toChunk);
      if (options.embedding) await embedBatch(options.embedding, batch);
      await store.writeChunks(key, batch);
      const written = Math.min(planned.length, start + batchSize);
      await options.onProgress?.({ digest: content.digest, written, total: planned.length });
    }
  };
  await writeRange(resumeAt);

  // The set must hold exactly the planned ids: a marker ahead of the data (or a foreign field)
  // would otherwise lose or add a chunk silently. Rewrite everything when it does not.
  const expected = new Set(
    planned.map((chunk) => chunkIdOf({ documentId, digest: content.digest, ordinal: chunk.ordinal })),
  );
  const present = await store.chunkIds(key);
  if (present.length !== expected.size || present.some((id) => !expected.has(id))) {
    logger.warn({ documentId, present: present.length, expected: expected.size }, 'chunk set incomplete; rewriting it');
    await store.clearChunkSet(key);
    await store.trackChunkSet(job.kb, key);
    await writeRange(0);
  }

  const label = content.label;
  const { version } = await store.commit({
    kb: job.kb,
    change: (documents) => [
      ...documents.filter((document) => document.id !== documentId),
      {
        id: documentId,
        source: content.source,
        ...(label ? { label } : {}),
        ...(parsed.title ? { title: parsed.title.slice(0, 300) } : {}),
        kind: content.kind,
        digest: content.digest,
        chunks: planned.length,
        addedAt: Date.now(),
      },
    ],
  });
  logger.info({ documentId, version, chunks: planned.length }, 'source ingested');
  return { status: 'updated', kb: job.kb, version, documentId, chunks: planned.length };
}
