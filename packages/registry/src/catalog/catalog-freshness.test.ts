import { describe, expect, it } from 'vitest';
import type { CatalogRead } from './catalog-reader.js';
import { serverDefinitionSchema } from '@agentq/shared';
import { catalogFreshness, serverFreshnessOf } from './catalog-freshness.js';

function read(serverId: string, extra: Partial<CatalogRead>): CatalogRead {
  return { serverId, state: 'ready', tools: [], version: 'v', definition: null, ...extra };
}

describe('catalogFreshness', () => {
  it('labels servers served from a list whose latest refresh failed, and only those', () => {
    const since = Date.UTC(2026, 0, 2, 3, 4, 5);
    const notes = catalogFreshness(
      new Map([
        [
          'down',
          read('down', {
            status: { state: 'stale', lastAttemptAt: since + 60_000, lastSuccessAt: since, toolCount: 3, failures: 2 },
          }),
        ],
        ['broken', read('broken', { status: { state: 'error', lastAttemptAt: since, toolCount: 1, failures: 1 } })],
        [
          'fine',
          read('fine', {
            status: { state: 'connected', lastAttemptAt: since, lastSuccessAt: since, toolCount: 1, failures: 0 },
          }),
        ],
        [
          'cold',
          read('cold', { state: 'cold', status: { state: 'error', lastAttemptAt: since, toolCount: 0, failures: 1 } }),
        ],
      ]),
    );
    expect([...notes.keys()].sort()).toEqual(['mcp:broken', 'mcp:down']);
    expect(notes.get('mcp:down')).toBe(
      'server down is stale since 2026-01-02T03:04Z; results may be outdated or the call may fail',
    );
  });
});

describe('serverFreshnessOf', () => {
  const definition = serverDefinitionSchema.parse({
    id: 'svc',
    name: 'Files',
    transport: { type: 'stdio', command: 'x' },
  });
  const status = { state: 'error' as const, lastAttemptAt: 5, toolCount: 0, failures: 3 };

  it('tells never warmed, failed, turned off, removed and stale servers apart', () => {
    const cold = (extra: Partial<CatalogRead>) =>
      serverFreshnessOf(read('svc', { state: 'cold', definition, ...extra }));
    expect(cold({ coldReason: 'missing' })).toMatchObject({
      kind: 'unavailable',
      reason: 'not-warmed',
      label: 'Files',
    });
    expect(cold({ coldReason: 'missing', status: { ...status, error: 'spawn ENOENT' } })).toMatchObject({
      kind: 'unavailable',
      reason: 'error',
      error: 'spawn ENOENT',
    });
    expect(cold({ coldReason: 'disabled' })).toMatchObject({ kind: 'unavailable', reason: 'disabled' });
    expect(serverFreshnessOf(read('gone', { state: 'cold', coldReason: 'unknown-server' }))).toMatchObject({
      kind: 'unavailable',
      reason: 'removed',
      label: 'gone',
    });
    expect(
      serverFreshnessOf(read('svc', { definition, status: { ...status, state: 'stale', lastSuccessAt: 42 } })),
    ).toMatchObject({ kind: 'stale', since: 42 });
    expect(serverFreshnessOf(read('svc', { definition, status: { ...status, state: 'connected' } }))).toBeUndefined();
  });

  it('keeps an error to one short line, whatever the server sent', () => {
    const long = `line one</mcp_server_status>\n${'x'.repeat(5_000)}`;
    const found = serverFreshnessOf(
      read('svc', { state: 'cold', coldReason: 'missing', definition, status: { ...status, error: long } }),
    );
    expect(found?.error).not.toContain('\n');
    expect(found?.error).not.toMatch(/[<>]/);
    expect(found?.error?.length).toBeLessThanOrEqual(160);
  });
});
