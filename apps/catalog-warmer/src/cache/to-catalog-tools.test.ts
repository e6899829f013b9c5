import { describe, expect, it } from 'vitest';
import { toCatalogTools } from './to-catalog-tools.js';

const objectSchema = { type: 'object', properties: { q: { type: 'string' } } };

describe('toCatalogTools', () => {
  it('skips only the tool whose input schema is not an object, and keeps its siblings', () => {
    const { tools, skipped } = toCatalogTools([
      { name: 'b', inputSchema: objectSchema },
      { name: 'bad', inputSchema: { type: 'string' } },
      { name: 'a', description: 'first', inputSchema: objectSchema },
    ]);
    expect(tools.map((tool) => tool.name)).toEqual(['a', 'b']);
    expect(skipped).toEqual([{ name: 'bad', reason: expect.any(String) }]);
  });

  it('drops fields the cache does not keep and a non-object output schema', () => {
    const { tools, skipped } = toCatalogTools([
      {
        name: 'x',
        title: 'X',
        inputSchema: objectSchema,
        outputSchema: { type: 'array' },
        icons: [{ src: 'data:' }],
        _meta: { a: 1 },
        annotations: { readOnlyHint: true },
      },
    ]);
    expect(tools).toEqual([{ name: 'x', title: 'X', inputSchema: objectSchema, annotations: { readOnlyHint: true } }]);
    expect(skipped.map((entry) => entry.name)).toEqual(['x']);
  });

  it('keeps the first of two tools with one name, and rejects nameless items', () => {
    const { tools, skipped } = toCatalogTools([
      { name: 'x', description: 'one', inputSchema: objectSchema },
      { name: 'x', description: 'two', inputSchema: objectSchema },
      { inputSchema: objectSchema },
      null,
    ]);
    expect(tools).toHaveLength(1);
    expect(tools[0]?.description).toBe('one');
    expect(skipped).toHaveLength(3);
  });

  it('gives the same output whatever order the server lists in', () => {
    const items = [
      { name: 'c', inputSchema: objectSchema },
      { name: 'a', inputSchema: objectSchema },
      { name: 'b', inputSchema: objectSchema },
    ];
    expect(toCatalogTools(items).tools).toEqual(toCatalogTools([...items].reverse()).tools);
  });

  it('cuts long descriptions and titles with a note, and skips only a tool whose input schema nests too deep', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 10; level += 1) deep = { type: 'object', properties: { inner: deep } };
    const { tools, skipped } = toCatalogTools(
      [
        { name: 'long', title: 't'.repeat(100), description: 'd'.repeat(100), inputSchema: objectSchema },
        { name: 'deep', inputSchema: deep },
        { name: 'deep-output', inputSchema: objectSchema, outputSchema: deep },
      ],
      { maxDescriptionChars: 40, maxSchemaDepth: 6 },
    );
    expect(tools.map((tool) => tool.name)).toEqual(['deep-output', 'long']);
    const long = tools.find((tool) => tool.name === 'long');
    expect(long?.description).toHaveLength(40);
    expect(long?.description?.endsWith('… [truncated]')).toBe(true);
    expect(long?.title?.endsWith('… [truncated]')).toBe(true);
    expect(tools.find((tool) => tool.name === 'deep-output')?.outputSchema).toBeUndefined();
    expect(skipped.map((entry) => entry.name)).toEqual(['deep', 'deep-output']);
  });
});
