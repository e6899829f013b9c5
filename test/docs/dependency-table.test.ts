import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
// The table `no-restricted-imports` enforces (a JavaScript file, so loaded by URL).
const { IMPORTS } = (await import(new URL('../../eslint.config.js', import.meta.url).href)) as {
  IMPORTS: Record<string, { allowed: string[] }>;
};

async function sourceFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

// The package table of docs/architecture.md, as eslint.config.js enforces it, against package.json
// and the imports the sources really make.
describe('the dependency table', () => {
  for (const [workspace, { allowed }] of Object.entries(IMPORTS)) {
    it(`${workspace}: package.json lists the workspaces it imports, and only allowed ones`, async () => {
      const manifest = JSON.parse(await readFile(join(root, workspace, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      const listed = Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith('@agentq/'));
      const imported = new Set<string>();
      for (const file of await sourceFiles(join(root, workspace, 'src'))) {
        const text = await readFile(file, 'utf8');
        for (const match of text.matchAll(/from '(@agentq\/[a-z-]+)[^']*'|import\('(@agentq\/[a-z-]+)[^']*'\)/g)) {
          imported.add((match[1] ?? match[2]) as string);
        }
      }
      expect(listed.filter((name) => !allowed.includes(name))).toEqual([]);
      expect([...imported].filter((name) => !listed.includes(name)).sort()).toEqual([]);
      expect(listed.filter((name) => !imported.has(name)).sort()).toEqual([]);
    });
  }
});
