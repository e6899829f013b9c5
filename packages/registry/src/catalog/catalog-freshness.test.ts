import { describe, expect, it } from 'vitest';
import type { CatalogRead } from './catalog-reader.js';
import { catalogFreshness } from './catalog-freshness.js';

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
    expect(notes.get('mcp:down')).toBe('server unreachable since 2026-01-02T03:04:05.000Z; tools may be out of date');
  });
});
