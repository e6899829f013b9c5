import { stemmer } from 'stemmer';

// Words so common in English prose that they only add noise to a lexical match.
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its me my no not of on or our ' +
    'she so such that the their them then there these they this to was we were what when where which who will with you your'
  ).split(' '),
);

// Runs of letters and digits, Unicode-aware; a single character class, so linear time.
const WORD = /[\p{L}\p{N}]+/gu;
const MAX_TERM_LENGTH = 40;
// Stems of recent words: prose repeats its vocabulary, and stemming is the costly step of
// ingestion. Cleared when full, so memory stays bounded whatever the input.
const STEM_CACHE_SIZE = 100_000;
const stems = new Map<string, string>();

function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  return stem;
}

/**
 * The lexical terms of a text, in order: lower-cased words without stop words, each reduced by the
 * Porter stemmer, so that "indexing", "indexed" and "indexes" meet. Ingestion and search both use
 * this one function, so stored terms and query terms always agree.
 */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_TERM_LENGTH || STOP_WORDS.has(word)) continue;
    terms.push(stemOf(word));
  }
  return terms;
}

/**
 * Counts of each term, encoded as stored in a chunk: `term:count` pairs separated by spaces. Terms
 * are runs of letters and digits, so neither separator can occur inside one.
 */
export function termCounts(terms: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  const pairs: string[] = [];
  for (const [term, count] of counts) pairs.push(`${term}:${count}`);
  return pairs.join(' ');
}

/** Calls `visit` for each pair of an encoded {@link termCounts} string; malformed pairs are skipped. */
export function forEachTermCount(encoded: string, visit: (term: string, count: number) => void): void {
  let start = 0;
  while (start < encoded.length) {
    let end = encoded.indexOf(' ', start);
    if (end === -1) end = encoded.length;
    const colon = encoded.lastIndexOf(':', end - 1);
    if (colon > start) {
      const count = Number(encoded.slice(colon + 1, end));
      if (Number.isInteger(count) && count > 0) visit(encoded.slice(start, colon), count);
    }
    start = end + 1;
  }
}
