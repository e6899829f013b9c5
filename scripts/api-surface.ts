/**
 * Writes or checks the public surface of every workspace: the names each entry point exports, with
 * their kind, one file per workspace in `api/<workspace>.api.txt`. A change to what a package
 * exports shows up in review as a change to its report, and `test/docs/api-surface.test.ts` fails
 * until the report is written again.
 *
 *   npx tsx scripts/api-surface.ts           # print every report
 *   npx tsx scripts/api-surface.ts --write   # rewrite api/*.api.txt
 *   npx tsx scripts/api-surface.ts --check   # exit 1 when a report is out of date
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The folder of the reports, relative to the repository root. */
export const API_REPORT_DIR = 'api';

interface Workspace {
  /** `@agentq/shared` */
  name: string;
  /** Entry points: the `exports` subpath (`.`, `./html-to-markdown`) → its source file. */
  entries: Array<{ subpath: string; file: string }>;
}

function workspaces(): Workspace[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  const found: Workspace[] = [];
  for (const folder of manifest.workspaces) {
    const path = join(repoRoot, folder, 'package.json');
    if (!existsSync(path)) continue;
    const own = JSON.parse(readFileSync(path, 'utf8')) as { name: string; exports?: Record<string, unknown> };
    const entries = Object.entries(own.exports ?? {})
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].endsWith('.ts'))
      .map(([subpath, file]) => ({ subpath, file: join(repoRoot, folder, file) }));
    if (entries.length > 0) found.push({ name: own.name, entries });
  }
  return found;
}

function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  if (flags & ts.SymbolFlags.Class) return 'class';
  if (flags & ts.SymbolFlags.Function) return 'function';
  if (flags & ts.SymbolFlags.Enum) return 'enum';
  if (flags & ts.SymbolFlags.Variable) return 'const';
  if (flags & ts.SymbolFlags.Interface) return 'interface';
  if (flags & ts.SymbolFlags.TypeAlias) return 'type';
  return 'other';
}

/** The report of every workspace with a TypeScript entry point, by workspace name. */
export function apiReports(): Map<string, string> {
  const all = workspaces();
  const program = ts.createProgram(
    all.flatMap((workspace) => workspace.entries.map((entry) => entry.file)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  for (const workspace of all) {
    const lines = [`# ${workspace.name}: public surface (written by scripts/api-surface.ts)`];
    for (const entry of workspace.entries) {
      const source = program.getSourceFile(entry.file);
      const moduleSymbol = source ? checker.getSymbolAtLocation(source) : undefined;
      const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
      lines.push('', `## ${entry.subpath}`);
      for (const symbol of [...exported].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        lines.push(`${kindOf(symbol, checker)} ${symbol.name}`);
      }
    }
    reports.set(workspace.name, `${lines.join('\n')}\n`);
  }
  return reports;
}

/** The report file of one workspace: `api/agentq-shared.api.txt` for `@agentq/shared`. */
export function reportFileOf(name: string): string {
  return join(API_REPORT_DIR, `${name.replace(/^@/, '').replace(/\//g, '-')}.api.txt`);
}

/** Workspaces whose written report differs from their surface, with every stale or unknown report file. */
export function staleReports(reports = apiReports()): string[] {
  const stale: string[] = [];
  const expected = new Set<string>();
  for (const [name, report] of reports) {
    const file = reportFileOf(name);
    expected.add(file);
    const path = join(repoRoot, file);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== report) stale.push(file);
  }
  const dir = join(repoRoot, API_REPORT_DIR);
  if (existsSync(dir)) {
    for (const file of readdirSync(dir)) {
      if (!expected.has(join(API_REPORT_DIR, file))) stale.push(join(API_REPORT_DIR, file));
    }
  }
  return stale;
}

function main(argv: string[]): void {
  const reports = apiReports();
  if (argv.includes('--write')) {
    mkdirSync(join(repoRoot, API_REPORT_DIR), { recursive: true });
    for (const [name, report] of reports) writeFileSync(join(repoRoot, reportFileOf(name)), report);
    return;
  }
  if (argv.includes('--check')) {
    const stale = staleReports(reports);
    if (stale.length > 0) {
      process.stderr.write(`out of date: ${stale.join(', ')}; run npx tsx scripts/api-surface.ts --write\n`);
      process.exit(1);
    }
    return;
  }
  for (const report of reports.values()) process.stdout.write(`${report}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
