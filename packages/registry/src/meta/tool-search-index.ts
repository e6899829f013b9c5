import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';
import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import { parseMcpWireName } from '../wire-names/mcp-wire-name.js';
import {
  analyzeText,
  bm25Idf,
  bm25LengthNorm,
  bm25TermScore,
  cosineSimilarity,
  fuseRankings,
  normalizeName,
  squaredNorm,
} from '@agentq/shared';
import { rerankFeatures, rerankTop, type RerankModel, type RerankSource } from './tool-search-rerank.js';
import { TOOL_SEARCH_RERANK_MODEL } from './tool-search-rerank-weights.js';

/** Results of a search returned when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 8;

/** Options of {@link ToolSearchIndex.search}. */
export interface ToolSearchOptions {
  /** Keeps only entries whose namespace or label equals this. */
  namespace?: string;
  /**
   * Keeps only these documents (keys from {@link searchKeyOf}): a run's allowed tools. Applied
   * while scoring, so a run never builds or copies an index of its own.
   * @default every document
   */
  keys?: ReadonlySet<string>;
  /** @default 8 */
  limit?: number;
  /**
   * The query's embedding. When given, documents with a vector of the same length are also ranked
   * by cosine similarity, and the two rankings are fused with reciprocal rank fusion.
   */
  queryVector?: readonly number[];
}

/** One ranked hit. */
export interface ToolSearchHit {
  /** The document key ({@link searchKeyOf} of the entry). */
  key: string;
  entry: ToolEntry;
  score: number;
  /** How the hit was found: an exact or near-exact name match ranks before every other hit. */
  match: 'exact-name' | 'near-name' | 'text';
}

/** Options of {@link ToolSearchIndex}. */
export interface ToolSearchIndexOptions {
  /**
   * Synonyms of a query word (for example {@link createWordnetSynonyms}); each is searched as an
   * alternative of the word at `synonymWeight`.
   * @default none
   */
  synonyms?: (word: string) => readonly string[];
  /** Weight of a synonym against the word itself. @default 0.3 */
  synonymWeight?: number;
  /**
   * Field weights over the defaults (name 3, title 2, description 1, params 0.5, values 0.5,
   * server 3, examples 0.3). `params` holds parameter names (and their descriptions, unless
   * `parameterDescriptionsField`), `values` enum values (and those descriptions), `examples` the
   * example requests set with {@link ToolSearchIndex.setExamples}.
   * @default the defaults
   */
  fieldWeights?: Partial<Record<Field, number>>;
  /** Index parameter descriptions in the `values` field instead of `params`. @default false */
  parameterDescriptionsField?: boolean;
  /**
   * Verb-class normalisation: a query verb of a class (`show`, `list`, `get`…) also matches the
   * other verbs of its class, at this weight (0 turns it off). 0.15 measured best on the dev split
   * (docs/benchmarks.md). @default 0.15
   */
  verbClassWeight?: number;
  /**
   * Pseudo-relevance feedback (RM3-style): the best terms of the top `documents` lexical hits are
   * added to the query, at `weight` at most, and the query is ranked again. @default off
   */
  feedback?: { documents: number; terms: number; weight: number };
  /**
   * Co-occurrence expansion mined from the indexed tools: each query word also matches the
   * `neighbours` words that most often share a tool's name, title or description with it, at
   * `weight`. @default off
   */
  cooccurrence?: { neighbours: number; weight: number; minShared?: number };
  /**
   * Second stage: a trained linear model ({@link RerankModel}) reorders the first stage's top
   * `depth` lexical hits; `false` keeps the first stage's order. The default model was trained on
   * the dev split and is on because it raised recall@5 and recall@1 there under cross-validation
   * (docs/benchmarks.md). @default TOOL_SEARCH_RERANK_MODEL
   */
  rerank?: RerankModel | false;
}

/** Weight of a verb of the same class as a query verb (`show` for `list`). */
const DEFAULT_VERB_CLASS_WEIGHT = 0.15;
/** Weight of a synonym match against a match of the query's own word. */
const DEFAULT_SYNONYM_WEIGHT = 0.3;

/** Counters of index work, for benchmarks and tests. */
export interface ToolSearchIndexStats {
  documents: number;
  /** Documents added or replaced since the index was created. */
  documentWrites: number;
  /** Documents removed since the index was created. */
  documentRemovals: number;
}

/**
 * The key of an entry's search document: its MCP tool id when it has one (stable across wire
 * name changes, so a run that kept an older name still finds the tool), else its wire name.
 */
