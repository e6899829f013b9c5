/**
 * Prints the error table of docs/errors.md, generated from `ERROR_CODES`.
 *
 *   npx tsx scripts/error-table.ts           # print the table
 *   npx tsx scripts/error-table.ts --write   # replace the table in docs/errors.md between the markers
 *   npx tsx scripts/error-table.ts --check   # exit 1 when docs/errors.md's table is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_CODES, type ErrorCodeInfo } from '@agentq/shared';
import { readMarkedSection, replaceMarkedSection, tableCells } from './config-table.js';

/** The file that holds the generated table, relative to the repository root. */
export const ERROR_TABLE_FILE = 'docs/errors.md';

/** Marker lines around the generated table in docs/errors.md. */
export const ERROR_TABLE_START = '<!-- error-table:start -->';
export const ERROR_TABLE_END = '<!-- error-table:end -->';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** The markdown table of every error code: HTTP status, CLI exit code, retryability and meaning. */
export function renderErrorTable(codes: Readonly<Record<string, ErrorCodeInfo>> = ERROR_CODES): string {
  const rows = Object.entries(codes)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([code, info]) => {
      const meaning = info.aliasOf ? `${info.description} Same as \`${info.aliasOf}\`.` : info.description;
      return `| \`${code}\` | ${info.status} | ${info.exitCode} | ${info.retryable ? 'yes' : 'no'} | ${cell(meaning)} |`;
    });
  return ['| Code | HTTP | Exit | Retried | Meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

const errorMarkers = { start: ERROR_TABLE_START, end: ERROR_TABLE_END };

/** The text between the markers, or `null` when either marker is missing. */
export function readErrorTable(markdown: string): string | null {
  return readMarkedSection(markdown, errorMarkers);
}

function main(argv: readonly string[]): number {
  const target = resolve(dirname(fileURLToPath(import.meta.url)), '..', ERROR_TABLE_FILE);
  const table = renderErrorTable();
  const markdown = readFileSync(target, 'utf8');
  const current = readErrorTable(markdown);
  if (argv.includes('--write')) {
    writeFileSync(target, replaceMarkedSection(markdown, errorMarkers, table));
    return 0;
  }
  if (argv.includes('--check')) {
    const upToDate = current !== null && JSON.stringify(tableCells(current)) === JSON.stringify(tableCells(table));
    if (!upToDate)
      process.stderr.write('docs/errors.md error table is out of date: run scripts/error-table.ts --write\n');
    return upToDate ? 0 : 1;
  }
  process.stdout.write(`${table}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
