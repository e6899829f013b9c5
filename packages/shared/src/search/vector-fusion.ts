/**
 * The vector half of agentq's hybrid search, shared by tool search (`ToolSearchIndex` in the
 * registry) and `kb_search`: cosine similarity against stored float32 vectors, and reciprocal rank
 * fusion of a lexical and a vector ranking. Both searches fuse ranks, never raw scores, since BM25
 * and cosine scores live on unrelated scales.
 */

/** Reciprocal rank fusion constant (Cormack et al. 2009). */
export const RRF_K = 60;

/** Squared length of a vector, computed once per query. */
export function squaredNorm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) {
    const value = vector[index] as number;
    sum += value * value;
  }
  return sum;
}

/**
 * Cosine similarity of a stored vector and a query vector whose {@link squaredNorm} is `queryNorm`;
 * 0 when either is all zeros or their lengths differ.
 */
export function cosineSimilarity(stored: Float32Array, query: ArrayLike<number>, queryNorm: number): number {
  if (stored.length !== query.length) return 0;
  let dot = 0;
  let storedNorm = 0;
  for (let index = 0; index < stored.length; index += 1) {
    const value = stored[index] as number;
    dot += value * (query[index] as number);
    storedNorm += value * value;
  }
  return storedNorm === 0 || queryNorm === 0 ? 0 : dot / Math.sqrt(storedNorm * queryNorm);
}

/** Scales a vector to unit length in place (an all-zero vector stays as it is); returns it. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(squaredNorm(vector));
  if (norm > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] as number) / norm;
  return vector;
}

/**
 * Dot product of two vectors of the same length: their cosine similarity when both are unit
 * length ({@link normalizeInPlace}), at a third of {@link cosineSimilarity}'s work.
 */
export function dotProduct(left: Float32Array, right: Float32Array): number {
  let dot = 0;
  for (let index = 0; index < left.length; index += 1) dot += (left[index] as number) * (right[index] as number);
  return dot;
}

/**
 * Reciprocal rank fusion of rankings of keys, best first: each key scores `Σ 1 / (k + rank)` over
 * the rankings it appears in (rank from 1). Returns every key once, with its fused score, best
 * first; ties keep the order in which keys were first seen.
 */
export function fuseRankings<K>(
  rankings: ReadonlyArray<readonly K[]>,
  k: number = RRF_K,
): Array<{ key: K; score: number }> {
  const scores = new Map<K, number>();
  for (const ranking of rankings) {
    ranking.forEach((key, rank) => {
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + rank + 1));
    });
  }
  return [...scores].map(([key, score]) => ({ key, score })).sort((left, right) => right.score - left.score);
}