export function searchKeyOf(entry: Pick<ToolEntry, 'name' | 'mcp'>): string {
  return entry.mcp?.toolId ?? entry.name;
}

const FIELDS = ['name', 'title', 'description', 'params', 'values', 'server', 'examples'] as const;
type Field = (typeof FIELDS)[number];

/** BM25F parameters of one field (the scoring itself is `shared`'s, the same as `kb_search`'s). */
interface FieldParameters {
  /** Weight of a term occurrence in this field. */
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
  /** Terms of the field indexed at most; the rest of a very long text is ignored. */
  maxTerms: number;
}

/**
 * Field weights and length normalisation. Names and titles are short and decisive; descriptions
 * carry most of the words but some run to 5 000 characters, so they are length-normalised fully
 * and cut at 200 terms: a long text then adds a few weak matches instead of matching everything.
 * The server's name weighs as much as a tool name, since a need that names a product ("on GitLab")
 * means that product's tools. Description b, server weight and coordination were set on the dev
 * split of the evaluation set (bench/data/README.md).
 */
const FIELD_PARAMETERS: Record<Field, FieldParameters> = {
  name: { weight: 3, b: 0.5, maxTerms: 64 },
  title: { weight: 2, b: 0.5, maxTerms: 64 },
  description: { weight: 1, b: 0.9, maxTerms: 200 },
  params: { weight: 0.5, b: 0.75, maxTerms: 200 },
  values: { weight: 0.5, b: 0.75, maxTerms: 200 },
  server: { weight: 3, b: 0.3, maxTerms: 32 },
  // Written by a model from the tool's own text (AGENTQ_SEARCH_ENRICH_MODEL): phrasings a user
  // might use, so they weigh least. 0.3 is a prior, not a measured value (docs/benchmarks.md).
  examples: { weight: 0.3, b: 0.75, maxTerms: 120 },
};
/** Words every tool description says: dropped on both sides of tool search, on top of the analyzer's. */
export const TOOL_SEARCH_STOP_WORDS: ReadonlySet<string> = new Set(['tool', 'tools']);
/** Exponent of the coordination factor (share of the query's idf matched); 0.5 chosen on the dev split. */
const COORDINATION = 0.5;
/** Queries with at least this many letters may match a tool name with a typo. */
const NEAR_NAME_MIN_LENGTH = 5;

/** One query word: the word's own term first, then its alternatives, each with its weight. */
type QueryGroup = Array<{ term: string; weight: number }>;

/**
 * Verb classes of tool names: the verbs one action goes by (`list_issues`, "show me the issues").
 * Only the common verbs of CRUD-like actions, domain-free; a query verb matches the others of its
 * class at {@link ToolSearchIndexOptions.verbClassWeight}.
 */
const VERB_CLASSES: readonly (readonly string[])[] = [
  ['get', 'list', 'show', 'fetch', 'retrieve', 'read', 'view', 'display', 'describe'],
  ['create', 'add', 'new', 'make', 'insert', 'post', 'submit'],
  ['update', 'edit', 'modify', 'change', 'set', 'patch', 'rename'],
  ['delete', 'remove', 'drop', 'destroy', 'erase'],
  ['search', 'find', 'query', 'lookup'],
  ['run', 'execute', 'start', 'trigger', 'invoke', 'launch'],
  ['stop', 'cancel', 'abort', 'kill', 'close', 'terminate'],
];
const VERB_CLASS_OF: ReadonlyMap<string, readonly string[]> = (() => {
  const out = new Map<string, string[]>();
  for (const verbs of VERB_CLASSES) {
    const stems = [...new Set(verbs.flatMap((verb) => analyzeText(verb, 'query')))];
    for (const stem of stems)
      out.set(
        stem,
        stems.filter((other) => other !== stem),
      );
  }
  return out;
})();

/** Whether a term occurs in a document's name, title or description (the first three fields). */
function inText(frequencies: readonly number[] | undefined): boolean {
  return (
    frequencies !== undefined && ((frequencies[0] ?? 0) > 0 || (frequencies[1] ?? 0) > 0 || (frequencies[2] ?? 0) > 0)
  );
}

interface Document {
  id: number;
  key: string;
  entry: ToolEntry;
  lengths: number[];
  /** Distinct terms of the document, for removal. */
  terms: string[];
  /** Name forms a query may spell exactly (normalised). */
  forms: string[];
  vector?: Float32Array;
}

