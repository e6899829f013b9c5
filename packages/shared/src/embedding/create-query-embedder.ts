import type { Embedder } from './embedder.js';

/** Options of {@link createQueryEmbedder}. */
export interface CreateQueryEmbedderOptions {
  /** Query vectors kept, most recent first. @default 256 */
  cacheSize?: number;
}

/**
 * The query embedding of `tool_search` and `kb_search`: one model call per distinct query, with a small LRU cache, since
 * models repeat a search after a failed call and several runs ask the same things.
 */
export function createQueryEmbedder(
  embedder: Embedder,
  options: CreateQueryEmbedderOptions = {},
): (query: string, signal: AbortSignal | undefined) => Promise<number[] | undefined> {
  const cacheSize = options.cacheSize ?? 256;
  const cache = new Map<string, number[]>();
  return async (query, signal) => {
    const known = cache.get(query);
    if (known) {
      cache.delete(query);
      cache.set(query, known);
      return known;
    }
    const [vector] = await embedder.embed([query], signal);
    if (!vector || vector.length === 0) return undefined;
    cache.set(query, vector);
    while (cache.size > cacheSize) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    return vector;
  };
}
