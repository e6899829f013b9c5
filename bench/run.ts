import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getTestRedis } from '../test/helpers/redis.js';
import type { BenchFigure, BenchSuite } from './bench-types.js';

// `npm run bench [-- --quick] [-- suite-name ...]`: runs every suite in bench/suites, prints one
// table, and writes bench/results/<timestamp>.json. Each suite measures its own baseline in the
// same run and reports ratios, because absolute times on a shared 2-core machine mean little.
const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((arg) => !arg.startsWith('--'));

const files = (await readdir(join(here, 'suites'))).filter((file) => file.endsWith('.ts')).sort();
const suites: BenchSuite[] = [];
for (const file of files) {
  const module = (await import(pathToFileURL(join(here, 'suites', file)).href)) as { default: BenchSuite };
  if (only.length === 0 || only.includes(module.default.name)) suites.push(module.default);
}
if (suites.length === 0) {
  console.log('no benchmarks yet');
  process.exit(0);
}

const redis = await getTestRedis();
const results: Array<{ suite: string; description: string; figures: BenchFigure[]; error?: string }> = [];
try {
  for (const suite of suites) {
    console.error(`running ${suite.name}…`);
    try {
      const figures = await suite.run({ redisUrl: redis.url, quick });
      results.push({ suite: suite.name, description: suite.description, figures });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`suite ${suite.name} failed: ${message}`);
      results.push({ suite: suite.name, description: suite.description, figures: [], error: message });
    }
  }
} finally {
  await redis.stop();
}

const rows = results.flatMap((result) =>
  result.error
    ? [[result.suite, 'ERROR', '', '', result.error.split('\n')[0] ?? '']]
    : result.figures.map((figure) => [
        result.suite,
        figure.name,
        formatValue(figure.value),
        figure.unit,
        figure.goal ? `${figure.goal} ${figure.pass ? 'ok' : 'MISSED'}` : '',
      ]),
);
const header = ['suite', 'figure', 'value', 'unit', 'goal'];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
console.log(line(header));
console.log(widths.map((width) => '-'.repeat(width)).join('  '));
for (const row of rows) console.log(line(row));

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const out = join(here, 'results', `${stamp}.json`);
await mkdir(dirname(out), { recursive: true });
await writeFile(out, JSON.stringify({ at: new Date().toISOString(), node: process.version, quick, results }, null, 2));
console.log(`\nwrote ${out}`);
process.exit(results.some((result) => result.error) ? 1 : 0);

function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(1) : value.toPrecision(4);
}