/** Parameter names, descriptions and enum values of a schema, to three levels of nesting. */
function parameterText(
  schema: Record<string, unknown>,
  out: { names: string[]; descriptions: string[]; values: string[] } = { names: [], descriptions: [], values: [] },
  depth = 0,
): { names: string[]; descriptions: string[]; values: string[] } {
  if (depth > 2) return out;
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return out;
  for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
    out.names.push(key);
    if (typeof value === 'object' && value !== null) {
      const property = value as Record<string, unknown>;
      if (typeof property.description === 'string') out.descriptions.push(property.description);
      const values = Array.isArray(property.enum)
        ? property.enum
        : Array.isArray((property.items as { enum?: unknown } | undefined)?.enum)
          ? (property.items as { enum: unknown[] }).enum
          : [];
      for (const one of values) if (typeof one === 'string') out.values.push(one);
      parameterText(property, out, depth + 1);
    }
  }
  return out;
}

/** Names a query may spell exactly: the wire name, the original tool name, the tool segment. */
function nameForms(entry: ToolEntry): string[] {
  const forms = [entry.name];
  if (entry.mcp) forms.push(entry.mcp.toolName);
  const parsed = parseMcpWireName(entry.name);
  if (parsed) forms.push(parsed.tool);
  return [...new Set(forms.map(normalizeName).filter((form) => form !== ''))];
}

/** The text of each field of an entry, as one document sees it. */
export function searchFieldsOf(
  entry: ToolEntry,
  options: Pick<ToolSearchIndexOptions, 'parameterDescriptionsField'> = {},
): Record<Field, string> {
  const tool = entry.tool as { title?: string; description?: string };
  const description = tool.description ?? '';
  const parameters = parameterText(toolJsonSchema(entry.tool));
  const own = options.parameterDescriptionsField === true;
  return {
    name: [entry.mcp?.toolName ?? entry.name].join(' '),
    title: tool.title ?? '',
    // The blurb is the first sentence of the description; only add it when it is something else.
    description: description.includes(entry.description) ? description : `${entry.description} ${description}`,
    params: [...parameters.names, ...(own ? [] : parameters.descriptions)].join(' '),
    values: [...parameters.values, ...(own ? parameters.descriptions : [])].join(' '),
    server: [entry.namespace.replace(/^mcp:/, ''), labelOf(entry).replace(/^mcp:/, '')].join(' '),
    examples: '',
  };
}

function editDistanceAtMost(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit) return false;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return false;
    previous = current;
  }
  return (previous[b.length] ?? limit + 1) <= limit;
}

function byName(a: ToolSearchHit, b: ToolSearchHit): number {
  return b.score - a.score || (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0);
}

/**
 * BM25F ranking over tools: name, title, description, parameter names and descriptions, and the
 * server's id and label (agents name the product, "on GitLab", and several servers offer
 * look-alike tools). An exact or near-exact name match always comes first.
 *
 * One index serves a whole process: documents are added, replaced and removed one tool at a time
 * (the registry does it as it syncs a server whose catalog version moved), and a run's search
 * filters the shared index to the run's tools through `keys`. Term statistics (document frequency,
 * average field lengths) are over every indexed tool, which also keeps a run's ranking independent
 * of what else that run happens to offer.
 */
export class ToolSearchIndex {
  /** Indexes constructed in this process, so a benchmark can show that no run builds one. */
  static created = 0;
  private readonly documents = new Map<number, Document>();
  /** Documents by id, for the scoring loop (a sparse array is faster than a map there). */
  private readonly byId: Array<Document | undefined> = [];
  /** Bumped on every change, so per-run masks of allowed ids know when to refresh. */
  private generation = 0;
  private readonly masks = new WeakMap<ReadonlySet<string>, { generation: number; mask: Uint8Array }>();
  private readonly idsByKey = new Map<string, number>();
  private readonly postings = new Map<string, Map<number, number[]>>();
  private readonly idsByForm = new Map<string, Set<number>>();
  private readonly totalLengths = FIELDS.map(() => 0);
  private readonly vectors = new Map<string, Float32Array>();
  private readonly examples = new Map<string, string>();
  private nextId = 0;
  private writes = 0;
  private removals = 0;
  /** Whether a document was removed (not replaced) since the last {@link ToolSearchIndex.forgetOrphans}. */
  private orphansPossible = false;

  private readonly options: ToolSearchIndexOptions;
  private readonly fieldParameters: FieldParameters[];
  private neighbourCache = { generation: -1, neighbours: new Map<string, string[]>() };

