import { digestOf } from '@agentq/shared';
import MiniSearch, { type SearchResult } from 'minisearch';
import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';
import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import { parseMcpWireName } from '../wire-names/mcp-wire-name.js';
import { normalizeName, processTerm, queryTerms, splitWords } from './search-terms.js';

/** Results of a search returned when no `limit` is given. */
export const DEFAULT_SEARCH_LIMIT = 8;

/** Options of {@link ToolSearchIndex.search}. */
export interface ToolSearchOptions {
  /** Keeps only entries whose namespace or label equals this. */
  namespace?: string;
  /** @default 8 */
  limit?: number;
}

/** One ranked hit. */
export interface ToolSearchHit {
  entry: ToolEntry;
  score: number;
  /** How the hit was found: an exact or near-exact name match ranks before every text match. */
  match: 'exact-name' | 'near-name' | 'text';
}

interface IndexedDocument {
  id: number;
  name: string;
  title: string;
  description: string;
  params: string;
  server: string;
}

const FIELD_BOOST = { name: 3, title: 2, server: 1.5, description: 1, params: 0.6 };
/** Weight of a synonym relative to the word the query used. */
const SYNONYM_WEIGHT = 0.35;

function parameterText(schema: Record<string, unknown>, depth = 0): string[] {
  if (depth > 2) return [];
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
    out.push(key);
    if (typeof value === 'object' && value !== null) {
      const property = value as Record<string, unknown>;
      if (typeof property.description === 'string') out.push(property.description);
      out.push(...parameterText(property, depth + 1));
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

/**
 * BM25 ranking (minisearch) over deferred tools: name words, title, description, parameter names
 * and descriptions, and the server's label and display name, since agents name the product ("on
 * GitLab") and several servers offer look-alike tools. An exact or near-exact name match always
 * comes first. Build it once per tool set; {@link createToolSearchIndex} caches it.
 */
export class ToolSearchIndex {
  private readonly search_: MiniSearch<IndexedDocument>;
  private readonly entries: ToolEntry[];
  private readonly forms: string[][];

  constructor(entries: readonly ToolEntry[]) {
    this.entries = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.forms = this.entries.map(nameForms);
    this.search_ = new MiniSearch<IndexedDocument>({
      fields: ['name', 'title', 'description', 'params', 'server'],
      idField: 'id',
      tokenize: splitWords,
      processTerm,
    });
    this.search_.addAll(
      this.entries.map((entry, id) => {
        const names = [entry.name, entry.mcp?.toolName ?? ''];
        return {
          id,
          name: names.join(' '),
          title: entry.tool.title ?? '',
          description: [entry.tool.description ?? '', entry.description].join(' '),
          params: parameterText(toolJsonSchema(entry.tool)).join(' '),
          server: [entry.namespace, labelOf(entry)].join(' '),
        };
      }),
    );
  }

  /** Number of indexed entries. */
  get size(): number {
    return this.entries.length;
  }

  /** Entries matching `namespace` (or all), sorted by name. */
  list(namespace?: string): ToolEntry[] {
    return namespace === undefined ? [...this.entries] : this.entries.filter((entry) => inNamespace(entry, namespace));
  }

  /** The top `limit` entries for `query`, best first. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    const allowed = (id: number) => {
      const entry = this.entries[id];
      return entry !== undefined && (options.namespace === undefined || inNamespace(entry, options.namespace));
    };
    const hits: ToolSearchHit[] = [];
    const taken = new Set<number>();

    const wanted = normalizeName(query);
    if (wanted !== '') {
      const near: number[] = [];
      this.forms.forEach((forms, id) => {
        if (!allowed(id)) return;
        if (forms.includes(wanted)) {
          hits.push({ entry: this.entries[id] as ToolEntry, score: Number.POSITIVE_INFINITY, match: 'exact-name' });
          taken.add(id);
        } else if (
          wanted.length >= 5 &&
          forms.some((form) => editDistanceAtMost(form, wanted, wanted.length >= 10 ? 2 : 1))
        ) {
          near.push(id);
        }
      });
      for (const id of near) {
        hits.push({ entry: this.entries[id] as ToolEntry, score: Number.MAX_VALUE, match: 'near-name' });
        taken.add(id);
      }
    }

    const { terms, expansions, synonymsOf } = queryTerms(query);
    if (terms.length > 0) {
      const fuzzy = (term: string) => (term.length >= 6 ? 0.2 : false);
      const prefix = (term: string) => term.length >= 4;
      const queries: Array<string | { queries: string[]; boostTerm: () => number }> = [...terms];
      if (expansions.length > 0) queries.push({ queries: expansions, boostTerm: () => SYNONYM_WEIGHT });
      const results: SearchResult[] = this.search_.search(
        { queries, combineWith: 'OR' },
        { boost: FIELD_BOOST, fuzzy, prefix, filter: (result) => allowed(result.id as number) },
      );
      // Coordination: BM25 sums per-term scores, so one frequent word in a short name field can
      // outrank a tool that matches the whole need. Scale by the share of query words matched
      // (directly, by prefix or typo, or through a synonym).
      const textHits: ToolSearchHit[] = [];
      for (const result of results) {
        const id = result.id as number;
        if (taken.has(id)) continue;
        const matched = new Set(result.queryTerms);
        const covered = terms.filter(
          (term) => matched.has(term) || (synonymsOf.get(term) ?? []).some((synonym) => matched.has(synonym)),
        ).length;
        textHits.push({
          entry: this.entries[id] as ToolEntry,
          score: result.score * (covered / terms.length),
          match: 'text',
        });
      }
      textHits.sort((a, b) => b.score - a.score || (a.entry.name < b.entry.name ? -1 : 1));
      hits.push(...textHits);
    }
    return hits.slice(0, limit);
  }
}

function inNamespace(entry: ToolEntry, namespace: string): boolean {
  return entry.namespace === namespace || labelOf(entry) === namespace;
}

/** Identity of a tool set for the index cache: names, schemas and labels. */
export function toolSetKey(entries: readonly ToolEntry[]): string {
  const parts = entries
    .map((entry) => [
      entry.name,
      entry.mcp?.schemaDigest ?? digestOf(toolJsonSchema(entry.tool), 16),
      labelOf(entry),
      entry.description,
    ])
    .sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1));
  return digestOf(parts);
}

const CACHE_SIZE = 16;
const cache = new Map<string, ToolSearchIndex>();

/**
 * The search index of `entries`, built once per distinct tool set (names, schema digests, labels)
 * and reused by every run and step that offers the same deferred pool.
 */
export function createToolSearchIndex(entries: readonly ToolEntry[]): ToolSearchIndex {
  const key = toolSetKey(entries);
  const known = cache.get(key);
  if (known) {
    cache.delete(key);
    cache.set(key, known);
    return known;
  }
  const index = new ToolSearchIndex(entries);
  cache.set(key, index);
  while (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
  return index;
}
