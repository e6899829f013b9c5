import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { parseWith, safeParseJson } from './safe-parse-json.js';

const schema = z.strictObject({ name: z.string(), count: z.number().int() });

describe('safeParseJson', () => {
  it('returns the parsed value', () => {
    expect(safeParseJson('{"name":"a","count":2}', schema)).toEqual({ success: true, data: { name: 'a', count: 2 } });
  });

  it('reports broken JSON with code INVALID_JSON and never throws', () => {
    const result = safeParseJson('{"name":', schema, 'cache entry');
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toBeInstanceOf(ValidationError);
    expect(result.error.code).toBe('INVALID_JSON');
    expect(result.error.message).toContain('cache entry');
  });

  it('reports a schema failure with code VALIDATION naming the field', () => {
    const result = safeParseJson('{"name":"a","count":"two"}', schema);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.code).toBe('VALIDATION');
    expect(result.error.field).toBe('count');
    expect(result.error.message).toContain('count');
  });

  it('reports a missing value', () => {
    for (const text of [null, undefined]) {
      const result = safeParseJson(text, schema);
      expect(result.success).toBe(false);
      if (!result.success) expect(result.error.code).toBe('VALIDATION');
    }
  });
});

describe('parseWith', () => {
  it('returns parsed data or throws a ValidationError naming the field', () => {
    expect(parseWith(schema, { name: 'a', count: 1 }, 'thing')).toEqual({ name: 'a', count: 1 });
    let caught: unknown;
    try {
      parseWith(schema, { name: 1, count: 1 }, 'thing');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).field).toBe('name');
  });
});
