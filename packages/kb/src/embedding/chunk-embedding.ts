import { digestOf, type Embedder, type KbChunk } from '@agentq/shared';
import type { ToolVectorStore } from '@agentq/store';

/**
 * Vectors of knowledge base chunks: embedded by the indexer at ingest, read by the reader when it
 * loads a version. They are keyed by the digest of the embedded text in the same per-model store as
 * tool vectors, so a chunk whose text did not change is never embedded again, whatever document
 * or version it is in.
 */
export interface KbChunkEmbedding {
  embedder: Embedder;
  /** The store of `embedder`'s model (`createToolVectorStore` with its `modelId`). */
  vectors: ToolVectorStore;
}

/** What is embedded for a chunk: its heading, then its text (what BM25 indexes too). */
export function chunkEmbeddingText(chunk: Pick<KbChunk, 'heading' | 'text'>): string {
  return chunk.heading ? `${chunk.heading}\n${chunk.text}` : chunk.text;
}

/** Digest of a chunk's embedding text: the key of its vector, per model. */
export function chunkEmbeddingDigest(chunk: Pick<KbChunk, 'heading' | 'text'>): string {
  return digestOf(chunkEmbeddingText(chunk), 32);
}