  constructor(entries: readonly ToolEntry[] = [], options: ToolSearchIndexOptions = {}) {
    ToolSearchIndex.created += 1;
    this.options = options;
    this.fieldParameters = FIELDS.map((field) => ({
      ...FIELD_PARAMETERS[field],
      weight: options.fieldWeights?.[field] ?? FIELD_PARAMETERS[field].weight,
    }));
    for (const entry of entries) this.upsert(entry);
  }

  /** Number of indexed entries. */
  get size(): number {
    return this.documents.size;
  }

  /** Work done so far. */
  get stats(): ToolSearchIndexStats {
    return { documents: this.documents.size, documentWrites: this.writes, documentRemovals: this.removals };
  }

  /**
   * How many embeddings and example texts the index holds, by document key: those of removed
   * documents count until {@link ToolSearchIndex.forgetOrphans}.
   */
  get retained(): { vectors: number; examples: number } {
    return { vectors: this.vectors.size, examples: this.examples.size };
  }

  /** Whether an entry with this key is indexed. */
  has(key: string): boolean {
    return this.idsByKey.has(key);
  }

  /** The indexed entry of a key. */
  get(key: string): ToolEntry | undefined {
    const id = this.idsByKey.get(key);
    return id === undefined ? undefined : this.documents.get(id)?.entry;
  }

  /** Adds an entry, or replaces the document with the same key. */
  upsert(entry: ToolEntry): void {
    const key = searchKeyOf(entry);
    this.remove(key, { counted: false });
    const id = this.nextId;
    this.nextId += 1;
    const fields = searchFieldsOf(entry, this.options);
    fields.examples = this.examples.get(key) ?? '';
    const lengths: number[] = [];
    const distinct = new Set<string>();
    FIELDS.forEach((field, fieldIndex) => {
      const { maxTerms } = this.fieldParameters[fieldIndex] as FieldParameters;
      // Text past what can be kept is not analyzed at all (words average well under 16 characters).
      const terms = analyzeText(fields[field].slice(0, maxTerms * 16), 'index', TOOL_SEARCH_STOP_WORDS).slice(
        0,
        maxTerms,
      );
      lengths.push(terms.length);
      this.totalLengths[fieldIndex] = (this.totalLengths[fieldIndex] ?? 0) + terms.length;
      for (const term of terms) {
        let posting = this.postings.get(term);
        if (!posting) {
          posting = new Map();
          this.postings.set(term, posting);
        }
        let frequencies = posting.get(id);
        if (!frequencies) {
          frequencies = FIELDS.map(() => 0);
          posting.set(id, frequencies);
          distinct.add(term);
        }
        frequencies[fieldIndex] = (frequencies[fieldIndex] ?? 0) + 1;
      }
    });
    const forms = nameForms(entry);
    for (const form of forms) {
      const ids = this.idsByForm.get(form) ?? new Set<number>();
      ids.add(id);
      this.idsByForm.set(form, ids);
    }
    const document: Document = { id, key, entry, lengths, terms: [...distinct], forms };
    const vector = this.vectors.get(key);
    if (vector) document.vector = vector;
    this.documents.set(id, document);
    this.byId[id] = document;
    this.idsByKey.set(key, id);
    this.writes += 1;
    this.generation += 1;
  }

  /** Removes the document of `key`. Returns whether it existed. */
  remove(key: string, options: { counted?: boolean } = {}): boolean {
    const id = this.idsByKey.get(key);
    if (id === undefined) return false;
    const document = this.documents.get(id) as Document;
    for (const term of document.terms) {
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(term);
    }
    document.lengths.forEach((length, fieldIndex) => {
      this.totalLengths[fieldIndex] = (this.totalLengths[fieldIndex] ?? 0) - length;
    });
    for (const form of document.forms) {
      const ids = this.idsByForm.get(form);
      ids?.delete(id);
      if (ids?.size === 0) this.idsByForm.delete(form);
    }
    this.documents.delete(id);
    this.byId[id] = undefined;
    this.idsByKey.delete(key);
    this.generation += 1;
    if (options.counted !== false) {
      this.removals += 1;
      this.orphansPossible = true;
    }
    return true;
  }

