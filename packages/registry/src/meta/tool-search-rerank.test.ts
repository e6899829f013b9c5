import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../test-support/fixtures.js';
import { ToolSearchIndex } from './tool-search-index.js';
import {
  RERANK_FEATURES,
  rerankFeatures,
  rerankScore,
  rerankTop,
  validateRerankModel,
  type RerankModel,
  type RerankSource,
} from './tool-search-rerank.js';
import { TOOL_SEARCH_RERANK_MODEL } from './tool-search-rerank-weights.js';

const size = RERANK_FEATURES.length;
const at = (name: (typeof RERANK_FEATURES)[number]) => RERANK_FEATURES.indexOf(name);

/** A two-document source (ids 0 and 1, keys a and b) over fields name, title, description, params, values, server. */
function source(rename: (term: string) => string = (term) => term): RerankSource {
  const postings = new Map<string, Map<number, number[]>>([
    [
      rename('issue'),
      new Map([
        [0, [1, 0, 1, 0, 0, 0]],
        [1, [0, 0, 1, 0, 0, 0]],
      ]),
    ],
    [rename('gitlab'), new Map([[1, [0, 0, 0, 0, 0, 1]]])],
    [rename('make'), new Map([[0, [1, 0, 0, 0, 0, 0]]])],
  ]);
  const lengths = [
    [2, 0, 8, 3, 0, 1],
    [3, 0, 12, 0, 0, 1],
  ];
  const idfs = new Map([
    [rename('issue'), 1],
    [rename('gitlab'), 2],
    [rename('make'), 0.5],
  ]);
  return {
    fields: Array.from({ length: 6 }, () => ({ weight: 1, b: 0.5, average: 4 })),
    groups: [
      [{ term: rename('issue'), weight: 1 }],
      [{ term: rename('gitlab'), weight: 1 }],
      [
        { term: rename('create'), weight: 1 },
        { term: rename('make'), weight: 0.15 },
      ],
    ],
    counted: 3,
    idf: (term) => idfs.get(term),
    postings: (term) => postings.get(term),
    idOf: (key) => ({ a: 0, b: 1 })[key] ?? -1,
    lengths: (id) => lengths[id] ?? [],
    vectorSimilarity: (id) => (id === 0 ? 0.25 : 0),
  };
}

function model(weights: Partial<Record<(typeof RERANK_FEATURES)[number], number>>, depth = 30): RerankModel {
  return {
    features: [...RERANK_FEATURES],
    mean: new Array<number>(size).fill(0),
    scale: new Array<number>(size).fill(1),
    weights: RERANK_FEATURES.map((name) => weights[name] ?? 0),
    depth,
  };
}

describe('rerankFeatures', () => {
  const candidates = [
    { key: 'a', score: 4 },
    { key: 'b', score: 2 },
  ];

  it('computes rank, coverage, name, server, size and vector features', () => {
    const [a, b] = rerankFeatures(source(), candidates) as [Float64Array, Float64Array];
    expect(a[at('reciprocalRank')]).toBe(1);
    expect(b[at('reciprocalRank')]).toBe(0.5);
    expect(b[at('scoreShareOfTop')]).toBe(0.5);
    // a matches "issue" (idf 1) of a query weighing 1 + 2 + 0.5 (create is unknown, so it weighs
    // as its known alternative "make"); b matches "issue" and "gitlab".
    expect(a[at('coordination')]).toBeCloseTo(1 / 3.5);
    expect(b[at('coordination')]).toBeCloseTo(3 / 3.5);
    expect(a[at('nameTermsMatched')]).toBeCloseTo(1 / 3);
    expect(b[at('nameTermsMatched')]).toBe(0);
    expect(b[at('descriptionTermsMatched')]).toBeCloseTo(1 / 3);
    expect(a[at('nameCoverage')]).toBe(0.5);
    expect(a[at('serverMatched')]).toBe(0);
    expect(b[at('serverMatched')]).toBe(1);
    expect(b[at('bm25Server')]).toBeGreaterThan(0);
    expect(a[at('bm25Server')]).toBe(0);
    expect(a[at('alternativeScore')]).toBeGreaterThan(0);
    expect(b[at('alternativeScore')]).toBe(0);
    expect(a[at('schemaSize')]).toBeCloseTo(Math.log(4));
    expect(a[at('descriptionLength')]).toBeCloseTo(Math.log(9));
    expect(a[at('vectorSimilarity')]).toBe(0.25);
  });

  it('depends on no particular word: renaming every term gives the same features', () => {
    const plain = rerankFeatures(source(), candidates);
    const renamed = rerankFeatures(
      source((term) => `x${term.length}${term.split('').reverse().join('')}`),
      candidates,
    );
    expect(renamed.map((row) => [...row])).toEqual(plain.map((row) => [...row]));
  });
});

