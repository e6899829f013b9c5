import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { bulkySchema, makeEntry, makeTool } from '../test-support/fixtures.js';
import { estimateToolTokens } from './estimate-tool-tokens.js';
import {
  DEFAULT_CONTEXT_WINDOW,
  deferThreshold,
  META_TOOLS_OVERHEAD_TOKENS,
  MIN_AUTO_DEFER_COUNT,
  shouldDefer,
} from './should-defer.js';

function pool(count: number, options: { bulky?: boolean; defer?: 'auto' | 'always' | 'never' } = {}) {
  return Array.from({ length: count }, (_, index) =>
    makeEntry(`tool_${index}`, {
      defer: options.defer ?? 'auto',
      tool: makeTool({
        description: `Tool number ${index}.`,
        schema: options.bulky ? bulkySchema(index) : { type: 'object' },
      }),
    }),
  );
}

function cost(entries: ReturnType<typeof pool>) {
  return entries.reduce((sum, entry) => sum + estimateToolTokens(entry), 0);
}

describe('estimateToolTokens', () => {
  it('counts the tokens of JSON.stringify({ name, description, schema }) with the o200k tokenizer', () => {
    const schema = bulkySchema(1);
    const entry = makeEntry('search_issues', { tool: makeTool({ description: 'Search issues.', schema }) });
    const expected = countTokens(JSON.stringify({ name: 'search_issues', description: 'Search issues.', schema }));
    expect(estimateToolTokens(entry)).toBe(expected);
  });

  it('counts a per-run wrapper like its registry tool, and a changed description anew', () => {
    const tool = makeTool({ description: 'Search issues.', schema: bulkySchema(2) });
    const wrapped = { ...tool, needsApproval: true };
    const renamed = { ...tool, description: 'Search issues and pull requests in a repository.' };
    expect(estimateToolTokens(makeEntry('a', { tool: wrapped }))).toBe(estimateToolTokens(makeEntry('a', { tool })));
    expect(estimateToolTokens(makeEntry('a', { tool: renamed }))).toBeGreaterThan(
      estimateToolTokens(makeEntry('a', { tool })),
    );
  });

  it('grows with the schema', () => {
    const small = makeEntry('a', { tool: makeTool({ schema: { type: 'object' } }) });
    const large = makeEntry('a', { tool: makeTool({ schema: bulkySchema(1) }) });
    expect(estimateToolTokens(large)).toBeGreaterThan(estimateToolTokens(small));
  });
});

describe('shouldDefer', () => {
  it('threshold is 10% of the context window; missing or zero means 32 000', () => {
    expect(DEFAULT_CONTEXT_WINDOW).toBe(32_000);
    expect(deferThreshold(undefined)).toBe(3_200);
    expect(deferThreshold(0)).toBe(3_200);
    expect(deferThreshold(128_001)).toBe(12_800);
  });

  it('defers the whole auto pool when it is large, costly and above the overhead', () => {
    const entries = pool(20, { bulky: true });
    expect(cost(entries)).toBeGreaterThan(3_200);
    expect(shouldDefer(entries).size).toBe(20);
  });

  it('does not defer a pool below MIN_AUTO_DEFER_COUNT, however costly', () => {
    expect(MIN_AUTO_DEFER_COUNT).toBe(5);
    const entries = pool(4, { bulky: true });
    expect(shouldDefer(entries, 1_000).size).toBe(0);
    expect(shouldDefer(pool(5, { bulky: true }), 1_000).size).toBe(5);
  });

  it('does not defer a pool whose cost is at or below the threshold', () => {
    const entries = pool(20, { bulky: true });
    const total = cost(entries);
    expect(shouldDefer(entries, total * 10).size).toBe(0);
    expect(shouldDefer(entries, total * 10 - 10).size).toBe(20);
  });

  it('does not defer a pool whose cost is at or below the meta tools overhead, even over a tiny threshold', () => {
    expect(META_TOOLS_OVERHEAD_TOKENS).toBe(500);
    const entries = pool(6);
    expect(cost(entries)).toBeLessThanOrEqual(500);
    expect(shouldDefer(entries, 100).size).toBe(0);
  });

  it('always defers `always` and never defers `never`', () => {
    const always = pool(1, { defer: 'always' }).map((entry) => ({ ...entry, name: 'always_one' }));
    const never = pool(30, { bulky: true, defer: 'never' });
    const deferred = shouldDefer([...always, ...never]);
    expect([...deferred]).toEqual(['always_one']);
  });
});
