/**
 * Prints the configuration table of docs/configuration.md, generated from `configVariables`.
 *
 *   npx tsx scripts/config-table.ts           # print the table
 *   npx tsx scripts/config-table.ts --write   # replace the table in docs/configuration.md between the markers
 *   npx tsx scripts/config-table.ts --check   # exit 1 when docs/configuration.md's table is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { configVariables, type ConfigVariable } from '@agentq/shared';

/** The file that holds the generated table, relative to the repository root. */
export const CONFIG_TABLE_FILE = 'docs/configuration.md';

/** Marker lines around the generated table in docs/configuration.md. */
export const CONFIG_TABLE_START = '<!-- config-table:start -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** The markdown table of every environment variable: name, default and description. */
export function renderConfigTable(variables: readonly ConfigVariable[] = configVariables): string {
  const rows = variables.map((variable) => {
    const fallback = variable.default === undefined ? '—' : `\`${cell(variable.default)}\``;
    const description = variable.secret ? `${variable.description} Secret: never logged.` : variable.description;
    return `| \`${variable.env}\` | ${fallback} | ${cell(description)} |`;
  });
  return ['| Variable | Default | Description |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The text between two marker lines, or `null` when either marker is missing. */
export function readMarkedSection(markdown: string, markers: { start: string; end: string }): string | null {
  const start = markdown.indexOf(markers.start);
  const end = markdown.indexOf(markers.end);
  if (start === -1 || end === -1 || end < start) return null;
  return markdown.slice(start + markers.start.length, end).trim();
}

/** `markdown` with the text between two marker lines replaced by `text`. */
export function replaceMarkedSection(markdown: string, markers: { start: string; end: string }, text: string): string {
  if (readMarkedSection(markdown, markers) === null)
    throw new Error(`missing ${markers.start} / ${markers.end} markers`);
  const start = markdown.indexOf(markers.start) + markers.start.length;
  return `${markdown.slice(0, start)}\n\n${text}\n\n${markdown.slice(markdown.indexOf(markers.end))}`;
}

const configMarkers = { start: CONFIG_TABLE_START, end: CONFIG_TABLE_END };

/** The text between the markers, or `null` when either marker is missing. */
export function readConfigTable(markdown: string): string | null {
  return readMarkedSection(markdown, configMarkers);
}

/** `markdown` with the text between the markers replaced by `table`. */
export function replaceConfigTable(markdown: string, table: string): string {
  return replaceMarkedSection(markdown, configMarkers, table);
}

/**
 * The cells of a markdown table, row by row, without the separator row. Comparing cells rather
 * than text lets Prettier pad the generated table without making it "differ".
 */
export function tableCells(table: string): string[][] {
  return table
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((text) => text.trim()),
    )
    .filter((cells) => !cells.every((text) => /^:?-+:?$/.test(text)));
}

function main(argv: readonly string[]): number {
  const target = resolve(dirname(fileURLToPath(import.meta.url)), '..', CONFIG_TABLE_FILE);
  const table = renderConfigTable();
  if (argv.includes('--write')) {
    writeFileSync(target, replaceConfigTable(readFileSync(target, 'utf8'), table));
    return 0;
  }
  if (argv.includes('--check')) {
    const current = readConfigTable(readFileSync(target, 'utf8'));
    const upToDate = current !== null && JSON.stringify(tableCells(current)) === JSON.stringify(tableCells(table));
    if (!upToDate)
      process.stderr.write(
        'docs/configuration.md configuration table is out of date: run scripts/config-table.ts --write\n',
      );
    return upToDate ? 0 : 1;
  }
  process.stdout.write(`${table}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
