import { digestOf, type Embedder } from '@agentq/shared';
import { keyNames, type KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { z } from 'zod';

/** How long a stored vector lives without a warmer touching it again. */
export const TOOL_VECTOR_TTL_MS = 30 * 24 * 60 * 60 * 1000;

// Little-endian float32, base64: a quarter of the size of JSON numbers, and exact.
const storedVectorSchema = z
  .string()
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')
  .transform((text, context) => {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) {
      context.addIssue({ code: 'custom', message: 'must hold whole float32 values' });
      return z.NEVER;
    }
    const vector = new Float32Array(bytes.length / 4);
    for (let index = 0; index < vector.length; index += 1) vector[index] = bytes.readFloatLE(index * 4);
    return vector;
  });

function encode(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/**
 * Tool vectors of one embedding model in Redis, keyed by the digest of the embedded text
 * (`P:embedding.<model digest>.<text digest>`): written by warmers, read by workers' tool search.
 */
export interface ToolVectorStore {
  /** Which of `digests` have no stored vector (and renews the lifetime of those that do). */
  missing(digests: readonly string[]): Promise<string[]>;
  /** Stores vectors by digest. */
  write(vectors: ReadonlyMap<string, readonly number[]>): Promise<void>;
  /** Stored vectors by digest; a missing or unreadable one is absent. */
  read(digests: readonly string[]): Promise<Map<string, Float32Array>>;
}

/**
 * Which of `digests` have no stored key (`keyOf`), renewing the lifetime of those that do, in one
 * pipeline: the existence check of every content-keyed store of warmers' work.
 */
export async function missingContentKeys(
  redis: RedisConnection,
  digests: readonly string[],
  keyOf: (digest: string) => string,
): Promise<string[]> {
  if (digests.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const digest of digests) pipeline.pexpire(keyOf(digest), TOOL_VECTOR_TTL_MS);
  const replies = (await pipeline.exec()) ?? [];
  return digests.filter((_, index) => replies[index]?.[1] !== 1);
}

/** Options of {@link createToolVectorStore}. */
export interface CreateToolVectorStoreOptions {
  redis: RedisConnection;
  prefix: string;
  /** The embedder's `modelId`; vectors of different models never mix. */
  modelId: string;
}

/** The vector store of one model under `prefix`. */
export function createToolVectorStore(options: CreateToolVectorStoreOptions): ToolVectorStore {
  const keys: KeyNames = keyNames(options.prefix);
  const model = digestOf(options.modelId, 16);
  const keyOf = (digest: string) => keys.toolEmbedding(model, digest);
  const { redis } = options;
  return {
    missing: (digests) => missingContentKeys(redis, digests, keyOf),
    async write(vectors) {
      if (vectors.size === 0) return;
      const pipeline = redis.pipeline();
      for (const [digest, vector] of vectors) pipeline.set(keyOf(digest), encode(vector), 'PX', TOOL_VECTOR_TTL_MS);
      await pipeline.exec();
    },
    async read(digests) {
      const out = new Map<string, Float32Array>();
      if (digests.length === 0) return out;
      const values = await redis.mget(...digests.map(keyOf));
      digests.forEach((digest, index) => {
        const value = values[index];
        if (typeof value !== 'string') return;
        const parsed = storedVectorSchema.safeParse(value);
        if (parsed.success) out.set(digest, parsed.data);
      });
      return out;
    },
  };
}

/** What {@link fillMissingVectors} did. */
export interface FillMissingVectorsResult {
  /** Texts embedded now. */
  embedded: number;
  /** Texts whose vector was already stored. */
  reused: number;
}

/**
 * Makes sure every text of `textsByDigest` has a stored vector: only texts without one are sent to
 * the model, so a text is never embedded twice, whoever stores it (a warmer's tools, an indexer's
 * knowledge base chunks). Throws when the model fails; nothing is written then.
 */
export async function fillMissingVectors(options: {
  embedder: Embedder;
  store: ToolVectorStore;
  textsByDigest: ReadonlyMap<string, string>;
  signal?: AbortSignal;
}): Promise<FillMissingVectorsResult> {
  const { textsByDigest } = options;
  const missing = await options.store.missing([...textsByDigest.keys()]);
  if (missing.length > 0) {
    const vectors = await options.embedder.embed(
      missing.map((digest) => textsByDigest.get(digest) as string),
      options.signal,
    );
    const stored = new Map<string, number[]>();
    missing.forEach((digest, index) => {
      const vector = vectors[index];
      if (vector && vector.length > 0) stored.set(digest, vector);
    });
    await options.store.write(stored);
  }
  return { embedded: missing.length, reused: textsByDigest.size - missing.length };
}
