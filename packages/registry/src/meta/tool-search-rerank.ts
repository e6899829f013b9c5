import { bm25LengthNorm, bm25TermScore } from '@agentq/shared';

/**
 * Second stage of tool search: a linear model over general features of each of the first stage's
 * top candidates (per-field BM25F of the query's words, rank, coordination, name coverage, schema
 * size, vector similarity), trained pairwise on the development split of the evaluation set
 * (`bench/search/train-reranker.ts`). Inference is one dot product per candidate; only the top
 * `depth` candidates are reordered, and they stay ahead of everything below them.
 */

/** Names of the features, in the order of a feature vector. */
export const RERANK_FEATURES = [
  'reciprocalRank',
  'scoreShareOfTop',
  'bm25Name',
  'bm25Title',
  'bm25Description',
  'bm25Params',
  'bm25Values',
  'bm25Server',
  'alternativeScore',
  'nameTermsMatched',
  'descriptionTermsMatched',
  'coordination',
  'nameCoverage',
  'serverMatched',
  'schemaSize',
  'descriptionLength',
  'vectorSimilarity',
] as const;
export type RerankFeature = (typeof RERANK_FEATURES)[number];

/** A trained reranker: standardisation and weights per feature, in {@link RERANK_FEATURES} order. */
export interface RerankModel {
  /** Feature names the weights were trained for; must equal {@link RERANK_FEATURES}. */
  features: readonly string[];
  /** Mean of each feature over the training candidates. */
  mean: readonly number[];
  /** Standard deviation of each feature over the training candidates (never 0). */
  scale: readonly number[];
  weights: readonly number[];
  /** First-stage candidates reordered at most. */
  depth: number;
}

/** Field order of {@link RerankSource.frequencies}: the index's fields. */
const NAME = 0;
const TITLE = 1;
const DESCRIPTION = 2;
const PARAMS = 3;
const SERVER = 5;
const FIELD_FEATURE_OFFSET = 2;
/** Fields with a feature of their own (name, title, description, params, values, server); any later field has none. */
const FIELD_FEATURES = 6;

/** What the reranker reads from the index for one query; the index builds it. */
export interface RerankSource {
  /** Weight, length normalisation and average length of each field, in the index's field order. */
  fields: ReadonlyArray<{ weight: number; b: number; average: number }>;
  /** The query's words (first alternative is the word itself, the rest expansions with their weights). */
  groups: ReadonlyArray<ReadonlyArray<{ term: string; weight: number }>>;
  /** How many of `groups` are the query's own words (the rest are feedback terms). */
  counted: number;
  /** Inverse document frequency of a term, or `undefined` when no document has it. */
  idf(term: string): number | undefined;
  /** The postings of a term: per-field frequencies by document id. */
  postings(term: string): ReadonlyMap<number, readonly number[]> | undefined;
  /** The document id of a key (`-1` when it is not indexed). */
  idOf(key: string): number;
  /** Per-field lengths (terms) of a document. */
  lengths(id: number): readonly number[];
  /** Cosine of the query's and the document's vectors; 0 when either has none. */
  vectorSimilarity(id: number): number;
}

/** A query word, resolved once per query: its own term and its alternatives, each with its idf. */
interface PlannedWord {
  /** The first stage's weight of the word: its own idf, else that of its rarest known alternative. */
  idf: number;
  postings: ReadonlyMap<number, readonly number[]> | undefined;
  alternatives: Array<{ postings: ReadonlyMap<number, readonly number[]>; weight: number; idf: number }>;
}

function plan(source: RerankSource): PlannedWord[] {
  return source.groups.slice(0, source.counted).map((group) => {
    const own = source.idf(group[0]?.term ?? '');
    const alternatives = group.slice(1).flatMap(({ term, weight }) => {
      const idf = source.idf(term);
      const postings = source.postings(term);
      return idf === undefined || !postings ? [] : [{ postings, weight, idf }];
    });
    const best = alternatives.reduce((max, alternative) => Math.max(max, alternative.idf), 0);
    return { idf: own ?? best, postings: source.postings(group[0]?.term ?? ''), alternatives };
  });
}

/** BM25F of one term in one field of a document. */
function fieldScore(
  field: { weight: number; b: number; average: number },
  length: number,
  frequency: number,
  idf: number,
): number {
  return bm25TermScore(idf, (field.weight * frequency) / bm25LengthNorm(length, field.average, field.b));
}

/** BM25F of one term over a document's fields. */
function termScore(source: RerankSource, lengths: readonly number[], frequencies: readonly number[], idf: number) {
  let sum = 0;
  for (let index = 0; index < frequencies.length; index += 1) {
    const field = source.fields[index];
    const frequency = frequencies[index] ?? 0;
    if (frequency > 0 && field) sum += fieldScore(field, lengths[index] ?? 0, frequency, idf);
  }
  return sum;
}

/** Best score of a query word matched only through one of its alternatives. */
function alternativeScore(source: RerankSource, id: number, lengths: readonly number[], word: PlannedWord) {
  let best = 0;
  for (const { postings, weight, idf } of word.alternatives) {
    const frequencies = postings.get(id);
    if (frequencies) best = Math.max(best, weight * termScore(source, lengths, frequencies, idf));
  }
  return best;
}

