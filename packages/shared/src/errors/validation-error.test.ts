import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { runSpecSchema } from '../schemas/run-spec.js';
import { ValidationError } from './validation-error.js';

function errorOf(schema: z.ZodType, value: unknown): ValidationError {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return ValidationError.fromZod('run spec', parsed.error);
}

describe('ValidationError.fromZod', () => {
  it('names the field inside a union that no branch matched', () => {
    const error = errorOf(runSpecSchema, { assistant: { model: 'scripted:demo' }, input: { prompt: 42 } });
    expect(error.field).toBe('input.prompt');
    expect(error.message).toContain('input.prompt');
    expect(error.message).not.toContain('Unrecognized key');
  });

  it('follows the branch that came closest, at any depth', () => {
    const schema = z.object({
      outer: z.union([
        z.object({ a: z.object({ b: z.number() }) }),
        z.object({ c: z.string(), d: z.object({ e: z.string() }) }),
      ]),
    });
    expect(errorOf(schema, { outer: { a: { b: 'x' } } }).field).toBe('outer.a.b');
    expect(errorOf(schema, { outer: { c: 'x', d: { e: 1 } } }).field).toBe('outer.d.e');
  });

  it('keeps a plain issue as it is', () => {
    expect(errorOf(z.object({ n: z.number() }), { n: 'x' }).issues).toEqual([
      { field: 'n', message: expect.stringContaining('expected number') },
    ]);
  });

  it('names the first unknown key of an object, at the top and inside', () => {
    const decision = z.strictObject({ approved: z.boolean() });
    expect(errorOf(decision, { approved: true, decidedBy: 'bob' }).field).toBe('decidedBy');
    expect(
      errorOf(runSpecSchema, { assistant: { model: 'scripted:demo', typo: 1 }, input: { prompt: 'p' } }).field,
    ).toBe('assistant.typo');
  });
});
