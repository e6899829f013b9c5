// Trains the tool search reranker on the development half of the evaluation set only, and reports
// it by cross-validation within that half:
// `npx tsx bench/search/train-reranker.ts [--folds 5] [--depth 30] [--l2 0.01] [--write]`.
// Folds are grouped by server (every query of a server in one fold), so a fold's tools are unseen
// by the model scored on it. `--write` trains on the whole dev half and writes the weights to
// packages/registry/src/meta/tool-search-rerank-weights.ts. The frozen test half is never read here.
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format as prettierFormat, resolveConfig } from 'prettier';
import {
  RERANK_FEATURES,
  ToolRegistry,
  ToolSearchIndex,
  validateRerankModel,
  type RerankModel,
  type ToolEntry,
} from '@agentq/registry';
import {
  evalIdOf,
  loadDevHalf,
  metaToolRanker,
  scoreRanker,
  type EvalQuery,
  type Ranker,
  type Scores,
} from './tool-search-eval.js';

const here = dirname(fileURLToPath(import.meta.url));

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

/** One query's candidates: features and whether each is an expected tool. */
interface TrainingQuery {
  query: EvalQuery;
  features: Float64Array[];
  relevant: boolean[];
}

function trainingQueries(index: ToolSearchIndex, queries: readonly EvalQuery[], depth: number): TrainingQuery[] {
  return queries.map((query) => {
    const candidates = index.rerankCandidates(query.query, { depth });
    return {
      query,
      features: candidates.map((candidate) => candidate.features),
      relevant: candidates.map((candidate) => query.expected.includes(evalIdOf(candidate.entry))),
    };
  });
}

function standardisation(data: readonly TrainingQuery[]): { mean: number[]; scale: number[] } {
  const size = RERANK_FEATURES.length;
  const rows = data.flatMap((one) => one.features);
  const mean = Array.from({ length: size }, (_, index) => rows.reduce((sum, row) => sum + (row[index] ?? 0), 0));
  for (let index = 0; index < size; index += 1) mean[index] = (mean[index] as number) / Math.max(rows.length, 1);
  const scale = mean.map((average, index) => {
    const variance = rows.reduce((sum, row) => sum + ((row[index] ?? 0) - average) ** 2, 0) / Math.max(rows.length, 1);
    return variance > 1e-12 ? Math.sqrt(variance) : 1;
  });
  return { mean, scale };
}

/**
 * Pairwise logistic loss (RankNet) over every expected/other pair of a query's candidates, each
 * query weighing the same, with L2 regularisation; full-batch gradient descent from zero, so the
 * result is deterministic. The loss is convex: the weights do not depend on a seed.
 */
function train(data: readonly TrainingQuery[], options: { depth: number; l2: number; steps: number }): RerankModel {
  const { mean, scale } = standardisation(data);
  const size = RERANK_FEATURES.length;
  const standard = data.map((one) => ({
    rows: one.features.map((row) =>
      Array.from(row, (value, index) => (value - (mean[index] ?? 0)) / (scale[index] ?? 1)),
    ),
    relevant: one.relevant,
  }));
  const usable = standard.filter((one) => one.relevant.includes(true) && one.relevant.includes(false));
  const weights = new Array<number>(size).fill(0);
  const rate = 0.5;
  for (let step = 0; step < options.steps; step += 1) {
    const gradient = weights.map((weight) => options.l2 * weight);
    for (const { rows, relevant } of usable) {
      const scores = rows.map((row) => row.reduce((sum, value, index) => sum + value * (weights[index] ?? 0), 0));
      const positives = rows.flatMap((_, index) => (relevant[index] ? [index] : []));
      const negatives = rows.flatMap((_, index) => (relevant[index] ? [] : [index]));
      const pairWeight = 1 / (positives.length * negatives.length * usable.length);
      for (const positive of positives) {
        for (const negative of negatives) {
          const margin = (scores[positive] ?? 0) - (scores[negative] ?? 0);
          const pull = -pairWeight / (1 + Math.exp(margin));
          for (let index = 0; index < size; index += 1) {
            gradient[index] =
              (gradient[index] ?? 0) + pull * ((rows[positive]?.[index] ?? 0) - (rows[negative]?.[index] ?? 0));
          }
        }
      }
    }
    for (let index = 0; index < size; index += 1)
      weights[index] = (weights[index] ?? 0) - rate * (gradient[index] ?? 0);
  }
  const round = (value: number) => Number(value.toFixed(6));
  return validateRerankModel({
    features: [...RERANK_FEATURES],
    mean: mean.map(round),
    scale: scale.map(round),
    weights: weights.map(round),
    depth: options.depth,
  });
}

