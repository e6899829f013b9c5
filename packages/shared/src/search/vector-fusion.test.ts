import { describe, expect, it } from 'vitest';
import { cosineSimilarity, dotProduct, fuseRankings, normalizeInPlace, RRF_K, squaredNorm } from './vector-fusion.js';

describe('vector fusion', () => {
  it('fuses rankings by reciprocal rank: a key high in both beats one first in only one', () => {
    const fused = fuseRankings([
      ['a', 'b', 'c'],
      ['b', 'd', 'a'],
    ]);
    expect(fused.map((hit) => hit.key)).toEqual(['b', 'a', 'd', 'c']);
    expect(fused[0]?.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused.at(-1)?.score).toBeCloseTo(1 / (RRF_K + 3));
  });

  it('keeps the first-seen order on equal fused scores', () => {
    expect(fuseRankings([['x'], ['y']]).map((hit) => hit.key)).toEqual(['x', 'y']);
  });

  it('ranks unit vectors by dot product exactly as by cosine', () => {
    const stored = Float32Array.from([3, 4, 0]);
    const query = [1, 2, 2];
    const cosine = cosineSimilarity(stored, query, squaredNorm(query));
    const unit = normalizeInPlace(Float32Array.from(stored));
    expect(squaredNorm(unit)).toBeCloseTo(1);
    expect(dotProduct(unit, normalizeInPlace(Float32Array.from(query)))).toBeCloseTo(cosine);
    expect(cosine).toBeCloseTo(11 / 15);
  });

  it('gives 0 for vectors of different lengths or all zeros, and leaves a zero vector as it is', () => {
    expect(cosineSimilarity(Float32Array.from([1, 0]), [1, 0, 0], 1)).toBe(0);
    expect(cosineSimilarity(Float32Array.from([0, 0]), [1, 0], 1)).toBe(0);
    expect([...normalizeInPlace(new Float32Array(2))]).toEqual([0, 0]);
  });
});