/**
 * Features of the first stage's top candidates (keys and scores, best first), one vector per
 * candidate in {@link RERANK_FEATURES} order. Scores are divided by the query's total idf, so that
 * long and short queries are on one scale; nothing depends on a particular word.
 */
export function rerankFeatures(
  source: RerankSource,
  candidates: ReadonlyArray<{ key: string; score: number }>,
): Float64Array[] {
  const words = plan(source);
  const queryWeight = Math.max(
    words.reduce((sum, word) => sum + word.idf, 0),
    1e-9,
  );
  const wordCount = Math.max(words.length, 1);
  const fieldCount = Math.min(source.fields.length, FIELD_FEATURES);
  const top = Math.max(candidates[0]?.score ?? 0, 1e-9);
  return candidates.map(({ key, score }, rank) => {
    const features = new Float64Array(RERANK_FEATURES.length);
    const id = source.idOf(key);
    const lengths = source.lengths(id);
    let alternative = 0;
    let nameWords = 0;
    let descriptionWords = 0;
    let covered = 0;
    let nameFrequency = 0;
    for (const word of words) {
      const frequencies = word.postings?.get(id);
      if (!frequencies) {
        if (word.alternatives.length > 0) alternative += alternativeScore(source, id, lengths, word);
        continue;
      }
      covered += word.idf;
      for (let field = 0; field < fieldCount; field += 1) {
        const frequency = frequencies[field] ?? 0;
        if (frequency === 0) continue;
        const value = fieldScore(
          source.fields[field] as RerankSource['fields'][number],
          lengths[field] ?? 0,
          frequency,
          word.idf,
        );
        features[FIELD_FEATURE_OFFSET + field] = (features[FIELD_FEATURE_OFFSET + field] ?? 0) + value / queryWeight;
      }
      if ((frequencies[NAME] ?? 0) + (frequencies[TITLE] ?? 0) > 0) nameWords += 1;
      if ((frequencies[DESCRIPTION] ?? 0) > 0) descriptionWords += 1;
      if ((frequencies[SERVER] ?? 0) > 0) features[13] = 1;
      nameFrequency += frequencies[NAME] ?? 0;
    }
    features[0] = 1 / (rank + 1);
    features[1] = score / top;
    features[8] = alternative / queryWeight;
    features[9] = nameWords / wordCount;
    features[10] = descriptionWords / wordCount;
    features[11] = covered / queryWeight;
    features[12] = (lengths[NAME] ?? 0) === 0 ? 0 : Math.min(nameFrequency / (lengths[NAME] as number), 1);
    features[14] = Math.log1p(lengths[PARAMS] ?? 0);
    features[15] = Math.log1p(lengths[DESCRIPTION] ?? 0);
    features[16] = source.vectorSimilarity(id);
    return features;
  });
}

/** The model's score of one feature vector: a dot product over standardised features. */
export function rerankScore(model: RerankModel, features: ArrayLike<number>): number {
  let score = 0;
  for (let index = 0; index < model.weights.length; index += 1) {
    const value = ((features[index] ?? 0) - (model.mean[index] ?? 0)) / (model.scale[index] ?? 1);
    score += (model.weights[index] ?? 0) * value;
  }
  return score;
}

/**
 * Reorders the top `model.depth` of `ranked` (best first) by the model; the rest keep their place
 * after them. Ties keep the first stage's order, so the result is deterministic. Each reordered
 * item gets `score` = its model score.
 */
export function rerankTop<T extends { key: string; score: number }>(
  model: RerankModel,
  source: RerankSource,
  ranked: readonly T[],
): T[] {
  const head = ranked.slice(0, model.depth);
  if (head.length < 2) return [...ranked];
  const features = rerankFeatures(source, head);
  const scored = head.map((item, position) => ({
    item,
    position,
    score: rerankScore(model, features[position] ?? []),
  }));
  scored.sort((left, right) => right.score - left.score || left.position - right.position);
  return [...scored.map(({ item, score }) => ({ ...item, score })), ...ranked.slice(model.depth)];
}

/** Checks that a model fits {@link RERANK_FEATURES}; throws a `TypeError` naming what is wrong. */
export function validateRerankModel(model: RerankModel): RerankModel {
  const size = RERANK_FEATURES.length;
  if (model.features.length !== size || model.features.some((name, index) => name !== RERANK_FEATURES[index]))
    throw new TypeError('rerank model: features differ from RERANK_FEATURES');
  for (const [name, values] of [
    ['mean', model.mean],
    ['scale', model.scale],
    ['weights', model.weights],
  ] as const) {
    if (values.length !== size || values.some((value) => !Number.isFinite(value)))
      throw new TypeError(`rerank model: ${name} must hold ${size} finite numbers`);
  }
  if (model.scale.some((value) => value <= 0)) throw new TypeError('rerank model: scale must be positive');
  if (!Number.isInteger(model.depth) || model.depth < 2)
    throw new TypeError('rerank model: depth must be an integer >= 2');
  return model;
}
