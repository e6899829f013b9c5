import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStoreScripts } from './store-scripts.js';

describe('readStoreScripts', () => {
  const scripts = [...readStoreScripts().values()];

  it('finds the scripts of the store', () => {
    expect(scripts.length).toBeGreaterThan(0);
  });

  it.each(scripts.map((script) => [script.command, script] as const))(
    '%s documents each of its KEYS and an ARGV section in its header',
    (_command, script) => {
      const header = /^--\[\[([\s\S]*?)\]\]/.exec(script.lua)?.[1];
      expect(header, 'a --[[ … ]] header comment opens the script').toBeDefined();
      for (let index = 1; index <= script.numberOfKeys; index++) {
        expect(header).toContain(`KEYS[${index}]`);
      }
      expect(header).not.toContain(`KEYS[${script.numberOfKeys + 1}]`);
      const usesArgv = /ARGV\[\d+\]/.test(script.lua.slice(script.lua.indexOf(']]')));
      if (usesArgv) expect(header).toMatch(/ARGV\[1\]/);
    },
  );

  it('refuses a file not named <name>-<numkeys>.lua', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-scripts-'));
    writeFileSync(join(dir, 'NoKeys.lua'), 'return 1');
    expect(() => readStoreScripts(`${dir}/`)).toThrow(/not named <name>-<numkeys>\.lua/);
  });

  it('names commands in camel case from the file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-scripts-'));
    writeFileSync(join(dir, 'catalog-write-entry-3.lua'), '--[[ KEYS[1] KEYS[2] KEYS[3] ]]\nreturn 1');
    const [script] = readStoreScripts(`${dir}/`).values();
    expect(script).toMatchObject({ command: 'catalogWriteEntry', numberOfKeys: 3 });
  });
});
