import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { configVariables, type ConfigVariable } from '@agentq/shared';
import {
  CONFIG_TABLE_END,
  CONFIG_TABLE_FILE,
  CONFIG_TABLE_START,
  readConfigTable,
  renderConfigTable,
  replaceConfigTable,
  tableCells,
} from '../../scripts/config-table.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the configuration table in docs/configuration.md', () => {
  it('matches the table generated from configVariables (run scripts/config-table.ts --write)', () => {
    const current = readConfigTable(readFileSync(join(root, CONFIG_TABLE_FILE), 'utf8'));
    expect(current, `${CONFIG_TABLE_FILE} has the config-table markers`).not.toBeNull();
    expect(tableCells(current!)).toEqual(tableCells(renderConfigTable()));
  });
});

describe('renderConfigTable', () => {
  it('has one row per variable with its default, or a dash when it has none', () => {
    const rows = tableCells(renderConfigTable());
    expect(rows[0]).toEqual(['Variable', 'Default', 'Description']);
    expect(rows.slice(1).map((row) => row[0])).toEqual(configVariables.map((variable) => `\`${variable.env}\``));
    const byName = new Map(rows.slice(1).map((row) => [row[0], row]));
    expect(byName.get('`REDIS_URL`')?.[1]).toBe('`redis://127.0.0.1:6379`');
    expect(byName.get('`AGENTQ_API_TOKEN`')?.[1]).toBe('—');
    expect(byName.get('`AGENTQ_API_TOKEN`')?.[2]).toContain('Secret');
  });

  it('escapes pipes so a description cannot break the table', () => {
    const variables: ConfigVariable[] = [
      { env: 'A_B', key: 'ab', schema: z.string(), default: 'x|y', description: 'one | two' },
    ];
    expect(tableCells(renderConfigTable(variables))[1]).toEqual(['`A_B`', '`x\\|y`', 'one \\| two']);
  });

  it('notices drift: a changed description gives different cells', () => {
    const changed = configVariables.map((variable, index) =>
      index === 0 ? { ...variable, description: `${variable.description} (changed)` } : variable,
    );
    expect(tableCells(renderConfigTable(changed))).not.toEqual(tableCells(renderConfigTable()));
  });
});

describe('readConfigTable and replaceConfigTable', () => {
  const document = `# Title\n\nintro\n\n${CONFIG_TABLE_START}\nold table\n${CONFIG_TABLE_END}\n\n## After\n`;

  it('read and replace only the text between the markers', () => {
    expect(readConfigTable(document)).toBe('old table');
    const replaced = replaceConfigTable(document, '| new |');
    expect(readConfigTable(replaced)).toBe('| new |');
    expect(replaced.startsWith('# Title\n\nintro\n\n')).toBe(true);
    expect(replaced.endsWith(`${CONFIG_TABLE_END}\n\n## After\n`)).toBe(true);
  });

  it('report missing markers', () => {
    expect(readConfigTable('# nothing here')).toBeNull();
    expect(() => replaceConfigTable('# nothing here', 'x')).toThrow();
  });
});
