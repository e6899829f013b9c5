import { afterEach, describe, expect, it, vi } from 'vitest';
import { validateToolInput } from './validate-tool-input.js';
import { toolInputSchema } from './tool-input-schema.js';
import { withoutRegexKeywords } from './without-regex-keywords.js';

// Each of these backtracks exponentially in JavaScript on a run of `a` followed by `!`. The run is
// kept short enough that a regression fails on the spy below instead of hanging the suite.
const CATASTROPHIC = ['^(a|a)+$', '^(a+)+$', '^(\\w+\\s?)*$'];
const HOSTILE_INPUT = `${'a'.repeat(16)}!`;

/** The sources of every regular expression run while `body` runs. */
async function patternsRunDuring(body: () => Promise<void>): Promise<string[]> {
  const sources: string[] = [];
  const { exec, test } = RegExp.prototype;
  vi.spyOn(RegExp.prototype, 'test').mockImplementation(function (this: RegExp, text: string) {
    sources.push(this.source);
    return test.call(this, text);
  });
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    sources.push(this.source);
    return exec.call(this, text);
  });
  await body();
  vi.restoreAllMocks();
  return sources;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('toolInputSchema and a server-supplied pattern', () => {
  it.each(CATASTROPHIC)('never runs the pattern %s on the call, in any schema position', async (pattern) => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string', pattern },
        tags: { type: 'array', items: { type: 'string', pattern } },
        either: { anyOf: [{ type: 'string', pattern }, { type: 'number' }] },
        named: { $ref: '#/$defs/named' },
        labels: { type: 'object', propertyNames: { pattern } },
      },
      required: ['title'],
      $defs: { named: { type: 'string', pattern } },
    };
    const input = {
      title: HOSTILE_INPUT,
      tags: [HOSTILE_INPUT],
      either: HOSTILE_INPUT,
      named: HOSTILE_INPUT,
      labels: { [HOSTILE_INPUT]: 1 },
    };
    const validator = toolInputSchema(schema);
    const run = await patternsRunDuring(async () => {
      expect(await validateToolInput(validator, input)).toEqual({ success: true, value: input });
    });
    expect(run).not.toContain(pattern);
  });

  it('still checks everything else about the call', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string', pattern: '^(a|a)+$', maxLength: 10 }, count: { type: 'integer' } },
      required: ['title'],
    };
    const tooLong = await validateToolInput(toolInputSchema(schema), { title: HOSTILE_INPUT });
    expect(tooLong.success).toBe(false);
    const wrongType = await validateToolInput(toolInputSchema(schema), { title: 'aaa', count: 'three' });
    expect(wrongType).toMatchObject({ success: false, error: { message: expect.stringContaining('count') } });
    expect(await validateToolInput(toolInputSchema(schema), {})).toMatchObject({ success: false });
  });

  it('keys matched by patternProperties are not checked against additionalProperties: false', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' } },
      patternProperties: { '^(x|x)+$': { type: 'number' } },
      additionalProperties: false,
    };
    const input = { id: 'a', [`${'x'.repeat(16)}!`]: 2 };
    const validator = toolInputSchema(schema);
    const run = await patternsRunDuring(async () => {
      expect(await validateToolInput(validator, input)).toEqual({ success: true, value: input });
    });
    expect(run).not.toContain('^(x|x)+$');
  });
});

describe('withoutRegexKeywords', () => {
  it('keeps a property that is named pattern, and leaves the given schema as it was', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^a+$', description: 'a glob' },
        patternProperties: { type: 'object' },
      },
      pattern: 'not-a-string-schema-keyword-here',
    };
    const copy = JSON.parse(JSON.stringify(schema)) as typeof schema;
    expect(withoutRegexKeywords(schema)).toEqual({
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'a glob' },
        patternProperties: { type: 'object' },
      },
    });
    expect(schema).toEqual(copy);
  });

  it('walks tuples, conditionals, dependencies and definitions, and keeps name lists', () => {
    const p = { type: 'string', pattern: '^(a|a)+$' };
    const stripped = withoutRegexKeywords({
      prefixItems: [p],
      items: [p],
      if: p,
      then: p,
      else: p,
      not: p,
      dependencies: { a: ['b'], c: p },
      definitions: { d: p },
      additionalProperties: p,
    });
    expect(JSON.stringify(stripped)).not.toContain('pattern');
    expect(stripped).toMatchObject({ dependencies: { a: ['b'], c: { type: 'string' } } });
  });

  it('does not give a __proto__ property name any special meaning', () => {
    const schema = JSON.parse('{"properties":{"__proto__":{"type":"string","pattern":"^a+$"}}}') as unknown;
    const stripped = withoutRegexKeywords(schema) as { properties: Record<string, unknown> };
    expect(Object.getPrototypeOf(stripped.properties)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(stripped.properties, '__proto__')?.value).toEqual({ type: 'string' });
  });
});
