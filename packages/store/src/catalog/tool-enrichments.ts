import { digestOf, serverIdSchema, silentLogger, type Logger } from '@agentq/shared';
import { keyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { missingContentKeys, TOOL_VECTOR_TTL_MS } from './tool-vectors.js';
import { z } from 'zod';

/** Most example requests stored for one tool. */
export const MAX_TOOL_EXAMPLES = 10;
/** Longest example request stored, in characters. */
export const MAX_TOOL_EXAMPLE_CHARS = 120;

/**
 * One stored enrichment: a short list of short strings. Anything else (a hand-edited key, another
 * version's format, a truncated write) is refused on read, so an entry is bounded whoever wrote it.
 */
export const toolExamplesSchema = z
  .array(z.string().trim().min(1).max(MAX_TOOL_EXAMPLE_CHARS))
  .min(1)
  .max(MAX_TOOL_EXAMPLES);

const storedExamplesSchema = z
  .string()
  .max(MAX_TOOL_EXAMPLES * (MAX_TOOL_EXAMPLE_CHARS * 6 + 8) + 2)
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be JSON' });
      return z.NEVER;
    }
  })
  .pipe(toolExamplesSchema);

/**
 * Example requests of one enrichment model in Redis, keyed by the digest of the tool text the
 * model was shown (`P:enrichment.<model digest>.<text digest>`): written by warmers, read by
 * workers' tool search.
 */
export interface ToolEnrichmentStore {
  /** Which of `digests` have no stored examples (and renews the lifetime of those that do). */
  missing(digests: readonly string[]): Promise<string[]>;
  /** Stores examples by digest; a list the schema refuses is not written. */
  write(examples: ReadonlyMap<string, readonly string[]>): Promise<void>;
  /** Stored examples by digest; a missing one is absent, an unreadable one absent with a warning. */
  read(digests: readonly string[]): Promise<Map<string, string[]>>;
}

/** Options of {@link createToolEnrichmentStore}. */
export interface CreateToolEnrichmentStoreOptions {
  redis: RedisConnection;
  prefix: string;
  /** The enrichment model (`provider:model`); examples of different models never mix. */
  modelId: string;
  /** Warned about corrupt entries. @default a silent logger */
  logger?: Logger;
}

/** The enrichment store of one model under `prefix`; entries live as long as tool vectors. */
export function createToolEnrichmentStore(options: CreateToolEnrichmentStoreOptions): ToolEnrichmentStore {
  const keys = keyNames(options.prefix);
  const model = digestOf(options.modelId, 16);
  const keyOf = (digest: string) => keys.toolEnrichment(model, digest);
  const logger = options.logger ?? silentLogger();
  const { redis } = options;
  return {
    missing: (digests) => missingContentKeys(redis, digests, keyOf),
    async write(examples) {
      const pipeline = redis.pipeline();
      let count = 0;
      for (const [digest, list] of examples) {
        const parsed = toolExamplesSchema.safeParse(list);
        if (!parsed.success) continue;
        pipeline.set(keyOf(digest), JSON.stringify(parsed.data), 'PX', TOOL_VECTOR_TTL_MS);
        count += 1;
      }
      if (count > 0) await pipeline.exec();
    },
    async read(digests) {
      const out = new Map<string, string[]>();
      if (digests.length === 0) return out;
      const values = await redis.mget(...digests.map(keyOf));
      let corrupt = 0;
      digests.forEach((digest, index) => {
        const value = values[index];
        if (typeof value !== 'string') return;
        const parsed = storedExamplesSchema.safeParse(value);
        if (parsed.success) out.set(digest, parsed.data);
        else corrupt += 1;
      });
      // Examples only help search: a bad entry is skipped (and rewritten once it expires).
      if (corrupt > 0) logger.warn({ corrupt }, 'ignored unreadable tool enrichments');
      return out;
    },
  };
}

/**
 * Announces on `P:tools.enriched` that new examples of `serverId`'s tools were stored, so workers
 * that hold the server index them without waiting for its catalog version to change.
 */
export async function publishToolsEnriched(redis: RedisConnection, prefix: string, serverId: string): Promise<void> {
  await redis.publish(keyNames(prefix).toolsEnriched, serverIdSchema.parse(serverId));
}

/** The server id a `P:tools.enriched` message carries, or `undefined` when it is not a server id. */
export function parseToolsEnrichedMessage(message: string): string | undefined {
  const parsed = serverIdSchema.safeParse(message);
  return parsed.success ? parsed.data : undefined;
}
