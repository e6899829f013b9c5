import { describe, expect, it } from 'vitest';
import { checkElicitationContent } from './check-elicitation-content.js';

const schemaOf = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

describe('checkElicitationContent', () => {
  it('accepts content that fits and names the field that does not', () => {
    const schema = schemaOf({ env: { type: 'string', enum: ['staging', 'prod'] }, n: { type: 'integer' } }, ['env']);
    expect(checkElicitationContent({ env: 'staging', n: 2 }, schema)).toBeUndefined();
    expect(checkElicitationContent({ n: 2 }, schema)).toBe('field env is required');
    expect(checkElicitationContent({ env: 'dev' }, schema)).toBe('field env is not one of the allowed values');
    expect(checkElicitationContent({ env: 'prod', n: 1.5 }, schema)).toBe('field n must be an integer');
    expect(checkElicitationContent({ env: 'prod', other: 1 }, schema)).toBe('field other was not asked for');
  });

  it('reads only what the server sent, never what every object inherits', () => {
    // A format named like an inherited member is unknown, not a crash.
    const weird = schemaOf({ a: { type: 'string', format: 'constructor' }, b: { type: 'string', format: 'toString' } });
    expect(checkElicitationContent({ a: 'x', b: 'y' }, weird)).toBeUndefined();
    expect(checkElicitationContent({ a: 'x' }, schemaOf({ a: { type: 'string', format: 'email' } }))).toBe(
      'field a is not a valid email',
    );
    // A required field named like an inherited member must still be given.
    expect(checkElicitationContent({}, schemaOf({ toString: { type: 'string' } }, ['toString']))).toBe(
      'field toString is required',
    );
    // Content keys that name inherited members were not asked for.
    const parsed = JSON.parse('{"constructor":"x","__proto__":"y"}') as Record<string, unknown>;
    expect(checkElicitationContent(parsed, schemaOf({ a: { type: 'string' } }))).toMatch(/was not asked for$/);
  });
});
