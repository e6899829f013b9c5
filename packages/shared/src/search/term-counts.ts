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