/** Folds grouped by the server of a query's first expected tool, servers dealt round-robin in sorted order. */
function foldsOf(queries: readonly EvalQuery[], folds: number): Map<EvalQuery, number> {
  const serverOf = (query: EvalQuery) => (query.expected[0] ?? '').split('/')[0] ?? '';
  const servers = [...new Set(queries.map(serverOf))].sort();
  const foldOfServer = new Map(servers.map((server, position) => [server, position % folds]));
  return new Map(queries.map((query) => [query, foldOfServer.get(serverOf(query)) ?? 0]));
}

function rankerWith(entries: readonly ToolEntry[], rerank: RerankModel | false): Ranker {
  const registry = new ToolRegistry({ search: { rerank } });
  for (const entry of entries) registry.register(entry);
  return metaToolRanker(entries, { registry });
}

const format = (scores: Scores) =>
  `${scores.recallAt5.toFixed(3)} / ${scores.recallAt1.toFixed(3)} / ${scores.mrrAt10.toFixed(3)}`;

async function report(label: string, queries: readonly EvalQuery[], rank: Ranker): Promise<void> {
  const kinds = [...new Set(queries.map((query) => query.kind))].sort();
  const cells = [`all (${queries.length}) ${format(await scoreRanker(queries, rank))}`];
  for (const kind of kinds) {
    const subset = queries.filter((query) => query.kind === kind);
    cells.push(`${kind} (${subset.length}) ${format(await scoreRanker(subset, rank))}`);
  }
  console.log(`${label}: ${cells.join(' | ')}`);
}

function weightsFile(model: RerankModel, command: string): string {
  return `// Generated by \`${command}\`:
// a pairwise linear model trained on the development half of bench/data/tool-search-eval
// (queries.json, split "dev") only; the frozen test half was not read.
// Features and their order: RERANK_FEATURES in tool-search-rerank.ts. Regenerate after changing them.
import type { RerankModel } from './tool-search-rerank.js';

/** The trained tool search reranker (see docs/benchmarks.md for how it scores). */
export const TOOL_SEARCH_RERANK_MODEL: RerankModel = ${JSON.stringify(model, null, 2)};
`;
}

const { dev, entries } = await loadDevHalf();
const depth = flag('--depth', 30);
const l2 = flag('--l2', 0.01);
const steps = flag('--steps', 300);
const folds = flag('--folds', 5);
const firstStage = new ToolSearchIndex(entries, { rerank: false });
const data = trainingQueries(firstStage, dev, depth);
const foldOf = foldsOf(dev, folds);
const rankers: Ranker[] = [];
const models: RerankModel[] = [];
for (let fold = 0; fold < folds; fold += 1) {
  const model = train(
    data.filter((one) => foldOf.get(one.query) !== fold),
    { depth, l2, steps },
  );
  models.push(model);
  rankers.push(rankerWith(entries, model));
}
const foldByText = new Map(dev.map((query) => [query.query, foldOf.get(query) ?? 0]));
const crossValidated: Ranker = (query) => (rankers[foldByText.get(query) ?? 0] as Ranker)(query);
const whole = train(data, { depth, l2, steps });
console.log(`dev: ${dev.length} queries, ${folds} folds grouped by server, depth ${depth}, l2 ${l2}, ${steps} steps`);
console.log(
  `queries with an expected tool among the first ${depth} (not a name match): ${data.filter((one) => one.relevant.includes(true)).length}`,
);
await report('first stage only          ', dev, rankerWith(entries, false));
await report('reranked, cross-validated ', dev, crossValidated);
await report('reranked, in-sample       ', dev, rankerWith(entries, whole));
console.log('weights (standardised features), whole dev half; range over folds:');
RERANK_FEATURES.forEach((name, index) => {
  const perFold = models.map((model) => model.weights[index] ?? 0);
  console.log(
    `  ${name.padEnd(24)} ${(whole.weights[index] ?? 0).toFixed(3).padStart(7)}  [${Math.min(...perFold).toFixed(3)}, ${Math.max(...perFold).toFixed(3)}]`,
  );
});
if (process.argv.includes('--write')) {
  const command = `npx tsx bench/search/train-reranker.ts --depth ${depth} --l2 ${l2} --steps ${steps} --write`;
  const path = join(here, '..', '..', 'packages', 'registry', 'src', 'meta', 'tool-search-rerank-weights.ts');
  const text = weightsFile(whole, command);
  await writeFile(path, await prettierFormat(text, { ...(await resolveConfig(path)), filepath: path }));
  console.log(`wrote ${path}`);
}
