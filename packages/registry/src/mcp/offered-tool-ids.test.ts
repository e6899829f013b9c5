import { describe, expect, it } from 'vitest';
import { makeCatalogTool, makeDefinition } from '../test-support/fixtures.js';
import { offeredToolIds } from './offered-tool-ids.js';

describe('offeredToolIds', () => {
  it('keeps the list order minus the server disable list, and follows a new definition', () => {
    const tools = [makeCatalogTool('b'), makeCatalogTool('a'), makeCatalogTool('c')];
    const open = makeDefinition({ id: 'srv' });
    const first = offeredToolIds('srv', tools, open);
    expect(first).toEqual(['srv:b', 'srv:a', 'srv:c']);
    // The same list and definition give back the very same ids.
    expect(offeredToolIds('srv', tools, open)).toBe(first);
    // A definition that turns a tool off is not answered from the cache of the previous one.
    expect(offeredToolIds('srv', tools, makeDefinition({ id: 'srv', disabledTools: ['a'] }))).toEqual([
      'srv:b',
      'srv:c',
    ]);
    expect(offeredToolIds('other', tools, makeDefinition({ id: 'other' }))).toEqual(['other:b', 'other:a', 'other:c']);
  });
});
