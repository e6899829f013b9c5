import { describe, expect, it } from 'vitest';
import { makeTool } from '../test-support/fixtures.js';
import { renderToolSignature } from './render-tool-signature.js';

describe('renderToolSignature', () => {
  it('renders description, required and optional params, and the function line', () => {
    const text = renderToolSignature(
      'mcp__fs__readFile',
      makeTool({
        description: 'Read a file.\nReturns its text.',
        schema: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'Path to read' },
            head: { type: 'integer', description: 'First N lines' },
            mode: { type: 'string', enum: ['text', 'base64'] },
            tags: { type: 'array', items: { type: 'string' } },
            maybe: { type: ['string', 'null'] },
          },
          required: ['path'],
        },
      }),
    );
    expect(text.split('\n')).toEqual([
      '/**',
      ' * Read a file.',
      ' * Returns its text.',
      ' * @param {object} params',
      ' * @param {string} params.path - Path to read (required)',
      ' * @param {number} [params.head] - First N lines',
      ' * @param {"text"|"base64"} [params.mode]',
      ' * @param {string[]} [params.tags]',
      ' * @param {string|null} [params.maybe]',
      ' */',
      'function mcp__fs__readFile(params) {}',
    ]);
  });

  it('spells out nested objects to depth 5 and no deeper', () => {
    let schema: Record<string, unknown> = { type: 'object', properties: { leaf: { type: 'string' } } };
    for (let depth = 7; depth >= 1; depth -= 1) {
      schema = { type: 'object', properties: { [`l${depth}`]: schema }, required: [`l${depth}`] };
    }
    const text = renderToolSignature('deep', makeTool({ schema }));
    expect(text).toContain('@param {object} params.l1.l2.l3.l4.l5 - (required)');
    expect(text).not.toContain('params.l1.l2.l3.l4.l5.l6');
  });

  it('describes items of arrays of objects', () => {
    const text = renderToolSignature(
      'edit',
      makeTool({
        schema: {
          type: 'object',
          properties: {
            edits: {
              type: 'array',
              items: { type: 'object', properties: { oldText: { type: 'string' } }, required: ['oldText'] },
            },
          },
        },
      }),
    );
    expect(text).toContain('@param {object[]} [params.edits]');
    expect(text).toContain('@param {string} params.edits[].oldText - (required)');
  });
});
