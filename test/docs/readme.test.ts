import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_INSTALL_COMMAND } from '../browser/launch-chromium.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's `## Quickstart` section. */
function quickstart(): string {
  const start = readme.indexOf('\n## Quickstart');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** Prose lines: outside code fences, not table rows. */
function proseLines(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced && !/^\s*(```|\|)/.test(line);
  });
}

// The README is what a newcomer reads first: what agentq is, the two commands with everything they
// need, the demo and links. References live in docs/.
describe('README.md', () => {
  it('lists every prerequisite of its two commands, Chromium with the line that installs it', () => {
    const section = quickstart();
    expect(section).toContain('npm ci && npm start');
    expect(section).toMatch(/^npm test\b/m);
    expect(section).toMatch(/Node\.js 20/);
    expect(section).toMatch(/Redis/);
    expect(section).toContain(CHROMIUM_INSTALL_COMMAND);
  });

  it('stays a short introduction whose prose lines wrap at about 100 characters', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
    expect(proseLines(readme).filter((line) => line.length > 100)).toEqual([]);
  });

  it('leaves the generated references to docs/', () => {
    expect(readme).not.toContain('<!-- cli-reference:start -->');
    expect(readme).not.toContain('<!-- config-table:start -->');
  });
});
