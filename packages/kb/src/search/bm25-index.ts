import type { KbChunk } from '@agentq/shared';

/** One scored position in the index. */
export interface Bm25Match {
  /** Index of the chunk in the array the index was built from. */
  position: number;
  score: number;
}

const K1 = 1.2;
const B = 0.75;

interface Postings {
  positions: Uint32Array;
  counts: Uint16Array;
  idf: number;
}

/**
 * An in-memory BM25 index over the stored term counts of a KB version's chunks. Built once per
 * version; a search touches only the postings of the query's terms and keeps the best `limit`
 * in a small heap, so its cost grows with the matches, not with the whole KB.
 */
export class Bm25Index {
  readonly size: number;
  private readonly postings = new Map<string, Postings>();
  private readonly norms: Float64Array;
  private readonly scores: Float64Array;

  constructor(chunks: readonly Pick<KbChunk, 'terms' | 'length'>[]) {
    this.size = chunks.length;
    let totalLength = 0;
    for (const chunk of chunks) totalLength += chunk.length;
    const averageLength = chunks.length === 0 ? 1 : Math.max(1, totalLength / chunks.length);
    this.norms = new Float64Array(chunks.length);
    this.scores = new Float64Array(chunks.length);
    const building = new Map<string, { positions: number[]; counts: number[] }>();
    chunks.forEach((chunk, position) => {
      this.norms[position] = K1 * (1 - B + (B * chunk.length) / averageLength);
      for (const [term, count] of Object.entries(chunk.terms)) {
        let list = building.get(term);
        if (!list) {
          list = { positions: [], counts: [] };
          building.set(term, list);
        }
        list.positions.push(position);
        list.counts.push(Math.min(count, 65_535));
      }
    });
    for (const [term, list] of building) {
      const frequency = list.positions.length;
      this.postings.set(term, {
        positions: Uint32Array.from(list.positions),
        counts: Uint16Array.from(list.counts),
        idf: Math.log(1 + (chunks.length - frequency + 0.5) / (frequency + 0.5)),
      });
    }
  }

  /** The best `limit` chunks for the (already stemmed) query terms, best first. */
  search(terms: readonly string[], limit: number): Bm25Match[] {
    const scores = this.scores;
    const touched: number[] = [];
    for (const term of new Set(terms)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const { positions, counts, idf } = list;
      for (let index = 0; index < positions.length; index += 1) {
        const position = positions[index] as number;
        const count = counts[index] as number;
        if (scores[position] === 0) touched.push(position);
        scores[position] =
          (scores[position] as number) + (idf * count * (K1 + 1)) / (count + (this.norms[position] as number));
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
