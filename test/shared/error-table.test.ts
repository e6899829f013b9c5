import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '@agentq/shared';
import { tableCells } from '../../scripts/config-table.js';
import { ERROR_TABLE_FILE, readErrorTable, renderErrorTable } from '../../scripts/error-table.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the error table in docs/errors.md', () => {
  it('matches the table generated from ERROR_CODES (run scripts/error-table.ts --write)', () => {
    const current = readErrorTable(readFileSync(join(root, ERROR_TABLE_FILE), 'utf8'));
    expect(current, `${ERROR_TABLE_FILE} has the error-table markers`).not.toBeNull();
    expect(tableCells(current!)).toEqual(tableCells(renderErrorTable()));
  });

  it('has one row per code with its status, exit code and retryability', () => {
    const rows = tableCells(renderErrorTable()).slice(1);
    expect(rows.map((row) => row[0]!.replaceAll('`', '')).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const byCode = new Map(rows.map((row) => [row[0], row]));
    expect(byCode.get('`NOT_FOUND`')?.slice(1, 4)).toEqual(['404', '3', 'no']);
    expect(byCode.get('`UNAVAILABLE`')?.slice(1, 4)).toEqual(['503', '5', 'yes']);
    expect(byCode.get('`REDIS_UNAVAILABLE`')?.[4]).toContain('`UNAVAILABLE`');
  });

  it('notices drift: a changed status gives different cells', () => {
    const changed = { ...ERROR_CODES, NOT_FOUND: { ...ERROR_CODES.NOT_FOUND, status: 410 } };
    expect(tableCells(renderErrorTable(changed))).not.toEqual(tableCells(renderErrorTable()));
  });

  it('is linked from the REST and CLI docs', () => {
    for (const file of ['docs/rest.md', 'docs/cli.md']) {
      expect(readFileSync(join(root, file), 'utf8'), file).toContain('errors.md');
    }
  });
});
