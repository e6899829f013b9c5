import { describe, expect, it } from 'vitest';
import { analyzeText } from './analyze-text.js';
import { Bm25Index } from './bm25-index.js';
import { forEachTermCount, termCounts } from './term-counts.js';

const chunkOf = (text: string) => {
  const terms = analyzeText(text, 'index');
  return { terms: termCounts(terms), length: terms.length };
};
const termsOf = (query: string) => analyzeText(query, 'query');

describe('Bm25Index', () => {
  it('ranks the chunk that matches the rarer stemmed terms first, and honours the limit', () => {
    const index = new Bm25Index([
      chunkOf('Redis stores the catalog cache'),
      chunkOf('The indexer ingests knowledge bases and writes chunks to Redis'),
      chunkOf('Approvals pause a run until someone decides'),
      chunkOf('Chunks are ingested with overlap; ingestion respects headings'),
    ]);
    const matches = index.search(termsOf('ingesting chunks'), 10);
    expect(matches.map((match) => match.position).sort()).toEqual([1, 3]);
    expect(matches[0]?.position).toBe(3);
    expect(index.search(termsOf('redis'), 1)).toHaveLength(1);
    expect(index.search(termsOf('nothing matches zebra'), 5)).toEqual([]);
  });

  it('keeps the best k of many matches', () => {
    const chunks = Array.from({ length: 500 }, (_, position) => chunkOf(`apple ${'filler '.repeat(position % 50)}`));
    const matches = new Bm25Index(chunks).search(['appl'], 5);
    // Shorter chunks score higher under BM25 length normalisation.
    expect(matches.map((match) => match.position)).toEqual([0, 50, 100, 150, 200]);
  });
});

describe('termCounts / forEachTermCount', () => {
  it('round-trips the stored encoding and skips malformed pairs', () => {
    const encoded = termCounts(['index', 'redis', 'index']);
    const seen: Array<[string, number]> = [];
    forEachTermCount(`${encoded} broken :3 bad:x`, (term, count) => seen.push([term, count]));
    expect(seen).toEqual([
      ['index', 2],
      ['redis', 1],
    ]);
  });
});
