import type { CatalogRead, CatalogReader } from '@agentq/registry';
import { describe, expect, it } from 'vitest';
import { memoizeCatalogReads } from './memoize-catalog-reads.js';

describe('memoizeCatalogReads', () => {
  it('reads each server once per build and only the missing ones', async () => {
    const asked: string[][] = [];
    const reader: CatalogReader = {
      readMany: async (ids) => {
        asked.push([...ids]);
        return new Map(
          ids.map((id) => [id, { serverId: id, state: 'empty', tools: [], definition: null } as CatalogRead]),
        );
      },
      listTools: async () => {
        throw new Error('not used');
      },
      listServers: async () => [],
    };
    const memo = memoizeCatalogReads(reader);
    await memo.readMany(['a', 'b']);
    const again = await memo.readMany(['b', 'a', 'c']);
    expect([...again.keys()]).toEqual(['b', 'a', 'c']);
    expect((await memo.listTools('a')).serverId).toBe('a');
    expect(asked).toEqual([['a', 'b'], ['c']]);
  });
});
