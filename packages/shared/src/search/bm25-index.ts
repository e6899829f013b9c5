import type { KbChunk } from '../schemas/kb.js';
import { BM25_DEFAULT_B, bm25Idf, bm25LengthNorm, bm25TermScore } from './bm25.js';
import { forEachTermCount } from './term-counts.js';

/** One scored position in the index. */
export interface Bm25Match {
  /** Index of the chunk in the array the index was built from. */
  position: number;
  score: number;
}

/**
 * An in-memory BM25 index over stored term counts (`termCounts`): `kb_search` builds one
 * per KB version over its chunks. Built once per
 * version, in compressed-sparse-row form: every term gets an id, and its postings are one slice of
 * two typed arrays, so building costs one map lookup per stored pair and no per-term arrays. A
 * search touches only the postings of the query's terms and keeps the best `limit` in a small
 * heap, so its cost grows with the matches, not with the whole KB.
 */
export class Bm25Index {
  readonly size: number;
  private readonly termIds = new Map<string, number>();
  private readonly offsets: Uint32Array;
  private readonly positions: Uint32Array;
  private readonly counts: Uint16Array;
  private readonly idf: Float64Array;
  /** 1 / length norm of each chunk: a multiplication on the search path instead of a division. */
  private readonly inverseNorms: Float64Array;
  private readonly scores: Float64Array;

  constructor(chunks: readonly Pick<KbChunk, 'terms' | 'length'>[]) {
    this.size = chunks.length;
    // Pass 1: term ids, document frequencies, and every (chunk, term, count) in chunk order.
    const frequencies: number[] = [];
    let pairTerms = new Uint32Array(1_024);
    let pairCounts = new Uint16Array(1_024);
    const chunkEnds = new Uint32Array(chunks.length);
    let pairs = 0;
    let totalLength = 0;
    chunks.forEach((chunk, position) => {
      totalLength += chunk.length;
      forEachTermCount(chunk.terms, (term, count) => {
        let id = this.termIds.get(term);
        if (id === undefined) {
          id = frequencies.length;
          this.termIds.set(term, id);
          frequencies.push(0);
        }
        frequencies[id] = (frequencies[id] as number) + 1;
        if (pairs === pairTerms.length) {
          const grownTerms = new Uint32Array(pairs * 2);
          grownTerms.set(pairTerms);
          pairTerms = grownTerms;
          const grownCounts = new Uint16Array(pairs * 2);
          grownCounts.set(pairCounts);
          pairCounts = grownCounts;
        }
        pairTerms[pairs] = id;
        pairCounts[pairs] = Math.min(count, 65_535);
        pairs += 1;
      });
      chunkEnds[position] = pairs;
    });
    // Pass 2: postings laid out per term.
    const termCount = frequencies.length;
    this.offsets = new Uint32Array(termCount + 1);
    for (let id = 0; id < termCount; id += 1)
      this.offsets[id + 1] = (this.offsets[id] as number) + (frequencies[id] as number);
    this.positions = new Uint32Array(pairs);
    this.counts = new Uint16Array(pairs);
    const cursor = this.offsets.slice(0, termCount);
    let pair = 0;
    for (let position = 0; position < chunks.length; position += 1) {
      const end = chunkEnds[position] as number;
      for (; pair < end; pair += 1) {
        const id = pairTerms[pair] as number;
        const at = cursor[id] as number;
        this.positions[at] = position;
        this.counts[at] = pairCounts[pair] as number;
        cursor[id] = at + 1;
      }
    }
    this.idf = new Float64Array(termCount);
    for (let id = 0; id < termCount; id += 1) {
      const frequency = frequencies[id] as number;
      this.idf[id] = bm25Idf(chunks.length, frequency);
    }
    const averageLength = chunks.length === 0 ? 1 : Math.max(1, totalLength / chunks.length);
    this.inverseNorms = new Float64Array(chunks.length);
    chunks.forEach((chunk, position) => {
      this.inverseNorms[position] = 1 / bm25LengthNorm(chunk.length, averageLength, BM25_DEFAULT_B);
    });
    this.scores = new Float64Array(chunks.length);
  }

  /** The best `limit` chunks for the (already stemmed) query terms, best first. */
  search(terms: readonly string[], limit: number): Bm25Match[] {
    const scores = this.scores;
    const touched: number[] = [];
    for (const term of new Set(terms)) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const idf = this.idf[id] as number;
      const end = this.offsets[id + 1] as number;
      for (let index = this.offsets[id] as number; index < end; index += 1) {
        const position = this.positions[index] as number;
        const count = this.counts[index] as number;
        if (scores[position] === 0) touched.push(position);
        scores[position] =
          (scores[position] as number) + bm25TermScore(idf, count * (this.inverseNorms[position] as number));
      }
    }
    const best = new TopK(limit);
    for (const position of touched) {
      best.offer(position, scores[position] as number);
      scores[position] = 0;
    }
    return best.sorted();
  }
}

// A min-heap of the best `limit` matches seen so far.
class TopK {
  private readonly heap: Bm25Match[] = [];
  constructor(private readonly limit: number) {}

  offer(position: number, score: number): void {
    if (this.limit <= 0) return;
    const heap = this.heap;
    if (heap.length < this.limit) {
      heap.push({ position, score });
      let child = heap.length - 1;
      while (child > 0) {
        const parent = (child - 1) >> 1;
        if (worse(heap[parent] as Bm25Match, heap[child] as Bm25Match)) break;
        [heap[parent], heap[child]] = [heap[child] as Bm25Match, heap[parent] as Bm25Match];
        child = parent;
      }
      return;
    }
    const root = heap[0] as Bm25Match;
    if (!worse(root, { position, score })) return;
    heap[0] = { position, score };
    let parent = 0;
    for (;;) {
      const left = parent * 2 + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < heap.length && worse(heap[left] as Bm25Match, heap[smallest] as Bm25Match)) smallest = left;
      if (right < heap.length && worse(heap[right] as Bm25Match, heap[smallest] as Bm25Match)) smallest = right;
      if (smallest === parent) break;
      [heap[parent], heap[smallest]] = [heap[smallest] as Bm25Match, heap[parent] as Bm25Match];
      parent = smallest;
    }
  }

  sorted(): Bm25Match[] {
    return [...this.heap].sort((left, right) => right.score - left.score || left.position - right.position);
  }
}

// Lower score loses; on a tie the later position loses, so results are deterministic.
function worse(left: Bm25Match, right: Bm25Match): boolean {
  return left.score < right.score || (left.score === right.score && left.position > right.position);
}