  /**
   * Drops the embeddings and example texts kept for keys that have no document any more (they
   * outlive a replace on purpose, see {@link ToolSearchIndex.setVector}). A caller that removes
   * tools for good calls this once its own re-registrations are done, so a long-lived process does
   * not hold the vectors of every tool it ever indexed. Costs nothing when nothing was removed.
   * Returns how many were dropped.
   */
  forgetOrphans(): number {
    if (!this.orphansPossible) return 0;
    this.orphansPossible = false;
    let dropped = 0;
    for (const held of [this.vectors, this.examples]) {
      for (const key of held.keys()) {
        if (this.idsByKey.has(key)) continue;
        held.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  /**
   * Sets (or, with `undefined`, clears) the embedding of a document key. Kept across a replace of
   * the document, since the warmer keys vectors by the tool's text and the caller decides when
   * that changed.
   */
  setVector(key: string, vector: Float32Array | undefined): void {
    if (vector) this.vectors.set(key, vector);
    else this.vectors.delete(key);
    const id = this.idsByKey.get(key);
    const document = id === undefined ? undefined : this.documents.get(id);
    if (!document) return;
    if (vector) document.vector = vector;
    else delete document.vector;
  }

  /**
   * Sets (or, with `undefined`, clears) the example requests of a document key, indexed in the
   * `examples` field. Kept across a replace of the document, like vectors; a document already
   * indexed is re-indexed only when its examples changed, and, with `reindex: false`, only at its
   * next {@link ToolSearchIndex.upsert} (for a caller about to replace it anyway).
   */
  setExamples(key: string, examples: readonly string[] | undefined, options: { reindex?: boolean } = {}): void {
    const text = examples?.join('\n') ?? '';
    if ((this.examples.get(key) ?? '') === text) return;
    if (text === '') this.examples.delete(key);
    else this.examples.set(key, text);
    const entry = options.reindex === false ? undefined : this.get(key);
    if (entry) this.upsert(entry);
  }

  /** Entries matching `namespace` and `keys` (or all), sorted by name. */
  list(options: Pick<ToolSearchOptions, 'namespace' | 'keys'> = {}): ToolEntry[] {
    const out: ToolEntry[] = [];
    for (const document of this.candidates(options.keys)) {
      if (this.allowed(document, options)) out.push(document.entry);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The top `limit` entries for `query`, best first. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    const hits: ToolSearchHit[] = [];
    const taken = new Set<number>();
    this.nameMatches(query, options, hits, taken);

    const first = this.firstStage(query, options, taken);
    const { rerank = TOOL_SEARCH_RERANK_MODEL } = this.options;
    const lexical = rerank ? rerankTop(rerank, first.source, first.lexical) : first.lexical;
    const vector = options.queryVector ? this.vectorRanking(options.queryVector, options, taken) : [];
    if (vector.length === 0) {
      hits.push(...lexical);
    } else {
      const byKey = new Map<string, ToolSearchHit>();
      for (const hit of [...lexical, ...vector]) if (!byKey.has(hit.key)) byKey.set(hit.key, hit);
      const fused = fuseRankings([lexical.map((hit) => hit.key), vector.map((hit) => hit.key)]);
      hits.push(
        ...fused
          .map(({ key, score }): ToolSearchHit => ({ ...(byKey.get(key) as ToolSearchHit), score, match: 'text' }))
          .sort(byName),
      );
    }
    return hits.slice(0, limit);
  }

  /**
   * The first stage's top `depth` text hits for `query` (name matches left out), each with its
   * reranker features: what `bench/search/train-reranker.ts` trains a {@link RerankModel} on.
   */
  rerankCandidates(
    query: string,
    options: ToolSearchOptions & { depth: number },
  ): Array<{ key: string; entry: ToolEntry; features: Float64Array }> {
    const taken = new Set<number>();
    this.nameMatches(query, options, [], taken);
    const { lexical, source } = this.firstStage(query, options, taken);
    const top = lexical.slice(0, options.depth);
    const features = rerankFeatures(source, top);
    return top.map((hit, index) => ({ key: hit.key, entry: hit.entry, features: features[index] as Float64Array }));
  }

  /** BM25F over the query's words (and feedback terms, when on), best first, and what a reranker reads of it. */
  private firstStage(
    query: string,
    options: ToolSearchOptions,
    taken: Set<number>,
  ): { lexical: ToolSearchHit[]; source: RerankSource } {
    let groups = this.queryGroups(query);
    const counted = groups.length;
    let lexical = this.lexicalRanking(groups, counted, options, taken);
    const { feedback } = this.options;
    if (feedback && lexical.length > 0) {
      const expansion = this.feedbackGroups(lexical, groups, feedback);
      if (expansion.length > 0) {
        groups = [...groups, ...expansion];
        lexical = this.lexicalRanking(groups, counted, options, taken);
      }
    }
    return { lexical, source: this.rerankSource(groups, counted, options.queryVector) };
  }

  private rerankSource(
    groups: QueryGroup[],
    counted: number,
    queryVector: readonly number[] | undefined,
  ): RerankSource {
    const count = this.documents.size;
    const queryNorm = queryVector ? squaredNorm(queryVector) : 0;
    return {
      fields: this.fieldParameters.map(({ weight, b }, index) => ({
        weight,
        b,
        average: count === 0 ? 1 : Math.max((this.totalLengths[index] ?? 0) / count, 1),
      })),
      groups,
      counted,
      idf: (term) => {
        const posting = this.postings.get(term);
        return posting ? bm25Idf(count, posting.size) : undefined;
      },
      postings: (term) => this.postings.get(term),
      idOf: (key) => this.idsByKey.get(key) ?? -1,
      lengths: (id) => this.byId[id]?.lengths ?? [],
      vectorSimilarity: (id) => {
        const vector = this.byId[id]?.vector;
        if (!queryVector || !vector || vector.length !== queryVector.length) return 0;
        return cosineSimilarity(vector, queryVector, queryNorm);
      },
    };
  }

  private *candidates(keys: ReadonlySet<string> | undefined): Iterable<Document> {
    if (keys === undefined) {
      yield* this.documents.values();
      return;
    }
    for (const key of keys) {
      const id = this.idsByKey.get(key);
      const document = id === undefined ? undefined : this.documents.get(id);
      if (document) yield document;
    }
  }

  /** One byte per document id: 1 when the id's key is in `keys`. Cached per key set and index generation. */
  private maskOf(keys: ReadonlySet<string>): Uint8Array {
    const cached = this.masks.get(keys);
    if (cached && cached.generation === this.generation) return cached.mask;
    const mask = new Uint8Array(this.nextId);
    for (const key of keys) {
      const id = this.idsByKey.get(key);
      if (id !== undefined) mask[id] = 1;
    }
    this.masks.set(keys, { generation: this.generation, mask });
    return mask;
  }

  private allowed(document: Document, options: Pick<ToolSearchOptions, 'namespace' | 'keys'>): boolean {
    if (options.keys !== undefined && !options.keys.has(document.key)) return false;
    if (options.namespace === undefined) return true;
    return document.entry.namespace === options.namespace || labelOf(document.entry) === options.namespace;
  }

  private nameMatches(query: string, options: ToolSearchOptions, hits: ToolSearchHit[], taken: Set<number>): void {
    const wanted = normalizeName(query);
    if (wanted === '') return;
    for (const id of this.idsByForm.get(wanted) ?? []) {
      const document = this.documents.get(id);
      if (!document || !this.allowed(document, options)) continue;
      hits.push({ key: document.key, entry: document.entry, score: Number.POSITIVE_INFINITY, match: 'exact-name' });
      taken.add(id);
    }
    // A typo in a name: only for a query that is one identifier, never for a sentence.
    if (wanted.length < NEAR_NAME_MIN_LENGTH || /\s/.test(query.trim())) return;
    const limit = wanted.length >= 10 ? 2 : 1;
    const near: ToolSearchHit[] = [];
    for (const document of this.candidates(options.keys)) {
      if (taken.has(document.id) || !this.allowed(document, options)) continue;
      if (document.forms.some((form) => editDistanceAtMost(form, wanted, limit))) {
        near.push({ key: document.key, entry: document.entry, score: Number.MAX_VALUE, match: 'near-name' });
        taken.add(document.id);
      }
    }
    hits.push(...near.sort(byName));
  }

  /**
   * The query's terms, each with its alternatives: the term itself at weight 1, and, with a
   * synonym source, the stems of its synonyms at {@link ToolSearchIndexOptions.synonymWeight}.
   */
  private queryGroups(query: string): QueryGroup[] {
    const terms = [...new Set(analyzeText(query, 'query', TOOL_SEARCH_STOP_WORDS))];
    const groups = terms.map((term) => [{ term, weight: 1 }]);
    const add = (group: QueryGroup, term: string, weight: number) => {
      if (!group.some((alternative) => alternative.term === term)) group.push({ term, weight });
    };
    const { verbClassWeight = DEFAULT_VERB_CLASS_WEIGHT, cooccurrence } = this.options;
    for (const group of groups) {
      const own = group[0]?.term as string;
      if (verbClassWeight > 0) {
        for (const verb of VERB_CLASS_OF.get(own) ?? []) add(group, verb, verbClassWeight);
      }
      if (cooccurrence) {
        for (const neighbour of this.neighboursOf(own, cooccurrence)) add(group, neighbour, cooccurrence.weight);
      }
    }
    const synonymsOf = this.options.synonyms;
    if (!synonymsOf) return groups;
    const weight = this.options.synonymWeight ?? DEFAULT_SYNONYM_WEIGHT;
    for (const word of query.split(/[^\p{L}\p{N}]+/u)) {
      const [own] = analyzeText(word, 'query', TOOL_SEARCH_STOP_WORDS);
      const group = groups.find((candidate) => candidate[0]?.term === own);
      if (!group) continue;
      for (const synonym of synonymsOf(word)) {
        for (const term of analyzeText(synonym, 'query', TOOL_SEARCH_STOP_WORDS)) {
          if (!group.some((alternative) => alternative.term === term)) group.push({ term, weight });
        }
      }
    }
    return groups;
  }

  /**
   * The words that most often share a tool's name, title or description with `term`, by cosine of
   * their document sets; cached until the index changes.
   */
  private neighboursOf(term: string, settings: NonNullable<ToolSearchIndexOptions['cooccurrence']>): string[] {
    if (this.neighbourCache.generation !== this.generation) {
      this.neighbourCache = { generation: this.generation, neighbours: new Map() };
    }
    const cached = this.neighbourCache.neighbours.get(term);
    if (cached) return cached;
    const own = this.postings.get(term);
    const shared = new Map<string, number>();
    for (const [id, frequencies] of own ?? []) {
      if (!inText(frequencies)) continue;
      for (const other of (this.byId[id] as Document).terms) {
        if (other === term || !inText(this.postings.get(other)?.get(id))) continue;
        shared.set(other, (shared.get(other) ?? 0) + 1);
      }
    }
    const size = own?.size ?? 0;
    const minShared = settings.minShared ?? 2;
    const neighbours = [...shared]
      .filter(([, count]) => count >= minShared)
      .map(([other, count]) => ({ other, score: count / Math.sqrt(size * (this.postings.get(other)?.size ?? 1)) }))
      .sort((left, right) => right.score - left.score || (left.other < right.other ? -1 : 1))
      .slice(0, settings.neighbours)
      .map(({ other }) => other);
    this.neighbourCache.neighbours.set(term, neighbours);
    return neighbours;
  }

  /**
   * RM3-style expansion: the terms of the top hits' names, titles and descriptions, each weighed by
   * its share of those texts times the hit's share of the top scores, times its idf.
   */
  private feedbackGroups(
    ranked: readonly ToolSearchHit[],
    groups: readonly QueryGroup[],
    settings: NonNullable<ToolSearchIndexOptions['feedback']>,
  ): QueryGroup[] {
    const top = ranked.slice(0, settings.documents);
    const total = top.reduce((sum, hit) => sum + hit.score, 0);
    if (total <= 0) return [];
    const inQuery = new Set(groups.flatMap((group) => group.map((alternative) => alternative.term)));
    const weights = new Map<string, number>();
    for (const hit of top) {
      const id = this.idsByKey.get(hit.key);
      if (id === undefined) continue;
      const document = this.byId[id] as Document;
      const length = (document.lengths[0] ?? 0) + (document.lengths[1] ?? 0) + (document.lengths[2] ?? 0);
      if (length === 0) continue;
      for (const term of document.terms) {
        if (inQuery.has(term)) continue;
        const frequencies = this.postings.get(term)?.get(id);
        if (!frequencies || !inText(frequencies)) continue;
        const frequency = (frequencies[0] ?? 0) + (frequencies[1] ?? 0) + (frequencies[2] ?? 0);
        weights.set(term, (weights.get(term) ?? 0) + ((hit.score / total) * frequency) / length);
      }
    }
    const count = this.documents.size;
    const scored = [...weights]
      .map(([term, weight]) => ({ term, weight: weight * bm25Idf(count, this.postings.get(term)?.size ?? count) }))
      .sort((left, right) => right.weight - left.weight || (left.term < right.term ? -1 : 1))
      .slice(0, settings.terms);
    const best = scored[0]?.weight ?? 0;
    if (best <= 0) return [];
    return scored.map(({ term, weight }) => [{ term, weight: (settings.weight * weight) / best }]);
  }

  /**
   * BM25F over `groups` (one query word each, with its alternatives); the first `counted` groups
   * are the query's own words, the rest expansion terms that add to a score but not to its
   * coordination.
   */
  private lexicalRanking(
    groups: readonly QueryGroup[],
    counted: number,
    options: ToolSearchOptions,
    taken: Set<number>,
  ): ToolSearchHit[] {
    if (groups.length === 0) return [];
    const count = this.documents.size;
    const averages = this.totalLengths.map((total) => (count === 0 ? 1 : Math.max(total / count, 1)));
    // Per document and query term: the best alternative's score and weight.
    const best = new Map<number, { scores: Float64Array; weights: Float64Array }>();
    const mask = options.keys === undefined ? undefined : this.maskOf(options.keys);
    const parameters = this.fieldParameters;
    const idfOf = (size: number) => bm25Idf(count, size);
    const groupIdf = groups.map((group) => {
      const own = this.postings.get(group[0]?.term ?? '');
      if (own) return idfOf(own.size);
      // A word the catalog never uses counts as much as the rarest synonym that it does use.
      let idf = 0;
      for (const { term } of group) idf = Math.max(idf, idfOf(this.postings.get(term)?.size ?? count));
      return idf;
    });
    groups.forEach((group, groupIndex) => {
      for (const { term, weight: alternativeWeight } of group) {
        const posting = this.postings.get(term);
        if (!posting) continue;
        const idf = idfOf(posting.size);
        for (const [id, frequencies] of posting) {
          if (mask !== undefined && mask[id] !== 1) continue;
          if (taken.has(id)) continue;
          const document = this.byId[id] as Document;
          if (options.namespace !== undefined && !this.allowed(document, options)) continue;
          let weighted = 0;
          for (let fieldIndex = 0; fieldIndex < frequencies.length; fieldIndex += 1) {
            const frequency = frequencies[fieldIndex] as number;
            if (frequency === 0) continue;
            const { weight, b } = parameters[fieldIndex] as FieldParameters;
            const norm = bm25LengthNorm(document.lengths[fieldIndex] as number, averages[fieldIndex] as number, b);
            weighted += (weight * frequency) / norm;
          }
          const score = alternativeWeight * bm25TermScore(idf, weighted);
          let known = best.get(id);
          if (!known) {
            known = { scores: new Float64Array(groups.length), weights: new Float64Array(groups.length) };
            best.set(id, known);
          }
          if (score > (known.scores[groupIndex] as number)) {
            known.scores[groupIndex] = score;
            known.weights[groupIndex] = alternativeWeight;
          }
        }
      }
    });
    // Coordination: BM25 sums per-term scores, so one rare word in a short name can outrank a
    // tool that matches the whole need. Scale by the share of the query's weight (idf) matched:
    // missing a rare word costs much, missing a common one ("make", "get") little; a term matched
    // only through a synonym counts at the synonym's weight.
    let queryWeight = 0;
    for (let groupIndex = 0; groupIndex < counted; groupIndex += 1) queryWeight += groupIdf[groupIndex] as number;
    const ranked: ToolSearchHit[] = [];
    for (const [id, { scores, weights }] of best) {
      let score = 0;
      let covered = 0;
      for (let groupIndex = 0; groupIndex < groups.length; groupIndex += 1) {
        score += scores[groupIndex] as number;
        if (groupIndex < counted) covered += (groupIdf[groupIndex] as number) * (weights[groupIndex] as number);
      }
      const document = this.byId[id] as Document;
      const coverage = queryWeight === 0 ? 0 : covered / queryWeight;
      ranked.push({ key: document.key, entry: document.entry, score: score * coverage ** COORDINATION, match: 'text' });
    }
    return ranked.sort(byName);
  }

  private vectorRanking(
    queryVector: readonly number[],
    options: ToolSearchOptions,
    taken: Set<number>,
  ): ToolSearchHit[] {
    const norm = squaredNorm(queryVector);
    const ranked: ToolSearchHit[] = [];
    for (const document of this.candidates(options.keys)) {
      if (taken.has(document.id) || !document.vector || document.vector.length !== queryVector.length) continue;
      if (!this.allowed(document, options)) continue;
      const score = cosineSimilarity(document.vector, queryVector, norm);
      if (score > 0) ranked.push({ key: document.key, entry: document.entry, score, match: 'text' });
    }
    return ranked.sort(byName).slice(0, 100);
  }
}
