/**
 * The BM25 scoring of agentq, used by both of its lexical indexes: tool search (BM25F over a
 * tool's fields, `ToolSearchIndex` in the registry) and `kb_search` ({@link Bm25Index} over a KB
 * version's chunks). BM25 is BM25F with one field of weight 1, so both compute a term's score as
 * `idf × saturate(Σ_fields weight × tf / lengthNorm)` through the functions below; only the layout
 * of their postings differs (a mutable per-tool index against a compact one built per KB version).
 */

/** Term-frequency saturation: the larger, the longer repeats keep adding to a score. */
export const BM25_K1 = 1.2;

/** Length normalisation when a field sets none: 0 is none, 1 full. */
export const BM25_DEFAULT_B = 0.75;

/** Inverse document frequency of a term found in `frequency` of `documents` documents (never negative). */
export function bm25Idf(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}

/** How much a field's length scales its term frequencies: 1 at the average length. */
export function bm25LengthNorm(length: number, averageLength: number, b: number = BM25_DEFAULT_B): number {
  return 1 - b + (b * length) / averageLength;
}

/**
 * The score of one query term in one document: `weighted` is the term's frequency summed over the
 * document's fields, each times its field weight and divided by its {@link bm25LengthNorm}.
 */
export function bm25TermScore(idf: number, weighted: number): number {
  return (idf * weighted * (BM25_K1 + 1)) / (BM25_K1 + weighted);
}