describe('rerankScore and rerankTop', () => {
  it('scores a dot product over standardised features', () => {
    const features = new Float64Array(size);
    features[at('coordination')] = 3;
    features[at('serverMatched')] = 1;
    const standardised = { ...model({ coordination: 2, serverMatched: -1 }) };
    const mean = new Array<number>(size).fill(0);
    mean[at('coordination')] = 1;
    const scale = new Array<number>(size).fill(1);
    scale[at('coordination')] = 4;
    expect(rerankScore({ ...standardised, mean, scale }, features)).toBeCloseTo(2 * ((3 - 1) / 4) - 1);
  });

  it('reorders the top candidates by the model, ties keeping the first stage order', () => {
    const ranked = [
      { key: 'a', score: 4 },
      { key: 'b', score: 2 },
    ];
    expect(rerankTop(model({ serverMatched: 1 }), source(), ranked).map((hit) => hit.key)).toEqual(['b', 'a']);
    expect(rerankTop(model({}), source(), ranked).map((hit) => hit.key)).toEqual(['a', 'b']);
  });

  it('never moves a candidate below depth into the top, nor one of the top below depth', () => {
    const ranked = [
      { key: 'a', score: 4 },
      { key: 'c', score: 3 },
      { key: 'b', score: 2 },
    ];
    // b would win on serverMatched, but it is third and the depth is 2.
    const out = rerankTop(model({ serverMatched: 5, reciprocalRank: -1 }, 2), source(), ranked);
    expect(out.map((hit) => hit.key)).toEqual(['c', 'a', 'b']);
    expect(out[2]).toBe(ranked[2]);
  });
});

describe('validateRerankModel', () => {
  it('accepts the trained weights, which fit the features', () => {
    expect(validateRerankModel(TOOL_SEARCH_RERANK_MODEL)).toBe(TOOL_SEARCH_RERANK_MODEL);
    expect(TOOL_SEARCH_RERANK_MODEL.features).toEqual(RERANK_FEATURES);
  });

  it.each([
    ['features', { features: RERANK_FEATURES.slice(1) }],
    ['weights', { weights: [...new Array<number>(size - 1).fill(0), Number.NaN] }],
    ['scale', { scale: new Array<number>(size).fill(0) }],
    ['depth', { depth: 1 }],
  ])('rejects a model with bad %s', (_, change) => {
    expect(() => validateRerankModel({ ...model({}), ...change })).toThrow(TypeError);
  });
});

describe('ToolSearchIndex with a reranker', () => {
  // The more "report", the higher the first stage ranks a tool; the later, the more parameters.
  const entries = ['alpha', 'beta', 'gamma', 'delta'].map((name, position) => {
    const description = `${'report '.repeat(4 - position)}on things`;
    const properties = Object.fromEntries([...new Array<number>(position * 3).keys()].map((k) => [`p${k}`, {}]));
    return makeEntry(`mcp__s__${name}`, {
      namespace: 'mcp:s',
      description,
      tool: makeTool({ description, schema: { type: 'object', properties } }),
    });
  });
  const order = (index: ToolSearchIndex) => index.search('report', { limit: 10 }).map((hit) => hit.entry.name);

  it('reorders only the top depth of the lexical ranking', () => {
    const first = order(new ToolSearchIndex(entries, { rerank: false }));
    expect(first).toEqual(['mcp__s__alpha', 'mcp__s__beta', 'mcp__s__gamma', 'mcp__s__delta']);
    // Favouring large schemas would put delta first; with depth 2 only alpha and beta swap.
    const reranked = order(new ToolSearchIndex(entries, { rerank: model({ schemaSize: 1 }, 2) }));
    expect(reranked).toEqual(['mcp__s__beta', 'mcp__s__alpha', 'mcp__s__gamma', 'mcp__s__delta']);
  });

  it('returns the first stage candidates with their features for training', () => {
    const candidates = new ToolSearchIndex(entries).rerankCandidates('report', { depth: 3 });
    expect(candidates.map((candidate) => candidate.entry.name)).toEqual([
      'mcp__s__alpha',
      'mcp__s__beta',
      'mcp__s__gamma',
    ]);
    expect(candidates.every((candidate) => candidate.features.length === size)).toBe(true);
  });
});
