import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, headingSlug, markdownLinks } from './markdown-links.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Where a relative link of `from` fails to land, or undefined when it lands. */
function brokenLink(from: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  const file = path === '' ? join(root, from) : resolve(dirname(join(root, from)), decodeURIComponent(path));
  if (!existsSync(file)) return `no file ${relative(root, file)}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!statSync(file).isFile() || !file.endsWith('.md')) return `anchor #${anchor} on a file that is not Markdown`;
  return headingAnchors(readFileSync(file, 'utf8')).has(anchor)
    ? undefined
    : `no heading #${anchor} in ${relative(root, file)}`;
}

describe('links in README.md and docs/', () => {
  it('finds the documents and their links', () => {
    expect(documents).toContain('docs/cli.md');
    expect(documents).toContain('docs/configuration.md');
    expect(markdownLinks(readFileSync(join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
  });

  it.each(documents)('every relative link and anchor of %s points at a file and heading that exist', (document) => {
    const broken = markdownLinks(readFileSync(join(root, document), 'utf8'))
      .filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target))
      .map((link) => ({ ...link, problem: brokenLink(document, link.target) }))
      .filter((link) => link.problem !== undefined);
    expect(broken).toEqual([]);
  });
});

describe('the link checker', () => {
  it('slugs headings as GitHub does', () => {
    expect(headingSlug('The demo, step by step')).toBe('the-demo-step-by-step');
    expect(headingSlug('Builtin tools (packages/builtin-tools)')).toBe('builtin-tools-packagesbuiltin-tools');
    expect([...headingAnchors('# A\n## `agentq run`\n## A\n```\n# not a heading\n```\n')]).toEqual([
      'a',
      'agentq-run',
      'a-1',
    ]);
  });

  it('sees links outside code only, and reports a missing file or heading', () => {
    const links = markdownLinks('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n![i](img.png "t") [d](#h)');
    expect(links.map((link) => link.target)).toEqual(['x.md', 'img.png', '#h']);
    expect(brokenLink('README.md', 'docs/nope.md')).toMatch(/no file/);
    expect(brokenLink('README.md', 'docs/cli.md#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', 'docs/cli.md#agentq-run')).toBeUndefined();
  });
});
