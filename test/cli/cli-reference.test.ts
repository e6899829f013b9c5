import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CLI_REFERENCE_END,
  CLI_REFERENCE_FILE,
  CLI_REFERENCE_START,
  readCliReference,
  renderCliReference,
  replaceCliReference,
} from '../../scripts/cli-reference.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the CLI reference in docs/cli.md', () => {
  it('matches the help of every command (run scripts/cli-reference.ts --write)', () => {
    const current = readCliReference(readFileSync(join(root, CLI_REFERENCE_FILE), 'utf8'));
    expect(current, `${CLI_REFERENCE_FILE} has the cli-reference markers`).not.toBeNull();
    expect(current).toBe(renderCliReference());
  });

  it('covers every command and option the CLI takes', () => {
    const reference = renderCliReference();
    for (const title of [
      'agentq run',
      'agentq approvals approve',
      'agentq servers add',
      'agentq dev',
      'agentq catalog',
    ]) {
      expect(reference).toContain(`#### \`${title}\``);
    }
    for (const option of [
      '--timeout <ms>',
      '--max-steps <n>',
      '--run-id <id>',
      '--port <port>',
      '--always-ask <tool>',
    ]) {
      expect(reference).toContain(option);
    }
  });
});

describe('replaceCliReference', () => {
  it('replaces only the text between the markers and reports missing ones', () => {
    const document = `# T\n\n${CLI_REFERENCE_START}\nold\n${CLI_REFERENCE_END}\n\n## After\n`;
    const replaced = replaceCliReference(document, 'new');
    expect(readCliReference(replaced)).toBe('new');
    expect(replaced.endsWith(`${CLI_REFERENCE_END}\n\n## After\n`)).toBe(true);
    expect(() => replaceCliReference('# none', 'x')).toThrow();
  });
});
