/**
 * Prints the CLI reference of docs/cli.md: the help of every `agentq` command, generated from the
 * CLI's own command tree, so the reference lists exactly the options the CLI takes.
 *
 *   npx tsx scripts/cli-reference.ts           # print the reference
 *   npx tsx scripts/cli-reference.ts --write   # replace it in docs/cli.md between the markers
 *   npx tsx scripts/cli-reference.ts --check   # exit 1 when docs/cli.md's reference is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildProgram } from '@agentq/cli';

type Command = ReturnType<typeof buildProgram>;

/** The file that holds the generated reference, relative to the repository root. */
export const CLI_REFERENCE_FILE = 'docs/cli.md';

/** Marker lines around the generated reference in docs/cli.md. */
export const CLI_REFERENCE_START = '<!-- cli-reference:start -->';
export const CLI_REFERENCE_END = '<!-- cli-reference:end -->';

/** Help lines are wrapped at this width whatever the terminal, so the text is the same everywhere. */
const HELP_WIDTH = 100;

function commandsOf(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  const out = [{ path, command }];
  for (const sub of command.commands) out.push(...commandsOf(sub, [...path, sub.name()]));
  return out;
}

/** The markdown reference: one fenced help text per command, the program's own first. */
export function renderCliReference(): string {
  const program = buildProgram({ out: () => undefined, err: () => undefined, env: {} }, () => undefined);
  return commandsOf(program)
    .map(({ path, command }) => {
      command.configureHelp({ helpWidth: HELP_WIDTH });
      const title = ['agentq', ...path].join(' ');
      return `#### \`${title}\`\n\n\`\`\`text\n${command.helpInformation().trimEnd()}\n\`\`\``;
    })
    .join('\n\n');
}

/** The text between the markers, or `null` when either marker is missing. */
export function readCliReference(markdown: string): string | null {
  const start = markdown.indexOf(CLI_REFERENCE_START);
  const end = markdown.indexOf(CLI_REFERENCE_END);
  if (start === -1 || end === -1 || end < start) return null;
  return markdown.slice(start + CLI_REFERENCE_START.length, end).trim();
}

/** `markdown` with the text between the markers replaced by `reference`. */
export function replaceCliReference(markdown: string, reference: string): string {
  if (readCliReference(markdown) === null) {
    throw new Error(`missing ${CLI_REFERENCE_START} / ${CLI_REFERENCE_END} markers`);
  }
  const start = markdown.indexOf(CLI_REFERENCE_START) + CLI_REFERENCE_START.length;
  const end = markdown.indexOf(CLI_REFERENCE_END);
  return `${markdown.slice(0, start)}\n\n${reference}\n\n${markdown.slice(end)}`;
}

function main(argv: readonly string[]): number {
  const target = resolve(dirname(fileURLToPath(import.meta.url)), '..', CLI_REFERENCE_FILE);
  const reference = renderCliReference();
  if (argv.includes('--write')) {
    writeFileSync(target, replaceCliReference(readFileSync(target, 'utf8'), reference));
    return 0;
  }
  if (argv.includes('--check')) {
    const upToDate = readCliReference(readFileSync(target, 'utf8')) === reference;
    if (!upToDate)
      process.stderr.write('docs/cli.md CLI reference is out of date: run scripts/cli-reference.ts --write\n');
    return upToDate ? 0 : 1;
  }
  process.stdout.write(`${reference}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
